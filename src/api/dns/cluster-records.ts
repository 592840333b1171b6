/**
 * The cluster's records, kept from Service and EndpointSlice events: each
 * change recomputes only the records of the Service it concerns (its
 * `serviceRecords`), so the cost of an event does not grow with the number
 * of Services. `generation` moves on every change, which is how the server
 * knows its cached answers are stale.
 *
 * `exists(name)` is true for every owner name and each of its ancestors
 * inside the zone (empty non-terminals such as `ns.svc.zone`): such a name
 * answers NODATA, any other NXDOMAIN (RFC 8020).
 */
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { serviceRecords, type OwnedRecord, type RecordData } from './service-records.js';

export const serviceNameLabel = 'kubernetes.io/service-name';

const keyOf = (namespace: string | undefined, name: string) => `${namespace}/${name}`;

export class ClusterRecords {
  generation = 0;
  private readonly services = new Map<string, Service>();
  private readonly slices = new Map<string, Map<string, EndpointSlice>>();
  private readonly owned = new Map<string, OwnedRecord[]>();
  /** owner name -> service key -> records (two Services may own one PTR name). */
  private readonly byName = new Map<string, Map<string, RecordData[]>>();
  private readonly names = new Map<string, number>();

  constructor(readonly zone: string) {}

  /** Records of `name` (canonical), or undefined when it owns none. */
  lookup(name: string): RecordData[] | undefined {
    const owners = this.byName.get(name);
    if (!owners) return undefined;
    if (owners.size === 1) return owners.values().next().value;
    return [...owners.values()].flat();
  }

  exists(name: string): boolean { return this.names.has(name); }

  service(namespace: string, name: string): Service | undefined { return this.services.get(keyOf(namespace, name)); }

  setService(svc: Service): void {
    const key = keyOf(svc.metadata!.namespace, svc.metadata!.name!);
    this.services.set(key, svc);
    this.recompute(key);
  }

  deleteService(svc: Service): void {
    const key = keyOf(svc.metadata!.namespace, svc.metadata!.name!);
    this.services.delete(key);
    this.recompute(key);
  }

  setSlice(slice: EndpointSlice): void {
    const key = this.sliceOwner(slice);
    if (!key) return;
    let m = this.slices.get(key);
    if (!m) this.slices.set(key, (m = new Map()));
    m.set(slice.metadata!.name!, slice);
    this.recompute(key);
  }

  deleteSlice(slice: EndpointSlice): void {
    const key = this.sliceOwner(slice);
    const m = key ? this.slices.get(key) : undefined;
    if (!key || !m) return;
    m.delete(slice.metadata!.name!);
    if (!m.size) this.slices.delete(key);
    this.recompute(key);
  }

  /** A slice whose service-name label changed is seen as a delete then a set by the caller. */
  private sliceOwner(slice: EndpointSlice): string | undefined {
    const svc = slice.metadata?.labels?.[serviceNameLabel];
    return svc ? keyOf(slice.metadata!.namespace, svc) : undefined;
  }

  private recompute(key: string): void {
    const svc = this.services.get(key);
    const next = svc ? serviceRecords(svc, this.slices.get(key)?.values() ?? [], this.zone) : [];
    for (const r of this.owned.get(key) ?? []) this.unindex(key, r);
    if (next.length) this.owned.set(key, next); else this.owned.delete(key);
    for (const r of next) this.index(key, r);
    this.generation++;
  }

  private index(key: string, r: OwnedRecord): void {
    let owners = this.byName.get(r.name);
    if (!owners) this.byName.set(r.name, (owners = new Map()));
    let list = owners.get(key);
    if (!list) owners.set(key, (list = []));
    list.push(r.data);
    for (const n of this.ancestors(r.name)) this.names.set(n, (this.names.get(n) ?? 0) + 1);
  }

  private unindex(key: string, r: OwnedRecord): void {
    const owners = this.byName.get(r.name);
    if (owners) {
      owners.delete(key);
      if (!owners.size) this.byName.delete(r.name);
    }
    for (const n of this.ancestors(r.name)) {
      const c = (this.names.get(n) ?? 1) - 1;
      if (c > 0) this.names.set(n, c); else this.names.delete(n);
    }
  }

  /** `name` and its parents down to (not including) the zone or the reverse zone's root. */
  private ancestors(name: string): string[] {
    const out: string[] = [];
    const stop = name.endsWith('.arpa') ? 'arpa' : this.zone;
    for (let n = name; n && n !== stop; n = n.slice(n.indexOf('.') + 1)) {
      out.push(n);
      if (!n.includes('.')) break;
    }
    return out;
  }
}
