/**
 * persistentVolumeClaim volumes → the directory of the bound PersistentVolume
 * (upstream: the volume manager's desired-state-of-world populator resolves
 * claim → volume, then the volume's own plugin mounts it), v1.32:
 *
 *  1. the claim must exist and be Bound with spec.volumeName, else the
 *     container waits: "PVC <ns>/<name> has non-bound phase (\"Pending\") or
 *     empty pvc.Spec.VolumeName (\"\")";
 *  2. a hostPath or local volume (what the built-in local-path provisioner
 *     makes) becomes a hostPath volume of the pod, so volumes.ts mounts it
 *     like any other (hostPath keeps its type, e.g. DirectoryOrCreate; local
 *     must be a directory); other volume sources cannot be mounted here.
 *  3. the claim source's readOnly makes every mount of it read-only.
 */
import type { PersistentVolume, PersistentVolumeClaim, Pod, Volume } from 'kubernetes-types/core/v1.js';
import { MountError, type PodObjectGetter } from '../../volumes/objects.js';

/** Reads claims and volumes from the API server (the agent's clients). */
export type VolumeGetter = Pick<PodObjectGetter, 'claim' | 'volume'>;

/** The pod with each claim volume replaced by the hostPath of its bound volume. */
export async function resolveClaims(pod: Pod, get: VolumeGetter | undefined): Promise<Pod> {
  const volumes = pod.spec?.volumes ?? [];
  if (!volumes.some((v) => v.persistentVolumeClaim)) return pod;
  const ns = pod.metadata!.namespace!;
  const resolved: Volume[] = [];
  const readOnly = new Set<string>();
  for (const v of volumes) {
    const src = v.persistentVolumeClaim;
    if (!src) { resolved.push(v); continue; }
    if (!get) throw new MountError(`MountVolume.SetUp failed for volume "${v.name}": persistentVolumeClaim volumes need the API server`);
    let pvc: PersistentVolumeClaim;
    let pv: PersistentVolume;
    try {
      pvc = await get.claim(ns, src.claimName);
    } catch (e) {
      throw new MountError(`error processing PVC ${ns}/${src.claimName}: ${(e as Error).message}`);
    }
    if (pvc.status?.phase !== 'Bound' || !pvc.spec?.volumeName) {
      throw new MountError(`PVC ${ns}/${src.claimName} has non-bound phase ("${pvc.status?.phase ?? ''}") or empty pvc.Spec.VolumeName ("${pvc.spec?.volumeName ?? ''}")`);
    }
    try {
      pv = await get.volume(pvc.spec.volumeName);
    } catch (e) {
      throw new MountError(`error processing PVC ${ns}/${src.claimName}: ${(e as Error).message}`);
    }
    const hostPath = pv.spec?.hostPath ?? (pv.spec?.local ? { path: pv.spec.local.path, type: 'Directory' } : undefined);
    if (!hostPath) throw new MountError(`MountVolume.SetUp failed for volume "${pv.metadata?.name}": volume type not supported by this kubelet yet (hostPath and local are)`);
    if (src.readOnly) readOnly.add(v.name);
    resolved.push({ name: v.name, hostPath });
  }
  const spec = { ...pod.spec!, volumes: resolved };
  if (readOnly.size) {
    const ro = <T extends { volumeMounts?: { name: string; readOnly?: boolean }[] }>(c: T): T =>
      ({ ...c, volumeMounts: c.volumeMounts?.map((m) => (readOnly.has(m.name) ? { ...m, readOnly: true } : m)) });
    spec.containers = spec.containers.map(ro);
    if (spec.initContainers) spec.initContainers = spec.initContainers.map(ro);
  }
  return { ...pod, spec };
}
