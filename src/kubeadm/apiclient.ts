/**
 * kubeadm's apiclient helpers (cmd/kubeadm/app/util/apiclient/idempotency.go):
 * create an object, and on AlreadyExists either leave it (…IfNotExists) or
 * put ours in its place (CreateOrUpdate…), so phases can run again.
 */
import { isAlreadyExists, ResourceClient, type Clientset, type GVR } from '../client/index.js';

const rbacGVR = (resource: string, namespaced: boolean): GVR => ({ group: 'rbac.authorization.k8s.io', version: 'v1', resource, namespaced });
const kinds = {
  roles: rbacGVR('roles', true),
  rolebindings: rbacGVR('rolebindings', true),
  clusterroles: rbacGVR('clusterroles', false),
  clusterrolebindings: rbacGVR('clusterrolebindings', false),
  configmaps: { group: '', version: 'v1', resource: 'configmaps', namespaced: true },
  secrets: { group: '', version: 'v1', resource: 'secrets', namespaced: true },
} satisfies Record<string, GVR>;
export type KubeadmKind = keyof typeof kinds;

export function resourceClient(clients: Clientset, kind: KubeadmKind): ResourceClient {
  return new ResourceClient(clients.rest, kinds[kind]);
}

/** Creates `obj`; an existing one is kept as it is. */
export async function createIfNotExists(clients: Clientset, kind: KubeadmKind, obj: any): Promise<void> {
  try {
    await resourceClient(clients, kind).create(obj.metadata.namespace, obj);
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
}

/** The kinds an addon creates that are cluster-scoped; every other one lives in a namespace. */
const clusterScoped = new Set(['ClusterRole', 'ClusterRoleBinding', 'Namespace', 'PriorityClass']);

/** The resource of a built-in object from its apiVersion and kind (the lower-cased plural: true of every kind an addon creates). */
function gvrOf(apiVersion: string, kind: string): GVR {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') as [string, string] : ['', apiVersion];
  return { group, version, resource: `${kind.toLowerCase()}s`, namespaced: !clusterScoped.has(kind) };
}

/** Creates each object in order, keeping any that already exists as it is (an addon phase run again, or a restarted `k8ts up`). */
export async function createAllIfNotExist(clients: Clientset, objects: { apiVersion?: string; kind?: string; metadata?: { namespace?: string } }[]): Promise<void> {
  for (const obj of objects) {
    try {
      await new ResourceClient(clients.rest, gvrOf(obj.apiVersion!, obj.kind!)).create(obj.metadata?.namespace, obj);
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
  }
}

/** Creates `obj`, or replaces the existing one's content with it (keeping its resourceVersion for the update). */
export async function createOrUpdate(clients: Clientset, kind: KubeadmKind, obj: any): Promise<void> {
  const client = resourceClient(clients, kind);
  try {
    await client.create(obj.metadata.namespace, obj);
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
    const cur = await client.get(obj.metadata.namespace, obj.metadata.name);
    await client.update({ ...obj, metadata: { ...cur.metadata, ...obj.metadata, resourceVersion: cur.metadata.resourceVersion } });
  }
}
