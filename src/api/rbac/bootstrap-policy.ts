/**
 * The default ClusterRoles and ClusterRoleBindings kube-apiserver creates at
 * startup (upstream plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go
 * and controller_policy.go), the part of them a k8ts cluster uses: the
 * user-facing roles (cluster-admin; admin, edit and view aggregated from the
 * `system:aggregate-to-*` roles through their labels) and the discovery
 * roles every user is bound to, and the roles of the controller manager and
 * the scheduler bound to their users. Each carries upstream's
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

const named = (verbs: string[], apiGroups: string[], resources: string[], resourceNames: string[]): PolicyRule => ({ apiGroups, resources, verbs, resourceNames });
const eventsRule = rule(['create', 'update', 'patch'], ['', 'events.k8s.io'], ['events']);

/** Upstream's system:kube-scheduler role (policy.go), with get/update on the Lease the scheduler elects its leader on. */
const schedulerRules: PolicyRule[] = [
  eventsRule,
  rule(['create'], ['coordination.k8s.io'], ['leases']),
  named(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-scheduler']),
  rule(['create'], [''], ['endpoints']),
  named(['get', 'update'], [''], ['endpoints'], ['kube-scheduler']),
  rule(read, [''], ['nodes']),
  rule(['get', 'list', 'watch', 'delete'], [''], ['pods']),
  rule(['create'], [''], ['pods/binding', 'bindings']),
  rule(['patch', 'update'], [''], ['pods/status']),
  rule(read, [''], ['services', 'replicationcontrollers']),
  rule(read, ['apps', 'extensions'], ['replicasets']),
  rule(read, ['apps'], ['statefulsets']),
  rule(read, ['policy'], ['poddisruptionbudgets']),
  rule(read, [''], ['persistentvolumeclaims', 'persistentvolumes']),
  rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
  rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
  rule(read, ['storage.k8s.io'], ['csinodes']),
  rule(read, [''], ['namespaces']),
  rule(read, ['storage.k8s.io'], ['csidrivers']),
  rule(read, ['storage.k8s.io'], ['csistoragecapacities']),
];

/** Upstream's system:volume-scheduler role, bound to the scheduler too. */
const volumeSchedulerRules: PolicyRule[] = [
  rule(['get', 'list', 'patch', 'update', 'watch'], [''], ['persistentvolumes']),
  rule(read, ['storage.k8s.io'], ['storageclasses']),
  rule(['get', 'list', 'patch', 'update', 'watch'], [''], ['persistentvolumeclaims']),
];

/**
 * Upstream's system:kube-controller-manager role (policy.go) followed by what
 * k8ts's controllers do under that one identity. Upstream runs each controller
 * as its own service account (--use-service-account-credentials, the
 * system:controller:* roles); until k8ts does, the component role carries the
 * union of those roles for the controllers k8ts runs: the garbage collector
 * and namespace controller read, patch and delete everything, the workload
 * controllers create pods and their own objects, clusterrole-aggregation
 * escalates.
 */
const controllerManagerRules: PolicyRule[] = [
  eventsRule,
  rule(['create'], ['coordination.k8s.io'], ['leases']),
  named(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-controller-manager']),
  rule(['create'], [''], ['endpoints']),
  named(['get', 'update'], [''], ['endpoints'], ['kube-controller-manager']),
  rule(['create'], [''], ['secrets', 'serviceaccounts']),
  rule(['delete'], [''], ['secrets']),
  rule(['get'], [''], ['namespaces', 'secrets', 'serviceaccounts', 'configmaps']),
  rule(['update'], [''], ['secrets', 'serviceaccounts']),
  rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
  rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
  rule(['list', 'watch'], ['*'], ['*']),
  rule(['create'], [''], ['serviceaccounts/token']),
  // k8ts: the system:controller:* roles of the controllers it runs, folded in.
  rule(['get', 'list', 'watch', 'patch', 'update', 'delete', 'deletecollection'], ['*'], ['*']),
  rule(['create'], [''], ['pods', 'pods/eviction', 'configmaps', 'endpoints', 'persistentvolumes', 'persistentvolumeclaims']),
  rule(['create'], ['apps'], ['replicasets', 'controllerrevisions']),
  rule(['create'], ['batch'], ['jobs']),
  rule(['create'], ['discovery.k8s.io'], ['endpointslices']),
  rule(['create'], ['storage.k8s.io'], ['storageclasses']),
  rule(['escalate'], ['rbac.authorization.k8s.io'], ['clusterroles']),
  rule(['approve'], ['certificates.k8s.io'], ['signers']),
  rule(['sign'], ['certificates.k8s.io'], ['signers']),
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
    role('system:kube-scheduler', schedulerRules),
    role('system:volume-scheduler', volumeSchedulerRules),
    role('system:kube-controller-manager', controllerManagerRules),
    // Nodes are authorized by the Node authorizer with these same rules; the role is there to bind to other kubelets.
    role('system:node', nodeRules()),
    // Full access to the kubelet API (upstream's policy.go); bound to no one by default, kubeadm binds its apiserver-kubelet-client user.
    role('system:kubelet-api-admin', [
      rule(read, [''], ['nodes']),
      rule(['proxy'], [''], ['nodes']),
      rule(['*'], [''], ['nodes/proxy', 'nodes/metrics', 'nodes/spec', 'nodes/stats', 'nodes/log']),
    ]),
    // kube-proxy's access (upstream's policy.go): its Service and EndpointSlice informers, its own Node, its events.
    role('system:node-proxier', [
      rule(['list', 'watch'], [''], ['services', 'endpoints']),
      rule(['get', 'list', 'watch'], [''], ['nodes']),
      eventsRule,
      rule(['list', 'watch'], ['discovery.k8s.io'], ['endpointslices']),
    ]),
    // TLS bootstrap (upstream's bootstrap policy): what a bootstrap token may do, and the two CSR kinds csrapproving approves.
    role('system:node-bootstrapper', [rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests'])]),
    role('system:certificates.k8s.io:certificatesigningrequests:nodeclient', [rule(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/nodeclient'])]),
    role('system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [rule(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/selfnodeclient'])]),
    aggregated('admin', aggregateToAdmin),
    aggregated('edit', aggregateToEdit, { [aggregateToAdmin]: 'true' }),
    aggregated('view', aggregateToView, { [aggregateToEdit]: 'true' }),
    role('system:aggregate-to-admin', adminRules, { [aggregateToAdmin]: 'true' }),
    role('system:aggregate-to-edit', editRules, { [aggregateToEdit]: 'true' }),
    role('system:aggregate-to-view', viewRules, { [aggregateToView]: 'true' }),
    // metrics.k8s.io is served by the API server here (metrics-server's role): its manifest's
    // reader role, aggregated into view, edit and admin.
    role('system:aggregated-metrics-reader', [rule(read, ['metrics.k8s.io'], ['pods', 'nodes'])],
      { [aggregateToView]: 'true', [aggregateToEdit]: 'true', [aggregateToAdmin]: 'true' }),
  ];
}

const binding = (name: string, roleName: string, names: string[], kind: 'Group' | 'User' = 'Group'): ClusterRoleBinding => ({
  apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: bootstrapMeta(name),
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
  subjects: names.map((n) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name: n })),
});

export const CONTROLLER_MANAGER_USER = 'system:kube-controller-manager';
export const SCHEDULER_USER = 'system:kube-scheduler';

export function bootstrapClusterRoleBindings(): ClusterRoleBinding[] {
  return [
    binding('cluster-admin', 'cluster-admin', ['system:masters']),
    binding('system:discovery', 'system:discovery', ['system:authenticated']),
    binding('system:basic-user', 'system:basic-user', ['system:authenticated']),
    binding('system:public-info-viewer', 'system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']),
    binding('system:kube-controller-manager', 'system:kube-controller-manager', [CONTROLLER_MANAGER_USER], 'User'),
    binding('system:kube-scheduler', 'system:kube-scheduler', [SCHEDULER_USER], 'User'),
    binding('system:volume-scheduler', 'system:volume-scheduler', [SCHEDULER_USER], 'User'),
    binding('system:node-proxier', 'system:node-proxier', ['system:kube-proxy'], 'User'),
    // Bound to no one: system:nodes is served by the Node authorizer (upstream since 1.8).
    { ...binding('system:node', 'system:node', []), subjects: undefined },
  ];
}
