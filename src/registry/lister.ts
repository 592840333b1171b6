/**
 * A watch-fed cache of one resource inside the API server: upstream's shared
 * informer plus its lister (client-go tools/cache), fed by the registry's own
 * watch instead of a client. Admission plugins and authorizers read it so a
 * request lists nothing from storage.
 *
 * Contract:
 *  - start() resolves once the first replay (a watch from resourceVersion 0)
 *    is complete; until then every get() misses and list() is empty.
 *  - A watch that ends (compaction, storage restart) is opened again after
 *    RelistBackoff's delay; the replay fills a fresh map that replaces the
 *    old one only once it is complete, so readers never see half a cache. A
 *    failed replay (storage down) is retried the same way, never given up;
 *    meanwhile readers keep the last complete state, as an informer does.
 *  - Objects are the store's decoded objects, shared with every reader and
 *    watcher: readers must not mutate them.
 *  - A miss is not "absent": callers that must not refuse a just-created
 *    object (ServiceAccount, NamespaceLifecycle) look it up in storage then.
 */
import type { Store, Watch } from './store.js';
import type { WatchEventOut } from './types.js';
import type { Logger } from '../util/log.js';
import { RelistBackoff } from '../util/relist-backoff.js';

interface Named { metadata?: { namespace?: string; name?: string } }

/** Objects by namespace ('' for cluster-scoped kinds) and name. */
class Index<T extends Named> {
  private readonly byNamespace = new Map<string, Map<string, T>>();

  apply(ev: WatchEventOut): void {
    const obj = ev.object as T;
    const ns = obj?.metadata?.namespace ?? '';
    const name = obj?.metadata?.name;
    if (typeof name !== 'string') return;
    let m = this.byNamespace.get(ns);
    if (ev.type === 'DELETED') {
      m?.delete(name);
      if (m?.size === 0) this.byNamespace.delete(ns);
      return;
    }
    if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED') return;
    if (!m) this.byNamespace.set(ns, m = new Map());
    m.set(name, obj);
  }

  get(namespace: string, name: string): T | undefined { return this.byNamespace.get(namespace)?.get(name); }

  inNamespace(namespace: string): Iterable<T> { return this.byNamespace.get(namespace)?.values() ?? []; }

  list(namespace: string | undefined): T[] {
    if (namespace !== undefined) {
      // Admission lists a namespace's LimitRanges and ResourceQuotas on every pod create: most have none.
      const m = this.byNamespace.get(namespace);
      return m ? [...m.values()] : [];
    }
    const all: T[] = [];
    for (const m of this.byNamespace.values()) for (const v of m.values()) all.push(v);
    return all;
  }
}

export interface ListerOptions {
  logger?: Logger;
  /** Only this namespace's objects (the bootstrap-token authenticator keeps kube-system's). */
  namespace?: string;
  fieldSelector?: string;
}

export class Lister<T extends Named = any> {
  private index = new Index<T>();
  private watch?: Watch;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private synced = false;
  private readonly backoff = new RelistBackoff();

  constructor(private readonly store: Store, private readonly opts: ListerOptions = {}) {}

  /** Resolves once the current state has been read; from then on the cache follows the writes. */
  async start(): Promise<void> {
    await this.open();
  }

  /** True once a replay has completed (a miss before that says nothing). */
  hasSynced(): boolean { return this.synced; }

  /** The cached object, or undefined (absent, or not seen yet). */
  get(namespace: string | undefined, name: string): T | undefined { return this.index.get(namespace ?? '', name); }

  /** The cached objects of one namespace, or of all when namespace is undefined (cluster-scoped kinds: ''). */
  list(namespace?: string): T[] { return this.index.list(namespace); }

  /** One namespace's cached objects without copying them into an array (per-request hot paths: RBAC). */
  inNamespace(namespace: string): Iterable<T> { return this.index.inNamespace(namespace); }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.watch?.close();
  }

  private async open(): Promise<void> {
    if (this.closed) return;
    const fresh = new Index<T>();
    const w = await this.store.watch(this.opts.namespace, { resourceVersion: '0', fieldSelector: this.opts.fieldSelector },
      (ev) => fresh.apply(ev), (err) => this.reopenLater(err));
    if (this.closed) { w.close(); return; }
    this.watch = w;
    this.index = fresh;
    this.synced = true;
    this.backoff.watching();
  }

  private reopenLater(err?: Error): void {
    if (this.closed) return;
    const delayMs = this.backoff.next();
    this.opts.logger?.warn('cache: watch ended, listing again', { resource: this.store.info.plural, err: err?.message, delayMs });
    this.timer = setTimeout(() => { this.open().catch((e) => this.reopenLater(e)); }, delayMs);
    this.timer.unref();
  }
}
