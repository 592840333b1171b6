/**
 * The writable volumes of simulated containers, with the lifetime upstream
 * gives them (no disk: their files live in the memory of the process that
 * runs the simulated nodes, `k8ts up`, and go with it):
 *
 *  1. emptyDir: one per pod and volume name, shared by the pod's containers,
 *     dropped when the pod is removed from the node (its uid keys it).
 *  2. persistentVolumeClaim: the bound PersistentVolume's, keyed by the PV's
 *     name and uid, so what one pod wrote is there for the next pod that
 *     mounts the same claim (a StatefulSet pod deleted and recreated, on this
 *     node or another of the same process). A PV deleted and made again (a
 *     new uid) starts empty; a claim not yet bound has no volume (no files).
 *  3. hostPath: the node's own filesystem (one per node), the volume being
 *     its directory at the path: so a hostPath of `/` (`kubectl debug
 *     node/NAME`'s /host) sees what a hostPath of `/mnt/data` holds, and a
 *     PersistentVolume whose source is hostPath (the PersistentVolume
 *     page's task-pv-volume) is that directory of the node the pod runs on,
 *     outliving the PV as the node's files do. A node's filesystem starts
 *     with its /etc/machine-id (systemd's: 32 hex digits, one per machine),
 *     which the Building a Basic DaemonSet page's init container reads
 *     through a hostPath of type File.
 * Other volume types mounted writable (ephemeral, csi, nfs ...) get an
 * emptyDir-like volume of the pod. A volume is a WritableLayer (layer.ts)
 * whose paths start at the volume's root.
 */
import { randomUUID } from 'node:crypto';
import { posix } from 'node:path';
import type { Container, Pod, Volume } from 'kubernetes-types/core/v1.js';
import type { PodObjectGetter } from '../../volumes/objects.js';
import { emptyLayer, type WritableLayer } from './layer.js';

/** Volumes by key: `emptyDir/<pod uid>/<volume>`, `pv/<name>/<uid>`, `hostPath/<node>` (the node's filesystem). */
export class SimulatedVolumeStore {
  private readonly volumes = new Map<string, WritableLayer>();

  get(key: string): WritableLayer {
    let v = this.volumes.get(key);
    if (!v) this.volumes.set(key, (v = key.startsWith('hostPath/') ? nodeFilesystem() : emptyLayer()));
    return v;
  }

  /** Drops a removed pod's own volumes (emptyDir and the like); PVs and hostPaths outlive it. */
  dropPod(uid: string): void {
    for (const key of this.volumes.keys()) if (key.startsWith(`emptyDir/${uid}/`)) this.volumes.delete(key);
  }
}

/** A node's own files that pages read through a hostPath, before anything writes there. */
function nodeFilesystem(): WritableLayer {
  const layer = emptyLayer();
  layer.dirs.add('/etc');
  layer.files.set('/etc/machine-id', Buffer.from(`${randomUUID().replace(/-/g, '')}\n`));
  return layer;
}

/** One store for every simulated node of the process, so a claim's data follows its pod to another node. */
export const processVolumeStore = new SimulatedVolumeStore();

/** A writable mount of a container: where, and the volume behind it. */
export interface VolumeMountView { mountPath: string; volume: WritableLayer; subPath?: string }

/** Volumes whose files the kubelet projects read-only (program.ts reads them): not writable volumes. */
export const projectedReadOnly = (v: Volume | undefined): boolean => !!(v?.configMap || v?.secret || v?.downwardAPI || v?.projected);

/**
 * The container's writable volume mounts (read-only mounts included: the
 * layer refuses writes under them but reads their files), resolved by the
 * rules above; a claim that cannot be read yet is left out.
 */
export async function writableMounts(pod: Pod, c: Container, o: { store: SimulatedVolumeStore; objects?: PodObjectGetter; nodeName: string; keys?: Map<string, string> }): Promise<VolumeMountView[]> {
  const volumes = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  const out: VolumeMountView[] = [];
  for (const m of c.volumeMounts ?? []) {
    const v = volumes.get(m.name);
    if (!v || projectedReadOnly(v)) continue;
    // A pod's volumes do not change while it lives (a bound claim keeps its PV): each is resolved once per pod.
    // The resolved key, with the directory of a node's filesystem after a newline (a hostPath).
    const resolved = o.keys?.get(v.name) ?? await volumeKey(pod, v, o).catch(() => undefined);
    if (!resolved) continue;
    o.keys?.set(v.name, resolved);
    const [key, dir] = resolved.split('\n');
    const subPath = dir ? posix.join(dir, m.subPath ?? '') : m.subPath;
    out.push({ mountPath: m.mountPath, volume: o.store.get(key!), ...(subPath ? { subPath } : {}) });
  }
  return out;
}

async function volumeKey(pod: Pod, v: Volume, o: { objects?: PodObjectGetter; nodeName: string }): Promise<string | undefined> {
  if (v.hostPath) return `hostPath/${o.nodeName}\n${posix.join('/', v.hostPath.path)}`;
  if (v.persistentVolumeClaim) {
    if (!o.objects) return undefined;
    const claim = await o.objects.claim(pod.metadata!.namespace!, v.persistentVolumeClaim.claimName);
    const pvName = claim.spec?.volumeName;
    if (!pvName) return undefined;
    const pv = await o.objects.volume(pvName);
    if (pv.spec?.hostPath) return `hostPath/${o.nodeName}\n${posix.join('/', pv.spec.hostPath.path)}`;
    return `pv/${pvName}/${pv.metadata?.uid ?? ''}`;
  }
  return `emptyDir/${pod.metadata?.uid ?? ''}/${v.name}`;
}
