/**
 * Upstream's pod spec warnings (pkg/api/pod/warnings.go, v1.32): each kind of
 * doubtful field, its path under a pod or a template, and what is not warned.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PodSpec } from 'kubernetes-types/core/v1.js';
import { podSpecWarnings } from '../../src/api/warnings/pod.js';
import { warningsOnCreate, warningsOnUpdate } from '../../src/api/warnings/index.js';

const c = (extra: object = {}) => ({ name: 'c', image: 'busybox', ...extra });

test('a plain pod has no warnings', () => {
  assert.deepEqual(podSpecWarnings('', { containers: [c({ ports: [{ containerPort: 80 }], env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], resources: { requests: { memory: '64Mi' } } })] }, {}), []);
});

test('deprecated node labels in selectors, affinity and spread; null selectors', () => {
  const spec: PodSpec = {
    containers: [c()],
    affinity: {
      nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [{ key: 'beta.kubernetes.io/arch', operator: 'In', values: ['amd64'] }] } }] },
      podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname' }] },
    },
    topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'failure-domain.beta.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule' }],
  };
  assert.deepEqual(podSpecWarnings('spec.template.', spec, {}), [
    'spec.template.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].key: beta.kubernetes.io/arch is deprecated since v1.14; use "kubernetes.io/arch" instead',
    'spec.template.spec.topologySpreadConstraints[0].topologyKey: failure-domain.beta.kubernetes.io/zone is deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
    'spec.template.spec.topologySpreadConstraints[0].labelSelector: a null labelSelector results in matching no pod',
    'spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector: a null labelSelector results in matching no pod',
  ]);
});

test('volumes: deprecated plugins, an ephemeral claim\'s fractional bytes, paths shared with a token', () => {
  const spec = {
    containers: [c()],
    volumes: [
      { name: 'g', gitRepo: { repository: 'x' } },
      { name: 'e', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1500m' } } } } } },
      { name: 'p', projected: { sources: [{ serviceAccountToken: { path: 'token' } }, { configMap: { name: 'cm', items: [{ key: 'k', path: 'token' }] } }] } },
    ],
  } as PodSpec;
  assert.deepEqual(podSpecWarnings('', spec, {}), [
    'spec.volumes[0].gitRepo: deprecated in v1.11',
    'spec.volumes[1].ephemeral.volumeClaimTemplate.spec.resources.requests[storage]: fractional byte value "1500m" is invalid, must be an integer',
    'spec.volumes[2].projected.sources.configMap[0]: has duplicated path with ServiceAccountToken "token"',
  ]);
});

test('host aliases, pull secrets, overhead, annotations', () => {
  const spec: PodSpec = {
    containers: [c()],
    hostAliases: [{ ip: '10.0.0.1', hostnames: ['a'] }, { ip: '10.0.0.1', hostnames: ['b'] }],
    imagePullSecrets: [{ name: '' }],
    overhead: { memory: '0.5' },
  };
  const annotations = {
    'seccomp.security.alpha.kubernetes.io/pod': 'runtime/default',
    'container.seccomp.security.alpha.kubernetes.io/c': 'runtime/default',
    'container.apparmor.security.beta.kubernetes.io/c': 'runtime/default',
  };
  assert.deepEqual(podSpecWarnings('', spec, { annotations }), [
    'spec.hostAliases[1].ip: duplicate ip "10.0.0.1"',
    'spec.imagePullSecrets[0].name: invalid empty name ""',
    'spec.overhead[memory]: fractional byte value "500m" is invalid, must be an integer',
    'metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]: non-functional in v1.27+; use the "seccompProfile" field instead',
    'metadata.annotations[container.seccomp.security.alpha.kubernetes.io/c]: non-functional in v1.27+; use the "seccompProfile" field instead',
  ], 'a pod\'s own AppArmor annotation is not warned (upstream syncs it to the field)');
  assert.ok(podSpecWarnings('spec.template.', spec, { annotations }).includes(
    'spec.template.metadata.annotations[container.apparmor.security.beta.kubernetes.io/c]: deprecated since v1.30; use the "appArmorProfile" field instead'));
});

test('env: a redefinition warned unless it builds on the one before', () => {
  const env = [{ name: 'A', value: '1' }, { name: 'A', value: '$(A):2' }, { name: 'A', value: '$(A)' }, { name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }];
  assert.deepEqual(podSpecWarnings('', { initContainers: [c({ env })], containers: [c()] }, {}), [
    'spec.initContainers[0].env[2]: hides previous definition of "A", which may be dropped when using apply',
    'spec.initContainers[0].env[3]: hides previous definition of "A", which may be dropped when using apply',
  ]);
});

test('ports across containers: duplicate, overlapping, dangerously ambiguous, hostIP without hostPort', () => {
  const spec: PodSpec = {
    containers: [
      c({ ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP' }, { containerPort: 9000, hostPort: 9000 }] }),
      { name: 'd', image: 'x', ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 53, protocol: 'UDP', hostPort: 53 }, { containerPort: 9000, hostPort: 9000, hostIP: '127.0.0.1' }, { containerPort: 53 }] },
    ],
  };
  assert.deepEqual(podSpecWarnings('', spec, {}), [
    'spec.containers[1].ports[0]: duplicate port definition with spec.containers[0].ports[0]',
    'spec.containers[1].ports[1]: overlapping port definition with spec.containers[0].ports[1]',
    'spec.containers[1].ports[2]: dangerously ambiguous port definition with spec.containers[0].ports[2]',
  ], '53/TCP is not 53/UDP');
  assert.deepEqual(podSpecWarnings('', { containers: [c({ ports: [{ name: 'web', containerPort: 80, hostIP: '1.2.3.4' }] })] }, {}), [
    'spec.containers[0].ports[0]: hostIP set without hostPort: {Name:web HostPort:0 ContainerPort:80 Protocol:TCP HostIP:1.2.3.4}',
  ]);
});

test('by kind: templates at their paths; a workload\'s update only when its generation moved', () => {
  const spec = { containers: [c()], nodeSelector: { 'beta.kubernetes.io/os': 'linux' } };
  const text = (at: string) => [`${at}spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead`];
  assert.deepEqual(warningsOnCreate('v1/Pod', { spec }), text(''));
  assert.deepEqual(warningsOnCreate('apps/v1/StatefulSet', { spec: { template: { spec } } }), text('spec.template.'));
  assert.deepEqual(warningsOnCreate('batch/v1/CronJob', { spec: { jobTemplate: { spec: { template: { spec } } } } }), text('spec.jobTemplate.spec.template.'));
  assert.deepEqual(warningsOnCreate('v1/PodTemplate', { template: { spec } }), text('template.'));
  assert.equal(warningsOnCreate('v1/ConfigMap', {}), undefined);
  const ds = (generation: number) => ({ metadata: { generation }, spec: { template: { spec } } });
  assert.equal(warningsOnUpdate('apps/v1/DaemonSet', ds(1), ds(1)), undefined);
  assert.deepEqual(warningsOnUpdate('apps/v1/DaemonSet', ds(2), ds(1)), text('spec.template.'));
  assert.deepEqual(warningsOnUpdate('v1/Pod', { metadata: { generation: 1 }, spec }, { metadata: { generation: 1 }, spec }), text(''));
});

test('paths are made only for a warning, and each names its member as before: every list of containers, every projection, a template', () => {
  // The expected texts are those the walk gave when it built every path up front (main before alloc15).
  const spec = {
    initContainers: [{ name: 'i', image: 'x', ports: [{ containerPort: 8080 }], resources: { limits: { memory: '1.5', 'ephemeral-storage': '100m' } },
      env: [{ name: 'A', value: '1' }, { name: 'A', value: '2' }] }],
    containers: [
      c({ ports: [{ containerPort: 8080, hostIP: '10.0.0.1' }], resources: { requests: { memory: '0.5', cpu: '0.5' }, limits: { memory: '1Gi' } } }),
      { name: 'd', image: 'busybox' },
    ],
    ephemeralContainers: [{ name: 'e', image: 'x', resources: { requests: { 'ephemeral-storage': '1m' } } }],
    imagePullSecrets: [{ name: 'a' }, { name: '' }, { name: 'a' }],
    overhead: { 'ephemeral-storage': '2.5', memory: '3' },
    volumes: [
      { name: 'p', projected: { sources: [
        { secret: { name: 's', items: [{ key: 'k', path: 'x' }, { key: 'k2', path: 'token' }] } },
        { downwardAPI: { items: [{ path: 'token', fieldRef: { fieldPath: 'metadata.name' } }] } },
        { clusterTrustBundle: { path: 'token', signerName: 'a/b' } },
      ] } },
      { name: 'q', projected: { sources: [{ serviceAccountToken: { path: 'token' } }, { configMap: { name: 'cm', items: [{ key: 'k', path: 'token' }, { key: 'k', path: 'token' }] } }] } },
      { name: 's', storageos: {}, flocker: {} },
    ],
    terminationGracePeriodSeconds: -1,
  } as PodSpec;
  const annotations = { 'container.seccomp.security.alpha.kubernetes.io/e': 'x', 'container.apparmor.security.beta.kubernetes.io/i': 'y' };
  const p = 'spec.template.';
  const expected = [
    `${p}spec.volumes[2].flocker: deprecated in v1.22, non-functional in v1.25+`,
    `${p}spec.volumes[2].storageOS: deprecated in v1.22, non-functional in v1.25+`,
    `${p}spec.volumes[0].projected.sources.secrets[1]: has duplicated path with ServiceAccountToken "token"`,
    `${p}spec.volumes[0].projected.sources.downwardAPI[0]: has duplicated path with ServiceAccountToken "token"`,
    `${p}spec.volumes[0].projected.sources.ClusterTrustBundle: has duplicated path with ServiceAccountToken "token"`,
    `${p}spec.volumes[1].projected.sources.configMap[0]: has duplicated path with ServiceAccountToken "token"`,
    `${p}spec.volumes[1].projected.sources.configMap[1]: has duplicated path with ServiceAccountToken "token"`,
    `${p}spec.imagePullSecrets[2].name: duplicate name "a"`,
    `${p}spec.imagePullSecrets[1].name: invalid empty name ""`,
    `${p}spec.overhead[ephemeral-storage]: fractional byte value "2500m" is invalid, must be an integer`,
    `${p}metadata.annotations[container.apparmor.security.beta.kubernetes.io/i]: deprecated since v1.30; use the "appArmorProfile" field instead`,
    `${p}spec.initContainers[0].resources.limits[memory]: fractional byte value "1500m" is invalid, must be an integer`,
    `${p}spec.initContainers[0].resources.limits[ephemeral-storage]: fractional byte value "100m" is invalid, must be an integer`,
    `${p}spec.initContainers[0].env[1]: hides previous definition of "A", which may be dropped when using apply`,
    `${p}spec.containers[0].resources.requests[memory]: fractional byte value "500m" is invalid, must be an integer`,
    `${p}metadata.annotations[container.seccomp.security.alpha.kubernetes.io/e]: non-functional in v1.27+; use the "seccompProfile" field instead`,
    `${p}spec.ephemeralContainers[0].resources.requests[ephemeral-storage]: fractional byte value "1m" is invalid, must be an integer`,
    `${p}spec.containers[0].ports[0]: hostIP set without hostPort: {Name: HostPort:0 ContainerPort:8080 Protocol:TCP HostIP:10.0.0.1}`,
    `${p}spec.containers[0].ports[0]: overlapping port definition with ${p}spec.initContainers[0].ports[0]`,
    `${p}spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1`,
  ];
  assert.deepEqual(podSpecWarnings(p, spec, { annotations }), expected);
  // A pod's own: no AppArmor annotation warning (synced to the field), the rest at the pod's paths.
  assert.deepEqual(podSpecWarnings('', spec, { annotations }), expected.filter((w) => !w.includes('apparmor')).map((w) => w.replaceAll(p, '')));
  assert.deepEqual(podSpecWarnings('', { containers: [c({ ports: [{ containerPort: 80, hostIP: '1.2.3.4' }] })], volumes: [{ name: 'v', projected: { sources: [] } }] }, {}),
    ['spec.containers[0].ports[0]: hostIP set without hostPort: {Name: HostPort:0 ContainerPort:80 Protocol:TCP HostIP:1.2.3.4}'], 'a single port is still checked for its hostIP');
});
