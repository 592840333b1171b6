import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { applyDefaults } from '../../src/api/defaults/index.js';
import { fieldErrorMessage } from '../../src/api/field-errors.js';
import { validateCreate, validateUpdate } from '../../src/api/validation/index.js';

const template = () => ({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } });
const bases: Record<string, () => any> = {
  'apps/v1/DaemonSet': () => ({ metadata: { name: 'ds', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web' } }, template: template() } }),
  'apps/v1/StatefulSet': () => ({ metadata: { name: 'web', namespace: 'default' }, spec: { serviceName: 'web', selector: { matchLabels: { app: 'web' } }, template: template() } }),
  'apps/v1/Deployment': () => ({ metadata: { name: 'web', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web' } }, template: template() } }),
  'apps/v1/ReplicaSet': () => ({ metadata: { name: 'web', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web' } }, template: template() } }),
};

function create(key: string, mutate: (o: any) => void): string[] {
  const o = bases[key]();
  mutate(o);
  applyDefaults(key, o);
  return validateCreate(key, o).map(fieldErrorMessage);
}

function update(key: string, mutate: (o: any) => void): string[] {
  const old = bases[key]();
  applyDefaults(key, old);
  Object.assign(old.metadata, { uid: 'u', resourceVersion: '1', creationTimestamp: '2024-01-01T00:00:00Z', generation: 1 });
  const next = structuredClone(old);
  mutate(next);
  applyDefaults(key, next);
  return validateUpdate(key, next, old).map(fieldErrorMessage);
}

const mismatch = (labels: string) => `spec.template.metadata.labels: Invalid value: ${labels}: \`selector\` does not match template \`labels\``;
const immutableSelector = 'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "tier":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable';

type Case = [string, (o: any) => void, string[]];

const daemonSetCases: Case[] = [
  ['valid', () => {}, []],
  ['no selector matches nothing', (o) => { delete o.spec.selector; }, [mismatch('map[string]string{"app":"web"}')]],
  ['selector must match template labels', (o) => { o.spec.template.metadata.labels = { app: 'api' }; }, [mismatch('map[string]string{"app":"api"}')]],
  ['empty selector', (o) => { o.spec.selector = {}; }, ['spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for daemonset']],
  ['restartPolicy must be Always', (o) => { o.spec.template.spec.restartPolicy = 'Never'; },
    ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"']],
  ['template containers required', (o) => { o.spec.template.spec.containers = []; }, ['spec.template.spec.containers: Required value']],
  ['template labels are checked at template.labels', (o) => { o.spec.template.metadata.labels = { app: 'web', '-x': 'y' }; o.spec.selector.matchLabels = { app: 'web' }; },
    ["spec.template.labels: Invalid value: \"-x\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"]],
  ['update strategy enum', (o) => { o.spec.updateStrategy = { type: 'Rolling' }; },
    ['spec.updateStrategy: Unsupported value: apps.DaemonSetUpdateStrategy{Type:"Rolling", RollingUpdate:(*apps.RollingUpdateDaemonSet)(nil)}: supported values: "RollingUpdate", "OnDelete"']],
  ['maxUnavailable and maxSurge both zero', (o) => { o.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } }; },
    ['spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0']],
  ['maxUnavailable and maxSurge both set', (o) => { o.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: '10%' } }; },
    ['spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"10%"}: may not be set when maxUnavailable is non-zero']],
  ['bad percent', (o) => { o.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10' } }; },
    ["spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"10\"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"]],
  ['over 100%', (o) => { o.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '150%' } }; },
    ['spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%']],
  ['negative minReadySeconds', (o) => { o.spec.minReadySeconds = -1; }, ['spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0']],
  ['negative revisionHistoryLimit', (o) => { o.spec.revisionHistoryLimit = -1; }, ['spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0']],
  ['activeDeadlineSeconds', (o) => { o.spec.template.spec.activeDeadlineSeconds = 5; },
    ['spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in DaemonSet is not Supported']],
];

const statefulSetCases: Case[] = [
  ['valid', () => {}, []],
  ['podManagementPolicy', (o) => { o.spec.podManagementPolicy = 'X'; }, ["spec.podManagementPolicy: Invalid value: \"X\": must be 'OrderedReady' or 'Parallel'"]],
  ['selector required', (o) => { delete o.spec.selector; }, ['spec.selector: Required value', mismatch('map[string]string{"app":"web"}')]],
  ['negative replicas', (o) => { o.spec.replicas = -1; }, ['spec.replicas: Invalid value: -1: must be greater than or equal to 0']],
  ['negative partition', (o) => { o.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: -1 } }; },
    ['spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0']],
  ['update strategy enum', (o) => { o.spec.updateStrategy = { type: 'Rolling' }; },
    ["spec.updateStrategy: Invalid value: apps.StatefulSetUpdateStrategy{Type:\"Rolling\", RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)(nil)}: must be 'RollingUpdate' or 'OnDelete'"]],
  ['retention policy', (o) => { o.spec.persistentVolumeClaimRetentionPolicy = { whenDeleted: 'Keep' }; },
    ['spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": supported values: "Retain", "Delete"']],
  ['pod spec is not validated (mounts may name claim templates)', (o) => {
    o.spec.template.spec.containers[0].volumeMounts = [{ name: 'www', mountPath: '/www' }];
    o.spec.volumeClaimTemplates = [{ metadata: { name: 'www' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }];
  }, []],
  ['restartPolicy', (o) => { o.spec.template.spec.restartPolicy = 'OnFailure'; },
    ['spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"']],
  ['name must be a DNS label', (o) => { o.metadata.name = 'web.v1'; }, ['metadata.name: Invalid value: "web.v1": must not contain dots']],
];

const deploymentCases: Case[] = [
  ['valid', () => {}, []],
  ['selector required', (o) => { delete o.spec.selector; }, ['spec.selector: Required value', mismatch('map[string]string{"app":"web"}')]],
  ['empty selector', (o) => { o.spec.selector = { matchLabels: {} }; },
    ['spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment']],
  ['bad selector operator', (o) => { o.spec.selector = { matchExpressions: [{ key: 'app', operator: 'Is', values: ['web'] }] }; }, [
    'spec.selector.matchExpressions[0].operator: Invalid value: "Is": not a valid selector operator',
    'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"app", Operator:"Is", Values:[]string{"web"}}}}: invalid label selector',
  ]],
  ['both zero', (o) => { o.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } }; },
    ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0']],
  ['Recreate with rollingUpdate', (o) => { o.spec.strategy = { type: 'Recreate', rollingUpdate: {} }; },
    ["spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"]],
  ['progress deadline', (o) => { o.spec.minReadySeconds = 700; }, ['spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds']],
  ['restartPolicy', (o) => { o.spec.template.spec.restartPolicy = 'Never'; }, ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"']],
];

const replicaSetCases: Case[] = [
  ['valid', () => {}, []],
  ['negative replicas', (o) => { o.spec.replicas = -2; }, ['spec.replicas: Invalid value: -2: must be greater than or equal to 0']],
  ['labels mismatch', (o) => { o.spec.template.metadata.labels = {}; }, [mismatch('map[string]string{}')]],
  ['activeDeadlineSeconds', (o) => { o.spec.template.spec.activeDeadlineSeconds = 1; },
    ['spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported']],
];

const suites: [string, Case[]][] = [
  ['apps/v1/DaemonSet', daemonSetCases], ['apps/v1/StatefulSet', statefulSetCases],
  ['apps/v1/Deployment', deploymentCases], ['apps/v1/ReplicaSet', replicaSetCases],
];
for (const [key, cases] of suites) {
  for (const [name, mutate, want] of cases) test(`${key} create: ${name}`, () => assert.deepEqual(create(key, mutate), want));
}

const changeSelector = (o: any) => { o.spec.selector.matchLabels.tier = 'x'; o.spec.template.metadata.labels.tier = 'x'; };
const updateCases: [string, string, (o: any) => void, string[]][] = [
  ['apps/v1/DaemonSet', 'template change', (o) => { o.spec.template.spec.containers[0].image = 'nginx:2'; }, []],
  ['apps/v1/DaemonSet', 'selector is immutable', changeSelector, [immutableSelector]],
  ['apps/v1/Deployment', 'selector is immutable', changeSelector, [immutableSelector]],
  ['apps/v1/ReplicaSet', 'selector is immutable', changeSelector, [immutableSelector]],
  ['apps/v1/Deployment', 'scaling', (o) => { o.spec.replicas = 5; }, []],
  ['apps/v1/StatefulSet', 'scaling and template', (o) => { o.spec.replicas = 3; o.spec.template.spec.containers[0].image = 'x'; o.spec.minReadySeconds = 3; }, []],
  ['apps/v1/StatefulSet', 'revisionHistoryLimit and retention may change', (o) => {
    o.spec.revisionHistoryLimit = 3; o.spec.persistentVolumeClaimRetentionPolicy.whenDeleted = 'Delete';
  }, []],
  ['apps/v1/StatefulSet', 'serviceName is immutable', (o) => { o.spec.serviceName = 'other'; },
    ["spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"]],
  ['apps/v1/StatefulSet', 'selector is immutable', changeSelector,
    ["spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"]],
  ['apps/v1/StatefulSet', 'claim templates are immutable', (o) => {
    o.spec.volumeClaimTemplates = [{ metadata: { name: 'www' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }];
  }, ["spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"]],
];
for (const [key, name, mutate, want] of updateCases) test(`${key} update: ${name}`, () => assert.deepEqual(update(key, mutate), want));
