/**
 * The Node authorizer (upstream plugin/pkg/auth/authorizer/node, v1.32 with
 * AuthorizeNodeWithSelectors on, its default): only for node identities
 * (system:node:<name> in system:nodes); everyone else gets NoOpinion.
 *  - secrets, configmaps (get/list/watch of one object), PVCs, PVs,
 *    volumeattachments (get), PVC status (update/patch) and service account
 *    tokens (create serviceaccounts/x/token): only when the graph has a path
 *    from the object to the node;
 *  - its own Lease in kube-node-lease, its own CSINode;
 *  - its own Node (read by name; create/update/patch, NodeRestriction checks
 *    the name), pods bound to it (get by graph, list/watch with
 *    fieldSelector spec.nodeName=<itself>, create/delete and status writes,
 *    which NodeRestriction narrows);
 *  - anything else as the static node rules allow.
 * Refusals are NoOpinion with upstream's reason, so the next authorizer
 * (RBAC) may still allow and the 403 reads as upstream's.
 */
import { requiresExactFieldMatch } from '../../../api/fields.js';
import { nodeRules } from '../../../api/rbac/node-rules.js';
import { nodeIdentity } from '../../auth/node-identity.js';
import { rulesAllow } from '../rule-allows.js';
import { allow, noOpinion, type AuthorizationAttributes, type Decision } from '../types.js';
import type { NodeGraph, VertexType } from './graph.js';

const nodeLeaseNamespace = 'kube-node-lease';

export class NodeAuthorizer {
  private readonly rules = nodeRules();

  constructor(private readonly graph: NodeGraph) {}

  readonly authorize = (a: AuthorizationAttributes): Decision => {
    const { isNode, nodeName } = nodeIdentity(a.user);
    if (!isNode) return noOpinion();
    if (!nodeName) return noOpinion(`unknown node for user "${a.user.name}"`);
    if (a.isResourceRequest) {
      const decided = this.subdivided(nodeName, a);
      if (decided) return decided;
    }
    return rulesAllow(a, this.rules) ? allow() : noOpinion();
  };

  /** The resources the authorizer narrows to the node; undefined for the rest. */
  private subdivided(nodeName: string, a: AuthorizationAttributes): Decision | undefined {
    const gr = `${a.resource}.${a.apiGroup}`;
    switch (gr) {
      case 'secrets.': return this.readNamespacedObject(nodeName, 'secret', a);
      case 'configmaps.': return this.readNamespacedObject(nodeName, 'configmap', a);
      case 'persistentvolumeclaims.':
        return a.subresource === 'status' ? this.statusUpdate(nodeName, 'persistentvolumeclaim', a) : this.get(nodeName, 'persistentvolumeclaim', a);
      case 'persistentvolumes.': return this.get(nodeName, 'persistentvolume', a);
      case 'volumeattachments.storage.k8s.io': return this.get(nodeName, 'volumeattachment', a);
      case 'serviceaccounts.': return this.createToken(nodeName, a);
      case 'leases.coordination.k8s.io': return this.lease(nodeName, a);
      case 'csinodes.storage.k8s.io': return this.csiNode(nodeName, a);
      case 'nodes.': return this.node(nodeName, a);
      case 'pods.': return this.pod(nodeName, a);
      default: return undefined;
    }
  }

  private related(nodeName: string, type: VertexType, a: AuthorizationAttributes): Decision {
    if (!a.name) return noOpinion('No Object name found');
    return this.graph.hasPath(nodeName, type, a.namespace, a.name)
      ? allow() : noOpinion(`no relationship found between node '${nodeName}' and this object`);
  }

  private statusUpdate(nodeName: string, type: VertexType, a: AuthorizationAttributes): Decision {
    if (a.verb !== 'update' && a.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    return this.related(nodeName, type, a);
  }

  private get(nodeName: string, type: VertexType, a: AuthorizationAttributes): Decision {
    if (a.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (a.subresource) return noOpinion('cannot get subresource');
    return this.related(nodeName, type, a);
  }

  private readNamespacedObject(nodeName: string, type: VertexType, a: AuthorizationAttributes): Decision {
    if (a.verb !== 'get' && a.verb !== 'list' && a.verb !== 'watch') return noOpinion('can only read resources of this type');
    if (a.subresource) return noOpinion('cannot read subresource');
    if (!a.namespace) return noOpinion('can only read namespaced object of this type');
    return this.related(nodeName, type, a);
  }

  private createToken(nodeName: string, a: AuthorizationAttributes): Decision {
    if (a.verb !== 'create' || !a.name) return noOpinion('can only create tokens for individual service accounts');
    if (a.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
    return this.graph.hasPath(nodeName, 'serviceaccount', a.namespace, a.name)
      ? allow() : noOpinion(`no relationship found between node '${nodeName}' and this object`);
  }

  private lease(nodeName: string, a: AuthorizationAttributes): Decision {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion('can only get, create, update, patch, or delete a node lease');
    if (a.namespace !== nodeLeaseNamespace) return noOpinion(`can only access leases in the "${nodeLeaseNamespace}" system namespace`);
    // The name of a create is in its body: NodeRestriction checks it.
    if (a.verb !== 'create' && a.name !== nodeName) return noOpinion('can only access node lease with the same name as the requesting node');
    return allow();
  }

  private csiNode(nodeName: string, a: AuthorizationAttributes): Decision {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion('can only get, create, update, patch, or delete a CSINode');
    if (a.subresource) return noOpinion('cannot authorize CSINode subresources');
    if (a.verb !== 'create' && a.name !== nodeName) return noOpinion('can only access CSINode with the same name as the requesting node');
    return allow();
  }

  private node(nodeName: string, a: AuthorizationAttributes): Decision {
    if (!a.subresource) {
      // NodeRestriction limits writes to the node's own object.
      if (a.verb === 'create' || a.verb === 'update' || a.verb === 'patch') return allow();
      if (a.verb === 'get' || a.verb === 'list' || a.verb === 'watch') {
        // By name, not the graph: a kubelet reads its Node before creating it.
        if (a.name === nodeName) return allow();
        return noOpinion(a.name ? `node '${nodeName}' cannot read '${a.name}', only its own Node object` : `node '${nodeName}' cannot read all nodes, only its own Node object`);
      }
    } else if (a.subresource === 'status' && (a.verb === 'update' || a.verb === 'patch')) {
      return allow();
    }
    return noOpinion();
  }

  private pod(nodeName: string, a: AuthorizationAttributes): Decision {
    switch (a.subresource) {
      case '':
        if (a.verb === 'get') return this.get(nodeName, 'pod', a);
        if (a.verb === 'list' || a.verb === 'watch') {
          if (a.fieldSelector && requiresExactFieldMatch(a.fieldSelector, 'spec.nodeName') === nodeName) return allow();
          if (a.name) return this.related(nodeName, 'pod', a);
          return noOpinion('can only list/watch pods with spec.nodeName field selector');
        }
        // Mirror pods; NodeRestriction limits them to the node's own.
        if (a.verb === 'create' || a.verb === 'delete') return allow();
        break;
      case 'status':
        if (a.verb === 'update' || a.verb === 'patch') return allow();
        break;
      case 'eviction':
        if (a.verb === 'create') return allow();
        break;
    }
    return noOpinion();
  }
}
