/**
 * The aggregated groups in discovery, as kube-aggregator merges them: the
 * legacy /apis lists every APIService group (versions by versionPriority,
 * then kube-aware order), /apis/<group> answers from the APIServices, and
 * the aggregated (apidiscovery.k8s.io/v2) /apis carries the resources each
 * available backend reported in its discovery.
 */
import type { APIResourceList } from 'kubernetes-types/meta/v1.js';
import type { APIService } from '../../api/apiregistration.js';
import { compareKubeAwareVersions } from '../../api/version-priority.js';

const byPriority = (a: APIService, b: APIService) =>
  (b.spec.versionPriority - a.spec.versionPriority) || compareKubeAwareVersions(a.spec.version ?? '', b.spec.version ?? '');

/** Group → its APIServices, highest version priority first. */
function grouped(services: readonly APIService[]): Map<string, APIService[]> {
  const m = new Map<string, APIService[]>();
  for (const s of services) m.set(s.spec.group ?? '', [...(m.get(s.spec.group ?? '') ?? []), s]);
  for (const list of m.values()) list.sort(byPriority);
  return m;
}

export function apiGroupOf(group: string, services: readonly APIService[]) {
  const versions = services.map((s) => ({ groupVersion: `${group}/${s.spec.version}`, version: s.spec.version! }));
  return { name: group, versions, preferredVersion: versions[0] };
}

export function legacyGroups(services: readonly APIService[]) {
  return [...grouped(services)].map(([g, list]) => apiGroupOf(g, list));
}

/** APIResourceList → the apidiscovery.k8s.io/v2 version entry (subresources under their resource). */
function aggregatedVersion(group: string, version: string, list: APIResourceList | undefined) {
  const resources: any[] = [];
  for (const r of list?.resources ?? []) {
    if (r.name.includes('/')) continue;
    const d: any = {
      resource: r.name, responseKind: { group: r.group ?? group, version: r.version ?? version, kind: r.kind },
      scope: r.namespaced ? 'Namespaced' : 'Cluster', singularResource: r.singularName || r.kind.toLowerCase(), verbs: r.verbs,
    };
    if (r.shortNames?.length) d.shortNames = r.shortNames;
    if (r.categories?.length) d.categories = r.categories;
    const subs = (list?.resources ?? []).filter((s) => s.name.startsWith(`${r.name}/`));
    if (subs.length) {
      d.subresources = subs.map((s) => ({ subresource: s.name.slice(r.name.length + 1), responseKind: { group: s.group ?? group, version: s.version ?? version, kind: s.kind }, verbs: s.verbs }));
    }
    resources.push(d);
  }
  return { version, resources, freshness: list ? 'Current' : 'Stale' };
}

export function aggregatedGroups(services: readonly APIService[], discovery: (svc: APIService) => APIResourceList | undefined) {
  return [...grouped(services)].map(([group, list]) => ({
    metadata: { name: group, creationTimestamp: null },
    versions: list.map((s) => aggregatedVersion(group, s.spec.version!, discovery(s))),
  }));
}

interface Remote { legacyGroups(): ReturnType<typeof legacyGroups>; aggregatedGroups(): ReturnType<typeof aggregatedGroups> }

/** The legacy APIGroupList with the remote groups after the local ones (a group served here wins). */
export function withAggregatedGroups<T extends { groups: { name: string }[] }>(list: T, remote: Remote | undefined): T {
  if (!remote) return list;
  const local = new Set(list.groups.map((g) => g.name));
  return { ...list, groups: [...list.groups, ...remote.legacyGroups().filter((g) => !local.has(g.name))] };
}

/** The aggregated APIGroupDiscoveryList with the remote groups after the local ones. */
export function withAggregated<T extends { items: { metadata: { name: string } }[] }>(doc: T, remote: Remote | undefined): T {
  if (!remote) return doc;
  const local = new Set(doc.items.map((i) => i.metadata.name));
  return { ...doc, items: [...doc.items, ...remote.aggregatedGroups().filter((g) => !local.has(g.metadata.name))] };
}
