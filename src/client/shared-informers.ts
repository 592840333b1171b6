/**
 * One set of informers for the components of one isolate: kube-controller-manager
 * hands one SharedInformerFactory to all its controllers, so each resource is
 * listed, watched, decoded and cached once however many controllers read it.
 * k8ts runs its scheduler beside the controller manager (`k8ts server`'s control
 * loops thread, `k8ts up`'s serving thread), so the two share too: one pod
 * watch instead of two, every pod event decoded once (upstream's scheduler is a
 * separate binary with its own watches; sharing in-process is k8ts's choice).
 * The informers still list and watch through the public API, under the identity
 * of the client they were given.
 *
 * Each component takes a scope per leadership term. A scope hands out handles
 * on the shared informers (informer.ts) and starts them; on stop() it takes its
 * own event handlers off. The informers stop when the last scope that read them
 * stops, and the next scope gets fresh ones.
 */
import { InformerFactory, type ResourceName } from './clientset.js';
import type { Clientset } from './clientset.js';
import { Informer, type InformerOptions } from './informer.js';

/** What a component reads informers from: InformerFactory, or a scope of SharedInformers. */
export interface InformerSource {
  informer(name: ResourceName): Informer;
}

export class SharedInformers {
  private factory?: InformerFactory;
  private scopes = 0;

  constructor(private readonly clients: Clientset, private readonly opts: InformerOptions = {}) {}

  /** A component's view for one term; stop() it when the term ends. */
  scope(): InformerScope { return new InformerScope(this); }

  /** A scope's first informer: the informers of the current generation, created with its first scope. */
  retain(): InformerFactory {
    this.scopes++;
    this.factory ??= new InformerFactory(this.clients, this.opts);
    return this.factory;
  }

  /** A scope stopped: the last one stops the informers and drops them. */
  release(): void {
    if (--this.scopes > 0) return;
    this.factory?.stop();
    this.factory = undefined;
  }
}

export class InformerScope implements InformerSource {
  private readonly handles = new Map<ResourceName, Informer>();
  private factory?: InformerFactory;
  private started = false;
  private stopped = false;

  constructor(private readonly owner: SharedInformers) {}

  informer(name: ResourceName): Informer {
    if (this.stopped) throw new Error('informer scope already stopped');
    let handle = this.handles.get(name);
    if (!handle) {
      this.factory ??= this.owner.retain();
      handle = new Informer(this.factory.informer(name).core);
      if (!this.started) handle.holdHandlers();
      this.handles.set(name, handle);
    }
    return handle;
  }

  /** Hands the handlers added so far to the informers and starts them (those already running go on). */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    for (const h of this.handles.values()) h.releaseHandlers();
    this.factory?.start();
  }

  async waitForSync(): Promise<void> {
    await Promise.all([...this.handles.values()].map((h) => h.waitForSync()));
  }

  /** Takes this scope's handlers off the shared informers; the last scope stops them. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const h of this.handles.values()) h.detach();
    if (this.factory) this.owner.release();
  }
}
