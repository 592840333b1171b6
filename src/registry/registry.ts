/**
 * The registry: one Store per served resource, plus the namespace lifecycle
 * rules every namespaced create (and every namespace delete) goes through.
 */
import type { Backend } from '../storage/backend.js';
import { resources, ResourceInfo, apiVersionOf, hasStorage } from '../api/resources.js';
import { forbiddenStatus, type GroupResource } from '../api/status.js';
import type { Clock } from '../util/clock.js';
import { Store, StoreHooks, type StoreDeps } from './store.js';
import type { RequestContext } from './request-context.js';
import type { Strategy } from './strategy.js';
import type { Lister } from './lister.js';
import type { Namespace } from 'kubernetes-types/core/v1.js';
import { genericStrategy } from './strategies/generic.js';
import { podStrategy } from './strategies/pods.js';
import { nodeStrategy } from './strategies/nodes.js';
import { namespaceStrategy } from './strategies/namespaces.js';
import { initialStatusStrategy } from './strategies/simple-status.js';
import { csrStrategy } from './strategies/csr.js';
import { daemonSetStrategy } from './strategies/daemonsets.js';
import { jobStrategy } from './strategies/jobs.js';
import { hpaV1Strategy, hpaV2Strategy } from './strategies/hpa.js';
import { crdStrategy } from './custom/crd-strategy.js';
import { CustomCatalogue, versionsOf } from './custom/catalogue.js';
import { CustomResourceStore } from './custom/store.js';
import { WebhookConvertedStore } from './custom/webhook-converted-store.js';
import { StatusError } from '../api/status.js';
import type { CustomResourceDefinition } from '../api/apiextensions/types.js';
import { deploymentStrategy } from './strategies/deployments.js';
import { coreEventStrategy, eventsV1StorageVersion } from './strategies/events.js';
import { CacheFeed } from './watch-cache/feed.js';
import { WatchCache } from './watch-cache/cache.js';
import type { ColdOptions } from './watch-cache/cold-sweep.js';
import type { Logger } from '../util/log.js';
import type { Unstructured } from '../api/unstructured.js';

function strategyFor(info: ResourceInfo, clock: Clock): Strategy {
  switch (`${info.group}/${info.plural}`) {
    case 'apiextensions.k8s.io/customresourcedefinitions': return crdStrategy(info, () => clock.now());
    case '/pods': return podStrategy(info);
    case '/nodes': return nodeStrategy(info);
    case '/namespaces': return namespaceStrategy(info);
    case 'apps/daemonsets': return daemonSetStrategy(info);
    case 'batch/jobs': return jobStrategy(info);
    case 'apps/deployments': return deploymentStrategy(info);
    case '/events': return coreEventStrategy(info);
    case '/persistentvolumes':
    case '/persistentvolumeclaims': return initialStatusStrategy(info, () => ({ phase: 'Pending' }));
    case 'certificates.k8s.io/certificatesigningrequests': return csrStrategy(info, () => clock.now());
    // Upstream's service strategy resets status to an empty ServiceStatus, whose
    // loadBalancer struct is always serialized: clients read status.loadBalancer.
    case '/services': return initialStatusStrategy(info, () => ({ loadBalancer: {} }));
    case 'autoscaling/horizontalpodautoscalers': return info.version === 'v1' ? hpaV1Strategy(info) : hpaV2Strategy(info);
    // Go's IngressStatus.loadBalancer and ResourceQuotaStatus are structs: always serialized.
    case 'networking.k8s.io/ingresses': return initialStatusStrategy(info, () => ({ loadBalancer: {} }));
    case '/resourcequotas': return initialStatusStrategy(info, () => ({}));
    default: {
      const strategy = genericStrategy(info);
      // Set here, not in genericStrategy: the kinds above spread its result under their own prepareForUpdate.
      return strategy.hasStatus ? strategy : { ...strategy, updateCopiesNothingOfOld: true };
    }
  }
}

export interface RegistryOptions {
  /** How long a list or watch for a resourceVersion the store has not reached waits for it (default 3 s, as upstream). */
  freshnessWaitMs?: number;
  /** Validating admission, run after validation (ResourceQuota). */
  validateAdmission?: StoreHooks['validate'];
  /** Admission of deletes (NodeRestriction). */
  admitDelete?: StoreHooks['admitDelete'];
  /** Where a write's warnings go (the response's Warning headers). */
  warn?: StoreHooks['warn'];
  /** Admission of a CREATE on a subresource with a kind of its own (see Registry.admitSubresourceCreate). */
  admitSubresourceCreate?: (info: ResourceInfo, obj: object, opts: { dryRun: boolean }, ctx?: RequestContext) => Promise<void> | void;
}

/**
 * Calls the CRD's conversion webhook for `objects` (those not yet in
 * `desiredAPIVersion`) and answers them all in that version; throws a
 * StatusError with upstream's words. The apiserver provides it.
 */
export type ConversionWebhook = (crd: CustomResourceDefinition, objects: Unstructured[], desiredAPIVersion: string) => Promise<Unstructured[]>;

export interface WatchCacheOptions {
  /** Events kept per resource for watches that resume from a resourceVersion (0: no watch cache). */
  capacity: number;
  logger?: Logger;
  /** When untouched pods go cold (watch-cache/cold-sweep.ts); false: they stay decoded. */
  cold?: ColdOptions | false;
}

/**
 * Upstream's default watch cache sizes leave Events out (kube-apiserver's
 * DefaultWatchCacheSizes: events 0): they are many, short-lived and rarely watched.
 */
function hasWatchCache(info: ResourceInfo): boolean {
  return !(info.plural === 'events' && (info.group === '' || info.group === 'events.k8s.io'));
}

export class Registry {
  private readonly stores = new Map<string, Store>();
  /** The stores of served custom resource versions, by CRD name. */
  private readonly customStores = new Map<string, CustomResourceStore[]>();
  /** What custom resources are served: discovery, OpenAPI and routing read it. */
  readonly custom = new CustomCatalogue();
  private readonly deps: StoreDeps;
  private namespaceCache?: Lister<Namespace>;
  private feed?: CacheFeed;
  private cacheOptions?: WatchCacheOptions;
  private conversionWebhook?: ConversionWebhook;

  constructor(readonly backend: Backend, readonly clock: Clock, admit?: StoreHooks['admit'], private readonly opts: RegistryOptions = {}) {
    const admitDelete: StoreHooks['admitDelete'] = (info, obj, ctx) => {
      checkNamespaceDeletion(info, obj);
      return opts.admitDelete?.(info, obj, ctx);
    };
    const hooks: StoreHooks = { admit, validate: opts.validateAdmission, admitDelete, warn: opts.warn, checkNamespace: (ns, gr, name) => this.checkNamespace(ns, gr, name) };
    const deps = { backend, clock, hooks, freshnessWaitMs: opts.freshnessWaitMs };
    this.deps = deps;
    for (const info of resources) {
      if (!hasStorage(info)) continue;
      const storage = info.group === 'events.k8s.io' && info.plural === 'events' ? eventsV1StorageVersion() : undefined;
      this.stores.set(storeKey(info.group, info.version, info.plural), new Store(info, strategyFor(info, clock), deps, storage));
    }
  }

  /**
   * Gives every resource (but Events) a watch cache fed by one storage watch, and resolves
   * once each holds the current state: from then on lists and watches are served from memory.
   */
  async startWatchCache(opts: WatchCacheOptions): Promise<void> {
    if (opts.capacity <= 0 || this.feed) return;
    this.cacheOptions = opts;
    this.feed = new CacheFeed(this.backend, opts.logger);
    await this.feed.start();
    const caches = this.all().filter((s) => hasWatchCache(s.info)).map((s) => this.attachWatchCache(s));
    await Promise.all(caches.map((c) => c.whenReady()));
  }

  /** Ends every cache's watchers and the storage watch. */
  closeWatchCache(): void {
    for (const s of this.all()) { s.watchCache?.close(); s.useWatchCache(undefined); }
    this.feed?.close();
  }

  private attachWatchCache(store: Store): WatchCache {
    const cache = new WatchCache(store.resourcePrefix, store.cacheSource(), this.feed!, this.cacheOptions!.capacity, this.cacheOptions!.logger, this.cacheOptions!.cold);
    store.useWatchCache(cache);
    this.feed!.register(cache).catch((err) => this.cacheOptions?.logger?.error('watch cache: start failed', { prefix: cache.prefix, err: (err as Error).message }));
    return cache;
  }

  store(group: string, version: string, plural: string): Store | undefined {
    return this.stores.get(storeKey(group, version, plural)) ?? this.customStore(group, version, plural);
  }

  private customStore(group: string, version: string, plural: string): Store | undefined {
    for (const list of this.customStores.values()) {
      for (const s of list) if (s.info.group === group && s.info.version === version && s.info.plural === plural) return s;
    }
    return undefined;
  }

  /** Every served resource: the built-in catalogue, then the custom resources. */
  resources(): ResourceInfo[] { return [...resources, ...this.custom.resources()]; }

  findResource(group: string, version: string, plural: string): ResourceInfo | undefined {
    // Every resource request looks its resource up: the built-in catalogue by key, not a copy of it searched.
    return builtInResources().get(storeKey(group, version, plural)) ?? this.custom.resources().find((r) => r.group === group && r.version === version && r.plural === plural);
  }

  /** Serves the served versions of an Established CRD (again, after a change). */
  serveCustomResources(crd: CustomResourceDefinition): void {
    const versions = versionsOf(crd);
    const convert = (objects: Unstructured[], desired: string) => this.convertThroughWebhook(crd, objects, desired);
    const stores = versions.map((v) => (crd.spec.conversion?.strategy === 'Webhook' ? new WebhookConvertedStore(v, this.deps, convert) : new CustomResourceStore(v, this.deps)));
    this.handOverWatchCaches(this.customStores.get(crd.metadata!.name!) ?? [], stores);
    this.customStores.set(crd.metadata!.name!, stores);
    this.custom.set(crd.metadata!.name!, versions);
  }

  /** CRD conversion webhooks are called through `webhook` from now on (the apiserver sets it once its Service resolution runs). */
  useConversionWebhook(webhook: ConversionWebhook): void { this.conversionWebhook = webhook; }

  private convertThroughWebhook(crd: CustomResourceDefinition, objects: Unstructured[], desired: string): Promise<Unstructured[]> {
    if (objects.every((o) => o?.apiVersion === desired)) return Promise.resolve(objects);
    if (!this.conversionWebhook) {
      return Promise.reject(new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 500, reason: '', message: `conversion webhook for ${crd.metadata!.name} is not available yet` }));
    }
    return this.conversionWebhook(crd, objects, desired);
  }

  /**
   * A CRD served again (a change of columns, versions or schema) keeps the watch cache of each
   * version still served, so its watchers go on; the caches of versions no longer served end.
   * A change of conversion strategy changes what the cache holds (served or stored forms): new caches then.
   */
  private handOverWatchCaches(before: Store[], after: Store[]): void {
    if (!this.feed) return;
    for (const next of after) {
      const prev = before.find((s) => s.info.version === next.info.version && s.resourcePrefix === next.resourcePrefix && s.constructor === next.constructor && s.watchCache);
      const cache = prev?.watchCache;
      if (cache) {
        cache.rebind(next.cacheSource());
        next.useWatchCache(cache);
        prev!.useWatchCache(undefined);
      } else {
        this.attachWatchCache(next);
      }
    }
    for (const old of before) { old.watchCache?.close(); old.useWatchCache(undefined); }
  }

  stopServingCustomResources(crdName: string): void {
    for (const s of this.customStores.get(crdName) ?? []) { s.watchCache?.close(); s.useWatchCache(undefined); }
    this.customStores.delete(crdName);
    this.custom.remove(crdName);
  }

  /** The store for `apps/v1` + `DaemonSet`. */
  storeForKind(apiVersion: string, kind: string): Store | undefined {
    for (const s of this.all()) if (apiVersionOf(s.info) === apiVersion && s.info.kind === kind) return s;
    return undefined;
  }

  all(): Store[] { return [...this.stores.values(), ...[...this.customStores.values()].flat()]; }

  get namespaces(): Store { return this.store('', 'v1', 'namespaces')!; }

  /** NamespaceLifecycle reads namespaces from this watch-fed cache from now on. */
  useNamespaceCache(lister: Lister<Namespace>): void { this.namespaceCache = lister; }

  /**
   * Admission of a CREATE on a subresource whose body has a kind of its own (pods/binding and its
   * Binding): `info` is the parent resource with the body's kind, as upstream's admission
   * attributes name them (resource pods, subresource binding, kind Binding). NamespaceLifecycle
   * first (no new content in a terminating namespace), then the plugins that look at such requests.
   * The steps that read pods' own bodies (defaults, quota, limits) do not see it, as upstream's skip it.
   */
  async admitSubresourceCreate(info: ResourceInfo, namespace: string, name: string, obj: object, dryRun: boolean, ctx?: RequestContext): Promise<void> {
    let step = this.checkNamespace(namespace, { group: info.group, resource: info.plural }, name);
    if (step) await step;
    step = this.opts.admitSubresourceCreate?.(info, obj, { dryRun }, ctx);
    if (step) await step;
  }

  /**
   * NamespaceLifecycle admission: no content in absent or terminating
   * namespaces. The namespace comes from the cache; on a miss (one created
   * just now) from storage, as upstream's plugin falls back to a live GET.
   * Only storage's own 404 means absent: a failed read stays an error.
   */
  private checkNamespace(ns: string, gr: GroupResource, name: string): Promise<void> | void {
    // A cached namespace is checked at once, with no promise (one less per create).
    const cached = this.namespaceCache?.get(undefined, ns);
    if (cached) return refuseTerminating(cached, ns, gr, name);
    return this.namespaces.get(undefined, ns).then((obj: Namespace) => refuseTerminating(obj, ns, gr, name));
  }
}

/** NamespaceLifecycle's refusal of new content in a terminating namespace. */
function refuseTerminating(obj: Namespace, ns: string, gr: GroupResource, name: string): void {
  if (obj.metadata?.deletionTimestamp || obj.status?.phase === 'Terminating') {
    throw forbiddenStatus(`unable to create new content in namespace ${ns} because it is being terminated`, gr, name);
  }
}

/** Upstream's NamespaceLifecycle admission keeps these namespaces: the cluster's own objects live there. */
const immortalNamespaces = new Set(['default', 'kube-system', 'kube-public']);

function checkNamespaceDeletion(info: ResourceInfo, obj: Unstructured): void {
  const name = obj.metadata!.name!;
  if (info.group !== '' || info.plural !== 'namespaces' || !immortalNamespaces.has(name)) return;
  throw forbiddenStatus('this namespace may not be deleted', { group: '', resource: 'namespaces' }, name);
}

const storeKey = (g: string, v: string, p: string) => `${g}/${v}/${p}`;

let builtInByKey: Map<string, ResourceInfo> | undefined;

/** The built-in catalogue by storeKey: the first entry of each, as a search of the list finds it. */
function builtInResources(): Map<string, ResourceInfo> {
  if (builtInByKey) return builtInByKey;
  builtInByKey = new Map();
  for (const r of resources) {
    const k = storeKey(r.group, r.version, r.plural);
    if (!builtInByKey.has(k)) builtInByKey.set(k, r);
  }
  return builtInByKey;
}
