/**
 * Opens the API server's storage: embedded SQLite in the data directory by default, etcd
 * when --etcd-servers names one (kube-apiserver's flags), so several servers can share a store.
 */
import { join } from 'node:path';
import type { Backend } from '../storage/backend.js';
import { withKeyPrefix, DEFAULT_ETCD_PREFIX } from '../storage/key-prefix.js';
import type { EtcdBackendOptions } from '../storage/etcd/index.js';
import { openSqliteBackend } from '../storage/sqlite/index.js';
import type { Logger } from '../util/log.js';
import { parseDuration } from './duration.js';

export type EtcdConfig = Omit<EtcdBackendOptions, 'logger'> & {
  /** --etcd-prefix: the root of every key (upstream's default /registry). */
  prefix?: string;
};

/** etcd did not answer at start: nothing to do with the data directory, so reported as it is. */
export class EtcdUnreachableError extends Error {}

export async function openStorage(dataDir: string, etcd: EtcdConfig | undefined, logger: Logger): Promise<Backend> {
  const storageLogger = logger.with('storage');
  if (!etcd) {
    const path = join(dataDir, 'state.db');
    logger.info('storage', { backend: 'sqlite', path });
    return openSqliteBackend(path, { logger: storageLogger });
  }
  logger.info('storage', { backend: 'etcd3', servers: etcd.servers, prefix: etcd.prefix ?? DEFAULT_ETCD_PREFIX, compactionIntervalMs: etcd.compactIntervalMs });
  // Loaded only when etcd is configured: etcd3 and its gRPC stack take about 0.5 s to load.
  const { openEtcdBackend } = await import('../storage/etcd/index.js');
  const backend = openEtcdBackend({ ...etcd, logger: storageLogger });
  try {
    await pingUntil(backend, Date.now() + ETCD_DIAL_TIMEOUT_MS, logger);
  } catch (err) {
    await backend.close();
    throw new EtcdUnreachableError(`cannot start: cannot reach etcd at ${etcd.servers.join(',')}: ${(err as Error).message}`);
  }
  return withKeyPrefix(backend, etcd.prefix ?? DEFAULT_ETCD_PREFIX);
}

/**
 * How long a starting server waits for etcd: upstream's etcd3 client dialTimeout (20 s). A static-pod
 * API server usually starts beside its etcd, a moment before etcd listens; exiting at once would cost
 * the kubelet's 10 s restart back-off.
 */
const ETCD_DIAL_TIMEOUT_MS = 20_000;

async function pingUntil(backend: { ping(): Promise<void> }, deadline: number, logger: Logger): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await backend.ping();
    } catch (err) {
      if (Date.now() >= deadline) throw err;
      if (attempt === 1) logger.info('etcd not reachable yet, retrying', { error: (err as Error).message });
      await new Promise((r) => setTimeout(r, Math.min(100 * attempt, 1_000)));
    }
  }
}

export const etcdFlagOptions = {
  'etcd-servers': { type: 'string' },
  'etcd-cafile': { type: 'string' },
  'etcd-certfile': { type: 'string' },
  'etcd-keyfile': { type: 'string' },
  'etcd-compaction-interval': { type: 'string', default: '5m0s' },
  'etcd-prefix': { type: 'string', default: DEFAULT_ETCD_PREFIX },
} as const;

export const etcdFlagsHelp = `      --etcd-servers strings     etcd client URLs (http://127.0.0.1:2379,...) to store everything in instead of
                                 the data directory's SQLite database; servers sharing an etcd (and the PKI) serve one cluster
      --etcd-cafile string       SSL Certificate Authority file used to secure etcd communication
      --etcd-certfile string     SSL certification file used to secure etcd communication
      --etcd-keyfile string      SSL key file used to secure etcd communication
      --etcd-compaction-interval duration
                                 the interval of compaction requests; 0 disables compaction from the server (default 5m0s)
      --etcd-prefix string       The prefix to prepend to all resource paths in etcd. (default "/registry")`;

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
  return {
    servers, caFile: values['etcd-cafile'], certFile: values['etcd-certfile'], keyFile: values['etcd-keyfile'], compactIntervalMs,
    prefix: values['etcd-prefix'] ?? DEFAULT_ETCD_PREFIX,
  };
}
