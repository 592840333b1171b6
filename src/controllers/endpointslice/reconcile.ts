/**
 * From desired endpoint groups and the slices a controller already owns for
 * one Service (or Endpoints), the writes to make (pure; after upstream's
 * reconciler, simplified):
 *  1. a slice belongs to the group of its address type and ports; slices of
 *     no desired group are deleted;
 *  2. within a group, each existing slice (by name) keeps those of its
 *     endpoints still desired, refreshed to their desired values, so
 *     endpoints do not move between slices;
 *  3. the remaining endpoints fill the group's slices up to
 *     maxEndpointsPerSlice, then new slices;
 *  4. slices left empty are deleted; except that a Service without any
 *     endpoint keeps one empty placeholder slice (created if needed);
 *  5. a slice is written only when its endpoints, ports, labels or owner
 *     differ from what is stored.
 */
import type { Endpoint, EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { ObjectMeta, OwnerReference } from 'kubernetes-types/meta/v1.js';
import { groupKey, type EndpointGroup } from './desired.js';

export interface SliceTemplate {
  namespace: string;
  generateName: string;
  labels: Record<string, string>;
  ownerReference: OwnerReference;
  maxEndpointsPerSlice: number;
  /** The placeholder's address type when there are no endpoints at all; none for mirroring. */
  placeholder?: string;
}

export interface SlicePlan { create: EndpointSlice[]; update: EndpointSlice[]; delete: EndpointSlice[] }

const endpointKey = (e: Endpoint) => `${(e.addresses ?? []).join(',')}/${e.targetRef?.uid ?? ''}`;
const byName = (a: EndpointSlice, b: EndpointSlice) => (a.metadata!.name! < b.metadata!.name! ? -1 : a.metadata!.name! > b.metadata!.name! ? 1 : 0);

function build(t: SliceTemplate, g: EndpointGroup, endpoints: Endpoint[], existing?: EndpointSlice): EndpointSlice {
  const metadata: ObjectMeta = existing
    ? { ...existing.metadata, labels: t.labels, ownerReferences: [t.ownerReference] }
    : { generateName: t.generateName, namespace: t.namespace, labels: t.labels, ownerReferences: [t.ownerReference] };
  return { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata, addressType: g.addressType, endpoints, ports: g.ports.length ? g.ports : undefined };
}

/** JSON with object keys sorted, so stored and built slices compare by value. */
const sortedKeys = (_k: string, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v)
  ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v);
const content = (s: EndpointSlice) => JSON.stringify([s.addressType, s.endpoints ?? [], s.ports ?? [], s.metadata?.labels ?? {}, s.metadata?.ownerReferences ?? []], sortedKeys);

export function planSlices(existing: readonly EndpointSlice[], groups: readonly EndpointGroup[], t: SliceTemplate): SlicePlan {
  const plan: SlicePlan = { create: [], update: [], delete: [] };
  const wanted = [...groups];
  if (t.placeholder && wanted.every((g) => g.endpoints.length === 0)) wanted.splice(0, wanted.length, { addressType: t.placeholder, ports: [], endpoints: [] });
  const byGroup = new Map<string, EndpointSlice[]>();
  for (const s of [...existing].sort(byName)) {
    const k = groupKey(s.addressType, s.ports);
    if (!wanted.some((g) => groupKey(g.addressType, g.ports) === k)) { plan.delete.push(s); continue; } // 1
    byGroup.set(k, [...(byGroup.get(k) ?? []), s]);
  }
  for (const g of wanted) planGroup(g, byGroup.get(groupKey(g.addressType, g.ports)) ?? [], t, plan);
  return plan;
}

function planGroup(g: EndpointGroup, slices: EndpointSlice[], t: SliceTemplate, plan: SlicePlan): void {
  const desired = new Map(g.endpoints.map((e) => [endpointKey(e), e]));
  const placed = new Set<string>();
  const kept = slices.map((s) => ({ slice: s, endpoints: (s.endpoints ?? []).map(endpointKey).filter((k) => desired.has(k) && !placed.has(k) && placed.add(k)).map((k) => desired.get(k)!) })); // 2
  const remaining = g.endpoints.filter((e) => !placed.has(endpointKey(e)));
  for (const k of kept) while (k.endpoints.length < t.maxEndpointsPerSlice && remaining.length) k.endpoints.push(remaining.shift()!); // 3
  const isPlaceholder = g.endpoints.length === 0;
  kept.forEach((k, i) => {
    if (k.endpoints.length === 0 && !(isPlaceholder && i === 0)) { plan.delete.push(k.slice); return; } // 4
    const next = build(t, g, k.endpoints, k.slice);
    if (content(next) !== content(k.slice)) plan.update.push(next); // 5
  });
  while (remaining.length) plan.create.push(build(t, g, remaining.splice(0, t.maxEndpointsPerSlice)));
  if (isPlaceholder && kept.length === 0) plan.create.push(build(t, g, []));
}
