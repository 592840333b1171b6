/**
 * Opens the API server's storage: embedded SQLite in the data directory by default, etcd
 * when --etcd-servers names one (kube-apiserver's flags), so several servers can share a store.
 */
import { join } from 'node:path';
import type { Backend } from '../storage/backend.js';
import { REGISTRY_ROOT } from '../storage/etcd/key-layout.js';
import type { EtcdConfig } from './storage-flags.js';
import { openSqliteBackend } from '../storage/sqlite/index.js';
import type { Logger } from '../util/log.js';

// The flags live apart (storage-flags.ts) so that parsing them loads neither SQLite nor the storage code.
export { etcdConfig, etcdFlagOptions, etcdFlagsHelp, type EtcdConfig } from './storage-flags.js';

/** etcd did not answer at start: nothing to do with the data directory, so reported as it is. */
export class EtcdUnreachableError extends Error {}

export async function openStorage(dataDir: string, etcd: EtcdConfig | undefined, logger: Logger): Promise<Backend> {
  const storageLogger = logger.with('storage');
  if (!etcd) {
    const path = join(dataDir, 'state.db');
    logger.info('storage', { backend: 'sqlite', path });
    return openSqliteBackend(path, { logger: storageLogger });
  }
  logger.info('storage', { backend: 'etcd3', servers: etcd.servers, prefix: etcd.prefix ?? REGISTRY_ROOT, compactionIntervalMs: etcd.compactIntervalMs });
  try {
    return await openEtcdStorage(etcd, ETCD_DIAL_TIMEOUT_MS, logger);
  } catch (err) {
    throw err instanceof EtcdUnreachableError ? new EtcdUnreachableError(`cannot start: ${err.message}`) : err;
  }
}

/**
 * The etcd backend, once etcd answers (retried for `waitMs`: 0 tries once) and the objects an older
 * k8ts stored under its own keys have moved to upstream's (before anything reads them); closed on failure.
 */
export async function openEtcdStorage(etcd: EtcdConfig, waitMs: number, logger?: Logger): Promise<Backend> {
  // Loaded only when etcd is configured. On one server the backend speaks gRPC on node:http2 itself;
  // only several servers load etcd3 and its gRPC stack (about 0.5 s).
  const { openEtcdBackend } = await import('../storage/etcd/index.js');
  const backend = openEtcdBackend({ ...etcd, logger: logger?.with('storage') });
  try {
    await pingUntil(backend, Date.now() + waitMs, logger);
  } catch (err) {
    await backend.close();
    throw new EtcdUnreachableError(`cannot reach etcd at ${etcd.servers.join(',')}: ${(err as Error).message}`);
  }
  try {
    await backend.migrateKeyLayout();
  } catch (err) {
    await backend.close();
    throw err;
  }
  return backend;
}

/**
 * How long a starting server waits for etcd: upstream's etcd3 client dialTimeout (20 s). A static-pod
 * API server usually starts beside its etcd, a moment before etcd listens; exiting at once would cost
 * the kubelet's 10 s restart back-off.
 */
const ETCD_DIAL_TIMEOUT_MS = 20_000;

async function pingUntil(backend: { ping(): Promise<void> }, deadline: number, logger?: Logger): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await backend.ping();
    } catch (err) {
      if (Date.now() >= deadline) throw err;
      if (attempt === 1) logger?.info('etcd not reachable yet, retrying', { error: (err as Error).message });
      await new Promise((r) => setTimeout(r, Math.min(100 * attempt, 1_000)));
    }
  }
}
