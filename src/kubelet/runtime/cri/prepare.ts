/**
 * What a container needs before it can be created, whatever runs it (CRI
 * or host processes): its persistentVolumeClaims resolved, its configMap,
 * secret, downwardAPI and projected volumes written, its mounts on host
 * paths, and the ConfigMaps and Secrets its environment names. A failure
 * holds the container back with upstream's waiting reason (`holdReason`).
 */
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import type * as cri from './types.js';
import { resolveClaims } from './claims.js';
import { MountError, containerMounts } from './volumes.js';
import { ContainerConfigError } from './config.js';
import type { PodObjectGetter } from '../../volumes/objects.js';
import type { NodeAllocatable } from '../../volumes/downward.js';
import { setUpProjectedVolumes } from '../../volumes/setup.js';
import { EnvSourceError, fetchEnvSources, type EnvSources } from '../../envsources.js';

export interface PreparedContainer {
  mounts: cri.Mount[];
  envSources: EnvSources;
}

export async function prepareContainer(pod: Pod, c: Container, deps: { volumes?: PodObjectGetter; rootDir: string; node: NodeAllocatable }): Promise<PreparedContainer> {
  const resolved = await resolveClaims(pod, deps.volumes);
  await setUpProjectedVolumes(resolved, c, { get: deps.volumes, rootDir: deps.rootDir, node: deps.node });
  const mounts = containerMounts(resolved, c, deps.rootDir);
  const envSources = await fetchEnvSources(pod.metadata!.namespace!, c, deps.volumes, pod.spec?.enableServiceLinks ?? true);
  return { mounts, envSources };
}

/** The waiting reason for an error of prepareContainer or of building the container's config; undefined for others. */
export function holdReason(e: unknown): string | undefined {
  if (e instanceof MountError) return 'ContainerCreating';
  if (e instanceof ContainerConfigError || e instanceof EnvSourceError) return 'CreateContainerConfigError';
  return undefined;
}
