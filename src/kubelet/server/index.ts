/** The kubelet's HTTPS API: logs, exec, attach, port-forward and stats, behind authentication and SubjectAccessReview authorization. */
export { createKubeletServer, createKubeletAuth } from './server.js';
export { reviewerFor, type KubeletReviewer } from './reviews.js';
export type { KubeletAuth } from './auth-filter.js';
export type { KubeletServer, KubeletServerOptions } from './server.js';
export type { KubeletHost } from './host.js';
export { persistedServingCertificate, selfSignedServingCertificate } from './serving-cert.js';
export { containerForLogs } from './logstatus.js';
export { runtimeOptions } from './containerlogs.js';
