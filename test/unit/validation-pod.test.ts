import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { applyDefaults } from '../../src/api/defaults/index.js';
import { fieldErrorMessage } from '../../src/api/field-errors.js';
import { validateCreate, validateUpdate } from '../../src/api/validation/index.js';

const basePod = (): any => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }], volumes: [{ name: 'data', emptyDir: {} }] },
});

function create(mutate: (p: any) => void): string[] {
  const pod = basePod();
  mutate(pod);
  applyDefaults('v1/Pod', pod);
  return validateCreate('v1/Pod', pod).map(fieldErrorMessage);
}

const dns1123Label = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

const createCases: [string, (p: any) => void, string[]][] = [
  ['a valid pod', () => {}, []],
  ['no name', (p) => { delete p.metadata.name; }, ['metadata.name: Required value: name or generateName is required']],
  ['containers required', (p) => { p.spec.containers = []; }, ['spec.containers: Required value']],
  ['container name required', (p) => { p.spec.containers[0].name = ''; }, ['spec.containers[0].name: Required value']],
  ['container name format', (p) => { p.spec.containers[0].name = 'App'; }, [`spec.containers[0].name: Invalid value: "App": ${dns1123Label}`]],
  ['duplicate container names', (p) => { p.spec.containers.push({ name: 'app', image: 'x' }); }, ['spec.containers[1].name: Duplicate value: "app"']],
  ['image required', (p) => { delete p.spec.containers[0].image; }, ['spec.containers[0].image: Required value']],
  ['padded image', (p) => { p.spec.containers[0].image = ' nginx'; }, ['spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace']],
  ['containerPort range', (p) => { p.spec.containers[0].ports[0].containerPort = 70000; },
    ['spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive']],
  ['containerPort required', (p) => { p.spec.containers[0].ports[0].containerPort = 0; }, ['spec.containers[0].ports[0].containerPort: Required value']],
  ['port protocol', (p) => { p.spec.containers[0].ports[0].protocol = 'HTTP'; },
    ['spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"']],
  ['hostPort range', (p) => { p.spec.containers[0].ports[0].hostPort = 70000; },
    ['spec.containers[0].ports[0].hostPort: Invalid value: 70000: must be between 1 and 65535, inclusive']],
  ['host port conflict', (p) => {
    p.spec.containers[0].ports[0].hostPort = 8080;
    p.spec.containers.push({ name: 'b', image: 'x', ports: [{ containerPort: 81, hostPort: 8080 }] });
  }, ['spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"']],
  ['hostNetwork needs hostPort == containerPort', (p) => { p.spec.hostNetwork = true; p.spec.containers[0].ports[0].hostPort = 81; },
    ['spec.containers[0].ports[0].hostPort: Invalid value: 81: must match `containerPort` when `hostNetwork` is true']],
  ['requests above limits', (p) => { p.spec.containers[0].resources = { requests: { cpu: '2' }, limits: { cpu: '1' } }; },
    ['spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1']],
  ['bad quantity', (p) => { p.spec.containers[0].resources = { limits: { memory: '1Gb' } }; }, [
    'spec.containers[0].resources.limits[memory]: Invalid value: "1Gb": quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'',
    'spec.containers[0].resources.requests[memory]: Invalid value: "1Gb": quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'',
  ]],
  ['negative quantity', (p) => { p.spec.containers[0].resources = { requests: { cpu: '-1' } }; },
    ['spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0']],
  ['unknown resource name', (p) => { p.spec.containers[0].resources = { requests: { gpu: '1' } }; }, [
    'spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified',
    'spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource for containers',
  ]],
  ['extended resources need equal integer requests and limits', (p) => { p.spec.containers[0].resources = { requests: { 'example.com/gpu': '1' } }; },
    ['spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources']],
  ['restartPolicy enum', (p) => { p.spec.restartPolicy = 'Sometimes'; },
    ['spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"']],
  ['dnsPolicy enum', (p) => { p.spec.dnsPolicy = 'Cluster'; },
    ['spec.dnsPolicy: Unsupported value: "Cluster": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"']],
  ['dnsPolicy None needs dnsConfig', (p) => { p.spec.dnsPolicy = 'None'; }, ['spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None']],
  ['duplicate volume names', (p) => { p.spec.volumes.push({ name: 'data', emptyDir: {} }); }, ['spec.volumes[1].name: Duplicate value: "data"']],
  ['two volume sources', (p) => { p.spec.volumes[0].hostPath = { path: '/x' }; }, ['spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type']],
  ['volume mount not found', (p) => { p.spec.containers[0].volumeMounts = [{ name: 'x', mountPath: '/x' }]; },
    ['spec.containers[0].volumeMounts[0].name: Not found: "x"']],
  ['mount path required and unique', (p) => { p.spec.containers[0].volumeMounts = [{ name: 'data', mountPath: '/d' }, { name: 'data', mountPath: '/d' }]; },
    ['spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/d": must be unique']],
  ['subPath must be relative', (p) => { p.spec.containers[0].volumeMounts = [{ name: 'data', mountPath: '/d', subPath: '../x' }]; },
    ['spec.containers[0].volumeMounts.subPath: Invalid value: "../x": must not contain \'..\'']],
  ['hostPath type', (p) => { p.spec.volumes = [{ name: 'h', hostPath: { path: '/x', type: 'Dir' } }]; },
    ['spec.volumes[0].hostPath.type: Unsupported value: "Dir": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"']],
  ['secret volume needs a name', (p) => { p.spec.volumes = [{ name: 's', secret: {} }]; }, ['spec.volumes[0].secret.secretName: Required value']],
  ['configMap defaultMode range', (p) => { p.spec.volumes = [{ name: 'c', configMap: { name: 'c', defaultMode: 1000 } }]; },
    ['spec.volumes[0].configMap.defaultMode: Invalid value: 1000: must be a number between 0 and 0777 (octal), both inclusive']],
  ['env var name and source', (p) => { p.spec.containers[0].env = [{ name: '' }, { name: 'A', valueFrom: {} }]; }, [
    'spec.containers[0].env[0].name: Required value',
    'spec.containers[0].env[1].valueFrom: Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
  ]],
  ['env fieldRef path', (p) => { p.spec.containers[0].env = [{ name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.labels' } } }]; },
    ['spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "metadata.labels": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"']],
  ['probe needs a handler', (p) => { p.spec.containers[0].livenessProbe = {}; }, ['spec.containers[0].livenessProbe: Required value: must specify a handler type']],
  ['liveness successThreshold', (p) => { p.spec.containers[0].livenessProbe = { exec: { command: ['true'] }, successThreshold: 2 }; },
    ['spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1']],
  ['init container probes', (p) => { p.spec.initContainers = [{ name: 'init', image: 'x', readinessProbe: { exec: { command: ['x'] } } }]; },
    ['spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always']],
  ['toleration Exists with a value', (p) => { p.spec.tolerations = [{ key: 'k', operator: 'Exists', value: 'x' }]; },
    ['spec.tolerations[0].operator: Invalid value: "x": value must be empty when `operator` is \'Exists\'']],
  ['toleration seconds need NoExecute', (p) => { p.spec.tolerations = [{ key: 'k', effect: 'NoSchedule', tolerationSeconds: 5 }]; },
    ['spec.tolerations[0].effect: Invalid value: "NoSchedule": effect must be \'NoExecute\' when `tolerationSeconds` is set']],
  ['toleration effect enum', (p) => { p.spec.tolerations = [{ key: 'k', effect: 'NoRun' }]; },
    ['spec.tolerations[0].effect: Unsupported value: "NoRun": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"']],
  ['toleration empty key needs Exists', (p) => { p.spec.tolerations = [{ operator: 'Equal', value: 'v' }]; },
    ['spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"']],
  ['toleration operator enum', (p) => { p.spec.tolerations = [{ key: 'k', operator: 'In' }]; },
    ['spec.tolerations[0].operator: Unsupported value: "In": supported values: "Equal", "Exists"']],
  ['toleration key', (p) => { p.spec.tolerations = [{ key: 'a/b/c', operator: 'Exists' }]; },
    ["spec.tolerations[0].key: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]],
  ['nodeSelector value', (p) => { p.spec.nodeSelector = { disk: 'ssd fast' }; },
    ["spec.nodeSelector: Invalid value: \"ssd fast\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"]],
  ['node affinity needs terms', (p) => { p.spec.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } }; },
    ['spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term']],
  ['node affinity operator', (p) => {
    p.spec.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'Is' }] }] } } };
  }, ['spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "Is": not a valid selector operator']],
  ['pod anti-affinity topology key', (p) => {
    p.spec.affinity = { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 200, podAffinityTerm: { topologyKey: 'zone' } }] } };
  }, ['spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 200: must be in the range 1-100']],
  ['activeDeadlineSeconds range', (p) => { p.spec.activeDeadlineSeconds = 0; },
    ['spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive']],
  ['ephemeral containers on create', (p) => { p.spec.ephemeralContainers = [{ name: 'debug', image: 'busybox' }]; },
    ['spec.ephemeralContainers: Forbidden: cannot be set on create']],
  ['mirror pods need a node', (p) => { p.metadata.annotations = { 'kubernetes.io/config.mirror': 'abc' }; },
    ['metadata.annotations[kubernetes.io/config.mirror]: Invalid value: "abc": must set spec.nodeName if mirror pod annotation is set']],
  ['security context ids', (p) => { p.spec.securityContext = { runAsUser: -1 }; },
    ['spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 4294967295, inclusive']],
];

for (const [name, mutate, want] of createCases) {
  test(`pod create: ${name}`, () => assert.deepEqual(create(mutate), want));
}

function update(mutate: (p: any) => void, prepare: (p: any) => void = () => {}): string[] {
  const old = basePod();
  prepare(old);
  applyDefaults('v1/Pod', old);
  old.metadata.uid = 'u1';
  old.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
  old.metadata.resourceVersion = '5';
  const next = structuredClone(old);
  mutate(next);
  applyDefaults('v1/Pod', next);
  return validateUpdate('v1/Pod', next, old).map(fieldErrorMessage);
}

const forbiddenPrefix = 'spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n';

const updateCases: [string, (p: any) => void, ((p: any) => void) | undefined, string[]][] = [
  ['no change', () => {}, undefined, []],
  ['image change', (p) => { p.spec.containers[0].image = 'nginx:1.28'; }, undefined, []],
  ['label change', (p) => { p.metadata.labels.tier = 'web'; }, undefined, []],
  ['adding a toleration', (p) => { p.spec.tolerations = [{ key: 'k', operator: 'Exists' }]; }, undefined, []],
  ['changing a toleration', (p) => { p.spec.tolerations = [{ key: 'j', operator: 'Exists' }]; }, (p) => { p.spec.tolerations = [{ key: 'k', operator: 'Exists' }]; },
    ['spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds']],
  ['setting activeDeadlineSeconds', (p) => { p.spec.activeDeadlineSeconds = 30; }, undefined, []],
  ['raising activeDeadlineSeconds', (p) => { p.spec.activeDeadlineSeconds = 60; }, (p) => { p.spec.activeDeadlineSeconds = 30; },
    ['spec.activeDeadlineSeconds: Invalid value: 60: must be less than or equal to previous value']],
  ['adding a container', (p) => { p.spec.containers.push({ name: 'b', image: 'x' }); }, undefined,
    ['spec.containers: Forbidden: pod updates may not add or remove containers']],
  ['removing the mirror annotation', (p) => { delete p.metadata.annotations; }, (p) => { p.metadata.annotations = { 'kubernetes.io/config.mirror': 'h' }; p.spec.nodeName = 'n1'; },
    ['metadata.annotations[kubernetes.io/config.mirror]: Forbidden: may not remove or update mirror pod annotation']],
  ['uid is immutable', (p) => { p.metadata.uid = 'u2'; }, undefined, ['metadata.uid: Invalid value: "u2": field is immutable']],
  ['namespace is immutable', (p) => { p.metadata.namespace = 'other'; }, undefined, ['metadata.namespace: Invalid value: "other": field is immutable']],
];

for (const [name, mutate, prepare, want] of updateCases) {
  test(`pod update: ${name}`, () => assert.deepEqual(update(mutate, prepare), want));
}

test('pod update: other spec fields are forbidden, with upstream words and a diff', () => {
  const errs = update((p) => { p.spec.dnsPolicy = 'Default'; });
  assert.equal(errs.length, 1);
  assert.ok(errs[0].startsWith(forbiddenPrefix), errs[0]);
  assert.match(errs[0], /DnsPolicy: "Default"/);
});

test('validation never throws on odd shapes', () => {
  for (const weird of [null, 42, 'x', [], { spec: 'x' }, { spec: { containers: 'x', volumes: [null, 3] } }, { metadata: { labels: [1] } }]) {
    assert.ok(Array.isArray(validateCreate('v1/Pod', weird)));
    assert.ok(Array.isArray(validateUpdate('v1/Pod', weird, weird)));
  }
});

test('pod update: spec.nodeName cannot be set by an update (only through pods/binding), nor changed', () => {
  const first = update((p) => { p.spec.nodeName = 'node-1'; });
  assert.equal(first.length, 1);
  assert.ok(first[0].startsWith(forbiddenPrefix));
  const errs = update((p) => { p.spec.nodeName = 'node-2'; }, (p) => { p.spec.nodeName = 'node-1'; });
  assert.equal(errs.length, 1);
  assert.ok(errs[0].startsWith(forbiddenPrefix));
});
