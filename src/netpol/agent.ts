/**
 * The NetworkPolicy agent of one node (what kube-router's firewall or
 * Calico's Felix does for a cluster): NetworkPolicy, Pod and Namespace
 * informers (the API only) feed a model of the node's table one event at a
 * time (model.ts), and a bounded-frequency sync writes what changed in one
 * nft transaction (table.ts), as kube-proxy's partial sync does for a
 * Service. A full sync replaces the whole `inet k8ts-netpol` table in one
 * transaction at start, every fullSyncPeriod and after a failed
 * transaction. Every transaction is atomic, and the base chains accept
 * established connections first, so a policy change never breaks a
 * connection that was allowed when it started (conntrack keeps it).
 */
import type { Pod, Namespace } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import { Clientset, InformerFactory, metaKey } from '../client/index.js';
import type { Logger } from '../util/log.js';
import { nftRunner, type NftRunner } from '../util/nft.js';
import { NftSession, sessionScriptLimit } from '../util/nft-session.js';
import { PolicyModel } from './model.js';
import { ProgrammedTable } from './table.js';
import { ensureBridgeNetfilter } from './bridge-netfilter.js';

export interface NetworkPolicyAgentOptions {
  clientset: Clientset;
  nodeName: string;
  logger: Logger;
  /** Runs every transaction when given (tests); else `nft -f -`, and a long-lived `nft -i` for the small ones (util/nft-session.ts). */
  nft?: NftRunner;
  /** The shortest time between two syncs (upstream kube-proxy's --min-sync-period idea). */
  minSyncPeriodMs: number;
  /** How often the whole table is replaced even without a failure (kube-proxy's fullSyncPeriod); default one hour. */
  fullSyncPeriodMs?: number;
  /** Called after each successful sync (health). */
  onSynced?: () => void;
}

export class NetworkPolicyAgent {
  private readonly informers: InformerFactory;
  private readonly model: PolicyModel;
  private readonly table = new ProgrammedTable();
  private readonly nft: NftRunner;
  private readonly session?: NftSession;
  private needFull = true;
  private lastFull = 0;
  private lastSync = 0;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private started = false;
  private stopped = false;
  private pendingSince?: number;

  constructor(private readonly opts: NetworkPolicyAgentOptions) {
    this.informers = new InformerFactory(opts.clientset, { logger: opts.logger });
    this.model = new PolicyModel(opts.nodeName);
    this.nft = opts.nft ?? nftRunner();
    if (!opts.nft) this.session = new NftSession();
    const watch = <T extends NetworkPolicy | Pod | Namespace>(resource: 'networkpolicies' | 'pods' | 'namespaces', apply: (key: string, obj: T | undefined) => void) => this.informers.informer(resource).addEventHandler({
      add: (o: T) => this.changed(() => apply(metaKey(o), o)),
      update: (_old: T, o: T) => this.changed(() => apply(metaKey(o), o)),
      delete: (o: T) => this.changed(() => apply(metaKey(o), undefined)),
    });
    watch('networkpolicies', (k, np: NetworkPolicy | undefined) => {
      this.model.setPolicy(k, np);
      const why = this.model.invalid.get(k);
      if (why) this.opts.logger.warn('NetworkPolicy skipped', { reason: why });
    });
    watch('pods', (k, p: Pod | undefined) => this.model.setPod(k, p));
    watch('namespaces', (k, n: Namespace | undefined) => this.model.setNamespace(k, n));
  }

  async start(): Promise<void> {
    const bridge = ensureBridgeNetfilter();
    if (bridge !== 'on') this.opts.logger.warn('bridge-nf-call-iptables is off', { reason: bridge });
    this.informers.start();
    await this.informers.waitForSync();
    this.started = true;
    await this.syncNow();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.session?.close();
    this.informers.stop();
  }

  /** Resolves after any sync in progress; SIGTERM leaves the rules in place (pods stay isolated while the agent restarts). */
  async idle(): Promise<void> { await this.running; }

  /** Applies one event to the model; a sync is scheduled when it changed what the table needs. */
  private changed(apply: () => void): void {
    apply();
    if (!this.model.changed) return;
    this.pendingSince ??= Date.now();
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped || this.timer || !this.started) return;
    const wait = Math.max(0, this.lastSync + this.opts.minSyncPeriodMs - Date.now());
    this.timer = setTimeout(() => { this.timer = undefined; void this.syncNow(); }, wait);
  }

  private async syncNow(): Promise<void> {
    if (this.running) { await this.running; this.schedule(); return; }
    this.running = this.sync().finally(() => { this.running = undefined; });
    await this.running;
    if (this.model.changed || this.needFull) this.schedule();
  }

  private async sync(): Promise<void> {
    const start = Date.now();
    const full = this.needFull || start - this.lastFull >= (this.opts.fullSyncPeriodMs ?? 3_600_000);
    if (!full && !this.model.changed) return;
    const pendingSince = this.pendingSince;
    this.pendingSince = undefined;
    this.model.resolve();
    const dirty = this.model.takeDirty();
    const tx = full ? this.table.full(this.model) : this.table.partial(this.model, dirty);
    const built = Date.now();
    try {
      // A small transaction goes through the long-lived session: no process start.
      const run = !full && this.session && tx.script.length <= sessionScriptLimit ? this.session.run : this.nft;
      if (tx.script) await run(tx.script);
      tx.commit();
      this.needFull = false;
      if (full) this.lastFull = start;
    } catch (e) {
      // What the kernel holds is unknown now: the next sync replaces the table (the model keeps what it should hold).
      this.needFull = true;
      this.opts.logger.error('network policy sync failed', { err: (e as Error).message.slice(0, 2000), full });
      this.lastSync = Date.now();
      return;
    }
    this.lastSync = Date.now();
    this.opts.onSynced?.();
    this.opts.logger.info('synced network policy rules', {
      full, policies: this.model.activePolicies, isolatedPods: this.model.isolatedPods, bytes: tx.script.length,
      computeMs: built - start, nftMs: this.lastSync - built,
      ...(pendingSince !== undefined ? { latencyMs: this.lastSync - pendingSince } : {}),
    });
  }
}
