/**
 * Client certificate rotation (upstream k8s.io/client-go/util/certificate
 * manager): at a random point between 70 % and 90 % of the certificate's
 * life the kubelet asks for a new one with a fresh key, through a CSR it
 * makes as itself (csrapproving's selfnodeclient path), stores it and
 * switches its connections to it without a restart. A failed attempt is
 * retried with back-off (2 s doubling to 5 min).
 */
import { certificateInfo, generateKeyPair } from '../../pki/index.js';
import type { ResourceClient } from '../../client/index.js';
import type { Logger } from '../../util/log.js';
import type { ClientCertificateStore } from './store.js';
import { requestNodeCertificate } from './request.js';

/** nextRotationDeadline: notBefore + (70–90 % of the lifetime), `random` in [0, 1). */
export function rotationDeadline(notBefore: number, notAfter: number, random: number): number {
  return notBefore + (notAfter - notBefore) * (0.7 + 0.2 * random);
}

// setTimeout fires at once beyond 2^31-1 ms; a far deadline is reached in steps.
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface RotationOptions {
  csrs: ResourceClient;
  store: ClientCertificateStore;
  nodeName: string;
  logger: Logger;
  /** Called with the new pair once it is stored (switch the client's connections). */
  onRotated(certPem: string, keyPem: string): void;
  random?: () => number;
  now?: () => number;
  /** How long one request waits to be signed (upstream 15 min). */
  waitTimeoutMs?: number;
}

export class ClientCertificateRotation {
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private backoffMs = 2_000;
  /** Ends a wait for a request in flight when the kubelet stops. */
  private readonly abort = new AbortController();

  constructor(private readonly opts: RotationOptions) {}

  /** Schedules the first rotation from the stored certificate. */
  start(): void { this.schedule(); }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.abort.abort();
  }

  private now(): number { return (this.opts.now ?? Date.now)(); }

  private schedule(): void {
    const current = this.opts.store.current();
    if (!current || this.stopped) return;
    const info = certificateInfo(current.certPem);
    const deadline = rotationDeadline(info.notBefore.getTime(), info.notAfter.getTime(), (this.opts.random ?? Math.random)());
    this.opts.logger.info('Certificate rotation deadline determined', { expiration: info.notAfter.toISOString(), deadline: new Date(deadline).toISOString() });
    this.waitUntil(deadline, () => void this.rotate());
  }

  private waitUntil(at: number, fn: () => void): void {
    const ms = at - this.now();
    if (ms <= 0) { fn(); return; }
    this.timer = setTimeout(() => this.waitUntil(at, fn), Math.min(ms, MAX_TIMER_MS));
  }

  private async rotate(): Promise<void> {
    if (this.stopped) return;
    this.opts.logger.info('Rotating certificates', { node: this.opts.nodeName });
    try {
      const { keyPem } = generateKeyPair();
      const certPem = await requestNodeCertificate({
        csrs: this.opts.csrs, nodeName: this.opts.nodeName, keyPem, digestName: false, timeoutMs: this.opts.waitTimeoutMs ?? 15 * 60_000,
        logger: this.opts.logger, signal: this.abort.signal,
      });
      if (this.stopped) return;
      this.opts.store.update(certPem, keyPem);
      this.opts.onRotated(certPem, keyPem);
      this.backoffMs = 2_000;
      this.opts.logger.info('Certificate rotated', { node: this.opts.nodeName, expiration: certificateInfo(certPem).notAfter.toISOString() });
      this.schedule();
    } catch (e) {
      if (this.stopped) return;
      this.opts.logger.warn('Failed while requesting a signed certificate from the control plane', { err: (e as Error).message, retryInMs: this.backoffMs });
      this.timer = setTimeout(() => void this.rotate(), this.backoffMs);
      this.backoffMs = Math.min(this.backoffMs * 2, 5 * 60_000);
    }
  }
}
