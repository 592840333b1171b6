/**
 * Discovery documents, legacy (APIVersions, APIGroupList, APIResourceList) and
 * aggregated (apidiscovery.k8s.io/v2), all derived from the resource catalogue.
 */
import { createHash } from 'node:crypto';
import { ResourceInfo, apiVersionOf } from '../api/resources.js';
import { compareKubeAwareVersions } from '../api/version-priority.js';

/** The served resources: the built-in catalogue and the custom resources (Registry.resources()). */
type Served = readonly ResourceInfo[];

/** Group versions in the order discovery lists them (core first, custom resources after the built-in groups). */
function groupVersions(served: Served): { group: string; version: string }[] {
  const seen = new Map<string, { group: string; version: string }>();
  for (const r of served) if (!seen.has(apiVersionOf(r))) seen.set(apiVersionOf(r), { group: r.group, version: r.version });
  return [...seen.values()];
}

export const aggregatedContentType = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

export function apiVersions(serverAddress: string) {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function groups(served: Served): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const gv of groupVersions(served)) {
    if (!gv.group) continue;
    const vs = m.get(gv.group) ?? [];
    if (!vs.includes(gv.version)) vs.push(gv.version);
    m.set(gv.group, vs);
  }
  // Upstream lists a group's versions by kube-aware priority and prefers the
  // first (the CRD discovery controller's sortGroupDiscoveryByKubeAwareVersion;
  // the built-in groups' priorities agree with it), not in the CRD's order.
  for (const vs of m.values()) vs.sort(compareKubeAwareVersions);
  return m;
}

function apiGroup(name: string, versions: string[]) {
  const vs = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: vs, preferredVersion: vs[0] };
}

export function apiGroupList(served: Served) {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: [...groups(served)].map(([n, vs]) => apiGroup(n, vs)) };
}

export function apiGroupDoc(served: Served, name: string) {
  const vs = groups(served).get(name);
  return vs ? { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(name, vs) } : undefined;
}

export function apiResourceList(served: Served, group: string, version: string) {
  const rs = served.filter((r) => r.group === group && r.version === version);
  if (!rs.length) return undefined;
  const out: any[] = [];
  for (const r of rs) {
    const entry: any = { name: r.plural, singularName: r.singular, namespaced: r.namespaced, kind: r.kind, verbs: r.verbs };
    if (r.shortNames.length) entry.shortNames = r.shortNames;
    if (r.categories.length) entry.categories = r.categories;
    entry.storageVersionHash = storageVersionHash(storageKindOf(r));
    out.push(entry);
    for (const s of r.subresources) {
      const sub: any = { name: `${r.plural}/${s.name}`, singularName: '', namespaced: r.namespaced, kind: s.kind, verbs: s.verbs };
      if (s.group !== r.group || s.version !== r.version) { sub.group = s.group; sub.version = s.version; }
      out.push(sub);
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersionOf({ group, version }), resources: out };
}

/**
 * Upstream's discovery.StorageVersionHash: the first 8 bytes of the SHA-256
 * of "<group>/<version>/<kind>" of the version the object is stored in, in
 * base64. Clients (kubectl's RESTMapper, storage migrators) compare it to
 * notice a storage version change; only the legacy APIResourceList has it.
 */
export function storageVersionHash(gvk: { group: string; version: string; kind: string }): string {
  return createHash('sha256').update(`${gvk.group}/${gvk.version}/${gvk.kind}`).digest().subarray(0, 8).toString('base64');
}

/**
 * The kind a resource is stored as. events.k8s.io Events cohabit with core
 * Events (upstream's storage factory keeps one "events" store in core v1), so
 * both report the same hash; likewise both HorizontalPodAutoscaler versions.
 */
function storageKindOf(r: ResourceInfo): { group: string; version: string; kind: string } {
  if (r.group === 'events.k8s.io' && r.plural === 'events') return { group: '', version: 'v1', kind: 'Event' };
  // HorizontalPodAutoscalers are stored as autoscaling/v2, whichever version serves them.
  if (r.group === 'autoscaling' && r.plural === 'horizontalpodautoscalers') return { ...r, version: 'v2' };
  return r;
}

function discoveryResource(r: ResourceInfo) {
  const d: any = {
    resource: r.plural, responseKind: { group: r.group, version: r.version, kind: r.kind },
    scope: r.namespaced ? 'Namespaced' : 'Cluster', singularResource: r.singular, verbs: r.verbs,
  };
  if (r.shortNames.length) d.shortNames = r.shortNames;
  if (r.categories.length) d.categories = r.categories;
  if (r.subresources.length) {
    d.subresources = r.subresources.map((s) => ({
      subresource: s.name, responseKind: { group: s.group, version: s.version, kind: s.kind }, verbs: s.verbs,
    }));
  }
  return d;
}

/** `/api` (core only) or `/apis` (every named group) in the aggregated form. */
export function aggregatedDiscovery(core: boolean, served: Served) {
  const byGroup = new Map<string, Map<string, ResourceInfo[]>>();
  for (const r of served) {
    if ((r.group === '') !== core) continue;
    const vs = byGroup.get(r.group) ?? new Map<string, ResourceInfo[]>();
    const list = vs.get(r.version) ?? [];
    list.push(r);
    vs.set(r.version, list);
    byGroup.set(r.group, vs);
  }
  const items = [...byGroup].map(([group, vs]) => ({
    metadata: { name: group, creationTimestamp: null },
    versions: [...vs].sort(([a], [b]) => compareKubeAwareVersions(a, b)).map(([version, rs]) => ({ version, resources: rs.map(discoveryResource), freshness: 'Current' })),
  }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items };
}
