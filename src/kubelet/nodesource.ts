/**
 * The agents' view of their own Node objects (upstream's kubelet node
 * lister): one informer, every event routed to the agent of that node. A
 * single kubelet watches with fieldSelector metadata.name=<node>; a
 * simulator watches all nodes once.
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import type { Clientset } from '../client/index.js';
import { Informer } from '../client/index.js';
import type { Logger } from '../util/log.js';

export interface NodeHandler {
  update(node: Node): void;
  deleted(node: Node): void;
}

export class NodeSource {
  readonly informer: Informer;
  private readonly handlers = new Map<string, NodeHandler>();
  private started = false;

  constructor(clients: Clientset, opts: { fieldSelector?: string; logger?: Logger } = {}) {
    this.informer = new Informer(clients.nodes, { fieldSelector: opts.fieldSelector, logger: opts.logger });
    this.informer.addEventHandler({
      add: (n: Node) => this.handlers.get(n.metadata!.name!)?.update(n),
      update: (_old, n: Node) => this.handlers.get(n.metadata!.name!)?.update(n),
      delete: (n: Node) => this.handlers.get(n.metadata!.name!)?.deleted(n),
    });
  }

  subscribe(nodeName: string, handler: NodeHandler): () => void {
    this.handlers.set(nodeName, handler);
    return () => { if (this.handlers.get(nodeName) === handler) this.handlers.delete(nodeName); };
  }

  get(nodeName: string): Node | undefined { return this.informer.get(nodeName); }
  hasSynced(): boolean { return this.informer.hasSynced(); }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.informer.start();
  }

  waitForSync(): Promise<void> { return this.informer.waitForSync(); }
  stop(): void { this.informer.stop(); }
}
