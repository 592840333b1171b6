/**
 * The CRD controllers kube-apiserver runs in-process (apiextensions-apiserver's
 * naming, establishing and finalizer controllers), kept beside the registry
 * as the namespace lifecycle is: a CRD whose names conflict with no other CRD
 * of its group gets NamesAccepted and Established and is served; a deleted
 * CRD has every object removed, then its customresourcecleanup finalizer,
 * and is no longer served.
 */
import type { Registry } from '../registry.js';
import type { Store } from '../store.js';
import type { Logger } from '../../util/log.js';
import { rfc3339 } from '../../util/clock.js';
import { customResourceCleanupFinalizer, type CustomResourceDefinition } from '../../api/apiextensions/types.js';
import { conditionTrue, setCondition } from './conditions.js';
import { stableStringify } from '../meta.js';
import { namesConflict } from './names.js';
import { statusCode } from '../status-code.js';

const recheckMs = 500;

/**
 * The next turn of the loop. A CRD near the 1.5 MiB object limit (thousands of properties) costs
 * the loop hundreds of milliseconds to read, compare, write and serve; run as one chain of
 * microtasks from the watch event that queued it, that held every other client for over a second
 * on a loaded machine (fuzz-bodies, seed 20261202). Each step in a turn of its own lets the others'
 * requests in between, as kube-apiserver's controllers run beside its handlers.
 */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class CRDController {
  private readonly pending = new Set<string>();
  private readonly running = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** uid/generation of the spec each CRD is served from: a status write (generation unchanged) does not serve it again. */
  private readonly served = new Map<string, string>();
  private stopWatch?: () => void;
  private closed = false;

  constructor(private readonly registry: Registry, private readonly logger: Logger) {}

  private get crds(): Store { return this.registry.store('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!; }

  /** Reconciles every stored CRD once (so a restarted server serves them before it is ready), then follows changes. */
  async start(): Promise<void> {
    const { items, resourceVersion } = await this.crds.list(undefined);
    for (const crd of items) await this.reconcile(crd.metadata.name).catch((e) => this.retry(crd.metadata.name, e));
    const w = await this.crds.watch(undefined, { resourceVersion }, (ev) => this.enqueue(ev.object.metadata.name), () => {});
    this.stopWatch = () => w.close();
  }

  private enqueue(name: string): void {
    if (this.closed) return;
    this.pending.add(name);
    if (!this.running.has(name)) void this.run(name);
  }

  private async run(name: string): Promise<void> {
    this.running.add(name);
    try {
      await nextTurn(); // not inside the write whose watch event queued it
      while (this.pending.delete(name)) await this.reconcile(name);
    } catch (e) {
      this.retry(name, e);
    } finally {
      this.running.delete(name);
    }
  }

  private retry(name: string, err?: unknown): void {
    if (err) this.logger.warn('custom resource definition sync failed, retrying', { name, err: String(err) });
    if (this.closed) return;
    const t = setTimeout(() => { this.timers.delete(t); this.enqueue(name); }, recheckMs);
    t.unref();
    this.timers.add(t);
  }

  private async reconcile(name: string): Promise<void> {
    let crd: CustomResourceDefinition;
    try {
      crd = await this.crds.get(undefined, name);
    } catch (e) {
      if (statusCode(e) === 404) { this.served.delete(name); this.registry.stopServingCustomResources(name); return; }
      throw e;
    }
    if (crd.metadata?.deletionTimestamp) { this.served.delete(name); return this.finalize(crd); }
    await nextTurn();
    crd = await this.updateStatus(crd);
    if (!conditionTrue(crd, 'Established')) return;
    const spec = `${crd.metadata?.uid}/${crd.metadata?.generation}`;
    if (this.served.get(name) === spec) return;
    await nextTurn();
    this.registry.serveCustomResources(crd);
    this.served.set(name, spec);
  }

  /** NamesAccepted from the names check, then Established once names are accepted. */
  private async updateStatus(crd: CustomResourceDefinition): Promise<CustomResourceDefinition> {
    const others = (await this.crds.list(undefined)).items.filter((o: CustomResourceDefinition) => o.metadata?.name !== crd.metadata?.name);
    const conflict = namesConflict(crd, others);
    const now = rfc3339(this.registry.clock.now());
    // Only the status changes: a copy of it, not of the (possibly 1 MB) spec.
    const next: CustomResourceDefinition = { ...crd, status: structuredClone(crd.status ?? {}) };
    if (conflict) {
      setCondition(next, { type: 'NamesAccepted', status: 'False', reason: 'NameConflict', message: conflict }, now);
      if (!conditionTrue(next, 'Established')) setCondition(next, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }, now);
    } else {
      next.status = { ...next.status, acceptedNames: structuredClone(crd.spec.names) };
      setCondition(next, { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }, now);
      setCondition(next, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }, now);
    }
    const storage = crd.spec.versions.find((v) => v.storage)?.name;
    const stored = next.status!.storedVersions ?? [];
    if (storage && !stored.includes(storage)) next.status!.storedVersions = [...stored, storage];
    if (stableStringify(next.status) === stableStringify(crd.status)) return crd;
    return this.crds.guaranteedUpdate(undefined, crd.metadata!.name!, (cur) => ({ ...cur, status: next.status }), { subresource: 'status' });
  }

  /** Deletes every object of the CRD; when none is left, drops the finalizer so the CRD goes. */
  private async finalize(crd: CustomResourceDefinition): Promise<void> {
    const name = crd.metadata!.name!;
    if (!crd.metadata?.finalizers?.includes(customResourceCleanupFinalizer)) return;
    this.registry.custom.markTerminating(name);
    const storage = crd.spec.versions.find((v) => v.storage)?.name ?? '';
    const store = this.registry.store(crd.spec.group, storage, crd.status?.acceptedNames?.plural || crd.spec.names.plural);
    if (store) {
      const { items } = await store.list(undefined);
      for (const item of items) {
        if (item.metadata.deletionTimestamp) continue;
        try {
          await store.delete(item.metadata.namespace, item.metadata.name, { propagationPolicy: 'Background' });
        } catch (e) {
          if (statusCode(e) !== 404 && statusCode(e) !== 409) throw e;
        }
      }
      if ((await store.list(undefined)).items.length) { this.retry(name); return; }
    }
    this.registry.stopServingCustomResources(name);
    await this.crds.guaranteedUpdate(undefined, name, (cur) => {
      cur.metadata.finalizers = (cur.metadata.finalizers ?? []).filter((f: string) => f !== customResourceCleanupFinalizer);
      return cur;
    }).catch((e: unknown) => { if (statusCode(e) !== 404) throw e; });
  }

  close(): void {
    this.closed = true;
    this.stopWatch?.();
    for (const t of this.timers) clearTimeout(t);
  }
}
