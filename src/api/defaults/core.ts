/**
 * Defaulting of the other core kinds: namespaces, nodes, persistent volumes and
 * claims, secrets, endpoints, storage classes and CSR conditions.
 */
import { defaultPVCSpec, defaultVolumeSourceFields } from './pod.js';
import { Obj, defaultResourceList, ensure, isObj, objects, setDefault } from './util.js';

/**
 * SetDefaults_Namespace (the name label), status Active, and the `kubernetes`
 * finalizer a new namespace gets. A namespace being deleted is left alone, so the
 * finalize step that empties spec.finalizers is not undone.
 */
export function defaultNamespace(ns: Obj): void {
  const meta = ensure(ns, 'metadata');
  if (typeof meta.name === 'string' && meta.name) ensure(meta, 'labels')['kubernetes.io/metadata.name'] = meta.name;
  if (!meta.deletionTimestamp) {
    const spec = ensure(ns, 'spec');
    if (spec.finalizers === undefined || spec.finalizers === null) spec.finalizers = ['kubernetes'];
  }
  setDefault(ensure(ns, 'status'), 'phase', 'Active');
}

/** SetDefaults_NodeStatus: allocatable defaults to capacity. */
export function defaultNode(node: Obj): void {
  if (!isObj(node.status)) return;
  const status = node.status;
  if (!isObj(status.allocatable) && isObj(status.capacity)) status.allocatable = { ...status.capacity };
  defaultResourceList(status.capacity);
  defaultResourceList(status.allocatable);
}

export function defaultPersistentVolume(pv: Obj): void {
  const spec = ensure(pv, 'spec');
  setDefault(spec, 'persistentVolumeReclaimPolicy', 'Retain');
  setDefault(spec, 'volumeMode', 'Filesystem');
  defaultVolumeSourceFields(spec);
  defaultResourceList(spec.capacity);
  setDefault(ensure(pv, 'status'), 'phase', 'Pending');
}

export function defaultPersistentVolumeClaim(pvc: Obj): void {
  defaultPVCSpec(ensure(pvc, 'spec'));
  setDefault(ensure(pvc, 'status'), 'phase', 'Pending');
  if (isObj(pvc.status)) defaultResourceList(pvc.status.capacity);
}

/** Type Opaque; stringData is merged into data (base64) as the v1 conversion does, and never stored. */
export function defaultSecret(secret: Obj): void {
  setDefault(secret, 'type', 'Opaque');
  if (isObj(secret.stringData)) {
    const data = ensure(secret, 'data');
    for (const [k, v] of Object.entries(secret.stringData)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
  }
  delete secret.stringData;
}

export function defaultEndpoints(ep: Obj): void {
  for (const subset of objects(ep.subsets)) for (const port of objects(subset.ports)) setDefault(port, 'protocol', 'TCP');
}

export function defaultStorageClass(sc: Obj): void {
  setDefault(sc, 'reclaimPolicy', 'Delete');
  setDefault(sc, 'volumeBindingMode', 'Immediate');
}

/** certificates/v1: a condition without a status is True. */
export function defaultCSR(csr: Obj): void {
  if (isObj(csr.status)) for (const c of objects(csr.status.conditions)) setDefault(c, 'status', 'True');
}
