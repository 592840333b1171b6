export { openSqliteBackend } from './backend.js';
export { BackendClosedError } from './errors.js';
export type { SqliteBackendOptions, StorageLogger } from './options.js';
