/**
 * Leader election on a coordination.k8s.io Lease (client-go's
 * leaderelection with a LeaseLock): acquire when the lease is free or
 * expired, renew every retryPeriod, and give up leadership if renewal has
 * failed for renewDeadline, so two control planes never both act.
 *
 * Expiry is judged as client-go judges it: by the local time at which this
 * candidate last saw the Lease's record change, plus its leaseDuration, never
 * by comparing the holder's renewTime with the local clock. Control planes on
 * hosts whose clocks differ by seconds would otherwise take over from a live
 * leader (a slow holder's renewTime looks old) or wait for a dead one (a fast
 * holder's renewTime looks new).
 */
import type { Lease, LeaseSpec } from 'kubernetes-types/coordination/v1.js';
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

/** How long stop() waits for the Lease's release before shutdown goes on without it. */
const releaseTimeoutMs = 2000;

const microTime = (d: Date) => d.toISOString().replace('Z', '000Z');

export class LeaderElector {
  private stopped = false;
  private leading = false;
  private timer?: NodeJS.Timeout;
  /** The acquire-or-renew in flight (its outcome: whether this candidate holds the Lease). */
  private attempt?: Promise<boolean>;
  private lastRenew = 0;
  /** The Lease spec last read (as JSON) and the local time it was first seen in that form. */
  private observedRecord = '';
  private observedTime = 0;

  constructor(private readonly clients: Clientset, private readonly cfg: LeaderElectionConfig) {}

  get isLeader(): boolean { return this.leading; }

  start(): void { void this.tick(); }

  /**
   * Stops campaigning; a leader gives the Lease up (client-go's ReleaseOnCancel), so
   * the next start of the control plane leads at once instead of waiting out the
   * leaseDuration. The returned promise settles when the release has been written
   * or given up (bounded: a server already gone cannot hold shutdown).
   */
  stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const wasLeading = this.leading;
    const attempt = this.attempt;
    this.leading = false;
    if (!wasLeading && !attempt) return Promise.resolve();
    // An attempt already sent may take or renew the Lease after this point (a shutdown during a
    // renewal): wait for it and give up what it took, and never start a term from it (tick).
    const giveUp = (async () => {
      const took = attempt ? await attempt : false;
      if (wasLeading || took) await this.release();
    })();
    let timer: NodeJS.Timeout | undefined;
    const bounded = new Promise<void>((resolve) => { timer = setTimeout(resolve, releaseTimeoutMs); });
    return Promise.race([giveUp, bounded]).finally(() => clearTimeout(timer));
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    this.attempt = this.tryAcquireOrRenew().catch((e) => { this.cfg.logger?.debug('lease attempt failed', { err: e }); return false; });
    const ok = await this.attempt;
    this.attempt = undefined;
    // stop() ran while the attempt was in flight: it gives up what the attempt took; no term starts.
    if (this.stopped) return;
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
    let lease: Lease;
    try {
      lease = await leases.get(this.cfg.namespace, this.cfg.name);
    } catch (e) {
      if (!isNotFound(e)) throw e;
      try {
        await leases.create(this.cfg.namespace, {
          metadata: { name: this.cfg.name, namespace: this.cfg.namespace },
          spec: { holderIdentity: this.cfg.identity, leaseDurationSeconds: duration, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 },
        });
        this.observe(undefined, now.getTime());
        return true;
      } catch (err) {
        if (isAlreadyExists(err)) return false;
        throw err;
      }
    }
    const spec: LeaseSpec = lease.spec ?? {};
    const holder = spec.holderIdentity;
    this.observe(spec, now.getTime());
    const expired = this.observedTime + (spec.leaseDurationSeconds ?? duration) * 1000 < now.getTime();
    if (holder && holder !== this.cfg.identity && !expired) return false;
    const takingOver = holder !== this.cfg.identity;
    const next: LeaseSpec = {
      ...spec, holderIdentity: this.cfg.identity, leaseDurationSeconds: duration, renewTime: microTime(now),
      acquireTime: takingOver ? microTime(now) : spec.acquireTime, leaseTransitions: (spec.leaseTransitions ?? 0) + (takingOver && holder ? 1 : 0),
    };
    try {
      await leases.update({ ...lease, spec: next });
      this.observe(next, now.getTime());
      return true;
    } catch (e) {
      if (isConflict(e)) return false;
      throw e;
    }
  }

  /** client-go's observedRecord/observedTime: the clock starts again only when the record changes. */
  private observe(spec: LeaseSpec | undefined, nowMs: number): void {
    const record = JSON.stringify(spec ?? null);
    if (record === this.observedRecord) return;
    this.observedRecord = record;
    this.observedTime = nowMs;
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
