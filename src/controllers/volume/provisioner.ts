/**
 * The built-in local-path provisioner (rancher/local-path-provisioner, as k3s
 * and kind ship it, under its provisioner name `rancher.io/local-path` so
 * manifests written for those clusters work unchanged).
 *
 * A claim is provisioned on one node: the scheduler's choice in
 * `volume.kubernetes.io/selected-node` (WaitForFirstConsumer), or for an
 * Immediate class a node we pick. The PV is `pvc-<claim uid>`, a hostPath
 * (type DirectoryOrCreate; `local` when the class or claim asks for
 * volumeType local) at `<base>/<pv>_<namespace>_<claim>`, sized as requested,
 * with the claim's access modes, the class's reclaim policy and mount
 * options, pinned by a required node affinity `kubernetes.io/hostname In
 * [<node's hostname label, or its name>]`, annotated
 * `pv.kubernetes.io/provisioned-by` and `local.path.provisioner/selected-node`,
 * and pre-bound to the claim (claimRef with UID) for the binder to finish.
 *
 * Refused, as upstream: claims with a selector, access modes other than
 * ReadWriteOnce/ReadWriteOncePod, and Block volumes.
 */
import { mkdir, rm } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { annDynamicallyProvisioned, claimClass, claimReference } from '../../api/volumebinding.js';
import { nodeReadyStatus } from '../../api/pods.js';
import type { Node, PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';

export const localPathProvisionerName = 'rancher.io/local-path';
export const defaultStorageClassName = 'local-path';
export const defaultLocalPathBase = '/var/lib/k8ts/storage';
export const annLocalPathSelectedNode = 'local.path.provisioner/selected-node';
export const labelHostname = 'kubernetes.io/hostname';

export const storageClassDescriptionAnnotation = 'kubernetes.io/description';
export const storageClassDescription = 'Created by k8ts (as k3s and kind ship local-path; upstream creates none). '
  + 'Start the server with --default-storage-class=false to go without it.';

/** The default StorageClass, as k3s installs it. */
export function localPathStorageClass(provisioner = localPathProvisionerName, name = defaultStorageClassName): StorageClass {
  return {
    apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass',
    metadata: {
      name,
      annotations: {
        'storageclass.kubernetes.io/is-default-class': 'true',
        // Upstream creates no StorageClass; say where this one comes from and how to go without it.
        [storageClassDescriptionAnnotation]: storageClassDescription,
      },
    },
    provisioner, reclaimPolicy: 'Delete', volumeBindingMode: 'WaitForFirstConsumer',
  };
}

export const volumeNameForClaim = (claim: PersistentVolumeClaim) => `pvc-${claim.metadata!.uid}`;

export function volumePathFor(base: string, pvName: string, claim: PersistentVolumeClaim): string {
  return join(base, `${pvName}_${claim.metadata!.namespace}_${claim.metadata!.name}`);
}

/** The reason local-path refuses the claim, or undefined. */
export function provisioningRefusal(claim: PersistentVolumeClaim, provisioner: string): string | undefined {
  if (claim.spec?.selector) return 'claim.Spec.Selector is not supported';
  if (claim.spec?.volumeMode === 'Block') return `${provisioner} does not support block volume provisioning`;
  for (const mode of claim.spec?.accessModes ?? []) {
    if (mode !== 'ReadWriteOnce' && mode !== 'ReadWriteOncePod') return 'NodePath only supports ReadWriteOnce and ReadWriteOncePod (1.22+) access modes';
  }
  return undefined;
}

export interface ProvisionInput {
  claim: PersistentVolumeClaim;
  storageClass: StorageClass;
  node: Node;
  base: string;
  provisioner: string;
}

/** The PersistentVolume for a claim on a node (Provision plus the library's claimRef, class and annotation). */
export function buildLocalPathVolume({ claim, storageClass, node, base, provisioner }: ProvisionInput): PersistentVolume {
  const name = volumeNameForClaim(claim);
  const path = volumePathFor(base, name, claim);
  const volumeType = claim.metadata!.annotations?.volumeType ?? storageClass.parameters?.volumeType
    ?? storageClass.metadata?.annotations?.defaultVolumeType ?? 'hostPath';
  const source = String(volumeType).toLowerCase() === 'local' ? { local: { path } } : { hostPath: { path, type: 'DirectoryOrCreate' } };
  const hostname = node.metadata!.labels?.[labelHostname] ?? node.metadata!.name;
  const spec: any = {
    capacity: { storage: claim.spec!.resources!.requests!.storage },
    accessModes: claim.spec!.accessModes,
    persistentVolumeReclaimPolicy: storageClass.reclaimPolicy ?? 'Delete',
    storageClassName: claimClass(claim),
    volumeMode: 'Filesystem',
    claimRef: claimReference(claim),
    ...source,
    nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: labelHostname, operator: 'In', values: [hostname] }] }] } },
  };
  if (storageClass.mountOptions?.length) spec.mountOptions = storageClass.mountOptions;
  return {
    apiVersion: 'v1', kind: 'PersistentVolume',
    metadata: { name, annotations: { [annDynamicallyProvisioned]: provisioner, [annLocalPathSelectedNode]: node.metadata!.name! } },
    spec,
  };
}

/** The node a local-path volume lives on: its selected-node annotation, else its affinity's hostname. */
export function volumeNodeName(pv: PersistentVolume): string | undefined {
  const ann = pv.metadata!.annotations?.[annLocalPathSelectedNode];
  if (ann) return ann;
  for (const term of pv.spec?.nodeAffinity?.required?.nodeSelectorTerms ?? []) {
    for (const e of term.matchExpressions ?? []) if (e.key === labelHostname && e.operator === 'In' && e.values?.length === 1) return e.values[0];
  }
  return undefined;
}

/**
 * For an Immediate class nobody picks a node (upstream local-path refuses
 * such claims); we pick a Ready, schedulable node the class's topology
 * admits, holding the fewest of our volumes, then by name.
 */
export function pickNodeForImmediateClaim(nodes: Iterable<Node>, volumes: Iterable<PersistentVolume>, admits: (node: Node) => boolean): Node | undefined {
  const load = new Map<string, number>();
  for (const pv of volumes) {
    const n = volumeNodeName(pv);
    if (n) load.set(n, (load.get(n) ?? 0) + 1);
  }
  let best: Node | undefined;
  for (const node of nodes) {
    if (nodeReadyStatus(node) !== 'True' || node.spec?.unschedulable || !admits(node)) continue;
    const a = load.get(node.metadata!.name!) ?? 0;
    const b = best ? load.get(best.metadata!.name!) ?? 0 : Infinity;
    if (a < b || (a === b && node.metadata!.name! < best!.metadata!.name!)) best = node;
  }
  return best;
}

/**
 * Where volume directories are really made: on this host only, for nodes
 * this process stands for (the local node, or every node when a base
 * directory was configured, as tests and single-host clusters do).
 */
export class LocalPathDirectories {
  constructor(readonly base: string, private readonly materialize: (nodeName: string) => boolean) {}

  async create(nodeName: string, path: string): Promise<void> {
    if (!this.materialize(nodeName)) return;
    this.checkInside(path);
    await mkdir(path, { recursive: true, mode: 0o777 });
  }

  async remove(nodeName: string | undefined, path: string | undefined): Promise<void> {
    if (!nodeName || !path || !this.materialize(nodeName)) return;
    this.checkInside(path);
    await rm(path, { recursive: true, force: true });
  }

  /** Never touch a path outside the base directory, whatever a PV says. */
  private checkInside(path: string): void {
    const rel = relative(resolve(this.base), resolve(path));
    if (!rel || rel.startsWith('..') || isAbsolute(rel) || rel.includes(sep)) {
      throw new Error(`path ${path} is not a volume directory under ${this.base}`);
    }
  }
}

/** The directory of a PV we provisioned (hostPath or local). */
export const volumePath = (pv: PersistentVolume): string | undefined => pv.spec?.hostPath?.path ?? pv.spec?.local?.path;
