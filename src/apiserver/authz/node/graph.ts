/**
 * The Node authorizer's graph (upstream plugin/pkg/auth/authorizer/node
 * graph.go), kept as the edges that matter for its question "is there a path
 * from this object to that node":
 *   pod → node (spec.nodeName);
 *   secret, configmap, PVC, service account → pod (what its spec names);
 *   PV → PVC (spec.claimRef); secret → PV (secrets the PV source names);
 *   volumeattachment → node (spec.nodeName).
 * Indexes go from each referenced object to the pods or PVs naming it, so a
 * lookup touches only the objects on the path.
 */
import type { Pod, PersistentVolume } from 'kubernetes-types/core/v1.js';
import type { VolumeAttachment } from 'kubernetes-types/storage/v1.js';
import { podClaimNames, podConfigMapNames, podSecretNames } from '../../../api/pod-references.js';
import { StringPool } from '../../../util/intern.js';

export type VertexType = 'pod' | 'secret' | 'configmap' | 'persistentvolumeclaim' | 'persistentvolume' | 'serviceaccount' | 'volumeattachment';

const key = (namespace: string, name: string) => `${namespace}/${name}`;

/** A multimap from a referenced object to the objects that reference it. */
class ReverseIndex {
  private readonly byTarget = new Map<string, Set<string>>();
  add(target: string, from: string): void {
    let s = this.byTarget.get(target);
    if (!s) this.byTarget.set(target, s = new Set());
    s.add(from);
  }
  remove(target: string, from: string): void {
    const s = this.byTarget.get(target);
    if (!s) return;
    s.delete(from);
    if (!s.size) this.byTarget.delete(target);
  }
  get(target: string): Iterable<string> { return this.byTarget.get(target) ?? []; }
}

interface PodVertex { nodeName: string; refs: Array<[ReverseIndex, string]> }
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

const sameRefs = (a: ReadonlyArray<[ReverseIndex, string]>, b: ReadonlyArray<[ReverseIndex, string]>) =>
  a.length === b.length && a.every(([index, target], i) => b[i]![0] === index && b[i]![1] === target);

export class NodeGraph {
  private readonly pods = new Map<string, PodVertex>();
  private readonly pvs = new Map<string, PVVertex>();
  /** volumeattachment name → node name. */
  private readonly attachments = new Map<string, string>();
  private readonly podsBySecret = new ReverseIndex();
  private readonly podsByConfigMap = new ReverseIndex();
  private readonly podsByClaim = new ReverseIndex();
  private readonly podsByServiceAccount = new ReverseIndex();
  private readonly pvsBySecret = new ReverseIndex();
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
    const k = key(ns, pod.metadata?.name ?? '');
    const nodeName = pod.spec?.nodeName;
    if (!nodeName) { this.deletePod(ns, pod.metadata?.name ?? ''); return; }
    const refs: Array<[ReverseIndex, string]> = [
      ...podSecretNames(pod).map((n): [ReverseIndex, string] => [this.podsBySecret, this.target(ns, n)]),
      ...podConfigMapNames(pod).map((n): [ReverseIndex, string] => [this.podsByConfigMap, this.target(ns, n)]),
      ...podClaimNames(pod).map((n): [ReverseIndex, string] => [this.podsByClaim, this.target(ns, n)]),
    ];
    if (pod.spec?.serviceAccountName) refs.push([this.podsByServiceAccount, this.target(ns, pod.spec.serviceAccountName)]);
    // Upstream's graph populator skips an update that leaves the node and the references alone (a kubelet's
    // status write): taking the pod out of every index and putting it back cost a status write 1-2%.
    const had = this.pods.get(k);
    if (had && had.nodeName === nodeName && sameRefs(had.refs, refs)) return;
    this.deletePod(ns, pod.metadata?.name ?? '');
    for (const [index, target] of refs) index.add(target, k);
    this.pods.set(k, { nodeName, refs });
  }

  deletePod(namespace: string, name: string): void {
    const k = key(namespace, name);
    const v = this.pods.get(k);
    if (!v) return;
    for (const [index, target] of v.refs) index.remove(target, k);
    this.pods.delete(k);
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

  /** hasPathFrom: whether the object reaches the node along the graph's edges. */
  hasPath(nodeName: string, type: VertexType, namespace: string, name: string): boolean {
    const k = key(namespace, name);
    const onNode = (pods: Iterable<string>) => { for (const p of pods) if (this.pods.get(p)?.nodeName === nodeName) return true; return false; };
    const claimOnNode = (claim: string | undefined) => !!claim && onNode(this.podsByClaim.get(claim));
    switch (type) {
      case 'pod': return this.pods.get(k)?.nodeName === nodeName;
      case 'configmap': return onNode(this.podsByConfigMap.get(k));
      case 'persistentvolumeclaim': return claimOnNode(k);
      case 'serviceaccount': return onNode(this.podsByServiceAccount.get(k));
      case 'persistentvolume': return claimOnNode(this.pvs.get(name)?.claim);
      case 'volumeattachment': return this.attachments.get(name) === nodeName;
      case 'secret':
        if (onNode(this.podsBySecret.get(k))) return true;
        for (const pv of this.pvsBySecret.get(k)) if (claimOnNode(this.pvs.get(pv)?.claim)) return true;
        return false;
    }
  }
}
