/** What callers may tune on the etcd backend (kube-apiserver's --etcd-* flags), and its defaults. */
import type { StorageLogger } from '../backend.js';

export interface EtcdBackendOptions {
  /** --etcd-servers: client URLs, http:// or https://. */
  servers: string[];
  /** --etcd-cafile, --etcd-certfile, --etcd-keyfile: TLS to etcd. */
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  /** --etcd-compaction-interval: how often history is compacted; 0 turns it off (default 5 min, as upstream). */
  compactIntervalMs?: number;
  /** --etcd-prefix: the root of every key in etcd (default /registry, as upstream). */
  prefix?: string;
  logger?: StorageLogger;
}

export const defaultCompactIntervalMs = 5 * 60_000;

const silent: StorageLogger = {
  info: () => {},
  error: (message, fields) => console.error(`storage: ${message}`, fields ?? ''),
};

export function resolveLogger(opts: EtcdBackendOptions): StorageLogger {
  return opts.logger ?? silent;
}
