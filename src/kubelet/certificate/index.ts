/** The kubelet's client certificate: TLS bootstrap and rotation. */
export { loadOrBootstrapClientConfig, kubeconfigStillValid } from './bootstrap.js';
export type { BootstrapOptions } from './bootstrap.js';
export { ClientCertificateRotation, rotationDeadline } from './rotation.js';
export { ClientCertificateStore, writeNodeKubeconfig, currentFileName } from './store.js';
export { requestNodeCertificate, waitForCertificate, certificateOutcome, digestedName, nodeClientUsages } from './request.js';
