/**
 * The node agent's pod network (issue #21; the job of a CNI plugin's daemon
 * such as flannel's flanneld): level-triggered from one informer over all
 * Nodes, each change resyncs the whole node state, serialised, within the
 * watch's latency:
 *
 *  1. this node's podCIDR (set by the node IPAM controller) → the CNI
 *     conflist's range, the bridge's address, host-local's stale
 *     reservations removed; no podCIDR yet → no conflist, so the runtime
 *     creates no sandbox and no pod gets an address outside it;
 *  2. the overlay device (backends vxlan and auto), its MAC in this Node's
 *     annotations, its MTU the pods' (in the conflist);
 *  3. a route to every other node's podCIDR (backend.ts), stale ones removed;
 *  4. masquerade of pod-to-outside traffic (masquerade.ts).
 *
 * stop() leaves the data plane in place (a restarting agent must not cut its
 * pods off); reset removes it (teardown.ts).
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { Informer, type Clientset } from '../../client/index.js';
import type { Logger } from '../../util/log.js';
import { ensureBridge } from './bridge.js';
import { parseIPv4CIDR, formatCIDR, vtepAddressOf } from './cidr.js';
import { configuredSubnet, removeCNIConfig, removeStaleAllocations, writeCNIConfig } from './cni-config.js';
import type { CommandRunner } from './commands.js';
import {
  backendDataAnnotation, backendTypeAnnotation, planPeerRoutes, podCIDROf, publicIPAnnotation, vxlanPublished, type PodNetworkBackend,
} from './backend.js';
import { applyPeerRoutes, isDirectlyConnected } from './routes.js';
import { applyMasquerade } from './masquerade.js';
import { ensureVXLAN, vxlanVNI } from './vxlan.js';

export interface PodNetworkOptions {
  nodeName: string;
  /** The node's InternalIP: the VXLAN device's local address and what peers route to. */
  nodeIP: string;
  backend: PodNetworkBackend;
  cniConfDir: string;
  ipamDataDir: string;
  /** Called after the conflist was (re)written for a podCIDR, to record it (state.ts). */
  onConfigured?(podCIDR: string): void;
  /** Delay before retrying a failed sync (default 1 s). */
  retryMs?: number;
}

export class PodNetwork {
  private readonly informer: Informer;
  private running?: Promise<void>;
  private dirty = false;
  private stopped = false;
  private retryTimer?: NodeJS.Timeout;
  /** The plan last programmed, so an unchanged node status (heartbeats) costs no command. */
  private applied = '';
  private syncs = 0;

  constructor(private readonly deps: { clients: Clientset; runner: CommandRunner; logger: Logger }, private readonly opts: PodNetworkOptions) {
    this.informer = new Informer(deps.clients.nodes, { logger: deps.logger });
    const kick = () => this.requestSync();
    this.informer.addEventHandler({ add: kick, update: kick, delete: kick });
  }

  start(): void {
    this.informer.start();
    // Events of the initial list arrive before the cache counts as synced: the first sync follows the sync itself.
    this.informer.waitForSync().then(() => this.requestSync(), () => undefined);
  }

  /** Resolves once the informer has listed and the first sync ran. */
  async waitForSync(): Promise<void> {
    await this.informer.waitForSync();
    this.requestSync();
    while (this.running) await this.running;
  }

  get syncCount(): number { return this.syncs; }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.informer.stop();
    while (this.running) await this.running;
  }

  private requestSync(): void {
    if (this.stopped) return;
    this.dirty = true;
    if (this.running) return;
    this.running = (async () => {
      while (this.dirty && !this.stopped) {
        this.dirty = false;
        try {
          await this.sync();
        } catch (e) {
          this.applied = '';
          this.deps.logger.error('pod network sync failed; retrying', { err: e instanceof Error ? e.message : String(e) });
          clearTimeout(this.retryTimer);
          this.retryTimer = setTimeout(() => this.requestSync(), this.opts.retryMs ?? 1000);
        }
      }
    })().finally(() => { this.running = undefined; });
  }

  private async sync(): Promise<void> {
    if (!this.informer.hasSynced()) return;
    const { runner: r, logger } = this.deps;
    const nodes = this.informer.list() as Node[];
    const self = nodes.find((n) => n.metadata?.name === this.opts.nodeName);
    const cidr = parseIPv4CIDR((self && podCIDROf(self)) ?? '');
    if (!self || !cidr) {
      // No podCIDR (yet, or the Node was deleted): no CNI network, so no pod gets an address from a stale range.
      if (removeCNIConfig(this.opts.cniConfDir)) logger.info('removed the CNI network: the node has no podCIDR', { node: this.opts.nodeName });
      this.applied = '';
      return;
    }
    const local = formatCIDR(cidr);
    const connected = new Map<string, boolean>();
    for (const n of nodes) {
      const ip = n.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
      if (ip && n !== self) connected.set(ip, await isDirectlyConnected(r, ip));
    }
    const plan = planPeerRoutes(this.opts.nodeName, nodes, this.opts.backend, (ip) => connected.get(ip) ?? false);
    const peers = nodes.map(podCIDROf).filter((c): c is string => !!c && !!parseIPv4CIDR(c)).map((c) => formatCIDR(parseIPv4CIDR(c)!));
    const key = JSON.stringify([local, plan.routes, peers.sort(), vxlanPublished(self, this.opts.nodeIP)]);
    if (key === this.applied) return;
    this.syncs++;
    enableIPForwarding();
    const removed = await ensureBridge(r, cidr);
    if (removed.length) logger.info('re-addressed the pod bridge for the node\'s podCIDR', { podCIDR: local, removed });
    const overlay = this.opts.backend !== 'host-gw';
    const mtu = overlay ? await this.ensureOverlay(self, vtepAddressOf(cidr)) : undefined;
    const before = configuredSubnet(this.opts.cniConfDir);
    if (before !== local) {
      const released = removeStaleAllocations(this.opts.ipamDataDir, cidr);
      logger.info('wrote the CNI network for the node\'s podCIDR', { podCIDR: local, previous: before ?? null, releasedAddresses: released.length });
    }
    writeCNIConfig(this.opts.cniConfDir, local, this.opts.ipamDataDir, mtu);
    this.opts.onConfigured?.(local);
    await applyPeerRoutes(r, plan.routes, overlay);
    await applyMasquerade(r, local, peers);
    for (const w of plan.waiting) logger.warn('no route to a node\'s pods yet', w);
    logger.info('pod network synced', { podCIDR: local, routes: plan.routes.map((rt) => `${rt.dst} ${rt.kind} ${rt.kind === 'host-gw' ? rt.via : rt.nodeIP}`) });
    this.applied = key;
  }

  /** The VXLAN device, and its MAC published as flannel publishes it, so peers can program their fdb. */
  private async ensureOverlay(self: Node, vtep: string): Promise<number> {
    const { mac, mtu } = await ensureVXLAN(this.deps.runner, this.opts.nodeIP, vtep);
    const data = JSON.stringify({ VNI: vxlanVNI, VtepMAC: mac });
    const a = self.metadata?.annotations ?? {};
    if (a[backendDataAnnotation] === data && a[publicIPAnnotation] === this.opts.nodeIP && a[backendTypeAnnotation] === 'vxlan') return mtu;
    await this.deps.clients.nodes.patch(undefined, this.opts.nodeName, {
      metadata: { annotations: { [backendDataAnnotation]: data, [backendTypeAnnotation]: 'vxlan', [publicIPAnnotation]: this.opts.nodeIP } },
    }, 'merge');
    this.deps.logger.info('published the node\'s VXLAN endpoint', { mac, publicIP: this.opts.nodeIP });
    return mtu;
  }
}

/** The node forwards between its bridge, its uplink and the overlay (the bridge plugin sets it only at a pod's first ADD). */
function enableIPForwarding(): void {
  const path = '/proc/sys/net/ipv4/ip_forward';
  if (readFileSync(path, 'utf8').trim() !== '1') writeFileSync(path, '1');
}
