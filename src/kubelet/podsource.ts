/**
 * Where node agents learn about the pods bound to them. One informer feeds
 * every agent of the process: a single kubelet watches with
 * fieldSelector spec.nodeName=<node> (as upstream's kubelet does); a
 * simulator of many nodes watches all scheduled pods once
 * (spec.nodeName!=) and dispatches each event to the agent of its node,
 * through an index by nodeName, instead of opening one watch per node.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Clientset } from '../client/index.js';
import { Informer, metaKey, stripManagedFields } from '../client/index.js';
import type { Logger } from '../util/log.js';

export interface PodHandler {
  /** A pod bound to the node was added or changed. */
  upsert(pod: Pod): void;
  /** A pod bound to the node is gone from the API (or moved away). */
  remove(pod: Pod): void;
}

export const byNodeNameIndex = 'nodeName';

export class PodSource {
  readonly informer: Informer;
  private readonly handlers = new Map<string, PodHandler>();
  private started = false;

  /**
   * fieldSelector: `spec.nodeName=<node>` for one agent; the default selects every scheduled pod.
   * withoutManagedFields: the cache keeps pods without managedFields, decoded without them
   * (client/skip-managed-fields.ts). No agent reads them, and its status writes leave them out
   * (status/manager.ts); the node simulator sets it, for 5,000 nodes' pods.
   */
  constructor(clients: Clientset, opts: { fieldSelector?: string; logger?: Logger; withoutManagedFields?: boolean } = {}) {
    this.informer = new Informer(clients.pods, {
      fieldSelector: opts.fieldSelector ?? 'spec.nodeName!=', logger: opts.logger,
      ...(opts.withoutManagedFields ? { transform: stripManagedFields, skipManagedFields: true } : {}),
    });
    this.informer.addIndex(byNodeNameIndex, (pod) => (pod.spec?.nodeName ? [pod.spec.nodeName] : []));
    this.informer.addEventHandler({
      add: (pod) => this.handlers.get(pod.spec?.nodeName)?.upsert(pod),
      update: (old, pod) => {
        const from = old.spec?.nodeName;
        const to = pod.spec?.nodeName;
        if (from && from !== to) this.handlers.get(from)?.remove(old);
        this.handlers.get(to)?.upsert(pod);
      },
      delete: (pod) => this.handlers.get(pod.spec?.nodeName)?.remove(pod),
    });
  }

  /**
   * Routes the node's pod events to `handler`; the pods already known are
   * replayed as upserts, oldest first (upstream admits pods in creation order).
   */
  subscribe(nodeName: string, handler: PodHandler): () => void {
    this.handlers.set(nodeName, handler);
    if (this.informer.hasSynced()) {
      // RFC 3339 timestamps order as plain strings; localeCompare would page in ICU's collation data (~3 MB of RSS) for nothing.
      const created = (p: Pod) => String(p.metadata?.creationTimestamp ?? '');
      const pods = this.podsOn(nodeName);
      pods.sort((a, b) => { const x = created(a), y = created(b); return x < y ? -1 : x > y ? 1 : 0; });
      for (const pod of pods) handler.upsert(pod);
    }
    return () => { if (this.handlers.get(nodeName) === handler) this.handlers.delete(nodeName); };
  }

  podsOn(nodeName: string): Pod[] { return this.informer.byIndex(byNodeNameIndex, nodeName); }
  get(key: string): Pod | undefined { return this.informer.get(key); }
  keyOf(pod: Pod): string { return metaKey(pod); }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.informer.start();
  }

  waitForSync(): Promise<void> { return this.informer.waitForSync(); }
  stop(): void { this.informer.stop(); }
}
