/**
 * What every node may do, upstream's bootstrappolicy.NodeRules() (v1.32,
 * features at their defaults): the Node authorizer evaluates them itself for
 * the resources it does not subdivide, and they are the rules of the
 * system:node ClusterRole. NodeRestriction admission and the authorizer's
 * graph narrow them to the node's own objects.
 */
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';

const read = ['get', 'list', 'watch'];
const rule = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({ apiGroups, resources, verbs });

export function nodeRules(): PolicyRule[] {
  return [
    // Checks of API access; these creates do not mutate anything.
    rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
    rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews', 'localsubjectaccessreviews']),
    // Service environment variables of pods.
    rule(read, [''], ['services']),
    // Registering the Node and reporting its status (NodeRestriction: its own only).
    rule(['create', 'get', 'list', 'watch'], [''], ['nodes']),
    rule(['update', 'patch'], [''], ['nodes/status']),
    rule(['update', 'patch'], [''], ['nodes']),
    rule(['create', 'update', 'patch'], [''], ['events']),
    rule(read, [''], ['pods']),
    // Mirror pods, status of its pods, evictions (NodeRestriction: bound to itself).
    rule(['create', 'delete'], [''], ['pods']),
    rule(['update', 'patch'], [''], ['pods/status']),
    rule(['create'], [''], ['pods/eviction']),
    // The graph narrows these to what its pods use.
    rule(['get', 'list', 'watch'], [''], ['secrets', 'configmaps']),
    rule(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
    rule(['get'], [''], ['endpoints']),
    // Client certificate rotation.
    rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
    rule(['get', 'create', 'update', 'patch', 'delete'], ['coordination.k8s.io'], ['leases']),
    rule(['get'], ['storage.k8s.io'], ['volumeattachments']),
    rule(['get', 'update', 'patch'], [''], ['persistentvolumeclaims/status']),
    rule(['create'], [''], ['serviceaccounts/token']),
    rule(['get', 'watch', 'list'], ['storage.k8s.io'], ['csidrivers']),
    rule(['get', 'create', 'update', 'patch', 'delete'], ['storage.k8s.io'], ['csinodes']),
    rule(['get', 'list', 'watch'], ['node.k8s.io'], ['runtimeclasses']),
  ];
}
