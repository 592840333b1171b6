export { openEtcdBackend, type EtcdBackend } from './backend.js';
export type { EtcdBackendOptions } from './options.js';
