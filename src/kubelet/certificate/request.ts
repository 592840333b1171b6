/**
 * Asking the API for a kubelet client certificate (upstream
 * k8s.io/client-go/util/certificate/csr): a CSR for CN system:node:<name>,
 * O system:nodes, signer kubernetes.io/kube-apiserver-client-kubelet, usages
 * digital signature + client auth (an ECDSA key needs no key encipherment);
 * then wait, on a watch, until it is issued, denied or failed.
 */
import { createHash, createPublicKey } from 'node:crypto';
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { isAlreadyExists, isNotFound, type ResourceClient } from '../../client/index.js';
import { createCertificateRequest } from '../../pki/index.js';
import { kubeAPIServerClientKubeletSignerName } from '../../api/csr.js';
import type { Logger } from '../../util/log.js';

export const nodeClientUsages = ['digital signature', 'client auth'];
const nodesGroup = 'system:nodes';

/**
 * digestedName: node-csr- and a hash of the public key, subject and usages,
 * so a kubelet that restarts mid-bootstrap finds its own request again.
 */
export function digestedName(keyPem: string, commonName: string, organizations: string[], usages: string[]): string {
  const hash = createHash('sha512-256');
  const write = (data: Buffer | string) => { hash.update(Buffer.from(data).toString('base64url')); hash.update('|'); };
  write(createPublicKey(keyPem).export({ type: 'spki', format: 'der' }));
  write(commonName);
  for (const o of organizations) write(o);
  for (const u of usages) write(u);
  return `node-csr-${hash.digest('base64url')}`;
}

export interface NodeCertificateRequest {
  csrs: ResourceClient;
  nodeName: string;
  keyPem: string;
  /** Bootstrap: node-csr-<digest>; rotation: generated (csr-xxxxx), as upstream. */
  digestName: boolean;
  timeoutMs: number;
  logger: Logger;
  /** Aborted when the kubelet stops: the wait ends at once instead of holding the process. */
  signal?: AbortSignal;
}

/** Creates (or finds) the request and resolves with the issued certificate PEM. */
export async function requestNodeCertificate(r: NodeCertificateRequest): Promise<string> {
  const commonName = `system:node:${r.nodeName}`;
  const pem = await createCertificateRequest({ keyPem: r.keyPem, commonName, organizations: [nodesGroup] });
  const name = r.digestName ? digestedName(r.keyPem, commonName, [nodesGroup], nodeClientUsages) : undefined;
  const csr: CertificateSigningRequest = {
    apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest',
    metadata: name ? { name } : { generateName: 'csr-' },
    spec: { request: Buffer.from(pem).toString('base64'), signerName: kubeAPIServerClientKubeletSignerName, usages: nodeClientUsages },
  };
  let created: CertificateSigningRequest;
  try {
    created = await r.csrs.create(undefined, csr);
  } catch (e) {
    if (!name || !isAlreadyExists(e)) throw e;
    created = await r.csrs.get(undefined, name);
  }
  return waitForCertificate(r.csrs, created.metadata!.name!, r);
}

/** The certificate, or upstream's words for a denied or failed request; undefined while pending. */
export function certificateOutcome(csr: CertificateSigningRequest): { certPem: string } | { error: string } | undefined {
  for (const c of csr.status?.conditions ?? []) {
    if (c.type === 'Denied') return { error: `certificate signing request is denied, reason: ${c.reason ?? ''}, message: ${c.message ?? ''}` };
    if (c.type === 'Failed') return { error: `certificate signing request failed, reason: ${c.reason ?? ''}, message: ${c.message ?? ''}` };
  }
  if (csr.status?.certificate) return { certPem: Buffer.from(csr.status.certificate, 'base64').toString('utf8') };
  return undefined;
}

export interface WaitOptions {
  timeoutMs: number;
  logger: Logger;
  signal?: AbortSignal;
}

/**
 * Waits on a watch of the one request, reading it again at every event and
 * at least every RECHECK_MS. A failed read or watch (a dropped connection, a
 * 403) is logged and retried until the deadline, as upstream's
 * UntilWithSync retries its list and watch: it never ends the wait silently
 * nor makes the caller abandon an approved request for a new one. The
 * timeout error names the request and says what to do.
 */
export async function waitForCertificate(csrs: ResourceClient, name: string, o: WaitOptions): Promise<string> {
  const deadline = Date.now() + o.timeoutMs;
  for (;;) {
    if (o.signal?.aborted) throw new Error(`stopped waiting for certificate signing request "${name}"`);
    const csr = await readRequest(csrs, name, o.logger);
    const outcome = csr && certificateOutcome(csr);
    if (outcome && 'error' in outcome) throw new Error(outcome.error);
    if (outcome) return outcome.certPem;
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      throw new Error(`timed out waiting for certificate signing request "${name}" to be approved and issued `
        + `(approve it with: kubectl certificate approve ${name}; or let csrapproving approve it)`);
    }
    await nextChange(csrs, name, csr?.metadata?.resourceVersion, Math.min(remaining, RECHECK_MS), o);
  }
}

/** The request, or undefined after a logged transient failure; a deleted request ends the wait in upstream's words. */
async function readRequest(csrs: ResourceClient, name: string, logger: Logger): Promise<CertificateSigningRequest | undefined> {
  try {
    return await csrs.get(undefined, name);
  } catch (e) {
    if (isNotFound(e)) throw new Error(`csr "${name}" was deleted`);
    logger.warn('Unable to read the certificate signing request, retrying', { csr: name, err: (e as Error).message });
    return undefined;
  }
}

/** How long one wait trusts its watch before reading the request again: a missed event must not stall a rotation. */
const RECHECK_MS = 5_000;

/**
 * Resolves at the first watch event on the request after `resourceVersion`,
 * when the watch ends, on abort, or after `ms`; without a resourceVersion
 * (the read failed) it only waits.
 */
async function nextChange(csrs: ResourceClient, name: string, resourceVersion: string | undefined, ms: number, o: WaitOptions): Promise<void> {
  let wake!: () => void;
  const woken = new Promise<void>((resolve) => { wake = resolve; });
  const timer = setTimeout(() => wake(), ms);
  o.signal?.addEventListener('abort', wake);
  // Even a watch that never opens cannot hold the wait past `ms`; one that fails to open waits for the timer.
  const watching = resourceVersion === undefined ? undefined
    : csrs.watch(undefined, { fieldSelector: `metadata.name=${name}`, resourceVersion, timeoutSeconds: Math.max(1, Math.ceil(ms / 1000)) }, () => wake());
  watching?.catch((e) => o.logger.warn('Unable to watch the certificate signing request, retrying', { csr: name, err: (e as Error).message }));
  await Promise.race([woken, ...(watching ? [watching.then((w) => w.done, () => woken)] : [])]);
  clearTimeout(timer);
  o.signal?.removeEventListener('abort', wake);
  watching?.then((w) => w.close(), () => undefined);
}
