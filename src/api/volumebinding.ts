/**
 * Volume binding rules shared by the scheduler (upstream's VolumeBinding
 * plugin and its binder), the persistent-volume controller and admission
 * (DefaultStorageClass). Pure functions over plain objects.
 *
 * A claim is *fully bound* when spec.volumeName is set and it carries
 * `pv.kubernetes.io/bind-completed`. For a pod that uses claims:
 *
 * PreFilter (`getPodVolumeClaims`), per pod:
 * 1. A missing claim, a Lost claim or one being deleted makes the pod
 *    UnschedulableAndUnresolvable with upstream's message.
 * 2. An unbound claim whose class is Immediate (or has no class, or is
 *    pre-bound by spec.volumeName) must be bound by the PV controller first:
 *    `pod has unbound immediate PersistentVolumeClaims`.
 *
 * Filter (`findPodVolumes`), per node, in this order:
 * 3. Every bound claim's PV must exist (`node(s) unavailable due to one or
 *    more pvc(s) bound to non-existent pv(s)`) and its nodeAffinity must
 *    admit the node's labels (`node(s) had volume node affinity conflict`).
 * 4. An unbound WaitForFirstConsumer claim that already names a node in
 *    `volume.kubernetes.io/selected-node` fits only that node.
 * 5. Other unbound WaitForFirstConsumer claims first look for an Available
 *    PV of their class that fits (size, access and volume modes, selector,
 *    node affinity), the smallest first; the rest must be provisionable on
 *    the node: the class has a real provisioner and its allowedTopologies
 *    admit the node. Otherwise `node(s) didn't find available persistent
 *    volumes to bind`.
 */
import type {
  Node, ObjectReference, PersistentVolume, PersistentVolumeClaim, PersistentVolumeClaimSpec, PersistentVolumeSpec, Pod, ResourceRequirements,
  TopologySelectorTerm,
} from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { nodeSelectorTermMatches } from './nodeaffinity.js';
import type { NodeLabels, NodeSelectorTerm } from './nodeaffinity.js';
import { compareQuantities, parseQuantity } from './quantity.js';
import { matchesSelector, selectorFromLabelSelector } from './labels.js';

export const annBindCompleted = 'pv.kubernetes.io/bind-completed';
export const annBoundByController = 'pv.kubernetes.io/bound-by-controller';
export const annSelectedNode = 'volume.kubernetes.io/selected-node';
export const annStorageProvisioner = 'volume.kubernetes.io/storage-provisioner';
export const annBetaStorageProvisioner = 'volume.beta.kubernetes.io/storage-provisioner';
export const annDynamicallyProvisioned = 'pv.kubernetes.io/provisioned-by';
export const annBetaStorageClass = 'volume.beta.kubernetes.io/storage-class';
export const annIsDefaultClass = 'storageclass.kubernetes.io/is-default-class';
export const annBetaIsDefaultClass = 'storageclass.beta.kubernetes.io/is-default-class';
/** StorageClass provisioner meaning "no dynamic provisioning". */
export const notSupportedProvisioner = 'kubernetes.io/no-provisioner';

export const errReasonBindConflict = "node(s) didn't find available persistent volumes to bind";
export const errReasonNodeConflict = 'node(s) had volume node affinity conflict';
export const errReasonPVNotExist = 'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)';
export const errReasonUnboundImmediate = 'pod has unbound immediate PersistentVolumeClaims';

/** Anything with get(key): a Map, or an Informer (claims by `ns/name`, PVs and classes by name). */
export interface ObjectLookup<T> { get(key: string): T | undefined }
/** PVs must also be listable: a Map (values()) or an Informer (list()) works as is. */
export interface ObjectIndex<T> extends ObjectLookup<T> { values?(): Iterable<T>; list?(): T[] }
/** The three lookups of the binding rules: claims by `ns/name`, volumes and classes by name. */
export type ClaimLookup = ObjectLookup<PersistentVolumeClaim>;
export type VolumeIndex = ObjectIndex<PersistentVolume>;
export type ClassLookup = ObjectLookup<StorageClass>;

/** Every object of an index. */
export function allObjects<T>(index: ObjectIndex<T>): Iterable<T> {
  if (index.values) return index.values();
  return index.list ? index.list() : [];
}

export type VolumeFitCode = 'UnschedulableAndUnresolvable' | 'Error';
export type VolumeFit = { ok: true } | { ok: false; code: VolumeFitCode; reason: string; reasons: string[] };

// ---- classes -------------------------------------------------------------

/** helper.GetPersistentVolumeClaimClass: the beta annotation wins over spec.storageClassName. */
export function claimClass(pvc: PersistentVolumeClaim | undefined): string {
  const ann = pvc?.metadata?.annotations ?? {};
  if (Object.hasOwn(ann, annBetaStorageClass)) return ann[annBetaStorageClass];
  return pvc?.spec?.storageClassName ?? '';
}

/** helper.GetPersistentVolumeClass. */
export function volumeClass(pv: PersistentVolume | undefined): string {
  const ann = pv?.metadata?.annotations ?? {};
  if (Object.hasOwn(ann, annBetaStorageClass)) return ann[annBetaStorageClass];
  return pv?.spec?.storageClassName ?? '';
}

/** PersistentVolumeClaimHasClass: an annotation or a spec.storageClassName (even "") counts. */
export function claimHasClass(pvc: PersistentVolumeClaim | undefined): boolean {
  if (Object.hasOwn(pvc?.metadata?.annotations ?? {}, annBetaStorageClass)) return true;
  const name = pvc?.spec?.storageClassName;
  return name !== undefined && name !== null;
}

export function isDefaultClass(sc: StorageClass | undefined): boolean {
  const ann = sc?.metadata?.annotations ?? {};
  return ann[annIsDefaultClass] === 'true' || ann[annBetaIsDefaultClass] === 'true';
}

/** GetDefaultClass: among classes marked default, the newest wins, then the lowest name. */
export function defaultStorageClass(classes: Iterable<StorageClass>): StorageClass | undefined {
  let best: StorageClass | undefined;
  for (const sc of classes) {
    if (!isDefaultClass(sc)) continue;
    if (!best) { best = sc; continue; }
    const a = Date.parse(sc.metadata?.creationTimestamp ?? '') || 0;
    const b = Date.parse(best.metadata?.creationTimestamp ?? '') || 0;
    if (a > b || (a === b && sc.metadata!.name! < best.metadata!.name!)) best = sc;
  }
  return best;
}

/**
 * DefaultStorageClass admission (on create): a claim without any class gets
 * the default class's name. Mutates `pvc`; returns whether it did.
 */
export function admitDefaultStorageClass(pvc: PersistentVolumeClaim, classes: Iterable<StorageClass>): boolean {
  if (claimHasClass(pvc)) return false;
  const def = defaultStorageClass(classes);
  if (!def) return false;
  pvc.spec ??= {};
  pvc.spec.storageClassName = def.metadata!.name;
  return true;
}

/**
 * IsDelayBindingMode: true for a WaitForFirstConsumer class; a claim without
 * a class or whose class is missing binds immediately.
 */
export function isDelayBindingMode(pvc: PersistentVolumeClaim, classes: ClassLookup): boolean {
  const name = claimClass(pvc);
  if (!name) return false;
  return classes.get(name)?.volumeBindingMode === 'WaitForFirstConsumer';
}

// ---- volumes and claims --------------------------------------------------

export const claimKey = (pvc: PersistentVolumeClaim) => `${pvc.metadata!.namespace}/${pvc.metadata!.name}`;

/** IsVolumeBoundToClaim: the claimRef names the claim and its UID is empty or the claim's. */
export function isVolumeBoundToClaim(pv: PersistentVolume | undefined, pvc: PersistentVolumeClaim): boolean {
  const ref = pv?.spec?.claimRef;
  if (!ref) return false;
  if (ref.name !== pvc.metadata!.name || ref.namespace !== pvc.metadata!.namespace) return false;
  return !ref.uid || ref.uid === pvc.metadata!.uid;
}

export const isClaimFullyBound = (pvc: PersistentVolumeClaim | undefined) =>
  !!pvc?.spec?.volumeName && Object.hasOwn(pvc.metadata?.annotations ?? {}, annBindCompleted);

/** CheckNodeAffinity: the PV's required terms against the node's labels only (not its name). */
export function volumeNodeAffinityMatches(pv: PersistentVolume | undefined, nodeLabels: Record<string, string> | undefined): boolean {
  const required = pv?.spec?.nodeAffinity?.required;
  if (!required) return true;
  const labelsOnly: NodeLabels = { metadata: { labels: nodeLabels ?? {} } };
  const terms: NodeSelectorTerm[] = required.nodeSelectorTerms ?? [];
  return terms.some((t) => nodeSelectorTermMatches(t, labelsOnly));
}

/** CheckAccessModes: the volume offers every mode the claim asks for. */
export function volumeHasAccessModes(pvc: PersistentVolumeClaim | undefined, pv: PersistentVolume | undefined): boolean {
  const offered = new Set<string>(pv?.spec?.accessModes ?? []);
  return (pvc?.spec?.accessModes ?? []).every((m) => offered.has(m));
}

const volumeModeOf = (spec: PersistentVolumeClaimSpec | PersistentVolumeSpec | undefined) => spec?.volumeMode || 'Filesystem';

function storageOf(list: ResourceRequirements['requests'] | PersistentVolumeSpec['capacity']) {
  return parseQuantity(list?.storage ?? '0') ?? parseQuantity('0')!;
}

/**
 * FindMatchingVolume. With `node` (the scheduler's path) node affinity and
 * access modes are checked; without it and with delayed binding only a PV
 * already pre-bound to the claim is returned. The rules, in order: skip
 * excluded PVs, PVs bound to other claims, too small ones, mismatched
 * volume modes and PVs being deleted; a PV pre-bound to this claim wins at
 * once (or nothing, when its affinity misses the node); else the smallest
 * Available PV of the same class matching selector, affinity and modes.
 */
export function findMatchingVolume(pvc: PersistentVolumeClaim, volumes: Iterable<PersistentVolume>, node: NodeLabels | undefined,
  excluded: ReadonlySet<string>, delayBinding: boolean): PersistentVolume | undefined {
  const requested = storageOf(pvc.spec?.resources?.requests);
  const requestedClass = claimClass(pvc);
  const selector = pvc.spec?.selector ? selectorFromLabelSelector(pvc.spec.selector) : undefined;
  let smallest: PersistentVolume | undefined;
  for (const pv of volumes) {
    const meta = pv.metadata!;
    if (excluded.has(meta.name!)) continue;
    if (pv.spec?.claimRef && !isVolumeBoundToClaim(pv, pvc)) continue;
    const size = storageOf(pv.spec?.capacity);
    if (compareQuantities(size, requested) < 0) continue;
    if (volumeModeOf(pvc.spec) !== volumeModeOf(pv.spec)) continue;
    if (meta.deletionTimestamp) continue;
    const affinityOk = !node || volumeNodeAffinityMatches(pv, node.metadata?.labels);
    if (isVolumeBoundToClaim(pv, pvc)) return affinityOk ? pv : undefined;
    if (!node && delayBinding) continue;
    if (pv.status?.phase !== 'Available') continue;
    if (selector && !matchesSelector(selector, meta.labels)) continue;
    if (volumeClass(pv) !== requestedClass) continue;
    if (!affinityOk || !volumeHasAccessModes(pvc, pv)) continue;
    if (!smallest || compareQuantities(storageOf(smallest.spec?.capacity), size) > 0) smallest = pv;
  }
  return smallest;
}

/** The claim names a pod's volumes use: persistentVolumeClaim, and `<pod>-<volume>` for generic ephemeral volumes. */
export function podClaimNames(pod: Pod | undefined): { name: string; ephemeral: boolean }[] {
  const out: { name: string; ephemeral: boolean }[] = [];
  for (const v of pod?.spec?.volumes ?? []) {
    if (v.persistentVolumeClaim?.claimName) out.push({ name: v.persistentVolumeClaim.claimName, ephemeral: false });
    else if (v.ephemeral) out.push({ name: `${pod!.metadata!.name}-${v.name}`, ephemeral: true });
  }
  return out;
}

/** The topology terms of a class (storage allowedTopologies): empty admits every node. */
export function classAllowsNode(sc: StorageClass | undefined, nodeLabels: Record<string, string> | undefined): boolean {
  const terms: TopologySelectorTerm[] = sc?.allowedTopologies ?? [];
  if (!terms.length) return true;
  const labels = nodeLabels ?? {};
  return terms.some((t) => (t.matchLabelExpressions ?? []).every((e) =>
    Object.hasOwn(labels, e.key) && (e.values ?? []).includes(labels[e.key])));
}

// ---- the scheduler's view of one pod ---------------------------------------

/** What PreFilter learns about a pod's claims (upstream PodVolumeClaims). */
export interface PodVolumeClaims {
  boundClaims: PersistentVolumeClaim[];
  /** Unbound claims of WaitForFirstConsumer classes, without spec.volumeName. */
  unboundDelayBinding: PersistentVolumeClaim[];
  volumes: VolumeIndex;
  classes: ClassLookup;
}

/** Static bindings to write (PV claimRef) and claims to annotate with the selected node, in PreBind. */
export interface PodVolumes {
  staticBindings: { pv: PersistentVolume; pvc: PersistentVolumeClaim }[];
  dynamicProvisions: PersistentVolumeClaim[];
}

export type PodVolumesResult = ({ ok: true } & PodVolumes) | Extract<VolumeFit, { ok: false }>;

const unresolvable = (...reasons: string[]): Extract<VolumeFit, { ok: false }> =>
  ({ ok: false, code: 'UnschedulableAndUnresolvable', reason: reasons[0], reasons });
const errorStatus = (reason: string): Extract<VolumeFit, { ok: false }> => ({ ok: false, code: 'Error', reason, reasons: [reason] });

/** The claim's problem that no node can fix (podHasPVCs), or undefined. */
function claimProblem(pod: Pod, ref: { name: string; ephemeral: boolean }, pvc: PersistentVolumeClaim | undefined): string | undefined {
  const podMeta = pod.metadata!;
  if (!pvc) {
    return ref.ephemeral ? `waiting for ephemeral volume controller to create the persistentvolumeclaim "${ref.name}"`
      : `persistentvolumeclaim "${ref.name}" not found`;
  }
  const meta = pvc.metadata!;
  if (pvc.status?.phase === 'Lost') return `persistentvolumeclaim "${meta.name}" bound to non-existent persistentvolume "${pvc.spec?.volumeName ?? ''}"`;
  if (meta.deletionTimestamp) return `persistentvolumeclaim "${meta.name}" is being deleted`;
  if (ref.ephemeral && !(meta.ownerReferences ?? []).some((r) => r.controller && r.uid === podMeta.uid)) {
    return `PVC ${meta.namespace}/${meta.name} was not created for pod ${podMeta.namespace}/${podMeta.name} (pod is not owner)`;
  }
  return undefined;
}

/**
 * PreFilter (rules 1 and 2). Returns undefined when the pod uses no claims
 * (the plugin is skipped), a failure, or the claims sorted for Filter.
 */
export function getPodVolumeClaims(pod: Pod, pvcs: ClaimLookup, pvs: VolumeIndex, classes: ClassLookup):
  PodVolumeClaims | Extract<VolumeFit, { ok: false }> | undefined {
  const refs = podClaimNames(pod);
  if (!refs.length) return undefined;
  const out: PodVolumeClaims = { boundClaims: [], unboundDelayBinding: [], volumes: pvs, classes };
  let unboundImmediate = false;
  for (const ref of refs) {
    const pvc = pvcs.get(`${pod.metadata!.namespace}/${ref.name}`);
    const problem = claimProblem(pod, ref, pvc);
    if (problem || !pvc) return unresolvable(problem!);
    if (isClaimFullyBound(pvc)) out.boundClaims.push(pvc);
    else if (isDelayBindingMode(pvc, classes) && !pvc.spec?.volumeName) out.unboundDelayBinding.push(pvc);
    else unboundImmediate = true;
  }
  return unboundImmediate ? unresolvable(errReasonUnboundImmediate) : out;
}

/** Rule 5's second half (checkVolumeProvisions): undefined when every claim can be provisioned on the node. */
function checkVolumeProvisions(claims: PersistentVolumeClaim[], node: NodeLabels, classes: ClassLookup): 'ok' | 'conflict' | Extract<VolumeFit, { ok: false }> {
  for (const pvc of claims) {
    const name = claimClass(pvc);
    if (!name) return errorStatus(`no class for claim "${claimKey(pvc)}"`);
    const sc = classes.get(name);
    if (!sc) return errorStatus(`failed to find storage class "${name}"`);
    if (!sc.provisioner || sc.provisioner === notSupportedProvisioner) return 'conflict';
    if (!classAllowsNode(sc, node.metadata?.labels)) return 'conflict';
  }
  return 'ok';
}

/** Filter (rules 3 to 5) for one node, with the PreBind plan when the node fits. */
export function findPodVolumes(claims: PodVolumeClaims, node: Node): PodVolumesResult {
  const reasons: string[] = [];
  for (const pvc of claims.boundClaims) {
    const pv = claims.volumes.get(pvc.spec!.volumeName!);
    if (!pv) { reasons.push(errReasonPVNotExist); break; }
    if (!volumeNodeAffinityMatches(pv, node.metadata?.labels)) { reasons.push(errReasonNodeConflict); break; }
  }
  const plan: PodVolumes = { staticBindings: [], dynamicProvisions: [] };
  const toMatch: PersistentVolumeClaim[] = [];
  let bindConflict = false;
  for (const pvc of claims.unboundDelayBinding) {
    const selected = pvc.metadata!.annotations?.[annSelectedNode];
    if (selected === undefined) toMatch.push(pvc);
    else if (selected !== node.metadata!.name) bindConflict = true;
    else plan.dynamicProvisions.push(pvc);
  }
  if (!bindConflict && toMatch.length) {
    const chosen = new Set<string>();
    for (const pvc of toMatch) {
      const pv = findMatchingVolume(pvc, allObjects(claims.volumes), node, chosen, true);
      if (pv) { chosen.add(pv.metadata!.name!); plan.staticBindings.push({ pv, pvc }); } else plan.dynamicProvisions.push(pvc);
    }
  }
  if (!bindConflict && plan.dynamicProvisions.length) {
    const r = checkVolumeProvisions(plan.dynamicProvisions, node, claims.classes);
    if (r === 'conflict') bindConflict = true;
    else if (r !== 'ok') return r;
  }
  if (bindConflict) reasons.push(errReasonBindConflict);
  if (reasons.length) return unresolvable(...reasons);
  return { ok: true, ...plan };
}

/**
 * The whole VolumeBinding check for one pod and node: PreFilter then
 * Filter. `pvcs` is keyed `namespace/name`, `pvs` and `storageClasses` by name.
 */
export function podVolumesFitNode(pod: Pod, node: Node, pvcs: ClaimLookup, pvs: VolumeIndex, storageClasses: ClassLookup): VolumeFit {
  const claims = getPodVolumeClaims(pod, pvcs, pvs, storageClasses);
  if (!claims) return { ok: true };
  if ('ok' in claims) return claims;
  const r = findPodVolumes(claims, node);
  return r.ok ? { ok: true } : r;
}

/**
 * The claims the scheduler must annotate with `volume.kubernetes.io/selected-node`
 * when it binds `pod` to `node` (upstream BindPodVolumes' dynamic provisions
 * that lack the annotation), and the static bindings it must write first.
 * Empty when the pod does not fit (check podVolumesFitNode first).
 */
export function podVolumeBindingsForNode(pod: Pod, node: Node, pvcs: ClaimLookup, pvs: VolumeIndex, storageClasses: ClassLookup): PodVolumes {
  const claims = getPodVolumeClaims(pod, pvcs, pvs, storageClasses);
  if (!claims || 'ok' in claims) return { staticBindings: [], dynamicProvisions: [] };
  const r = findPodVolumes(claims, node);
  if (!r.ok) return { staticBindings: [], dynamicProvisions: [] };
  return { staticBindings: r.staticBindings, dynamicProvisions: r.dynamicProvisions.filter((c) => c.metadata!.annotations?.[annSelectedNode] === undefined) };
}

/** The merge patch that records the scheduler's choice on a claim. */
export const selectedNodePatch = (nodeName: string) => ({ metadata: { annotations: { [annSelectedNode]: nodeName } } });

/** An ObjectReference to a claim, as the binder writes into spec.claimRef. */
export function claimReference(pvc: PersistentVolumeClaim): ObjectReference {
  const meta = pvc.metadata!;
  return {
    kind: 'PersistentVolumeClaim', namespace: meta.namespace, name: meta.name,
    uid: meta.uid, apiVersion: 'v1', resourceVersion: meta.resourceVersion,
  };
}

/**
 * GetBindVolumeToClaim: a copy of `pv` whose claimRef points at `pvc`, with
 * `pv.kubernetes.io/bound-by-controller` when the binder set the reference.
 * Returns undefined when nothing changes. The scheduler PUTs the result for
 * its static bindings; the PV controller finishes the binding.
 */
export function volumeBoundToClaim(pv: PersistentVolume, pvc: PersistentVolumeClaim): PersistentVolume | undefined {
  const ref = pv.spec?.claimRef;
  const meta = pvc.metadata!;
  const current = ref && ref.name === meta.name && ref.namespace === meta.namespace && ref.uid === meta.uid;
  if (current) return undefined;
  const setByUs = !isVolumeBoundToClaim(pv, pvc);
  const out = structuredClone(pv);
  out.spec!.claimRef = claimReference(pvc);
  if (setByUs) out.metadata!.annotations = { ...(out.metadata!.annotations ?? {}), [annBoundByController]: 'yes' };
  return out;
}
