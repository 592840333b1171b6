/**
 * When csrcleaner deletes a request (upstream
 * pkg/controller/certificates/cleaner/cleaner.go), any of:
 * 1. issued (approved with a certificate) and approved more than 1 h ago;
 * 2. denied more than 1 h ago;
 * 3. failed more than 1 h ago;
 * 4. pending (no conditions) and created more than 24 h ago;
 * 5. issued and its certificate has expired.
 * Condition ages count from lastUpdateTime.
 */
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { certificateInfo, pemBlocks } from '../../pki/index.js';

const HOUR = 3600_000;
export const approvedExpirationMs = HOUR;
export const deniedExpirationMs = HOUR;
export const pendingExpirationMs = 24 * HOUR;

const olderThan = (ts: string | undefined, ms: number, now: number) => !!ts && Date.parse(ts) + ms < now;
const isIssued = (csr: CertificateSigningRequest) => !!csr.status?.certificate;
const conditions = (csr: CertificateSigningRequest) => csr.status?.conditions ?? [];

function isIssuedExpired(csr: CertificateSigningRequest, now: number): boolean {
  if (!isIssued(csr)) return false;
  let pem: string;
  try { pem = Buffer.from(csr.status!.certificate!, 'base64').toString('latin1'); } catch { return false; }
  return pemBlocks(pem).some((block) => {
    try { return certificateInfo(block).notAfter.getTime() < now; } catch { return false; }
  });
}

/** Why the cleaner deletes `csr` now, or undefined to keep it. */
export function cleanupReason(csr: CertificateSigningRequest, now: number): string | undefined {
  const cs = conditions(csr);
  if (isIssued(csr) && cs.some((c) => c.type === 'Approved' && olderThan(c.lastUpdateTime, approvedExpirationMs, now))) return 'issued, approved over an hour ago';
  if (cs.some((c) => c.type === 'Denied' && olderThan(c.lastUpdateTime, deniedExpirationMs, now))) return 'denied over an hour ago';
  if (cs.some((c) => c.type === 'Failed' && olderThan(c.lastUpdateTime, deniedExpirationMs, now))) return 'failed over an hour ago';
  if (cs.length === 0 && olderThan(csr.metadata?.creationTimestamp, pendingExpirationMs, now)) return 'pending for over a day';
  if (isIssuedExpired(csr, now)) return 'its certificate has expired';
  return undefined;
}
