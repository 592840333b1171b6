/**
 * NodeRestriction admission (upstream plugin/pkg/admission/noderestriction,
 * v1.32): what a node identity (system:node:<name>, system:nodes) may write.
 *  - pods: create only mirror pods bound to itself, owned by its Node (a
 *    single controller reference with its uid) and naming no service
 *    account, secret, configmap, cluster trust bundle or PVC; delete only
 *    pods bound to itself; status writes and evictions only for pods bound
 *    to itself, status writes without label changes;
 *  - nodes: only its own Node; no configSource, no taint changes on update,
 *    no labels outside the kubelet's set (kubernetes.io/k8s.io labels the
 *    kubelet does not own, node-restriction.kubernetes.io/ ones);
 *  - PVCs: only status.capacity and status.conditions;
 *  - leases: only its own, in kube-node-lease; CSINodes: only its own;
 *  - TokenRequests (serviceaccounts/x/token, served outside the store, so
 *    its handler calls `admitTokenRequest`): only bound to a pod, with its
 *    uid, that is scheduled to the node.
 * Everyone else passes. Refusals are upstream's 403 (`pods "x" is
 * forbidden: node "n" can only ...`). The subresource comes from the request
 * being served (request-scope.ts): a pod's status write made by an eviction
 * is judged as the eviction.
 */
import type { Node, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { TokenRequest } from 'kubernetes-types/authentication/v1.js';
import { forbiddenStatus, type StatusError } from '../../api/status.js';
import type { ResourceInfo } from '../../api/resources.js';
import { podConfigMapNames, podSecretNames } from '../../api/pod-references.js';
import { deepEqual as equalJSON } from '../../api/validation/util.js';
import type { Lister } from '../../registry/lister.js';
import type { Registry } from '../../registry/registry.js';
import { nodeIdentity } from '../auth/node-identity.js';
import type { RequestContext } from '../request-context.js';
import { mirrorPodAnnotation } from './mirror-pods.js';

export type NodeRestrictionOperation = 'create' | 'update' | 'delete';

interface Attrs {
  op: NodeRestrictionOperation;
  info: ResourceInfo;
  subresource: string;
  namespace: string;
  name: string;
  obj: any;
  old?: any;
}

const nodeLeaseNamespace = 'kube-node-lease';
const nodeRestrictionLabelNamespace = 'node-restriction.kubernetes.io';

/** kubeletapis.IsKubeletLabel: the labels a kubelet may set on its own Node. */
const kubeletLabels = new Set([
  'kubernetes.io/hostname', 'topology.kubernetes.io/zone', 'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/region',
  'beta.kubernetes.io/instance-type', 'node.kubernetes.io/instance-type', 'kubernetes.io/os', 'kubernetes.io/arch',
  'beta.kubernetes.io/os', 'beta.kubernetes.io/arch',
]);
const kubeletLabelNamespaces = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

const labelNamespace = (key: string) => (key.includes('/') ? key.slice(0, key.indexOf('/')) : '');
const inNamespace = (ns: string, domain: string) => ns === domain || ns.endsWith(`.${domain}`);
const isKubeletLabel = (key: string) => kubeletLabels.has(key) || kubeletLabelNamespaces.some((d) => inNamespace(labelNamespace(key), d));
const isKubernetesLabel = (key: string) => inNamespace(labelNamespace(key), 'kubernetes.io') || inNamespace(labelNamespace(key), 'k8s.io');

function modifiedLabels(a: Record<string, string> = {}, b: Record<string, string> = {}): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => a[k] !== b[k]);
}

/** getForbiddenLabels, sorted as upstream's sets.String.List(). */
function forbiddenLabels(keys: string[]): string[] {
  return keys.filter((k) => inNamespace(labelNamespace(k), nodeRestrictionLabelNamespace) || (isKubernetesLabel(k) && !isKubeletLabel(k))).sort();
}

/** admission.NewForbidden: the group-resource of the request, the object's name. */
function refuse(a: Attrs, why: string): StatusError {
  return forbiddenStatus(why, { group: a.info.group, resource: a.info.plural }, a.name || undefined);
}

export interface NodeRestriction {
  admit(op: 'create' | 'update', info: ResourceInfo, obj: any, old?: any, ctx?: RequestContext): Promise<void> | undefined;
  admitDelete(info: ResourceInfo, obj: any, ctx?: RequestContext): Promise<void>;
  /** POST serviceaccounts/<name>/token by a node. */
  admitTokenRequest(namespace: string, serviceAccountName: string, tr: TokenRequest, ctx?: RequestContext): Promise<void>;
}

export function nodeRestrictionAdmission(registry: () => Registry, nodes?: Pick<Lister<Node>, 'get'>): NodeRestriction {
  const check = async (op: NodeRestrictionOperation, info: ResourceInfo, obj: any, old: any, ctx: RequestContext | undefined) => {
    const { isNode, nodeName } = nodeIdentity(ctx?.user);
    if (!isNode) return;
    const req = ctx?.info;
    const sameResource = req && req.group === info.group && req.resource === info.plural;
    const a: Attrs = {
      op, info, obj, old, subresource: (sameResource && req.subresource) || '',
      namespace: obj?.metadata?.namespace ?? '', name: obj?.metadata?.name ?? '',
    };
    if (!nodeName) throw refuse(a, `could not determine node from user "${ctx!.user!.name}"`);
    switch (`${info.plural}.${info.group}`) {
      case 'pods.': return admitPod(registry, nodes, nodeName, a);
      case 'nodes.': return admitNode(nodeName, a);
      case 'persistentvolumeclaims.':
        if (a.subresource !== 'status') throw refuse(a, 'may only update PVC status');
        return admitPVCStatus(nodeName, a);
      case 'leases.coordination.k8s.io': return admitLease(nodeName, a);
      case 'csinodes.storage.k8s.io':
        if (a.name !== nodeName) throw refuse(a, 'can only access CSINode with the same name as the requesting node');
        return;
      default: return;
    }
  };
  return {
    // Most writers are not nodes: answered without a promise (admission/steps.ts).
    admit: (op, info, obj, old, ctx) => nodeIdentity(ctx?.user).isNode ? check(op, info, obj, old, ctx) : undefined,
    admitDelete: (info, obj, ctx) => check('delete', info, obj, undefined, ctx),
    admitTokenRequest: async (namespace, serviceAccountName, tr, ctx) => {
      const { isNode, nodeName } = nodeIdentity(ctx?.user);
      if (!isNode) return;
      const refuseToken = (why: string) => forbiddenStatus(why, { group: '', resource: 'serviceaccounts' }, serviceAccountName);
      if (!nodeName) throw refuseToken(`could not determine node from user "${ctx!.user!.name}"`);
      const ref = tr.spec?.boundObjectRef;
      if (!ref || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || !ref.name) throw refuseToken('node requested token not bound to a pod');
      if (!ref.uid) throw refuseToken('node requested token with a pod binding without a uid');
      const pod: Pod = await registry().store('', 'v1', 'pods')!.get(namespace, ref.name);
      if (ref.uid !== pod.metadata?.uid) {
        throw refuseToken(`the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
      }
      if (pod.spec?.nodeName !== nodeName) throw refuseToken('node requested token bound to a pod scheduled on a different node');
    },
  };
}

async function admitPod(registry: () => Registry, nodes: Pick<Lister<Node>, 'get'> | undefined, nodeName: string, a: Attrs): Promise<void> {
  const pod: Pod = a.op === 'create' ? a.obj : (a.old ?? a.obj);
  switch (a.subresource) {
    case '':
      if (a.op === 'create') return admitPodCreate(registry, nodes, nodeName, a);
      if (a.op === 'delete') {
        if (pod.spec?.nodeName !== nodeName) throw refuse(a, `node "${nodeName}" can only delete pods with spec.nodeName set to itself`);
        return;
      }
      throw refuse(a, `unexpected operation "${a.op.toUpperCase()}", node "${nodeName}" can only create and delete mirror pods`);
    case 'status':
      if (a.op !== 'update') throw refuse(a, `unexpected operation "${a.op.toUpperCase()}"`);
      if (pod.spec?.nodeName !== nodeName) throw refuse(a, `node "${nodeName}" can only update pod status for pods with spec.nodeName set to itself`);
      if (!equalJSON(a.old?.metadata?.labels ?? {}, a.obj?.metadata?.labels ?? {})) throw refuse(a, `node "${nodeName}" cannot update labels through pod status`);
      return;
    case 'eviction':
      // The eviction's own writes (the DisruptionTarget condition, the delete) are judged as the eviction.
      if (pod.spec?.nodeName !== nodeName) throw refuse(a, `node ${nodeName} can only evict pods with spec.nodeName set to itself`);
      return;
    default:
      throw refuse(a, `unexpected pod subresource "${a.subresource}", only 'status' and 'eviction' are allowed`);
  }
}

async function admitPodCreate(registry: () => Registry, nodes: Pick<Lister<Node>, 'get'> | undefined, nodeName: string, a: Attrs): Promise<void> {
  const pod: Pod = a.obj;
  if (!pod.metadata?.annotations || !(mirrorPodAnnotation in pod.metadata.annotations)) {
    throw refuse(a, `pod does not have "${mirrorPodAnnotation}" annotation, node "${nodeName}" can only create mirror pods`);
  }
  if (pod.spec?.nodeName !== nodeName) throw refuse(a, `node "${nodeName}" can only create pods with spec.nodeName set to itself`);
  const owners = pod.metadata.ownerReferences ?? [];
  if (owners.length > 1) throw refuse(a, `node "${nodeName}" can only create pods with a single owner reference set to itself`);
  if (owners.length === 0) throw refuse(a, `node "${nodeName}" can only create pods with an owner reference set to itself`);
  const owner = owners[0];
  if (owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== nodeName) {
    throw refuse(a, `node "${nodeName}" can only create pods with an owner reference set to itself`);
  }
  if (!owner.controller) throw refuse(a, `node "${nodeName}" can only create pods with a controller owner reference set to itself`);
  if (owner.blockOwnerDeletion) throw refuse(a, `node "${nodeName}" must not set blockOwnerDeletion on an owner reference`);
  // The Node from the watch-fed cache (upstream's node lister); one created just now may only be in storage.
  const node: Node = nodes?.get(undefined, nodeName) ?? await registry().store('', 'v1', 'nodes')!.get(undefined, nodeName);
  if (owner.uid !== node.metadata?.uid) throw refuse(a, `node ${nodeName} UID mismatch: expected ${owner.uid} got ${node.metadata?.uid}`);
  if (pod.spec?.serviceAccountName) throw refuse(a, `node "${nodeName}" can not create pods that reference a service account`);
  if (podSecretNames(pod).length) throw refuse(a, `node "${nodeName}" can not create pods that reference secrets`);
  if (podConfigMapNames(pod).length) throw refuse(a, `node "${nodeName}" can not create pods that reference configmaps`);
  if ((pod.spec?.volumes ?? []).some((v) => (v.projected?.sources ?? []).some((s: any) => s.clusterTrustBundle))) {
    throw refuse(a, `node "${nodeName}" can not create pods that reference clustertrustbundles`);
  }
  if ((pod.spec?.volumes ?? []).some((v) => v.persistentVolumeClaim)) throw refuse(a, `node "${nodeName}" can not create pods that reference persistentvolumeclaims`);
}

function admitNode(nodeName: string, a: Attrs): void {
  if (a.name !== nodeName) throw refuse(a, `node "${nodeName}" is not allowed to modify node "${a.name}"`);
  const node: Node = a.obj;
  if (a.op === 'create') {
    if (node.spec?.configSource) throw refuse(a, `node "${nodeName}" is not allowed to create pods with a non-nil configSource`);
    const forbidden = forbiddenLabels(modifiedLabels(node.metadata?.labels, undefined));
    if (forbidden.length) throw refuse(a, `node "${nodeName}" is not allowed to set the following labels: ${forbidden.join(', ')}`);
  }
  if (a.op === 'update') {
    const old: Node = a.old;
    if (node.spec?.configSource && !equalJSON(node.spec.configSource, old.spec?.configSource)) {
      throw refuse(a, `node "${nodeName}" is not allowed to update configSource to a new non-nil configSource`);
    }
    if (!equalJSON(node.spec?.taints ?? [], old.spec?.taints ?? [])) throw refuse(a, `node "${nodeName}" is not allowed to modify taints`);
    const forbidden = forbiddenLabels(modifiedLabels(node.metadata?.labels, old.metadata?.labels));
    if (forbidden.length) throw refuse(a, `is not allowed to modify labels: ${forbidden.join(', ')}`);
  }
}

/** Everything but status.capacity and status.conditions (and the resourceVersion and managedFields) must stay. */
function admitPVCStatus(nodeName: string, a: Attrs): void {
  if (a.op !== 'update') throw refuse(a, `unexpected operation "${a.op.toUpperCase()}"`);
  const comparable = (pvc: PersistentVolumeClaim) => {
    const { resourceVersion: _rv, managedFields: _mf, ...metadata } = pvc.metadata ?? {};
    const { capacity: _c, conditions: _co, allocatedResourceStatuses: _ars, allocatedResources: _ar, ...status } = pvc.status ?? {};
    return { ...pvc, metadata, status };
  };
  if (!equalJSON(comparable(a.old), comparable(a.obj))) {
    throw refuse(a, `node "${nodeName}" is not allowed to update fields other than status.capacity and status.conditions`);
  }
}

function admitLease(nodeName: string, a: Attrs): void {
  if (a.namespace !== nodeLeaseNamespace) throw refuse(a, `can only access leases in the "${nodeLeaseNamespace}" system namespace`);
  if (a.name !== nodeName) throw refuse(a, 'can only access node lease with the same name as the requesting node');
}
