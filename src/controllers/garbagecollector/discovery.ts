/**
 * The resources the garbage collector finds through discovery beyond k8ts's
 * built-in catalogue: custom resources (upstream's GarbageCollector.Sync
 * resyncs its monitors from ServerPreferredResources; here the preferred
 * version of every group the catalogue does not know). Only resources that
 * can be listed, watched and deleted are kept, as upstream's
 * GetDeletableResources does.
 */
import type { APIGroupList, APIResourceList } from 'kubernetes-types/meta/v1.js';
import type { GVR, RestClient } from '../../client/index.js';
import { resources } from '../../api/resources.js';

export interface DiscoveredResource extends GVR { kind: string }

const builtinGroups = new Set(resources.map((r) => r.group));

export async function discoverCustomResources(rest: RestClient): Promise<DiscoveredResource[]> {
  const groups: APIGroupList = await rest.request('GET', '/apis');
  const out: DiscoveredResource[] = [];
  for (const g of groups.groups ?? []) {
    if (builtinGroups.has(g.name) || !g.preferredVersion?.version) continue;
    const version = g.preferredVersion.version;
    let list: APIResourceList;
    try {
      list = await rest.request('GET', `/apis/${g.name}/${version}`);
    } catch {
      continue; // the group went away between the two reads
    }
    for (const r of list.resources ?? []) {
      if (r.name.includes('/')) continue;
      const verbs: string[] = r.verbs ?? [];
      if (!['list', 'watch', 'delete'].every((v) => verbs.includes(v))) continue;
      out.push({ group: g.name, version, resource: r.name, namespaced: !!r.namespaced, kind: r.kind });
    }
  }
  return out;
}
