/**
 * The node IPAM controller's range allocator (upstream "nodeipam" with
 * --allocate-node-cidrs and --cluster-cidr, which kubeadm sets from
 * --pod-network-cidr): every Node gets spec.podCIDR(s), a subnet of the
 * cluster CIDR of --node-cidr-mask-size bits, which the node's network plugin
 * takes its pod addresses from. Subnets nodes already have are marked taken
 * before anything is handed out; a deleted node's subnet is released. The
 * field is immutable once set (the API server refuses a change), so a node
 * that already has one is only recorded.
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import type { EventRecorder, Informer } from '../../client/index.js';
import { WorkQueue, runWorkers, isNotFound } from '../../client/index.js';
import type { Controller, ControllerContext } from '../types.js';
import type { Logger } from '../../util/log.js';
import { CIDRSet } from './cidrset.js';

export const controllerName = 'nodeipam';
/** Upstream's event source for the allocator. */
const eventSource = 'cidrAllocator';
/** Upstream's cidrUpdateRetries. */
const updateRetries = 3;

const podCIDRsOf = (n: Node): string[] => n.spec?.podCIDRs?.length ? n.spec.podCIDRs : n.spec?.podCIDR ? [n.spec.podCIDR] : [];

export class NodeIPAMController implements Controller {
  readonly name = controllerName;
  private readonly logger: Logger;
  private readonly recorder: EventRecorder;
  private readonly nodes: Informer;
  private readonly queue = new WorkQueue();
  /**
   * Nodes a subnet was taken for, until the informer shows the node with it: an update event
   * must not take a second one. Upstream forgets a node once its patch returns, so an update
   * event still in flight from before the patch (a kubelet heartbeat) takes and gives back
   * another subnet, and the rotating candidate then skips it: a loaded lab saw its first
   * worker get 10.244.2.0/24 instead of 10.244.1.0/24.
   */
  private readonly inProcessing = new Map<string, string[]>();

  constructor(private readonly ctx: ControllerContext, private readonly cidrSets: CIDRSet[]) {
    this.logger = ctx.logger.with(controllerName);
    this.recorder = ctx.recorder(eventSource);
    this.nodes = ctx.informers.informer('nodes');
    this.nodes.addEventHandler({
      add: (n: Node) => this.queue.add(n.metadata!.name!),
      update: (_old: Node, n: Node) => {
        if (podCIDRsOf(n).length === 0) this.queue.add(n.metadata!.name!);
        else this.inProcessing.delete(n.metadata!.name!);
      },
      delete: (n: Node) => this.forget(n),
    });
  }

  run(): void {
    this.logger.info('Starting range CIDR allocator', { controller: controllerName, free: this.cidrSets.map((s) => s.free) });
    // What nodes hold already is taken before the first allocation (upstream does this before it starts).
    for (const n of this.nodes.list() as Node[]) this.occupy(n);
    void runWorkers(this.queue, 1, (name) => this.sync(name),
      (name, err) => this.logger.warn('error allocating a pod CIDR', { node: name, err }));
  }

  stop(): void { this.queue.shutDown(); }

  private occupy(n: Node): void {
    for (const [i, cidr] of podCIDRsOf(n).entries()) {
      const err = this.cidrSets[i]?.occupy(cidr);
      if (err) this.logger.warn('node has a pod CIDR the allocator does not manage', { node: n.metadata?.name, podCIDR: cidr, err });
    }
  }

  /** A deleted node gives back its subnets, also those written to it that the informer never showed. */
  private forget(n: Node): void {
    const name = n.metadata!.name!;
    const cidrs = podCIDRsOf(n).length > 0 ? podCIDRsOf(n) : this.inProcessing.get(name) ?? [];
    this.inProcessing.delete(name);
    for (const [i, cidr] of cidrs.entries()) this.cidrSets[i]?.release(cidr);
  }

  private nodeStatusEvent(n: Node, status: string): void {
    // Upstream's RecordNodeStatusChange: the reference's UID is the node's name.
    this.recorder.event({ apiVersion: 'v1', kind: 'Node', metadata: { name: n.metadata!.name, uid: n.metadata!.name } }, 'Normal', status,
      `Node ${n.metadata!.name} status is now: ${status}`);
  }

  private async sync(name: string): Promise<void> {
    const node = this.nodes.get(name) as Node | undefined;
    if (!node || node.metadata?.deletionTimestamp) return;
    if (podCIDRsOf(node).length > 0) { this.inProcessing.delete(name); this.occupy(node); return; }
    if (this.inProcessing.has(name)) return;
    const allocated: string[] = [];
    for (const set of this.cidrSets) {
      const cidr = set.allocateNext();
      if (!cidr) {
        for (const [i, c] of allocated.entries()) this.cidrSets[i].release(c);
        this.nodeStatusEvent(node, 'CIDRNotAvailable');
        // An error, so the node is tried again with back-off and takes a subnet a deleted node gives back.
        throw new Error(`failed to allocate cidr from cluster cidr: CIDR allocation failed; there are no remaining CIDRs left to allocate in the accepted range`);
      }
      allocated.push(cidr);
    }
    this.inProcessing.set(name, allocated);
    let holds = false;
    try {
      holds = await this.write(name, allocated);
    } finally {
      // Kept while the node holds them and the informer has not shown it yet (see inProcessing).
      const seen = this.nodes.get(name) as Node | undefined;
      if (!holds || (seen && podCIDRsOf(seen).length > 0)) this.inProcessing.delete(name);
    }
  }

  /**
   * Writes the subnets to the node; true when the node holds them now, false when they were
   * given back (the node has others, is gone or cannot take them).
   */
  private async write(name: string, allocated: string[]): Promise<boolean> {
    const giveBack = () => { for (const [i, c] of allocated.entries()) this.cidrSets[i].release(c); };
    for (let attempt = 1; attempt <= updateRetries; attempt++) {
      let current: Node;
      try {
        current = await this.ctx.clients.nodes.get(undefined, name);
      } catch (e) {
        giveBack();
        if (isNotFound(e)) return false;
        throw e;
      }
      const existing = podCIDRsOf(current);
      if (existing.length > 0) {
        // Someone set it meanwhile (an earlier write of ours, or the kubelet's --pod-cidr): keep theirs.
        if (existing.join(',') === allocated.join(',')) return true;
        giveBack();
        this.occupy(current);
        return false;
      }
      try {
        await this.ctx.clients.nodes.patch(undefined, name,
          { metadata: { uid: current.metadata!.uid }, spec: { podCIDR: allocated[0], podCIDRs: allocated } }, 'strategic');
        this.logger.info('set node pod CIDR', { node: name, podCIDRs: allocated });
        return true;
      } catch (e) {
        if (isNotFound(e)) { giveBack(); return false; }
        if (attempt === updateRetries) {
          giveBack();
          this.nodeStatusEvent(current, 'CIDRAssignmentFailed');
          throw e;
        }
      }
    }
    return false;
  }
}
