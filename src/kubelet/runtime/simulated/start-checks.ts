/**
 * What the kubelet checks before it runs a pod's containers, on simulated
 * nodes that read the API (`k8ts up`'s): the ConfigMaps and Secrets the pod
 * names. Without these checks a pod naming a ConfigMap that does not exist
 * ran as if it did ("Configure a Pod to Use a ConfigMap": a reference that
 * is not optional must keep the pod from starting).
 *
 *  - Volumes (upstream's volume manager, WaitForAttachAndMount): a configMap
 *    or secret volume, or such a source of a projected volume, whose object
 *    or item key is missing and not optional keeps the whole pod in
 *    ContainerCreating; each attempt is a FailedMount event
 *    (`MountVolume.SetUp failed for volume "v" : configmap "x" not found`).
 *  - Environment (kuberuntime's generateContainerConfig): a container whose
 *    env or envFrom names a missing ConfigMap or Secret, or a missing key,
 *    waits in CreateContainerConfigError with the kubelet's message
 *    (`configmap "x" not found`, `couldn't find key k in ConfigMap ns/x`);
 *    the sandbox and the pod's other containers run.
 * Both are tried again until they pass (startRetryMs). The environment
 * sources a check read are what the container then starts with (`sources`),
 * so a pod start reads each ConfigMap and Secret it names once, as the
 * kubelet's generateContainerConfig does.
 */
import type { Container, Pod, Volume } from 'kubernetes-types/core/v1.js';
import { MountError, type PodObjectGetter } from '../../volumes/objects.js';
import { volumePayload } from '../../volumes/projection.js';
import type { NodeAllocatable } from '../../volumes/downward.js';
import { EnvSourceError, fetchEnvSources, type EnvSources } from '../../envsources.js';
import { ContainerConfigError, containerEnv } from '../cri/config.js';

/**
 * The volumes to check. The service account admission's projected
 * kube-api-access volume (a token, the kube-root-ca.crt ConfigMap the root
 * CA publisher keeps in every namespace, the downward API) is left out: it
 * is in every pod, and reading it at every start would cost each pod start
 * a ConfigMap read and a token request.
 */
const checked = (v: Volume) => !!(v.configMap || v.secret || (v.projected && !v.projected.sources?.some((s) => s.serviceAccountToken)));

/** Whether a container's environment names a ConfigMap or Secret. */
const namesObjects = (c: Container) => !!c.envFrom?.length || !!c.env?.some((e) => e.valueFrom?.configMapKeyRef || e.valueFrom?.secretKeyRef);

/** Whether `pod` names a ConfigMap or Secret to check (most pods name none: their start stays synchronous). */
export function needsStartChecks(pod: Pod): boolean {
  const spec = pod.spec;
  return !!spec && (!!spec.volumes?.some(checked) || [...(spec.initContainers ?? []), ...spec.containers].some(namesObjects));
}

export interface StartHolds {
  /** The FailedMount message of the first volume that cannot be set up; undefined when all can. */
  mount?: string;
  /** Container name → why it waits in CreateContainerConfigError. */
  config: Map<string, string>;
  /** Container name → the environment sources read for it, for the instance that starts now (start-env.ts). */
  sources: Map<string, EnvSources>;
}

export async function startHolds(pod: Pod, objects: PodObjectGetter, node: NodeAllocatable): Promise<StartHolds> {
  const holds: StartHolds = { config: new Map(), sources: new Map() };
  for (const v of pod.spec?.volumes ?? []) {
    if (!checked(v)) continue;
    try {
      await volumePayload(pod, v, objects, node);
    } catch (e) {
      if (!(e instanceof MountError)) throw e;
      holds.mount = e.message;
      return holds;
    }
  }
  for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    if (!namesObjects(c)) continue;
    try {
      const sources = await fetchEnvSources(pod.metadata!.namespace!, c, objects, pod.spec?.enableServiceLinks ?? true);
      containerEnv(pod, c, { nodeName: pod.spec?.nodeName ?? '', hostIP: '', podLogsDir: '', allocatable: node }, undefined, sources);
      holds.sources.set(c.name, sources);
    } catch (e) {
      if (!(e instanceof EnvSourceError) && !(e instanceof ContainerConfigError)) throw e;
      holds.config.set(c.name, e.message);
    }
  }
  return holds;
}

/**
 * How often a held pod is checked again: upstream's pod worker re-syncs a
 * pod whose sync failed after 10 s (workerBackOffPeriod), and the volume
 * manager retries a mount with a back-off of up to 2 min; a simulated node
 * tries every 2 s, so a tutorial's ConfigMap created afterwards is seen soon.
 */
export const startRetryMs = 2000;
