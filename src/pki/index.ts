/**
 * k8ts PKI: keys, certificates, CSR signing, the cluster's PKI directory and
 * kubeconfigs. A leaf layer: it imports nothing of ours.
 */
export { createCA, issueCertificate, signCertificateRequest, createCertificateRequest, parseCertificateRequest } from './certificates.js';
export type { CertificateAuthority, CertificateSubject, CertificateUsage, IssueCertificateOptions, SignRequestResult, RequestedCertificate } from './certificates.js';
export { checkCertificateRequest } from './request.js';
export { signingProfile, signingDurationMs } from './csr-profile.js';
export type { SigningProfile } from './csr-profile.js';
export { caCertHash, certificateInfo, isIssuedBy, pemBlocks, parseSubjectAltName, subjectOf } from './info.js';
export type { CertificateInfo } from './info.js';
export { canonicalIP, coversHosts, splitHosts } from './hosts.js';
export { generateKeyPair, publicKeyPemOf } from './keys.js';
export type { KeyPairPem } from './keys.js';
export {
  ensureClusterPKI, clusterPKIPaths, clusterPKIPathsIn, servingHosts,
  ADMIN_GROUP, ADMIN_USER, KUBELET_CLIENT_USER, CONTROLLER_MANAGER_USER, SCHEDULER_USER, CA_DAYS, DEFAULT_SERVING_HOSTS, LEAF_DAYS, RENEW_BEFORE_DAYS,
} from './cluster.js';
export type { ClusterPKI, ClusterPKIPaths, PKIComponent } from './cluster.js';
export { buildKubeconfig, buildClusterInfoKubeconfig, writeKubeconfig } from './kubeconfig.js';
export type { KubeconfigOptions } from './kubeconfig.js';
export { writeFileAtomic } from './files.js';
export { loadX509 } from './x509-lib.js';
export { isTooWeakToAuthenticate, signatureAlgorithmOID } from './signature-algorithm.js';
