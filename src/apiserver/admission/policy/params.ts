/**
 * The params of a policy binding (upstream's generic.CollectParams), read
 * from a watch-fed cache per paramKind, started the first time a binding
 * needs it: a request waits at most 1 s for its first replay (upstream's
 * WaitForCacheSync timeout). A name the cache misses is read from storage
 * once, as upstream falls back to a direct GET, so a param created just
 * before the request is found.
 */
import type { ParamKind, ParamRef } from 'kubernetes-types/admissionregistration/v1.js';
import { labelSelectorAsSelector } from '../../../api/validation/labels.js';
import { Lister } from '../../../registry/lister.js';
import type { Registry } from '../../../registry/registry.js';
import type { Store } from '../../../registry/store.js';

/** Go's %v of a *ParamKind, which upstream's errors print. */
const paramKindString = (pk: ParamKind) => `&ParamKind{APIVersion:${pk.apiVersion ?? ''},Kind:${pk.kind ?? ''},}`;

export class ParamError extends Error {}

interface ParamCache { store: Store; lister: Lister; started: Promise<void> }

export class Params {
  private readonly caches = new Map<string, ParamCache>();

  constructor(private readonly registry: () => Registry) {}

  private cacheFor(pk: ParamKind): ParamCache | undefined {
    const key = `${pk.apiVersion}/${pk.kind}`;
    const known = this.caches.get(key);
    const store = this.registry().storeForKind(pk.apiVersion ?? '', pk.kind ?? '');
    if (known && known.store === store) return known;
    known?.lister.close();
    if (!store) { this.caches.delete(key); return undefined; }
    const lister = new Lister(store);
    const cache = { store, lister, started: lister.start() };
    cache.started.catch(() => undefined);
    this.caches.set(key, cache);
    return cache;
  }

  /**
   * The params for one binding: [null] when the policy or the binding uses
   * none; throws ParamError (a configuration error) as upstream words it.
   */
  async collect(pk: ParamKind | undefined, ref: ParamRef | undefined, namespace: string): Promise<unknown[]> {
    if (!pk || !ref) return [null];
    const cache = this.cacheFor(pk);
    if (!cache) throw new ParamError(`paramKind kind \`${paramKindString(pk)}\` not known`);
    if (!cache.lister.hasSynced()) {
      const synced = await Promise.race([cache.started.then(() => true, () => false), new Promise<boolean>((r) => setTimeout(() => r(false), 1000).unref())]);
      if (!synced) throw new ParamError(`paramKind kind \`${paramKindString(pk)}\` not yet synced to use for admission`);
    }
    const namespaced = cache.store.info.namespaced;
    let ns = '';
    if (namespaced) {
      ns = ref.namespace || namespace;
      if (!ns) throw new ParamError('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
    } else if (ref.namespace) throw new ParamError('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
    let params: unknown[];
    if (ref.name) {
      const hit = cache.lister.get(ns, ref.name) ?? await cache.store.get(namespaced ? ns : undefined, ref.name).catch(() => undefined);
      params = hit ? [hit] : [];
    } else {
      const sel = labelSelectorAsSelector(ref.selector ?? {});
      params = sel ? cache.lister.list(namespaced ? ns : undefined).filter((o: { metadata?: { labels?: Record<string, string> } }) => sel.empty || sel.matches(o.metadata?.labels ?? {})) : [];
    }
    if (params.length === 0 && ref.parameterNotFoundAction === 'Deny') throw new ParamError('no params found for policy binding with `Deny` parameterNotFoundAction');
    return params;
  }

  close(): void {
    for (const c of this.caches.values()) c.lister.close();
    this.caches.clear();
  }
}
