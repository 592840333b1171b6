/**
 * kube-apiserver identity (KEP-1965, APIServerIdentity, on by default since
 * 1.26), as the Leases page shows it: `kubectl -n kube-system get lease -l
 * apiserver.kubernetes.io/identity=kube-apiserver` lists one Lease per API
 * server. Upstream's two post-start hooks, in this order:
 *
 *  1. start-kube-apiserver-identity-lease-controller: the server's ID is
 *     `apiserver-` + the lowercase unpadded base32 of the first 16 bytes of
 *     sha256(hostname, "kube-apiserver"), each a uint16-length-prefixed string
 *     (genericapiserver's NewConfig). The Lease of that name in kube-system is
 *     created with holderIdentity `ID_<uuid>` and renewed every 10 s with a
 *     3600 s duration; a server of the same hostname renews the same Lease and
 *     keeps its holder (component-helpers' lease controller copies the base).
 *     Its labels: apiserver.kubernetes.io/identity=kube-apiserver and
 *     kubernetes.io/hostname=HOSTNAME.
 *  2. start-kube-apiserver-identity-lease-garbage-collector: once an hour,
 *     a Lease with that identity label whose renewTime plus duration is past
 *     (or that lacks either) is deleted, read again first.
 *
 * Nothing is removed at shutdown: a stopped server's Lease expires and is
 * collected, as upstream's.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Logger } from '../util/log.js';
import { base32NoPadding } from '../util/base32.js';
import type { Registry } from './registry.js';
import { statusCode } from './status-code.js';
import { apiServerFieldManager } from './bootstrap.js';

export const identityLeaseLabel = 'apiserver.kubernetes.io/identity';
/** Upstream's IdentityLeaseDurationSeconds, IdentityLeaseRenewIntervalPeriod and IdentityLeaseGCPeriod. */
export const identityLeaseDurationSeconds = 3600;
export const identityLeaseRenewIntervalMs = 10_000;
export const identityLeaseGCPeriodMs = 3_600_000;
const namespace = 'kube-system';

const lengthPrefixed = (s: string) => {
  const bytes = Buffer.from(s, 'utf8');
  const len = Buffer.alloc(2);
  len.writeUInt16BE(bytes.length);
  return Buffer.concat([len, bytes]);
};

/** The API server's ID (the Lease's name) for `hostname`, as genericapiserver's NewConfig derives it. */
export function apiServerID(hostname: string): string {
  const hash = createHash('sha256').update(Buffer.concat([lengthPrefixed(hostname), lengthPrefixed('kube-apiserver')])).digest();
  return `apiserver-${base32NoPadding(hash.subarray(0, 16)).toLowerCase()}`;
}

/** metav1.MicroTime as JSON: RFC 3339 with microseconds. */
const microTime = (ms: number) => new Date(ms).toISOString().replace(/Z$/, '000Z');

/** lease-gc's isLeaseExpired: no renewTime or duration, or renewTime + duration before now. */
export function identityLeaseExpired(lease: Lease, now: number): boolean {
  const renew = lease.spec?.renewTime;
  const seconds = lease.spec?.leaseDurationSeconds;
  return renew === undefined || seconds === undefined || Date.parse(renew) + seconds * 1000 < now;
}

export class APIServerIdentityLease {
  private readonly name: string;
  private readonly holder: string;
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly registry: Registry,
    private readonly hostname: string,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.name = apiServerID(hostname);
    this.holder = `${this.name}_${randomUUID()}`;
  }

  /** The first renewal, then one every 10 s. */
  async startController(): Promise<void> {
    await this.renew();
    this.every(identityLeaseRenewIntervalMs, () => this.renew());
  }

  /** The first collection, then one an hour. */
  async startGarbageCollector(): Promise<void> {
    await this.collect();
    this.every(identityLeaseGCPeriodMs, () => this.collect());
  }

  stop(): void {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
  }

  private every(ms: number, run: () => Promise<void>): void {
    const t = setInterval(() => void run(), ms);
    t.unref();
    this.timers.push(t);
  }

  private get store() { return this.registry.store('coordination.k8s.io', 'v1', 'leases')!; }

  /** The lease controller's newLease: the base's holder is kept; duration, renewTime and the labels are asserted. */
  private asserted(base: Lease | undefined): Lease {
    const lease: Lease = base ?? { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.name, namespace }, spec: { holderIdentity: this.holder } };
    return {
      ...lease,
      metadata: { ...lease.metadata, labels: { ...lease.metadata?.labels, [identityLeaseLabel]: 'kube-apiserver', 'kubernetes.io/hostname': this.hostname } },
      spec: { ...lease.spec, leaseDurationSeconds: identityLeaseDurationSeconds, renewTime: microTime(this.now()) },
    };
  }

  private async renew(): Promise<void> {
    try {
      await this.store.guaranteedUpdate(namespace, this.name, (cur: Lease) => this.asserted(cur), { fieldManager: apiServerFieldManager });
    } catch (e) {
      if (statusCode(e) !== 404) { this.logger.warn('cannot renew the API server identity lease', { err: e }); return; }
      try {
        await this.store.create(namespace, this.asserted(undefined), { fieldManager: apiServerFieldManager });
      } catch (err) {
        // 409: another server of this hostname created it first; the next renewal updates it.
        if (statusCode(err) !== 409) this.logger.warn('cannot create the API server identity lease', { err });
      }
    }
  }

  private async collect(): Promise<void> {
    try {
      const { items } = await this.store.list(namespace, { labelSelector: `${identityLeaseLabel}=kube-apiserver` });
      for (const lease of items as Lease[]) {
        if (!identityLeaseExpired(lease, this.now())) continue;
        // Read again before deleting (upstream: from the API server, not its cache), with the read's version as the precondition.
        const fresh = await this.store.get(namespace, lease.metadata!.name!).catch(() => undefined) as Lease | undefined;
        if (!fresh || !identityLeaseExpired(fresh, this.now())) continue;
        await this.store.delete(namespace, fresh.metadata!.name!, { preconditions: { resourceVersion: fresh.metadata!.resourceVersion } })
          .catch((err) => { if (statusCode(err) !== 404 && statusCode(err) !== 409) throw err; });
      }
    } catch (err) {
      this.logger.warn('cannot collect expired API server identity leases', { err });
    }
  }
}
