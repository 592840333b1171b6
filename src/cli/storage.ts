/**
 * Opens the API server's storage: embedded SQLite in the data directory by default, etcd
 * when --etcd-servers names one (kube-apiserver's flags), so several servers can share a store.
 */
import { join } from 'node:path';
import type { Backend } from '../storage/backend.js';
import type { EtcdBackendOptions } from '../storage/etcd/index.js';
import { openSqliteBackend } from '../storage/sqlite/index.js';
import type { Logger } from '../util/log.js';
import { parseDuration } from './duration.js';

export type EtcdConfig = Omit<EtcdBackendOptions, 'logger'>;

/** etcd did not answer at start: nothing to do with the data directory, so reported as it is. */
export class EtcdUnreachableError extends Error {}

export async function openStorage(dataDir: string, etcd: EtcdConfig | undefined, logger: Logger): Promise<Backend> {
  const storageLogger = logger.with('storage');
  if (!etcd) {
    const path = join(dataDir, 'state.db');
    logger.info('storage', { backend: 'sqlite', path });
    return openSqliteBackend(path, { logger: storageLogger });
  }
  logger.info('storage', { backend: 'etcd3', servers: etcd.servers, compactionIntervalMs: etcd.compactIntervalMs });
  // Loaded only when etcd is configured: etcd3 and its gRPC stack take about 0.5 s to load.
  const { openEtcdBackend } = await import('../storage/etcd/index.js');
  const backend = openEtcdBackend({ ...etcd, logger: storageLogger });
  try {
    await backend.ping();
  } catch (err) {
    await backend.close();
    throw new EtcdUnreachableError(`cannot start: cannot reach etcd at ${etcd.servers.join(',')}: ${(err as Error).message}`);
  }
  return backend;
}

export const etcdFlagOptions = {
  'etcd-servers': { type: 'string' },
  'etcd-cafile': { type: 'string' },
  'etcd-certfile': { type: 'string' },
  'etcd-keyfile': { type: 'string' },
  'etcd-compaction-interval': { type: 'string', default: '5m0s' },
} as const;

export const etcdFlagsHelp = `      --etcd-servers strings     etcd client URLs (http://127.0.0.1:2379,...) to store everything in instead of
                                 the data directory's SQLite database; servers sharing an etcd (and the PKI) serve one cluster
      --etcd-cafile string       SSL Certificate Authority file used to secure etcd communication
      --etcd-certfile string     SSL certification file used to secure etcd communication
      --etcd-keyfile string      SSL key file used to secure etcd communication
      --etcd-compaction-interval duration
                                 the interval of compaction requests; 0 disables compaction from the server (default 5m0s)`;

/** The etcd flags as backend options; undefined without --etcd-servers. Throws upstream-style messages. */
export function etcdConfig(values: Partial<Record<keyof typeof etcdFlagOptions, string>>): EtcdConfig | undefined {
  const servers = values['etcd-servers']?.split(',').map((s) => s.trim()).filter(Boolean);
  if (!servers?.length) return undefined;
  for (const s of servers) {
    if (!/^https?:\/\//.test(s)) throw new Error(`--etcd-servers: invalid URL "${s}": must start with http:// or https://`);
  }
  const interval = values['etcd-compaction-interval'] ?? '5m0s';
  let compactIntervalMs: number;
  try { compactIntervalMs = parseDuration(interval); } catch { compactIntervalMs = NaN; }
  if (!(compactIntervalMs >= 0)) throw new Error(`invalid argument "${interval}" for "--etcd-compaction-interval" flag`);
  return { servers, caFile: values['etcd-cafile'], certFile: values['etcd-certfile'], keyFile: values['etcd-keyfile'], compactIntervalMs };
}
