/**
 * The Node authorizer's graph (upstream plugin/pkg/auth/authorizer/node
 * graph.go), kept as the edges that matter for its question "is there a path
 * from this object to that node":
 *   pod → node (spec.nodeName);
 *   secret, configmap, PVC, service account → pod (what its spec names);
 *   PV → PVC (spec.claimRef); secret → PV (secrets the PV source names);
 *   volumeattachment → node (spec.nodeName).
 * Indexes go from each referenced object to the nodes of the pods naming it
 * (and to the PVs naming it), so a lookup touches only the objects on the path.
 */
import type { Pod, PersistentVolume } from 'kubernetes-types/core/v1.js';
import type { VolumeAttachment } from 'kubernetes-types/storage/v1.js';
import { podClaimNames, podConfigMapNames, podSecretNames } from '../../../api/pod-references.js';
import { StringPool } from '../../../util/intern.js';

export type VertexType = 'pod' | 'secret' | 'configmap' | 'persistentvolumeclaim' | 'persistentvolume' | 'serviceaccount' | 'volumeattachment';

const key = (namespace: string, name: string) => `${namespace}/${name}`;

/**
 * From each referenced object to the nodes its referencing pods (or PVs) are on, with how many of
 * them each: the question "does this object reach that node" is one lookup, however many pods
 * name it (every pod of a namespace names its `kube-root-ca.crt`), and a pod costs no entry of its
 * own here (a set of pod keys per target was two entries a pod, bench/RESULTS.md `memsrv-2026-12-06`).
 */
class ReverseIndex {
  /** `tag`: tells this index's edges from another's in a PodReferences key. */
  constructor(readonly tag: string) {}
  private readonly byTarget = new Map<string, Map<string, number>>();
  add(target: string, from: string): void {
    let m = this.byTarget.get(target);
    if (!m) this.byTarget.set(target, m = new Map());
    m.set(from, (m.get(from) ?? 0) + 1);
  }
  remove(target: string, from: string): void {
    const m = this.byTarget.get(target);
    const n = m?.get(from);
    if (!m || n === undefined) return;
    if (n > 1) m.set(from, n - 1);
    else if (m.delete(from) && !m.size) this.byTarget.delete(target);
  }
  has(target: string, from: string): boolean { return this.byTarget.get(target)?.has(from) ?? false; }
  get(target: string): Iterable<string> { return this.byTarget.get(target)?.keys() ?? []; }
}

type Targets = ReadonlyArray<readonly [ReverseIndex, string]>;

/** The identity of a pod's edges in `namespace` (names hold no newline): the same text whether its targets are pooled yet or not. */
function targetsKey(namespace: string, named: Targets): string {
  let k = '';
  for (const [index, name] of named) k += `${index.tag}${namespace}/${name}\n`;
  return k;
}

/**
 * What a pod's spec names (its edges to secrets, configmaps, claims and its service account), one
 * frozen copy shared by every pod naming the same objects (the pods of one template, and every pod
 * of a namespace that names only `kube-root-ca.crt` and its service account); kept while a pod uses it.
 */
interface PodReferences { readonly key: string; readonly targets: Targets; pods: number }

/** A scheduled pod: its node and what it names (shared): no key, set entry or edge list of its own. */
interface PodVertex { readonly nodeName: string; readonly refs: PodReferences }
interface PVVertex { claim?: string; refs: Array<[ReverseIndex, string]> }

/** The secrets a PV's source names, with the namespace each lives in. */
function pvSecretKeys(pv: PersistentVolume): string[] {
  const s = pv.spec ?? {};
  const refs: Array<{ name?: string; namespace?: string } | undefined> = [
    s.azureFile?.secretName ? { name: s.azureFile.secretName, namespace: s.azureFile.secretNamespace ?? 'default' } : undefined,
    s.cephfs?.secretRef, s.cinder?.secretRef, s.flexVolume?.secretRef, s.rbd?.secretRef, s.scaleIO?.secretRef,
    s.iscsi?.secretRef, s.storageos?.secretRef,
    s.csi?.controllerPublishSecretRef, s.csi?.controllerExpandSecretRef, s.csi?.nodePublishSecretRef,
    s.csi?.nodeStageSecretRef, s.csi?.nodeExpandSecretRef,
  ];
  return [...new Set(refs.filter((r) => r?.name).map((r) => key(r!.namespace ?? '', r!.name!)))];
}

export class NodeGraph {
  /**
   * Scheduled pods by namespace, then name: keyed by the pod's own strings (the watch cache's),
   * so a pod costs the graph one map entry and no key of its own.
   */
  private readonly pods = new Map<string, Map<string, PodVertex>>();
  /** The references in use, by their key (targetsKey). */
  private readonly references = new Map<string, PodReferences>();
  private readonly pvs = new Map<string, PVVertex>();
  /** volumeattachment name → node name. */
  private readonly attachments = new Map<string, string>();
  private readonly podsBySecret = new ReverseIndex('s');
  private readonly podsByConfigMap = new ReverseIndex('c');
  private readonly podsByClaim = new ReverseIndex('p');
  private readonly podsByServiceAccount = new ReverseIndex('a');
  private readonly pvsBySecret = new ReverseIndex('v');
  /**
   * One copy of each reference target's key: every pod of a namespace names its
   * `kube-root-ca.crt` and service account, and a key built per pod was a string per pod
   * (10,000 copies of "default/kube-root-ca.crt" at 10,000 pods, bench/RESULTS.md `mem2`).
   */
  private readonly targets = new StringPool();

  private target(namespace: string, name: string): string { return this.targets.intern(key(namespace, name)); }

  /** AddPod: a pod not yet scheduled has no path to any node, so it is not kept. */
  setPod(pod: Pod): void {
    const ns = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    const nodeName = pod.spec?.nodeName;
    if (!nodeName) { this.deletePod(ns, name); return; }
    const named = this.podTargetNames(pod);
    const refsKey = targetsKey(ns, named);
    // Upstream's graph populator skips an update that leaves the node and the references alone (a kubelet's
    // status write): taking the pod out of every index and putting it back cost a status write 1-2%.
    const had = this.pods.get(ns)?.get(name);
    if (had && had.nodeName === nodeName && had.refs.key === refsKey) return;
    this.deletePod(ns, name);
    // The edges are built (their targets' keys pooled) only for references no scheduled pod has yet:
    // a binding of a pod alike the ones before it finds them by the key.
    let refs = this.references.get(refsKey);
    if (!refs) {
      const targets = named.map(([index, n]) => [index, this.target(ns, n)] as const);
      this.references.set(refsKey, refs = { key: refsKey, targets: Object.freeze(targets), pods: 0 });
    }
    refs.pods++;
    for (const [index, target] of refs.targets) index.add(target, nodeName);
    let inNamespace = this.pods.get(ns);
    if (!inNamespace) this.pods.set(ns, inNamespace = new Map());
    inNamespace.set(name, { nodeName, refs });
  }

  /** What a pod's spec names, by index: secrets, configmaps, claims, then its service account. */
  private podTargetNames(pod: Pod): Array<readonly [ReverseIndex, string]> {
    const named: Array<readonly [ReverseIndex, string]> = [];
    for (const n of podSecretNames(pod)) named.push([this.podsBySecret, n]);
    for (const n of podConfigMapNames(pod)) named.push([this.podsByConfigMap, n]);
    for (const n of podClaimNames(pod)) named.push([this.podsByClaim, n]);
    if (pod.spec?.serviceAccountName) named.push([this.podsByServiceAccount, pod.spec.serviceAccountName]);
    return named;
  }

  deletePod(namespace: string, name: string): void {
    const inNamespace = this.pods.get(namespace);
    const v = inNamespace?.get(name);
    if (!inNamespace || !v) return;
    for (const [index, target] of v.refs.targets) index.remove(target, v.nodeName);
    if (--v.refs.pods === 0) this.references.delete(v.refs.key);
    inNamespace.delete(name);
    if (!inNamespace.size) this.pods.delete(namespace);
  }

  /** After a relist: the pods the list did not return are gone. */
  retainPods(listed: Iterable<Pod>): void {
    const kept = new Map<string, Set<string>>();
    for (const p of listed) {
      const ns = p.metadata?.namespace ?? '';
      let names = kept.get(ns);
      if (!names) kept.set(ns, names = new Set());
      names.add(p.metadata?.name ?? '');
    }
    for (const [ns, inNamespace] of [...this.pods]) {
      for (const name of [...inNamespace.keys()]) if (!kept.get(ns)?.has(name)) this.deletePod(ns, name);
    }
  }

  setPV(pv: PersistentVolume): void {
    const name = pv.metadata?.name ?? '';
    this.deletePV(name);
    const ref = pv.spec?.claimRef;
    const refs = pvSecretKeys(pv).map((s): [ReverseIndex, string] => [this.pvsBySecret, s]);
    for (const [index, target] of refs) index.add(target, name);
    this.pvs.set(name, { claim: ref?.name ? key(ref.namespace ?? '', ref.name) : undefined, refs });
  }

  deletePV(name: string): void {
    const v = this.pvs.get(name);
    if (!v) return;
    for (const [index, target] of v.refs) index.remove(target, name);
    this.pvs.delete(name);
  }

  setVolumeAttachment(va: VolumeAttachment): void {
    const name = va.metadata?.name ?? '';
    if (va.spec?.nodeName) this.attachments.set(name, va.spec.nodeName);
    else this.attachments.delete(name);
  }

  deleteVolumeAttachment(name: string): void { this.attachments.delete(name); }

  /** After a relist: the PVs the list did not return are gone. */
  retainPVs(listed: Iterable<PersistentVolume>): void {
    const kept = new Set([...listed].map((pv) => pv.metadata?.name ?? ''));
    for (const name of [...this.pvs.keys()]) if (!kept.has(name)) this.deletePV(name);
  }

  /** After a relist: the volume attachments the list did not return are gone. */
  retainVolumeAttachments(listed: Iterable<VolumeAttachment>): void {
    const kept = new Set([...listed].map((va) => va.metadata?.name ?? ''));
    for (const name of [...this.attachments.keys()]) if (!kept.has(name)) this.attachments.delete(name);
  }

  /** hasPathFrom: whether the object reaches the node along the graph's edges. */
  hasPath(nodeName: string, type: VertexType, namespace: string, name: string): boolean {
    const k = key(namespace, name);
    const claimOnNode = (claim: string | undefined) => !!claim && this.podsByClaim.has(claim, nodeName);
    switch (type) {
      case 'pod': return this.pods.get(namespace)?.get(name)?.nodeName === nodeName;
      case 'configmap': return this.podsByConfigMap.has(k, nodeName);
      case 'persistentvolumeclaim': return claimOnNode(k);
      case 'serviceaccount': return this.podsByServiceAccount.has(k, nodeName);
      case 'persistentvolume': return claimOnNode(this.pvs.get(name)?.claim);
      case 'volumeattachment': return this.attachments.get(name) === nodeName;
      case 'secret':
        if (this.podsBySecret.has(k, nodeName)) return true;
        for (const pv of this.pvsBySecret.get(k)) if (claimOnNode(this.pvs.get(pv)?.claim)) return true;
        return false;
    }
  }
}
