/**
 * An admission webhook server for tests: HTTPS on loopback with its own CA
 * (made with the project's X.509 library), answering AdmissionReviews with a
 * handler the test gives, and keeping every review it received.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCA, issueCertificate } from '../../src/pki/index.js';

export interface ReviewRequest { uid: string; operation: string; object?: any; oldObject?: any; dryRun?: boolean; [k: string]: unknown }
export type ReviewAnswer = { allowed: boolean; status?: Record<string, unknown>; patch?: unknown[]; warnings?: string[]; auditAnnotations?: Record<string, string> };
/** Answers a review; `undefined` never answers (a hung webhook). */
export type ReviewHandler = (request: ReviewRequest, path: string) => ReviewAnswer | undefined;

export interface WebhookServer {
  port: number;
  /** base64 of the CA's PEM: a caBundle. */
  caBundle: string;
  /** Reviews received, by path. */
  reviews: Map<string, ReviewRequest[]>;
  url(path: string): string;
  close(): Promise<void>;
}

/** Starts a webhook server whose certificate is valid for 127.0.0.1 and the given DNS names. */
export async function startWebhookServer(handler: ReviewHandler, opts: { dnsNames?: string[]; delayMs?: (path: string) => number } = {}): Promise<WebhookServer> {
  const ca = await createCA({ commonName: 'webhook-test-ca', days: 1 });
  const leaf = await issueCertificate({ ca, commonName: 'webhook', dnsNames: opts.dnsNames ?? [], ipAddresses: ['127.0.0.1'], usages: ['server'], days: 1 });
  const reviews = new Map<string, ReviewRequest[]>();
  const server = https.createServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'https://x').pathname;
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const list = reviews.get(path) ?? [];
      list.push(review.request);
      reviews.set(path, list);
      const answer = handler(review.request, path);
      if (!answer) return; // hangs until the caller gives up
      const { patch, ...rest } = answer;
      const response: Record<string, unknown> = { uid: review.request.uid, ...rest };
      if (patch) { response.patchType = 'JSONPatch'; response.patch = Buffer.from(JSON.stringify(patch)).toString('base64'); }
      res.setHeader('Content-Type', 'application/json');
      const reply = () => res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response }));
      // A slow webhook (opts.delayMs): its answer leaves that much later.
      const delay = opts.delayMs?.(path) ?? 0;
      if (delay > 0) setTimeout(reply, delay); else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port, reviews, caBundle: Buffer.from(ca.certPem).toString('base64'),
    url: (path) => `https://127.0.0.1:${port}${path}`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
