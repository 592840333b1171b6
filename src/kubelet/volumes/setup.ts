/**
 * Sets up the configMap, secret, downwardAPI and projected volumes a
 * container mounts, under the kubelet's directory as upstream lays it out:
 * <root dir>/pods/<uid>/volumes/kubernetes.io~<kind>/<name>. Run before
 * every container start, so a restarted container sees the objects as they
 * are now (upstream also refreshes running pods' volumes periodically;
 * k8ts does not yet).
 */
import { join } from 'node:path';
import type { Container, Pod, Volume } from 'kubernetes-types/core/v1.js';
import type { PodObjectGetter } from './objects.js';
import { isProjectedVolume, volumePayload, volumePluginDir } from './projection.js';
import { writeAtomically } from './atomic-writer.js';
import type { NodeAllocatable } from './downward.js';

export const projectedVolumeDir = (rootDir: string, uid: string, v: Volume) => join(rootDir, 'pods', uid, 'volumes', volumePluginDir(v), v.name);

export async function setUpProjectedVolumes(pod: Pod, c: Container, opts: { get?: PodObjectGetter; rootDir: string; node: NodeAllocatable }): Promise<void> {
  const mounted = new Set((c.volumeMounts ?? []).map((m) => m.name));
  for (const v of pod.spec?.volumes ?? []) {
    if (!mounted.has(v.name) || !isProjectedVolume(v)) continue;
    const payload = await volumePayload(pod, v, opts.get, opts.node);
    writeAtomically(projectedVolumeDir(opts.rootDir, pod.metadata!.uid!, v), payload);
  }
}
