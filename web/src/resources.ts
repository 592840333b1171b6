/**
 * The served resources, from discovery as kubectl reads it: /api/v1 and, for
 * every group of /apis, its preferred version. Only top-level resources
 * that can be listed (no subresources), CRDs included since they are
 * ordinary groups of /apis.
 */
import { api } from './api.js';

export interface Resource {
  group: string;
  version: string;
  /** apiVersion as objects carry it: "v1" or "group/version". */
  groupVersion: string;
  name: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
}

interface APIResource { name: string; kind: string; namespaced: boolean; verbs?: string[] }
interface APIResourceList { groupVersion: string; resources: APIResource[] }
interface APIGroupList { groups: { name: string; preferredVersion: { groupVersion: string; version: string } }[] }

function resourcesOf(list: APIResourceList, group: string, version: string): Resource[] {
  return list.resources
    .filter((r) => !r.name.includes('/') && (r.verbs ?? []).includes('list'))
    .map((r) => ({ group, version, groupVersion: list.groupVersion, name: r.name, kind: r.kind, namespaced: r.namespaced, verbs: r.verbs ?? [] }));
}

export async function discoverResources(): Promise<Resource[]> {
  const [core, groups] = await Promise.all([api<APIResourceList>('/api/v1'), api<APIGroupList>('/apis')]);
  const lists = await Promise.all(groups.groups.map(async (g) => {
    try {
      return resourcesOf(await api<APIResourceList>(`/apis/${g.preferredVersion.groupVersion}`), g.name, g.preferredVersion.version);
    } catch {
      return []; // a group the user may not read, or an aggregated API that is down
    }
  }));
  const all = [...resourcesOf(core, '', 'v1'), ...lists.flat()];
  return all.sort((a, b) => a.kind.localeCompare(b.kind) || a.group.localeCompare(b.group));
}

/** The collection URL of a resource, in a namespace when it is namespaced and one is given. */
export function collectionPath(r: Resource, namespace?: string): string {
  const base = r.group ? `/apis/${r.groupVersion}` : '/api/v1';
  return r.namespaced && namespace ? `${base}/namespaces/${encodeURIComponent(namespace)}/${r.name}` : `${base}/${r.name}`;
}

/** One object's URL. */
export function objectPath(r: Resource, namespace: string | undefined, name: string): string {
  return `${collectionPath(r, r.namespaced ? namespace : undefined)}/${encodeURIComponent(name)}`;
}

/** "kind.group" as kubectl names a resource in its commands (`deployments.apps`). */
export const kubectlName = (r: Resource) => (r.group ? `${r.name}.${r.group}` : r.name);
