/**
 * Keeps the Node authorizer's graph from watches of pods, persistent volumes
 * and volume attachments (upstream's graph_populator informers), never by
 * listing per request. A watch that ends (compaction, storage restart) is
 * followed by a fresh list that replaces what the graph knew of that kind.
 */
import type { Registry } from '../../../registry/registry.js';
import type { Store, Watch } from '../../../registry/store.js';
import type { Logger } from '../../../util/log.js';
import type { NodeGraph } from './graph.js';
import { RelistBackoff } from '../../../util/relist-backoff.js';

interface Feed {
  store: Store;
  set(obj: any): void;
  remove(obj: any): void;
  /** After a relist: drops what the list did not return (the graph is the only record of what it knew). */
  retain(listed: any[]): void;
}

const relistDelayMs = 1000;

export class GraphPopulator {
  private readonly watches = new Set<Watch>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly registry: Registry, private readonly graph: NodeGraph, private readonly logger?: Logger) {}

  private feeds(): Feed[] {
    const g = this.graph;
    const feeds: Array<Feed | undefined> = [
      this.feed('', 'v1', 'pods', { set: (o) => g.setPod(o), remove: (o) => g.deletePod(o.metadata.namespace, o.metadata.name), retain: (l) => g.retainPods(l) }),
      this.feed('', 'v1', 'persistentvolumes', { set: (o) => g.setPV(o), remove: (o) => g.deletePV(o.metadata.name), retain: (l) => g.retainPVs(l) }),
      this.feed('storage.k8s.io', 'v1', 'volumeattachments',
        { set: (o) => g.setVolumeAttachment(o), remove: (o) => g.deleteVolumeAttachment(o.metadata.name), retain: (l) => g.retainVolumeAttachments(l) }),
    ];
    return feeds.filter((f): f is Feed => !!f);
  }

  private feed(group: string, version: string, plural: string, handlers: Omit<Feed, 'store'>): Feed | undefined {
    const store = this.registry.store(group, version, plural);
    return store && { store, ...handlers };
  }

  /** Resolves once every kind has been listed into the graph. */
  async start(): Promise<void> {
    await Promise.all(this.feeds().map((f) => this.follow(f)));
  }

  private async follow(f: Feed, backoff = new RelistBackoff(relistDelayMs)): Promise<void> {
    if (this.closed) return;
    const { items, resourceVersion } = await f.store.list(undefined);
    f.retain(items);
    for (const o of items) f.set(o);
    let w: Watch | undefined = undefined;
    w = await f.store.watch(undefined, { resourceVersion }, (ev) => {
      const o = ev.object;
      if (ev.type === 'ADDED' || ev.type === 'MODIFIED') f.set(o);
      if (ev.type === 'DELETED') f.remove(o);
    }, (err) => {
      if (w) this.watches.delete(w);
      if (err) this.logger?.warn('node authorizer graph watch ended, relisting', { resource: f.store.info.plural, err: String(err) });
      this.retry(f, backoff);
    });
    backoff.watching();
    this.watches.add(w);
    if (this.closed) w.close();
  }

  /** Lists and watches the kind again after the back-off; a failed list (storage down) is retried the same way, never given up. */
  private retry(f: Feed, backoff: RelistBackoff): void {
    if (this.closed) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.follow(f, backoff).catch((e) => {
        this.logger?.error('node authorizer graph relist failed', { resource: f.store.info.plural, err: String(e) });
        this.retry(f, backoff);
      });
    }, backoff.next());
    t.unref();
    this.timers.add(t);
  }

  close(): void {
    this.closed = true;
    for (const w of this.watches) w.close();
    for (const t of this.timers) clearTimeout(t);
    this.watches.clear();
    this.timers.clear();
  }
}
