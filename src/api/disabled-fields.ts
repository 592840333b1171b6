/**
 * Fields of a feature gate that Kubernetes 1.32 leaves off by default, which
 * its API server drops from what it is given (upstream's dropDisabledFields,
 * pkg/api/pod/util.go, for pods and for every pod template): k8ts has the
 * gates upstream 1.32 has by default, so the same fields go.
 *
 *  - InPlacePodVerticalScaling (alpha in 1.32): containers' `resizePolicy`.
 *    The Resize CPU and Memory Resources page's qos-demo-5 is stored without
 *    it, as a default 1.32 cluster stores it.
 *  - PodLevelResources (alpha in 1.32): the pod's own `spec.resources`. The
 *    Assign Pod-level CPU and Memory Resources page's pod is created without
 *    it (dropPodLevelResources).
 *  - ImageVolume (alpha in 1.31 and 1.32): a volume's `image` source. A volume
 *    that had no other source then has none, and validation refuses the pod
 *    (`must specify a volume type`), as 1.32 refuses Use an Image Volume with
 *    a Pod's pod (dropImageVolumes).
 *
 * A field the old object already uses stays (upstream's "InUse" checks), so an
 * object written with it before keeps it through its updates.
 */
import type { Container, PodSpec, ResourceRequirements, Volume } from 'kubernetes-types/core/v1.js';

/** The 1.31-1.32 fields kubernetes-types 1.30 lacks (scripts/openapi-1.32-fields.json has their schema). */
type Spec132 = PodSpec & { resources?: ResourceRequirements };
type Volume132 = Volume & { image?: { reference?: string; pullPolicy?: string } };

type Containers = (Pick<Container, 'resizePolicy'>)[] | undefined;

const containerLists = (spec: PodSpec | undefined): Containers[] =>
  spec ? [spec.containers, spec.initContainers, spec.ephemeralContainers as Containers] : [];

/** inPlacePodVerticalScalingInUse: some container of the spec has a resizePolicy. */
const resizePolicyInUse = (spec: PodSpec | undefined) => containerLists(spec).some((list) => list?.some((c) => c.resizePolicy !== undefined));

/** Drops from `spec` the fields of the gates that are off, unless `old` (an update's stored spec) uses them. */
export function dropDisabledPodSpecFields(spec: PodSpec | undefined, old: PodSpec | undefined): void {
  if (!spec) return;
  if (!resizePolicyInUse(old)) for (const list of containerLists(spec)) for (const c of list ?? []) delete c.resizePolicy;
  if ((old as Spec132 | undefined)?.resources === undefined) delete (spec as Spec132).resources;
  if (!(old?.volumes as Volume132[] | undefined)?.some((v) => v.image !== undefined)) for (const v of (spec.volumes ?? []) as Volume132[]) delete v.image;
}

/** Where a kind keeps its pod template's spec (keys as resources.ts's kindKey); undefined: the kind has none. */
const templateSpecs: Record<string, (obj: TemplateHolder) => PodSpec | undefined> = {
  'v1/Pod': (o) => o.spec as PodSpec | undefined,
  'v1/PodTemplate': (o) => o.template?.spec,
  'v1/ReplicationController': (o) => o.spec?.template?.spec,
  'apps/v1/Deployment': (o) => o.spec?.template?.spec,
  'apps/v1/ReplicaSet': (o) => o.spec?.template?.spec,
  'apps/v1/StatefulSet': (o) => o.spec?.template?.spec,
  'apps/v1/DaemonSet': (o) => o.spec?.template?.spec,
  'batch/v1/Job': (o) => o.spec?.template?.spec,
  'batch/v1/CronJob': (o) => o.spec?.jobTemplate?.spec?.template?.spec,
};

interface TemplateHolder {
  spec?: PodSpec & { template?: { spec?: PodSpec }; jobTemplate?: { spec?: { template?: { spec?: PodSpec } } } };
  template?: { spec?: PodSpec };
}

/** dropDisabledFields for an object of kind `key` (a pod, or a kind with a pod template); old: the stored object of an update. */
export function dropDisabledFields(key: string, obj: unknown, old?: unknown): void {
  const at = templateSpecs[key];
  if (at) dropDisabledPodSpecFields(at(obj as TemplateHolder), old === undefined ? undefined : at(old as TemplateHolder));
}
