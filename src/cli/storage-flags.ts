/**
 * kube-apiserver's etcd flags (--etcd-servers and friends) as `k8ts server` and
 * `k8ts datastore` parse them: apart from storage.ts so that a flag error or
 * `--help` answers before any storage code (SQLite, etcd3) loads.
 */
import type { EtcdBackendOptions } from '../storage/etcd/index.js';
import { REGISTRY_ROOT as DEFAULT_ETCD_PREFIX } from '../storage/etcd/key-layout.js';
import { parseDuration } from './duration.js';

export type EtcdConfig = Omit<EtcdBackendOptions, 'logger'>;

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
