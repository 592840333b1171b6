/**
 * Leader election on a coordination.k8s.io Lease (client-go's
 * leaderelection with a LeaseLock): acquire when the lease is free or
 * expired, renew every retryPeriod, and give up leadership if renewal has
 * failed for renewDeadline, so two control planes never both act.
 */
import type { Clientset } from './clientset.js';
import { isAlreadyExists, isConflict, isNotFound } from './rest.js';
import type { Logger } from '../util/log.js';

export interface LeaderElectionConfig {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationSeconds?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  onStartedLeading(): void;
  onStoppedLeading(): void;
  logger?: Logger;
}

const microTime = (d: Date) => d.toISOString().replace('Z', '000Z');

export class LeaderElector {
  private stopped = false;
  private leading = false;
  private timer?: NodeJS.Timeout;
  private lastRenew = 0;

  constructor(private readonly clients: Clientset, private readonly cfg: LeaderElectionConfig) {}

  get isLeader(): boolean { return this.leading; }

  start(): void { void this.tick(); }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.leading) void this.release();
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    const ok = await this.tryAcquireOrRenew().catch((e) => { this.cfg.logger?.debug('lease attempt failed', { err: e }); return false; });
    const now = Date.now();
    if (ok) {
      this.lastRenew = now;
      if (!this.leading) { this.leading = true; this.cfg.logger?.info('became leader', { lease: this.cfg.name, identity: this.cfg.identity }); this.cfg.onStartedLeading(); }
    } else if (this.leading && now - this.lastRenew > (this.cfg.renewDeadlineMs ?? 10_000)) {
      this.leading = false;
      this.cfg.logger?.warn('lost leadership', { lease: this.cfg.name });
      this.cfg.onStoppedLeading();
    }
    if (!this.stopped) {
      this.timer = setTimeout(() => void this.tick(), this.cfg.retryPeriodMs ?? 2000);
      this.timer.unref();
    }
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const leases = this.clients.leases;
    const now = new Date();
    const duration = this.cfg.leaseDurationSeconds ?? 15;
    let lease: any;
    try {
      lease = await leases.get(this.cfg.namespace, this.cfg.name);
    } catch (e) {
      if (!isNotFound(e)) throw e;
      try {
        await leases.create(this.cfg.namespace, {
          metadata: { name: this.cfg.name, namespace: this.cfg.namespace },
          spec: { holderIdentity: this.cfg.identity, leaseDurationSeconds: duration, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 },
        });
        return true;
      } catch (err) {
        if (isAlreadyExists(err)) return false;
        throw err;
      }
    }
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity;
    const renewed = spec.renewTime ? Date.parse(spec.renewTime) : 0;
    const expired = renewed + (spec.leaseDurationSeconds ?? duration) * 1000 < now.getTime();
    if (holder && holder !== this.cfg.identity && !expired) return false;
    const takingOver = holder !== this.cfg.identity;
    lease.spec = {
      ...spec, holderIdentity: this.cfg.identity, leaseDurationSeconds: duration, renewTime: microTime(now),
      acquireTime: takingOver ? microTime(now) : spec.acquireTime, leaseTransitions: (spec.leaseTransitions ?? 0) + (takingOver && holder ? 1 : 0),
    };
    try {
      await leases.update(lease);
      return true;
    } catch (e) {
      if (isConflict(e)) return false;
      throw e;
    }
  }

  private async release(): Promise<void> {
    try {
      const lease = await this.clients.leases.get(this.cfg.namespace, this.cfg.name);
      if (lease.spec?.holderIdentity !== this.cfg.identity) return;
      lease.spec.holderIdentity = '';
      lease.spec.leaseDurationSeconds = 1;
      await this.clients.leases.update(lease);
    } catch { /* best effort: the lease expires anyway */ }
  }
}
