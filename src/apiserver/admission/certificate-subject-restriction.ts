/**
 * CertificateSubjectRestriction (upstream's plugin/pkg/admission/certificates/
 * subjectrestriction, on by default): a new CertificateSigningRequest for the
 * `kubernetes.io/kube-apiserver-client` signer may not ask for the
 * `system:masters` group. That group passes every authorization check before
 * RBAC is asked, so such a certificate would be a cluster admin no binding
 * can take back; it is refused at create with upstream's 403, whoever might
 * approve it later. Other signers and the CSR's subresources are not checked.
 */
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { kubeAPIServerClientSignerName } from '../../api/csr.js';
import type { ResourceInfo } from '../../api/resources.js';
import { forbiddenStatus } from '../../api/status.js';
import { parseCertificateRequest } from '../../pki/index.js';

const csrs = { group: 'certificates.k8s.io', resource: 'certificatesigningrequests' };

export function certificateSubjectRestriction(op: 'create' | 'update', info: ResourceInfo, csr: CertificateSigningRequest, opts: { subresource?: string }): Promise<void> | undefined {
  if (op !== 'create' || opts.subresource || info.group !== csrs.group || info.plural !== csrs.resource) return undefined;
  if (csr.spec?.signerName !== kubeAPIServerClientSignerName) return undefined;
  const name = csr.metadata?.name;
  // spec.request is the PEM's bytes, base64 in JSON; validation has already checked that it parses.
  return parseCertificateRequest(Buffer.from(csr.spec.request ?? '', 'base64').toString('latin1')).then((req) => {
    if (!req) throw forbiddenStatus('failed to parse CSR: PEM block type must be CERTIFICATE REQUEST', csrs, name);
    if (req.organizations.includes('system:masters')) {
      throw forbiddenStatus(`use of ${kubeAPIServerClientSignerName} signer with system:masters group is not allowed`, csrs, name);
    }
  });
}
