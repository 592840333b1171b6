/**
 * The ServiceAccount admission plugin's lookups and mount (upstream
 * plugin/pkg/admission/serviceaccount/admission.go, v1.32), on pod create;
 * the default name and the mirror-pod rules are in index.ts/mirror-pods.ts:
 *  1. the pod's service account must exist (read from the watch-fed cache;
 *     on a miss, from storage, as upstream falls back to a live GET for an
 *     account created just before the pod), else Forbidden
 *     `error looking up service account <ns>/<name>: serviceaccount "<name>" not found`;
 *     `default`, which the service-account loop creates just after its
 *     namespace, is looked up 10 times, 100-200 ms apart, before giving up;
 *  2. unless automountServiceAccountToken is false (the pod's setting wins
 *     over the service account's), every init and app container without a
 *     mount at /var/run/secrets/kubernetes.io/serviceaccount gets a read-only
 *     one of the projected volume `kube-api-access-<5 random>` (a token of
 *     3607 s, kube-root-ca.crt's ca.crt, the namespace), added once;
 *  3. a pod without imagePullSecrets gets the service account's.
 */
import type { Container, Pod, ServiceAccount, Volume } from 'kubernetes-types/core/v1.js';
import type { ResourceInfo } from '../../api/resources.js';
import { forbiddenStatus } from '../../api/status.js';
import { generateName } from '../../registry/meta.js';
import type { Lister } from '../../registry/lister.js';
import type { Registry } from '../../registry/registry.js';
import { isMirrorPod } from './mirror-pods.js';

export const defaultAPITokenMountPath = '/var/run/secrets/kubernetes.io/serviceaccount';
const volumePrefix = 'kube-api-access-';
const defaultServiceAccountName = 'default';
const defaultLookupAttempts = 10;

/** The projected volume source upstream's TokenVolumeSource builds. */
export function tokenVolumeSource(): NonNullable<Volume['projected']> {
  return {
    defaultMode: 0o644,
    sources: [
      { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
  };
}

export interface ServiceAccountAdmissionOptions {
  sleep?: (ms: number) => Promise<void>;
}

export function serviceAccountAdmission(registry: () => Registry, serviceAccounts: Lister<ServiceAccount>, opts: ServiceAccountAdmissionOptions = {}) {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const lookup = async (namespace: string, name: string): Promise<ServiceAccount | undefined> => {
    const cached = serviceAccounts.get(namespace, name);
    if (cached) return cached;
    const store = registry().store('', 'v1', 'serviceaccounts')!;
    const attempts = name === defaultServiceAccountName ? defaultLookupAttempts : 1;
    const interval = 100 + Math.floor(Math.random() * 100);
    for (let i = 0; i < attempts; i++) {
      if (i) await sleep(interval);
      try {
        return await store.get(namespace, name);
      } catch (e) {
        if ((e as { code?: number }).code !== 404) throw e;
      }
    }
    return undefined;
  };
  const admitWith = (sa: ServiceAccount | undefined, pod: Pod, namespace: string, name: string): void => {
    const spec = pod.spec!;
    if (!sa) {
      throw forbiddenStatus(`error looking up service account ${namespace}/${name}: serviceaccount "${name}" not found`, { group: '', resource: 'pods' }, pod.metadata?.name);
    }
    if (shouldAutomount(sa, pod)) mountServiceAccountToken(pod); // 2
    if (!spec.imagePullSecrets?.length && sa.imagePullSecrets?.length) spec.imagePullSecrets = sa.imagePullSecrets.map((s) => ({ name: s.name })); // 3
  };
  // A cached account is applied at once, with no promise (steps.ts).
  return (op: 'create' | 'update', info: ResourceInfo, pod: Pod): Promise<void> | void => {
    if (op !== 'create' || info.group !== '' || info.plural !== 'pods' || isMirrorPod(pod)) return;
    const namespace = pod.metadata!.namespace!;
    const name = pod.spec!.serviceAccountName ?? defaultServiceAccountName;
    const cached = serviceAccounts.get(namespace, name); // 1
    if (cached) return admitWith(cached, pod, namespace, name);
    return lookup(namespace, name).then((sa) => admitWith(sa, pod, namespace, name));
  };
}

export function shouldAutomount(sa: ServiceAccount, pod: Pod): boolean {
  return pod.spec?.automountServiceAccountToken ?? sa.automountServiceAccountToken ?? true;
}

/** 2: mounts the token volume in every container that has nothing at the default path. */
export function mountServiceAccountToken(pod: Pod): void {
  const spec = pod.spec!;
  const volumes = spec.volumes;
  const existing = volumes?.find((v) => v.name.startsWith(volumePrefix));
  let volumeName = existing?.name;
  while (!volumeName || (!existing && volumes?.some((v) => v.name === volumeName))) volumeName = generateName(volumePrefix);
  // Each container's list is a new one (the pod's own arrays are not appended to), as upstream's append.
  let needsVolume = false;
  if (spec.initContainers) for (const c of spec.initContainers) needsVolume = mountIn(c, volumeName) || needsVolume;
  if (spec.containers) for (const c of spec.containers) needsVolume = mountIn(c, volumeName) || needsVolume;
  if (!existing && needsVolume) spec.volumes = withItem(volumes, { name: volumeName, projected: tokenVolumeSource() });
}

/** Mounts the token volume in `c` unless something is mounted at the default path; whether it did. */
function mountIn(c: Container, volumeName: string): boolean {
  const mounts = c.volumeMounts;
  if (mounts?.some((m) => m.mountPath === defaultAPITokenMountPath)) return false;
  c.volumeMounts = withItem(mounts, { name: volumeName, readOnly: true, mountPath: defaultAPITokenMountPath });
  return true;
}

/** A new list of `list`'s items and then `item`. */
function withItem<T>(list: T[] | undefined, item: T): T[] {
  if (!list) return [item];
  const out = list.slice();
  out.push(item);
  return out;
}
