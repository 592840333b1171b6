export { openSqliteBackend } from './backend.js';
export { BackendClosedError } from '../backend.js';
export type { SqliteBackendOptions } from './options.js';
export type { StorageLogger } from '../backend.js';
