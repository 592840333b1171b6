/**
 * The `kubernetes` Service's endpoints, as kube-apiserver's lease endpoint
 * reconciler keeps them (--endpoint-reconciler-type=lease, the default):
 * every API server renews a record of its advertised address under
 * /registry/masterleases/ (upstream: an etcd key with a 15 s TTL, renewed
 * every 10 s), and writes the `kubernetes` Endpoints and EndpointSlice in
 * `default` to hold the addresses of every server whose record is live,
 * sorted, so every server writes the same object and they agree once each
 * has run. A server stopping removes its record and its address. Without
 * this, kube-proxy (which reads EndpointSlices only) has nothing to send
 * 10.96.0.1:443 to, and an in-cluster client cannot reach the API server.
 *
 * The record carries its expiry (the SQLite backend has no TTL keys); an
 * expired record is ignored and deleted by whichever server sees it.
 */
import type { EndpointPort, Endpoints } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Backend } from '../storage/backend.js';
import type { Logger } from '../util/log.js';
import type { Registry } from './registry.js';
import { statusCode } from './status-code.js';
import { apiServerFieldManager } from './bootstrap.js';

const leasePrefix = '/registry/masterleases/';
/** Upstream's DefaultEndpointReconcilerInterval and masterEndpointReconcileTTL. */
export const endpointReconcileIntervalMs = 10_000;
export const masterLeaseTTLMs = 15_000;
const skipMirrorLabel = 'endpointslice.kubernetes.io/skip-mirror';
const serviceNameLabel = 'kubernetes.io/service-name';

interface MasterLease { ip: string; expiresAt: number }

/** Endpoints may not point at loopback (upstream validation): a loopback-only server publishes none. */
export function publishableAddress(address: string): boolean {
  return !(/^127\./.test(address) || address === '::1' || address === 'localhost' || address === '0.0.0.0' || address === '::');
}

export class KubernetesEndpointReconciler {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly registry: Registry,
    private readonly backend: Backend,
    private readonly ip: string,
    private readonly port: number,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    private readonly intervalMs = endpointReconcileIntervalMs,
  ) {}

  /** The first reconcile, then one every interval. */
  async start(): Promise<void> {
    await this.tick();
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
  }

  /** Upstream's RemoveEndpoints at shutdown: this server's record and address go. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
    try {
      const { kv } = await this.backend.get(leasePrefix + this.ip);
      if (kv) await this.backend.delete(kv.key, kv.modRevision);
      await this.write(await this.liveAddresses());
    } catch (err) {
      this.logger.warn('cannot remove this API server from the kubernetes endpoints', { err });
    }
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    this.running = (async () => {
      try {
        await this.renew();
        const live = await this.liveAddresses();
        if (!this.stopped) await this.write(live);
      } catch (err) {
        this.logger.warn('cannot reconcile the kubernetes endpoints', { err });
      }
    })();
    await this.running;
    this.running = undefined;
  }

  private async renew(): Promise<void> {
    const key = leasePrefix + this.ip;
    const value = JSON.stringify({ ip: this.ip, expiresAt: this.now() + masterLeaseTTLMs } satisfies MasterLease);
    const { kv } = await this.backend.get(key);
    const r = kv ? await this.backend.update(key, value, kv.modRevision) : await this.backend.create(key, value);
    // Lost a race with a peer deleting our expired record: the next tick writes it again.
    if (!r.ok) this.logger.info('master lease changed underneath, renewing at the next tick', { ip: this.ip });
  }

  /** The addresses of live records, sorted; expired records are deleted. */
  private async liveAddresses(): Promise<string[]> {
    const now = this.now();
    const ips: string[] = [];
    for (const kv of (await this.backend.list(leasePrefix)).kvs) {
      let lease: MasterLease | undefined;
      try { lease = JSON.parse(kv.value); } catch { lease = undefined; }
      if (lease && lease.expiresAt > now && publishableAddress(lease.ip)) ips.push(lease.ip);
      else await this.backend.delete(kv.key, kv.modRevision);
    }
    return ips.sort();
  }

  private async write(ips: string[]): Promise<void> {
    const ports: EndpointPort[] = [{ name: 'https', port: this.port, protocol: 'TCP' }];
    const endpoints: Pick<Endpoints, 'subsets'> = { subsets: ips.length ? [{ addresses: ips.map((ip) => ({ ip })), ports }] : [] };
    const slice: Pick<EndpointSlice, 'addressType' | 'endpoints' | 'ports'> = {
      addressType: ips.some((ip) => ip.includes(':')) ? 'IPv6' : 'IPv4',
      endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
      ports,
    };
    await Promise.all([
      this.upsert<Endpoints>('', 'endpoints', { metadata: { name: 'kubernetes', labels: { [skipMirrorLabel]: 'true' } }, ...endpoints },
        (cur) => ({ ...cur, ...endpoints })),
      this.upsert<EndpointSlice>('discovery.k8s.io', 'endpointslices', { metadata: { name: 'kubernetes', labels: { [serviceNameLabel]: 'kubernetes' } }, ...slice },
        (cur) => ({ ...cur, ...slice })),
    ]);
  }

  /** An update that changes nothing is no write (the store's no-op update). */
  private async upsert<T>(group: string, plural: string, fresh: T, revise: (cur: T) => T): Promise<void> {
    const store = this.registry.store(group, 'v1', plural)!;
    try {
      await store.guaranteedUpdate('default', 'kubernetes', revise, { fieldManager: apiServerFieldManager });
    } catch (e) {
      if (statusCode(e) !== 404) throw e;
      try {
        await store.create('default', fresh, { fieldManager: apiServerFieldManager });
      } catch (err) {
        if (statusCode(err) !== 409) throw err;
      }
    }
  }
}
