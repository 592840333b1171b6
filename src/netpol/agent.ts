/**
 * The NetworkPolicy agent of one node (what kube-router's firewall or
 * Calico's Felix does for a cluster): NetworkPolicy, Pod and Namespace
 * informers (the API only), and a bounded-frequency sync that writes the
 * node's whole `inet k8ts-netpol` table in one nft transaction when what the
 * informers hold changes it. The table is replaced atomically, and its base
 * chains accept established connections first, so a policy change never
 * breaks a connection that was allowed when it started (conntrack keeps it).
 * Like kube-router, every sync recomputes the node's rules; ruleset.ts is
 * pure, so its cost is measured by bench/netpol-sync.ts.
 */
import type { Pod, Namespace } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import { Clientset, InformerFactory } from '../client/index.js';
import type { Logger } from '../util/log.js';
import { buildRuleset } from './ruleset.js';
import { ensureBridgeNetfilter } from './bridge-netfilter.js';
import type { NftRunner } from '../util/nft.js';

export interface NetworkPolicyAgentOptions {
  clientset: Clientset;
  nodeName: string;
  logger: Logger;
  nft: NftRunner;
  /** The shortest time between two syncs (upstream kube-proxy's --min-sync-period idea). */
  minSyncPeriodMs: number;
  /** Called after each successful sync (health). */
  onSynced?: () => void;
}

export class NetworkPolicyAgent {
  private readonly informers: InformerFactory;
  private readonly inf;
  private lastScript = '';
  private lastSync = 0;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private dirty = false;
  private started = false;
  private stopped = false;
  private pendingSince?: number;

  constructor(private readonly opts: NetworkPolicyAgentOptions) {
    this.informers = new InformerFactory(opts.clientset, { logger: opts.logger });
    this.inf = {
      policies: this.informers.informer('networkpolicies'),
      pods: this.informers.informer('pods'),
      namespaces: this.informers.informer('namespaces'),
    };
    const changed = () => this.markDirty();
    for (const i of Object.values(this.inf)) i.addEventHandler({ add: changed, update: changed, delete: changed });
  }

  async start(): Promise<void> {
    const bridge = ensureBridgeNetfilter();
    if (bridge !== 'on') this.opts.logger.warn('bridge-nf-call-iptables is off', { reason: bridge });
    this.informers.start();
    await this.informers.waitForSync();
    this.started = true;
    this.dirty = true;
    await this.syncNow();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.informers.stop();
  }

  /** Resolves after any sync in progress; SIGTERM leaves the rules in place (pods stay isolated while the agent restarts). */
  async idle(): Promise<void> { await this.running; }

  private markDirty(): void {
    this.dirty = true;
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
    if (this.dirty) this.schedule();
  }

  private async sync(): Promise<void> {
    if (!this.dirty) return;
    this.dirty = false;
    const start = Date.now();
    const pendingSince = this.pendingSince;
    this.pendingSince = undefined;
    const rs = buildRuleset({
      nodeName: this.opts.nodeName,
      policies: this.inf.policies.list() as NetworkPolicy[],
      pods: this.inf.pods.list() as Pod[],
      namespaces: this.inf.namespaces.list() as Namespace[],
    });
    const built = Date.now();
    for (const msg of rs.invalid) this.opts.logger.warn('NetworkPolicy skipped', { reason: msg });
    const changed = rs.script !== this.lastScript;
    if (changed) {
      try {
        await this.opts.nft(rs.script);
        this.lastScript = rs.script;
      } catch (e) {
        this.dirty = true; // retried after minSyncPeriod
        this.opts.logger.error('network policy sync failed', { err: (e as Error).message.slice(0, 2000) });
        this.lastSync = Date.now();
        return;
      }
    }
    this.lastSync = Date.now();
    this.opts.onSynced?.();
    this.opts.logger.info('synced network policy rules', {
      policies: rs.policies, isolatedPods: rs.isolatedPods, bytes: rs.script.length, changed,
      computeMs: built - start, nftMs: this.lastSync - built,
      ...(pendingSince !== undefined ? { latencyMs: this.lastSync - pendingSince } : {}),
    });
  }
}
