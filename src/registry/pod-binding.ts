/**
 * pods/binding, as upstream's BindingREST (pkg/registry/core/pod/storage/storage.go):
 * the handler checks and admits the Binding (CREATE of pods/binding, the Binding as the
 * object), then assignPod sets spec.nodeName in one GuaranteedUpdate of the stored pod.
 * No pod strategy runs there: no defaulting, no pod update validation, no update
 * admission and no managedFields entry (upstream writes storage directly), so a bind
 * costs one storage write and no read when the watch cache holds the pod.
 *
 * setPodNodeNameAndMetadata, in upstream's order:
 *  1. the Binding's uid and resourceVersion, when set, are preconditions on the pod;
 *  2. a pod being deleted cannot be assigned;
 *  3. a pod with a node already cannot be assigned again;
 *  4. a pod with scheduling gates cannot be assigned;
 *  5. spec.nodeName is set, the Binding's annotations merged in, and the PodScheduled
 *     condition set True (UpdatePodCondition: in place, lastTransitionTime kept when
 *     the status was True already).
 * Refusals 2-4 are 409s on "pods/binding" (assignPod wraps them in NewConflict).
 */
import type { Binding, Pod, PodCondition } from 'kubernetes-types/core/v1.js';
import { badRequest, conflict, type GroupResource } from '../api/status.js';
import type { Store } from './store.js';
import type { RequestSignal } from './key-turns.js';
import { withMembers } from '../util/with-members.js';

const bindingResource: GroupResource = { group: '', resource: 'pods/binding' };

export interface AssignPodOptions {
  dryRun: boolean;
  signal?: RequestSignal;
  now: Date;
}

/** BindingREST.Create's check of the URL's name against the Binding's (the legacy bindings resource names the pod in the body). */
export function checkBindingName(binding: Binding, podName: string): void {
  if (binding.metadata?.name !== podName) throw badRequest('name in URL does not match name in Binding object');
}

/** assignPod: the stored pod gets the Binding's node; throws upstream's Status errors. */
export async function assignPod(pods: Store, namespace: string, podName: string, binding: Binding, opts: AssignPodOptions): Promise<void> {
  const node = binding.target!.name!;
  const now = opts.now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  await pods.guaranteedUpdate(namespace, podName, (pod: Pod) => {
    checkBindingPreconditions(pods, pod, binding);
    return setPodNodeNameAndMetadata(pod, node, binding.metadata?.annotations, now);
  }, { subresource: 'binding', dryRun: opts.dryRun, signal: opts.signal, resultShared: true, mutateCopies: true });
}

/** storage.Preconditions of the Binding's uid and resourceVersion (a 409 on pods, as InterpretUpdateError makes it). */
function checkBindingPreconditions(pods: Store, pod: Pod, binding: Binding): void {
  const meta = pod.metadata!;
  const { uid, resourceVersion } = binding.metadata ?? {};
  if (uid && uid !== meta.uid) throw conflict(pods.gr, meta.name!, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${meta.uid}`);
  if (resourceVersion && resourceVersion !== meta.resourceVersion) {
    throw conflict(pods.gr, meta.name!, `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion}`);
  }
}

/**
 * Rules 2-5 of the header. `pod` may be the watch cache's shared copy: it is never changed;
 * the result copies what the bind changes (metadata, spec, status and its conditions) and
 * shares the rest. metadata.resourceVersion stays its last member, so the stored text with the
 * new revision spliced in is the object's JSON (stored-json.ts): its watchers' event is not
 * stringified again.
 */
export function setPodNodeNameAndMetadata(pod: Pod, node: string, annotations: Record<string, string> | undefined, now: string): Pod {
  const name = pod.metadata!.name!;
  if (pod.metadata!.deletionTimestamp) throw conflict(bindingResource, name, `pod ${name} is being deleted, cannot be assigned to a host`);
  if (pod.spec!.nodeName) throw conflict(bindingResource, name, `pod ${name} is already assigned to node "${pod.spec!.nodeName}"`);
  if (pod.spec!.schedulingGates?.length) throw conflict(bindingResource, name, `pod ${name} has non-empty .spec.schedulingGates`);
  const { resourceVersion, ...rest } = pod.metadata!;
  // withMembers, not `{ ...x, member }`: a member a spread copy lacks (nodeName, resourceVersion, the
  // status's first conditions) would give every bound pod's spec, metadata and status a hidden class
  // of its own (util/with-members.ts), which the watch cache and every reader of them then meet.
  const metadata = annotations && Object.keys(annotations).length
    ? withMembers(rest, { annotations: { ...rest.annotations, ...annotations }, resourceVersion })
    : withMembers(rest, { resourceVersion });
  return { ...pod, metadata, spec: withMembers(pod.spec!, { nodeName: node }), status: withMembers(pod.status, { conditions: podScheduled(pod.status?.conditions, now) }) };
}

/** UpdatePodCondition with PodScheduled=True: replaced in place, or appended. */
function podScheduled(conditions: readonly PodCondition[] | undefined, now: string): PodCondition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === 'PodScheduled');
  const lastTransitionTime = i >= 0 && list[i].status === 'True' ? list[i].lastTransitionTime : now;
  const scheduled = { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime } as unknown as PodCondition;
  if (i >= 0) list[i] = scheduled; else list.push(scheduled);
  return list;
}
