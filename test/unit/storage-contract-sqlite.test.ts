/** The shared Backend contract (test/storage/contract.ts) on SQLite. */
import { openSqliteBackend } from '../../src/storage/sqlite/index.js';
import { backendContract } from '../storage/contract.js';

backendContract('sqlite', async (t) => {
  const backend = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: { info() {}, error() {} } });
  t.after(() => backend.close());
  return backend;
});
