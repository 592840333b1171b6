/**
 * Where objects live in etcd: kube-apiserver's keys. The registry names an object
 * `/registry/<group or "core">/<plural>/[<namespace>/]<name>` on every backend; in etcd it is
 * stored as upstream stores it, `<root>/<path>/[<namespace>/]<name>`, where root is --etcd-prefix
 * (default /registry) and path is the resource's etcd path: its plural for built-in resources
 * (no group: /registry/pods/default/nginx, /registry/deployments/default/web), with upstream's
 * old names (nodes under minions/, services under services/specs/, endpoints under
 * services/endpoints/, replicationcontrollers under controllers/, ingresses under ingress/), and
 * `<group>/<plural>` for custom resources, CRDs and APIServices, as upstream's
 * test/integration/etcd/data.go expects them. So `etcdctl get /registry/pods/default/nginx`
 * finds the pod, as the kubernetes.io pages that read etcd assume.
 *
 * Why a mapping at the etcd boundary rather than new registry keys: the registry, its watch
 * caches and SQLite keep one key shape (group/plural, every resource's prefix one string), and
 * only etcd, where other tools read the keys, carries upstream's names.
 *
 * The mapping is a prefix substitution per resource, so it keeps key order within a resource (a
 * page's last key continues a list) and a key's suffix (an object key plus "\0" maps to the
 * mapped key plus "\0"). Ranges over several resources ("" or /registry/) come back in etcd's
 * key order. Keys outside /registry (the revision probe) and ones no built-in resource owns
 * (masterleases/, health, custom resources' <group>/<plural>/) only change root.
 */

/** kube-apiserver's --etcd-prefix default: the registry's own root. */
export const REGISTRY_ROOT = '/registry';

/**
 * Every built-in resource k8ts stores: its registry path (<group or core>/<plural>) and upstream's
 * etcd path. Kept in full, the unchanged ones too, so a test can check it against the served
 * resources; a resource missing here would keep the registry's path in etcd.
 */
export const builtinEtcdPaths: Readonly<Record<string, string>> = {
  'core/configmaps': 'configmaps',
  'core/endpoints': 'services/endpoints',
  'core/events': 'events',
  'core/limitranges': 'limitranges',
  'core/namespaces': 'namespaces',
  'core/nodes': 'minions',
  'core/persistentvolumeclaims': 'persistentvolumeclaims',
  'core/persistentvolumes': 'persistentvolumes',
  'core/pods': 'pods',
  'core/podtemplates': 'podtemplates',
  'core/replicationcontrollers': 'controllers',
  'core/resourcequotas': 'resourcequotas',
  'core/secrets': 'secrets',
  'core/serviceaccounts': 'serviceaccounts',
  'core/services': 'services/specs',
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': 'mutatingwebhookconfigurations',
  'admissionregistration.k8s.io/validatingadmissionpolicies': 'validatingadmissionpolicies',
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': 'validatingadmissionpolicybindings',
  'admissionregistration.k8s.io/validatingwebhookconfigurations': 'validatingwebhookconfigurations',
  'apiextensions.k8s.io/customresourcedefinitions': 'apiextensions.k8s.io/customresourcedefinitions',
  'apiregistration.k8s.io/apiservices': 'apiregistration.k8s.io/apiservices',
  'apps/controllerrevisions': 'controllerrevisions',
  'apps/daemonsets': 'daemonsets',
  'apps/deployments': 'deployments',
  'apps/replicasets': 'replicasets',
  'apps/statefulsets': 'statefulsets',
  'autoscaling/horizontalpodautoscalers': 'horizontalpodautoscalers',
  'batch/cronjobs': 'cronjobs',
  'batch/jobs': 'jobs',
  'certificates.k8s.io/certificatesigningrequests': 'certificatesigningrequests',
  'coordination.k8s.io/leases': 'leases',
  'discovery.k8s.io/endpointslices': 'endpointslices',
  'flowcontrol.apiserver.k8s.io/flowschemas': 'flowschemas',
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations': 'prioritylevelconfigurations',
  'networking.k8s.io/ingressclasses': 'ingressclasses',
  'networking.k8s.io/ingresses': 'ingress',
  'networking.k8s.io/networkpolicies': 'networkpolicies',
  'node.k8s.io/runtimeclasses': 'runtimeclasses',
  'policy/poddisruptionbudgets': 'poddisruptionbudgets',
  'rbac.authorization.k8s.io/clusterrolebindings': 'clusterrolebindings',
  'rbac.authorization.k8s.io/clusterroles': 'clusterroles',
  'rbac.authorization.k8s.io/rolebindings': 'rolebindings',
  'rbac.authorization.k8s.io/roles': 'roles',
  'scheduling.k8s.io/priorityclasses': 'priorityclasses',
  'storage.k8s.io/csidrivers': 'csidrivers',
  'storage.k8s.io/csinodes': 'csinodes',
  'storage.k8s.io/csistoragecapacities': 'csistoragecapacities',
  'storage.k8s.io/storageclasses': 'storageclasses',
  'storage.k8s.io/volumeattachments': 'volumeattachments',
};

/** Internal keys (the registry's, under /registry) to etcd keys and back, for one root. */
export interface EtcdKeyLayout {
  readonly root: string;
  /** An object's key (or any key of the registry's) as stored in etcd. */
  toEtcd(key: string): string;
  /** The start of a range or watch: one prefix in etcd; throws for one that spans resources stored apart. */
  prefixToEtcd(prefix: string): string;
  /**
   * A key read from etcd as the registry names it. A key of k8ts's old layout (<root>/core/pods/...,
   * an object not moved yet, which an older server on the same etcd may still write) is put under
   * OLD_LAYOUT_ROOT: its name would pass for a registry key, and it is no object of this server's
   * until a start moves it (./layout-migration.ts); its watch events still carry their revision.
   */
  fromEtcd(key: string): string;
}

export const OLD_LAYOUT_ROOT = '/k8ts-old-layout';

const INTERNAL = `${REGISTRY_ROOT}/`;
/** Registry path -> etcd path, only where they differ. */
const moved = new Map(Object.entries(builtinEtcdPaths).filter(([from, to]) => from !== to));
/** Etcd path -> registry path (services/specs and services/endpoints are two segments). */
const movedBack = new Map([...moved].map(([from, to]) => [to, from]));
const twoSegmentParents = new Set([...movedBack.keys()].filter((p) => p.includes('/')).map((p) => p.slice(0, p.indexOf('/'))));

/** `root` as --etcd-prefix normalizes it: "/registry", "/cluster-a", or "" for "/". */
export function etcdKeyLayout(root = REGISTRY_ROOT): EtcdKeyLayout {
  const etcdRoot = `${root}/`;
  const toEtcd = (key: string): string => {
    if (!key.startsWith(INTERNAL)) return key === REGISTRY_ROOT ? root : key;
    const groupEnd = key.indexOf('/', INTERNAL.length);
    const pluralEnd = groupEnd < 0 ? -1 : key.indexOf('/', groupEnd + 1);
    if (pluralEnd < 0) return etcdRoot + key.slice(INTERNAL.length);
    const path = moved.get(key.slice(INTERNAL.length, pluralEnd));
    return path === undefined ? etcdRoot + key.slice(INTERNAL.length) : etcdRoot + path + key.slice(pluralEnd);
  };
  return {
    root,
    toEtcd,
    prefixToEtcd(prefix) {
      if (prefix === INTERNAL) return etcdRoot;
      if (prefix.startsWith(INTERNAL) && !hasResourcePath(prefix)) {
        const partial = prefix.slice(INTERNAL.length);
        // "/registry/core/" or "/registry/apps/dep": those resources lie apart in etcd, no one range holds them.
        for (const from of moved.keys()) {
          if (from.startsWith(partial)) throw new Error(`etcd key layout: no single etcd range holds the keys under ${prefix}`);
        }
      }
      return toEtcd(prefix);
    },
    fromEtcd(key) {
      if (!key.startsWith(etcdRoot)) return key;
      const start = etcdRoot.length;
      let end = key.indexOf('/', start);
      if (end < 0) return INTERNAL + key.slice(start);
      let from = movedBack.get(key.slice(start, end));
      if (from === undefined && twoSegmentParents.has(key.slice(start, end))) {
        end = key.indexOf('/', end + 1);
        if (end >= 0) from = movedBack.get(key.slice(start, end));
      }
      if (from !== undefined) return INTERNAL + from + key.slice(end);
      const pluralEnd = key.indexOf('/', key.indexOf('/', start) + 1);
      if (pluralEnd > 0 && moved.has(key.slice(start, pluralEnd))) return OLD_LAYOUT_ROOT + key;
      return INTERNAL + key.slice(start);
    },
  };
}

/** The prefix names a group and a plural, each ended by "/": one resource's keys. */
function hasResourcePath(prefix: string): boolean {
  const groupEnd = prefix.indexOf('/', INTERNAL.length);
  return groupEnd >= 0 && prefix.indexOf('/', groupEnd + 1) >= 0;
}

/** upstream joins --etcd-prefix with path.Join: one leading slash, no trailing one ("/" stays). */
export function normalizePrefix(prefix: string): string {
  const p = `/${prefix}`.replace(/\/+/g, '/').replace(/\/$/, '');
  return p || '/';
}

/** Where k8ts before upstream's layout kept `from` (a registry path) under `root`, and where it goes now. */
export function oldLayoutMoves(root = REGISTRY_ROOT): { from: string; to: string }[] {
  return [...moved].map(([from, to]) => ({ from: `${root}/${from}/`, to: `${root}/${to}/` }));
}
