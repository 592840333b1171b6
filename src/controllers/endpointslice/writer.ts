/**
 * Applies a slice plan through the API and remembers what it wrote, so a
 * sync that runs before the informer has seen those writes waits instead of
 * planning from a stale cache (upstream's EndpointSliceTracker).
 */
import type { Clientset, Informer } from '../../client/index.js';
import { isNotFound } from '../../client/index.js';
import type { SlicePlan } from './reconcile.js';

interface Written { versions: Map<string, string>; deleted: Set<string> }

const newer = (a: string, b: string) => /^\d+$/.test(a) && /^\d+$/.test(b) && BigInt(a) > BigInt(b);

export class SliceWriter {
  private readonly written = new Map<string, Written>();

  constructor(private readonly clients: Clientset, private readonly slices: Informer) {}

  /** Whether the informer has not yet caught up with our writes for this owner. */
  stale(owner: string): boolean {
    const w = this.written.get(owner);
    if (!w) return false;
    for (const [name, rv] of w.versions) {
      const cached = this.slices.get(name);
      if (!cached || newer(rv, cached.metadata.resourceVersion)) return true;
    }
    for (const name of w.deleted) if (this.slices.get(name)) return true;
    this.written.delete(owner);
    return false;
  }

  forget(owner: string): void { this.written.delete(owner); }

  async apply(owner: string, namespace: string, plan: SlicePlan): Promise<void> {
    const client = this.clients.resource('endpointslices');
    const w: Written = this.written.get(owner) ?? { versions: new Map(), deleted: new Set() };
    this.written.set(owner, w);
    const key = (name: string) => `${namespace}/${name}`;
    for (const s of plan.delete) {
      try { await client.delete(namespace, s.metadata!.name!); } catch (e) { if (!isNotFound(e)) throw e; }
      w.deleted.add(key(s.metadata!.name!));
    }
    for (const s of plan.update) {
      const saved = await client.update(s);
      w.versions.set(key(saved.metadata.name), saved.metadata.resourceVersion);
    }
    for (const s of plan.create) {
      const saved = await client.create(namespace, s);
      w.versions.set(key(saved.metadata.name), saved.metadata.resourceVersion);
    }
  }
}
