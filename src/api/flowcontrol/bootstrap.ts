/**
 * The API Priority and Fairness objects kube-apiserver 1.32 creates at start
 * (k8s.io/apiserver pkg/apis/flowcontrol/bootstrap): the mandatory ones
 * (`exempt`, `catch-all`), whose specs validation pins, and the suggested
 * ones. Each carries `apf.kubernetes.io/autoupdate-spec: "true"`, which tells
 * the server it may put the spec back to these values at a later start.
 * Written as upstream's defaulting leaves them, so a defaulted copy equals the
 * original (validation compares the mandatory specs exactly).
 */
import type {
  FlowSchema, NonResourcePolicyRule, PriorityLevelConfiguration, PriorityLevelConfigurationSpec, ResourcePolicyRule, Subject,
} from 'kubernetes-types/flowcontrol/v1.js';

export const autoUpdateAnnotation = 'apf.kubernetes.io/autoupdate-spec';
/** Names with fixed meaning (flowcontrol.FlowSchemaNameExempt ...). */
export const exemptName = 'exempt';
export const catchAllName = 'catch-all';

const meta = (name: string) => ({ name, annotations: { [autoUpdateAnnotation]: 'true' } });

const group = (name: string): Subject => ({ kind: 'Group', group: { name } });
const user = (name: string): Subject => ({ kind: 'User', user: { name } });
const kubeSystemSA = (name: string): Subject => ({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name } });
const everyone = [group('system:unauthenticated'), group('system:authenticated')];

const allResources: ResourcePolicyRule = { verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true };
const allNonResources: NonResourcePolicyRule = { verbs: ['*'], nonResourceURLs: ['*'] };
const getCreateUpdate = (apiGroups: string[], resources: string[], namespaces: string[]): ResourcePolicyRule =>
  ({ verbs: ['get', 'create', 'update'], apiGroups, resources, namespaces });

interface SchemaOptions {
  precedence: number;
  priorityLevel: string;
  /** ByUser or ByNamespace; none for the exempt schemas. */
  distinguisher?: 'ByUser' | 'ByNamespace';
  subjects: Subject[];
  resourceRules?: ResourcePolicyRule[];
  nonResourceRules?: NonResourcePolicyRule[];
}

function flowSchema(name: string, o: SchemaOptions): FlowSchema {
  return {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: meta(name),
    spec: {
      priorityLevelConfiguration: { name: o.priorityLevel }, matchingPrecedence: o.precedence,
      ...(o.distinguisher ? { distinguisherMethod: { type: o.distinguisher } } : {}),
      rules: [{ subjects: o.subjects, ...(o.resourceRules ? { resourceRules: o.resourceRules } : {}), ...(o.nonResourceRules ? { nonResourceRules: o.nonResourceRules } : {}) }],
    },
  };
}

/** A schema that matches its subjects whatever they ask (upstream's NewFSAll). */
const matchAll = (name: string, o: Omit<SchemaOptions, 'resourceRules' | 'nonResourceRules'>) =>
  flowSchema(name, { ...o, resourceRules: [allResources], nonResourceRules: [allNonResources] });

function priorityLevel(name: string, spec: PriorityLevelConfigurationSpec): PriorityLevelConfiguration {
  return { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: meta(name), spec };
}

/** A Limited level that queues: shares, lendable percent, then queues / hand size / queue length. */
const queuing = (name: string, shares: number, lendablePercent: number, queues: number, handSize: number) =>
  priorityLevel(name, {
    type: 'Limited',
    limited: { nominalConcurrencyShares: shares, lendablePercent, limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit: 50 } } },
  });

export function mandatoryPriorityLevels(): PriorityLevelConfiguration[] {
  return [
    priorityLevel(catchAllName, { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } }),
    priorityLevel(exemptName, { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } }),
  ];
}

export function mandatoryFlowSchemas(): FlowSchema[] {
  return [
    matchAll(exemptName, { precedence: 1, priorityLevel: exemptName, subjects: [group('system:masters')] }),
    matchAll(catchAllName, { precedence: 10000, priorityLevel: catchAllName, distinguisher: 'ByUser', subjects: everyone }),
  ];
}

export function suggestedPriorityLevels(): PriorityLevelConfiguration[] {
  return [
    queuing('system', 30, 33, 64, 6),
    queuing('node-high', 40, 25, 64, 6),
    queuing('leader-election', 10, 0, 16, 4),
    queuing('workload-high', 40, 50, 128, 6),
    queuing('workload-low', 100, 90, 128, 6),
    queuing('global-default', 20, 50, 128, 6),
  ];
}

export function suggestedFlowSchemas(): FlowSchema[] {
  const controllers = [user('system:kube-controller-manager'), user('system:kube-scheduler')];
  return [
    matchAll('system-nodes', { precedence: 500, priorityLevel: 'system', distinguisher: 'ByUser', subjects: [group('system:nodes')] }),
    flowSchema('system-node-high', {
      precedence: 400, priorityLevel: 'node-high', distinguisher: 'ByUser', subjects: [group('system:nodes')],
      resourceRules: [
        { verbs: ['*'], apiGroups: [''], resources: ['nodes', 'nodes/status'], namespaces: ['*'], clusterScope: true },
        { verbs: ['*'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: ['*'] },
      ],
    }),
    flowSchema('probes', {
      precedence: 2, priorityLevel: exemptName, subjects: everyone,
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
    }),
    flowSchema('system-leader-election', {
      precedence: 100, priorityLevel: 'leader-election', distinguisher: 'ByUser', subjects: [...controllers, kubeSystemSA('*')],
      resourceRules: [getCreateUpdate(['coordination.k8s.io'], ['leases'], ['*'])],
    }),
    flowSchema('workload-leader-election', {
      precedence: 200, priorityLevel: 'leader-election', distinguisher: 'ByUser', subjects: [kubeSystemSA('*')],
      resourceRules: [getCreateUpdate([''], ['endpoints', 'configmaps'], ['*']), getCreateUpdate(['coordination.k8s.io'], ['leases'], ['*'])],
    }),
    flowSchema('endpoint-controller', {
      precedence: 150, priorityLevel: 'workload-high', distinguisher: 'ByUser',
      subjects: [user('system:kube-controller-manager'), kubeSystemSA('endpoint-controller'), kubeSystemSA('endpointslicemirroring-controller')],
      resourceRules: [getCreateUpdate([''], ['endpoints'], ['*'])],
    }),
    matchAll('kube-controller-manager', { precedence: 800, priorityLevel: 'workload-high', distinguisher: 'ByNamespace', subjects: [controllers[0]] }),
    matchAll('kube-scheduler', { precedence: 800, priorityLevel: 'workload-high', distinguisher: 'ByNamespace', subjects: [controllers[1]] }),
    matchAll('kube-system-service-accounts', { precedence: 900, priorityLevel: 'workload-high', distinguisher: 'ByNamespace', subjects: [kubeSystemSA('*')] }),
    matchAll('service-accounts', { precedence: 9000, priorityLevel: 'workload-low', distinguisher: 'ByUser', subjects: [group('system:serviceaccounts')] }),
    matchAll('global-default', { precedence: 9900, priorityLevel: 'global-default', distinguisher: 'ByUser', subjects: everyone }),
  ];
}
