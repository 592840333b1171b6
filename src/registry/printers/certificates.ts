/**
 * certificates.k8s.io/v1 CertificateSigningRequest:
 * NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION, as upstream's
 * printCertificateSigningRequest.
 */
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { ageColumn, docColumn, nameColumn } from './columns.js';
import { humanDuration, timestampSince } from './duration.js';
import type { KindPrinter, TableRow } from './types.js';

/**
 * extractCSRStatus, in order of precedence: Denied, else Approved, else
 * Pending; then ",Failed" when a Failed condition exists and ",Issued" once a
 * certificate is present.
 */
export function csrCondition(csr: CertificateSigningRequest): string {
  const types = new Set((csr.status?.conditions ?? []).map((c) => c.type));
  let status = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) status += ',Failed';
  if (csr.status?.certificate) status += ',Issued';
  return status;
}

export const csrPrinter: KindPrinter = {
  columns: [
    nameColumn(),
    ageColumn(),
    docColumn('SignerName', 'certificatesv1beta1.CertificateSigningRequestSpec.signerName'),
    docColumn('Requestor', 'certificatesv1beta1.CertificateSigningRequestSpec.request'),
    docColumn('RequestedDuration', 'certificatesv1beta1.CertificateSigningRequestSpec.expirationSeconds'),
    docColumn('Condition', 'certificatesv1beta1.CertificateSigningRequestStatus.conditions'),
  ],
  row(csr: CertificateSigningRequest, ctx): TableRow {
    const seconds = csr.spec?.expirationSeconds;
    return {
      cells: [
        csr.metadata?.name ?? '', timestampSince(csr.metadata?.creationTimestamp, ctx.now), csr.spec?.signerName || '<none>',
        csr.spec?.username ?? '', seconds === undefined || seconds === null ? '<none>' : humanDuration(seconds * 1000), csrCondition(csr),
      ],
    };
  },
};
