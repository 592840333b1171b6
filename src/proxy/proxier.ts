/**
 * kube-proxy's nftables mode: Service and EndpointSlice informers mark the
 * Services that changed; a bounded-frequency runner (upstream's
 * --min-sync-period) turns each batch of changes into one nft transaction
 * touching only those Services, with a full sync at start, every
 * fullSyncPeriod and after any failed transaction. Chains left unused are
 * flushed by the sync, and they and the map elements no Service owns any
 * more are deleted by a cleanup once the proxy has been idle for
 * staleObjectDelayMs (deleting costs nft's read of the whole table).
 */
import type { Service, Node } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { Clientset, InformerFactory, Informer } from '../client/index.js';
import type { Logger } from '../util/log.js';
import { servicePorts, type ServicePortInfo } from './service-port.js';
import { portRules, type RuleContext } from './rules.js';
import { TableState, type ServiceRules } from './transaction.js';
import { nftRunner, existingObjects, type NftRunner } from './nft.js';
import { NftSession, sessionScriptLimit } from '../util/nft-session.js';
import { tableFamily, tableName } from './names.js';
import { localAddressesIn, primaryNodeIPs } from './node-addresses.js';
import { UDPConntrackCleaner } from './conntrack.js';
import type { ProxyMetrics } from './metrics.js';

export interface ProxierOptions {
  clientset: Clientset;
  hostname: string;
  clusterCIDR?: string;
  /** 'primary' or a list of CIDRs. */
  nodePortAddresses: 'primary' | string[];
  minSyncPeriodMs: number;
  fullSyncPeriodMs: number;
  logger: Logger;
  metrics?: ProxyMetrics;
  nft?: NftRunner;
  /** How long after the last sync unused chains and sets are deleted (upstream waits a second too). */
  staleObjectDelayMs?: number;
}

const serviceNameLabel = 'kubernetes.io/service-name';

export class Proxier {
  private readonly informers: InformerFactory;
  private readonly services: Informer;
  private readonly slices: Informer;
  private readonly node: Informer;
  private readonly state = new TableState();
  private readonly dirty = new Set<string>();
  private readonly nft: NftRunner;
  /** The fast transactions' runner: a long-lived `nft -i` (nft-session.ts) unless a runner was given. */
  private readonly session?: NftSession;
  private readonly ctx: RuleContext;
  private readonly conntrack: UDPConntrackCleaner;
  private needFull = true;
  private lastSync = 0;
  private previousSync = 0;
  private lastFull = 0;
  private timer?: NodeJS.Timeout;
  private cleanupTimer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  /** No sync before start() has the caches and the node's addresses (an early one would program no NodePort address). */
  private started = false;
  private nodeIPs: string[] = [];
  /** The time of the oldest change not yet programmed, for the latency log field. */
  private pendingSince?: number;

  constructor(private readonly opts: ProxierOptions) {
    this.informers = new InformerFactory(opts.clientset, { logger: opts.logger });
    this.services = this.informers.informer('services');
    this.slices = this.informers.informer('endpointslices');
    this.slices.addIndex('service', (s: EndpointSlice) => {
      const svc = s.metadata?.labels?.[serviceNameLabel];
      return svc ? [`${s.metadata!.namespace}/${svc}`] : [];
    });
    this.node = new Informer(opts.clientset.nodes, { fieldSelector: `metadata.name=${opts.hostname}`, logger: opts.logger });
    this.nft = opts.nft ?? nftRunner();
    if (!opts.nft) this.session = new NftSession();
    this.ctx = { clusterCIDR: opts.clusterCIDR };
    this.conntrack = new UDPConntrackCleaner(opts.logger);
    const key = (o: Service | EndpointSlice) => `${o.metadata!.namespace}/${o.metadata!.name}`;
    const sliceKey = (s: EndpointSlice) => `${s.metadata!.namespace}/${s.metadata?.labels?.[serviceNameLabel] ?? ''}`;
    this.services.addEventHandler({
      add: (s: Service) => this.markDirty(key(s)),
      update: (_o: Service, s: Service) => this.markDirty(key(s)),
      delete: (s: Service) => this.markDirty(key(s)),
    });
    this.slices.addEventHandler({
      add: (s: EndpointSlice) => this.markDirty(sliceKey(s)),
      update: (o: EndpointSlice, s: EndpointSlice) => { this.markDirty(sliceKey(o)); this.markDirty(sliceKey(s)); },
      delete: (s: EndpointSlice) => this.markDirty(sliceKey(s)),
    });
    this.node.addEventHandler({ add: () => this.nodeChanged(), update: () => this.nodeChanged(), delete: () => this.nodeChanged() });
  }

  async start(): Promise<void> {
    const existing = await existingObjects(tableFamily, tableName);
    this.state.adopt(existing.chains, existing.sets);
    this.informers.start();
    if (this.opts.nodePortAddresses === 'primary') this.node.start();
    await this.informers.waitForSync();
    if (this.opts.nodePortAddresses === 'primary') await Promise.race([this.node.waitForSync(), new Promise((r) => setTimeout(r, 5000))]);
    this.refreshNodeIPs();
    this.started = true;
    await this.syncNow();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.cleanupTimer) clearTimeout(this.cleanupTimer);
    this.session?.close();
    this.informers.stop();
    this.node.stop();
  }

  /** Resolves after any sync in progress; SIGTERM leaves the rules in place, as upstream does. */
  async idle(): Promise<void> { await this.running; await this.conntrack.idle(); }

  private markDirty(key: string): void {
    this.dirty.add(key);
    this.pendingSince ??= Date.now();
    this.schedule();
  }

  private nodeChanged(): void {
    if (this.refreshNodeIPs()) this.schedule();
  }

  /** Recomputes the NodePort addresses; true when they changed. */
  private refreshNodeIPs(): boolean {
    const ips = this.opts.nodePortAddresses === 'primary'
      ? primaryNodeIPs(this.node.list()[0] as Node | undefined)
      : localAddressesIn(this.opts.nodePortAddresses);
    if (ips.join(',') === this.nodeIPs.join(',')) return false;
    this.nodeIPs = ips;
    this.needFull = true; // nodeport-ips is written by full syncs
    this.opts.logger.info('node port addresses', { addresses: ips });
    return true;
  }

  /**
   * BoundedFrequencyRunner with upstream's burst of 2: a sync runs at once
   * unless two already ran within minSyncPeriod, else when the older of
   * them is minSyncPeriod old.
   */
  private schedule(): void {
    if (this.stopped || this.timer || !this.started) return;
    const wait = Math.max(0, this.previousSync + this.opts.minSyncPeriodMs - Date.now());
    this.timer = setTimeout(() => { this.timer = undefined; void this.syncNow(); }, wait);
  }

  private async syncNow(): Promise<void> {
    if (this.running) { await this.running; this.schedule(); return; }
    this.running = this.sync().finally(() => { this.running = undefined; });
    await this.running;
    if (this.dirty.size || this.needFull) this.schedule();
    this.scheduleCleanup();
  }

  /** Re-armed by every sync, so the cleanup's cache read never delays a burst of changes. */
  private scheduleCleanup(): void {
    if (this.cleanupTimer) clearTimeout(this.cleanupTimer);
    this.cleanupTimer = undefined;
    if (this.stopped || !this.state.staleCount) return;
    this.cleanupTimer = setTimeout(() => { this.cleanupTimer = undefined; void this.cleanupNow(); }, this.opts.staleObjectDelayMs ?? 1000);
  }

  private async cleanupNow(): Promise<void> {
    if (this.running || this.timer || this.dirty.size || this.needFull) return; // the sync re-arms it
    this.running = this.cleanup().finally(() => { this.running = undefined; });
    await this.running;
    if (this.dirty.size || this.needFull) this.schedule();
  }

  private async cleanup(): Promise<void> {
    const start = Date.now();
    const tx = this.state.cleanup();
    try {
      await this.nft(tx.script);
      tx.commit();
      this.opts.logger.info('deleted stale nftables objects', { objects: tx.script.split('\n').length - 1, durationMs: Date.now() - start });
    } catch (e) {
      // A chain still referenced (or already gone): the next full sync deletes what is left.
      this.needFull = true;
      this.opts.logger.error('deleting stale nftables objects failed', { err: (e as Error).message.slice(0, 2000) });
      this.schedule();
    }
  }

  private servicePortsOf(key: string): ServicePortInfo[] {
    const svc = this.services.get(key) as Service | undefined;
    if (!svc) return [];
    return servicePorts(svc, this.slices.byIndex('service', key) as EndpointSlice[], this.opts.hostname);
  }

  private rulesOf(infos: ServicePortInfo[]): ServiceRules {
    return new Map(infos.map((i) => [i.spn, portRules(i, this.ctx)]));
  }

  private async sync(): Promise<void> {
    const start = Date.now();
    const pendingSince = this.pendingSince;
    this.pendingSince = undefined;
    const full = this.needFull || start - this.lastFull >= this.opts.fullSyncPeriodMs;
    const keys = full ? this.services.list().map((s: Service) => `${s.metadata!.namespace}/${s.metadata!.name}`) : [...this.dirty];
    const changedKeys = [...this.dirty];
    this.dirty.clear();
    const infos = new Map(keys.map((k) => [k, this.servicePortsOf(k)]));
    const rules = new Map<string, ServiceRules | undefined>();
    for (const [k, i] of infos) rules.set(k, i.length ? this.rulesOf(i) : undefined);
    const tx: { script: string; followUp?: string; commit(): void } = full ? this.state.full(new Map([...rules].filter(([, r]) => r) as [string, ServiceRules][]), this.nodeIPs) : this.state.partial(rules);
    const built = Date.now();
    let fastMs: number | undefined;
    try {
      // A partial sync's first transaction reads no cache: the long-lived session runs it without a process start.
      const fast = !full && this.session && tx.script.length <= sessionScriptLimit ? this.session.run : this.nft;
      if (tx.script) await fast(tx.script);
      if (tx.followUp) {
        fastMs = Date.now() - built;
        await this.nft(tx.followUp);
      }
      tx.commit();
      this.needFull = false;
      if (full) this.lastFull = start;
    } catch (e) {
      // Upstream: a failed partial sync is followed by a full one.
      this.needFull = true;
      for (const k of changedKeys) this.dirty.add(k);
      this.opts.metrics?.syncFailures.inc();
      this.opts.logger.error('nftables sync failed', { err: (e as Error).message.slice(0, 2000), full });
      this.previousSync = this.lastSync;
      this.lastSync = Date.now();
      return;
    }
    this.previousSync = this.lastSync;
    this.lastSync = Date.now();
    for (const k of changedKeys) this.conntrack.record(k, infos.get(k) ?? this.servicePortsOf(k));
    const seconds = (this.lastSync - start) / 1000;
    this.opts.metrics?.observe(full, seconds, this.state.serviceCount);
    this.opts.logger.info('synced proxy rules', {
      full, services: keys.length, totalServices: this.state.serviceCount, bytes: tx.script.length + (tx.followUp?.length ?? 0),
      computeMs: built - start, nftMs: this.lastSync - built, durationMs: this.lastSync - start,
      // With deletions, the additions and rewrites were in the kernel after the first transaction.
      ...(fastMs !== undefined ? { fastNftMs: fastMs } : {}),
      ...(pendingSince !== undefined ? { latencyMs: this.lastSync - pendingSince } : {}),
    });
  }
}
