/**
 * CertificateSigningRequests (upstream pkg/registry/certificates/certificates/strategy.go):
 * - create: the requester fields (spec.username, uid, groups, extra) are
 *   cleared here and set from the authenticated user by admission
 *   (apiserver/admission/csr-requester.ts); status starts empty, so nobody
 *   creates a pre-approved request;
 * - update of the object: spec and status are kept (a CSR is immutable
 *   except through its subresources);
 * - /status: keeps the spec and the Approved/Denied conditions as they were
 *   (issuing a certificate is not approving it);
 * - /approval: keeps the spec and the certificate; only Approved/Denied
 *   conditions come from the request, the others stay as stored;
 * - conditions get lastUpdateTime and lastTransitionTime when missing, an
 *   unchanged type+status keeping its old transition time.
 */
import type { CertificateSigningRequest, CertificateSigningRequestCondition } from 'kubernetes-types/certificates/v1.js';
import type { ResourceInfo } from '../../api/resources.js';
import type { Strategy } from '../strategy.js';
import { rfc3339 } from '../../util/clock.js';
import { genericStrategy } from './generic.js';

const approvalTypes = ['Approved', 'Denied'];

/** The old instance of each Approved/Denied condition replaces the new one; added ones fail validation. */
function preserveApprovalConditions(csr: CertificateSigningRequest, old: CertificateSigningRequest): void {
  const conditions = csr.status?.conditions;
  if (!conditions) return;
  for (const t of approvalTypes) {
    const olds = (old.status?.conditions ?? []).filter((c) => c.type === t);
    let n = 0;
    conditions.forEach((c, i) => { if (c.type === t && n < olds.length) conditions[i] = olds[n++]!; });
  }
}

function populateConditionTimestamps(csr: CertificateSigningRequest, old: CertificateSigningRequest | undefined, now: string): void {
  for (const c of csr.status?.conditions ?? []) {
    c.lastUpdateTime ||= now;
    if (!c.lastTransitionTime) {
      const same = (old?.status?.conditions ?? []).find((o: CertificateSigningRequestCondition) => o.type === c.type && o.status === c.status && o.lastTransitionTime);
      c.lastTransitionTime = same?.lastTransitionTime ?? now;
    }
  }
}

export function csrStrategy(info: ResourceInfo, now: () => Date): Strategy {
  const base = genericStrategy(info);
  return {
    ...base,
    prepareForCreate(csr: CertificateSigningRequest) {
      base.prepareForCreate(csr);
      if (csr.spec) for (const f of ['username', 'uid', 'groups', 'extra'] as const) delete csr.spec[f];
      csr.status = {};
    },
    prepareForUpdate(csr: CertificateSigningRequest, old: CertificateSigningRequest) {
      base.prepareForUpdate(csr, old);
      csr.spec = old.spec;
    },
    prepareForStatusUpdate(csr: CertificateSigningRequest, old: CertificateSigningRequest, subresource?: string) {
      base.prepareForStatusUpdate(csr, old);
      csr.status ??= {};
      if (subresource === 'approval') {
        const approval = (csr.status.conditions ?? []).filter((c) => approvalTypes.includes(c.type));
        const others = (old.status?.conditions ?? []).filter((c) => !approvalTypes.includes(c.type));
        csr.status = { ...old.status, conditions: [...approval, ...others] };
        if (!csr.status.conditions!.length) delete csr.status.conditions;
      } else {
        preserveApprovalConditions(csr, old);
      }
      populateConditionTimestamps(csr, old, rfc3339(now()));
    },
  };
}
