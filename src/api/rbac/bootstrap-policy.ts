/**
 * The default ClusterRoles and ClusterRoleBindings kube-apiserver creates at
 * startup (upstream plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go
 * and controller_policy.go), the part of them a k8ts cluster uses: the
 * user-facing roles (cluster-admin; admin, edit and view aggregated from the
 * `system:aggregate-to-*` roles through their labels) and the discovery
 * roles every user is bound to. Each carries upstream's
 * `kubernetes.io/bootstrapping: rbac-defaults` label and autoupdate annotation.
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule } from 'kubernetes-types/rbac/v1.js';
import { nodeRules } from './node-rules.js';

export const aggregateToAdmin = 'rbac.authorization.k8s.io/aggregate-to-admin';
export const aggregateToEdit = 'rbac.authorization.k8s.io/aggregate-to-edit';
export const aggregateToView = 'rbac.authorization.k8s.io/aggregate-to-view';

const read = ['get', 'list', 'watch'];
const write = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const rule = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({ apiGroups, resources, verbs });
const urls = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ nonResourceURLs, verbs });

const bootstrapMeta = (name: string, labels: Record<string, string> = {}) => ({
  name,
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults', ...labels },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
});

const aggregated = (name: string, selectorLabel: string, labels: Record<string, string> = {}): ClusterRole => ({
  apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: bootstrapMeta(name, labels),
  aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [selectorLabel]: 'true' } }] },
});

const role = (name: string, rules: PolicyRule[], labels: Record<string, string> = {}): ClusterRole => ({
  apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: bootstrapMeta(name, labels), rules,
});

const viewRules: PolicyRule[] = [
  rule(read, [''], ['pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status',
    'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps']),
  rule(read, [''], ['limitranges', 'resourcequotas', 'bindings', 'events', 'pods/status', 'resourcequotas/status', 'namespaces/status',
    'replicationcontrollers/status', 'pods/log']),
  rule(read, [''], ['namespaces']),
  rule(read, ['discovery.k8s.io'], ['endpointslices']),
  rule(read, ['apps'], ['controllerrevisions', 'statefulsets', 'statefulsets/status', 'statefulsets/scale', 'daemonsets', 'daemonsets/status',
    'deployments', 'deployments/status', 'deployments/scale', 'replicasets', 'replicasets/status', 'replicasets/scale']),
  rule(read, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
  rule(read, ['batch'], ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
  rule(read, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
  rule(read, ['networking.k8s.io'], ['networkpolicies', 'ingresses', 'ingresses/status']),
];

const editRules: PolicyRule[] = [
  rule(read, [''], ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
  rule(['impersonate'], [''], ['serviceaccounts']),
  rule(write, [''], ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
  rule(['create'], [''], ['pods/eviction']),
  rule(write, [''], ['replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/proxy', 'persistentvolumeclaims',
    'configmaps', 'secrets', 'events']),
  rule(['create'], [''], ['serviceaccounts/token']),
  rule(write, ['apps'], ['statefulsets', 'statefulsets/scale', 'daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback',
    'replicasets', 'replicasets/scale']),
  rule(write, ['autoscaling'], ['horizontalpodautoscalers']),
  rule(write, ['batch'], ['jobs', 'cronjobs']),
  rule(write, ['policy'], ['poddisruptionbudgets']),
  rule(write, ['networking.k8s.io'], ['networkpolicies', 'ingresses']),
  rule(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], ['coordination.k8s.io'], ['leases']),
];

const adminRules: PolicyRule[] = [
  rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']),
  rule([...read, ...write], ['rbac.authorization.k8s.io'], ['roles', 'rolebindings']),
];

export function bootstrapClusterRoles(): ClusterRole[] {
  return [
    role('cluster-admin', [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])]),
    role('system:discovery', [urls(['get'], ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'])]),
    role('system:basic-user', [
      rule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
      rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
    ]),
    role('system:public-info-viewer', [urls(['get'], ['/healthz', '/livez', '/readyz', '/version', '/version/'])]),
    // Nodes are authorized by the Node authorizer with these same rules; the role is there to bind to other kubelets.
    role('system:node', nodeRules()),
    aggregated('admin', aggregateToAdmin),
    aggregated('edit', aggregateToEdit, { [aggregateToAdmin]: 'true' }),
    aggregated('view', aggregateToView, { [aggregateToEdit]: 'true' }),
    role('system:aggregate-to-admin', adminRules, { [aggregateToAdmin]: 'true' }),
    role('system:aggregate-to-edit', editRules, { [aggregateToEdit]: 'true' }),
    role('system:aggregate-to-view', viewRules, { [aggregateToView]: 'true' }),
  ];
}

const binding = (name: string, roleName: string, groups: string[]): ClusterRoleBinding => ({
  apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: bootstrapMeta(name),
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
  subjects: groups.map((g) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: g })),
});

export function bootstrapClusterRoleBindings(): ClusterRoleBinding[] {
  return [
    binding('cluster-admin', 'cluster-admin', ['system:masters']),
    binding('system:discovery', 'system:discovery', ['system:authenticated']),
    binding('system:basic-user', 'system:basic-user', ['system:authenticated']),
    binding('system:public-info-viewer', 'system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']),
    // Bound to no one: system:nodes is served by the Node authorizer (upstream since 1.8).
    { ...binding('system:node', 'system:node', []), subjects: undefined },
  ];
}
