/**
 * The `etcd` health check of /healthz, /livez and /readyz (and `etcd-readiness`
 * of /readyz), as upstream's storagebackend/factory etcd3 health check does it:
 *
 *  1. A probe is a real read of the backend: a Get of `/registry/health` (the key
 *     upstream reads), with a timeout (--etcd-healthcheck-timeout, 2 s). On etcd it is
 *     one Range; on SQLite an indexed SELECT, which fails when the file cannot be read.
 *  2. At most one probe per half timeout (upstream's rate limiter); in between, and
 *     while one is in flight, the last result answers: a health endpoint polled by
 *     many clients costs the backend one read a second.
 *  3. A failure reads `error getting data from etcd: <the read's error>`, the text
 *     `/readyz/etcd` prints; the verbose list only says `reason withheld`.
 */
import type { Backend } from '../storage/backend.js';

export interface StorageHealthOptions {
  /** Upstream's --etcd-healthcheck-timeout (2 s). */
  timeoutMs?: number;
  now?: () => number;
}

/** The key upstream's check reads (path.Join("/", prefix, "health")); no object lives there. */
const healthKey = '/registry/health';

export type StorageHealth = () => Promise<string | undefined>;

export function storageHealthCheck(backend: Backend, opts: StorageHealthOptions = {}): StorageHealth {
  const timeoutMs = opts.timeoutMs ?? 2_000;
  const now = opts.now ?? (() => performance.now());
  let last: string | undefined;
  let lastAt = -Infinity;
  let inFlight: Promise<string | undefined> | undefined;
  return () => {
    if (inFlight) return inFlight;
    if (now() - lastAt < timeoutMs / 2) return Promise.resolve(last);
    lastAt = now();
    inFlight = probe(backend, timeoutMs).then((result) => {
      last = result;
      inFlight = undefined;
      return result;
    });
    return inFlight;
  };
}

/** One read under a deadline: undefined when it answered, else why not. */
async function probe(backend: Backend, timeoutMs: number): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('context deadline exceeded')), timeoutMs);
  });
  try {
    await Promise.race([backend.get(healthKey), deadline]);
    return undefined;
  } catch (e) {
    return `error getting data from etcd: ${e instanceof Error ? e.message : String(e)}`;
  } finally {
    clearTimeout(timer);
  }
}
