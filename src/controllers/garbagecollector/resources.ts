/**
 * The kinds the garbage collector understands (upstream resolves them with a
 * RESTMapper over discovery): k8ts's built-in catalogue (src/api/resources.ts)
 * plus the custom resources discovery.ts finds.
 * An ownerReference names a group and kind; any served version of the group
 * reaches the same objects.
 */
import type { GVR, ResourceName } from '../../client/index.js';
import { gvrs } from '../../client/index.js';
import { findResource, resources } from '../../api/resources.js';
import type { DiscoveredResource } from './discovery.js';

/** The resources whose objects the collector tracks (owners of other kinds are looked up on demand). */
export const defaultMonitoredResources: ResourceName[] = [
  'pods', 'nodes', 'leases', 'daemonsets', 'statefulsets', 'replicasets', 'replicationcontrollers', 'deployments', 'controllerrevisions',
  'persistentvolumeclaims', 'configmaps', 'secrets', 'services', 'endpoints', 'jobs', 'cronjobs',
  // Each kubelet's CSINode, owned by its Node: collected with it.
  'csinodes',
];

const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.split('/')[0] : '');

/**
 * The resource for an ownerReference's apiVersion and kind: the built-in
 * catalogue, then the custom resources found by discovery; undefined when
 * the server serves neither.
 */
export function resolveKind(apiVersion: string, kind: string, discovered: readonly DiscoveredResource[] = []): GVR | undefined {
  const group = groupOf(apiVersion);
  const candidates = resources.filter((r) => r.group === group && r.kind === kind && r.verbs.includes('delete'));
  const r = candidates.find((c) => `${c.group ? `${c.group}/` : ''}${c.version}` === apiVersion) ?? candidates[0];
  if (r) return { group: r.group, version: r.version, resource: r.plural, namespaced: r.namespaced };
  const d = discovered.find((x) => x.group === group && x.kind === kind);
  return d && { group: d.group, version: d.version, resource: d.resource, namespaced: d.namespaced };
}

/** The apiVersion and kind of the objects an informer over `name` delivers. */
export function kindOfResource(name: ResourceName): { apiVersion: string; kind: string } {
  const g = gvrs[name];
  const r = findResource(g.group, g.version, g.resource);
  if (!r) throw new Error(`resource ${name} is not in the catalogue`);
  return { apiVersion: g.group ? `${g.group}/${g.version}` : g.version, kind: r.kind };
}
