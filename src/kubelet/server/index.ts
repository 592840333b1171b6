/** The kubelet's HTTPS API: logs now; exec, attach, port-forward and stats later. */
export { createKubeletServer } from './server.js';
export type { KubeletServer, KubeletServerOptions } from './server.js';
export type { KubeletHost } from './host.js';
export { selfSignedServingCertificate } from './serving-cert.js';
export { containerForLogs } from './logstatus.js';
export { runtimeOptions } from './containerlogs.js';
