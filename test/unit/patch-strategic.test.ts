/**
 * Strategic merge patch on the served kinds: the shapes kubectl 1.32 sends
 * (apply's 3-way patches, rollout undo, taint, cordon, set image/env, rollout
 * restart) and the directive semantics of apimachinery's strategicpatch.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PatchError, applyPatch, strategicMergePatch, supportsStrategicMerge, toStatusError } from '../../src/api/patch/index.js';
import type { PatchSchema } from '../../src/api/patch/index.js';
import { StatusError } from '../../src/api/status.js';

const DS = 'apps/v1/DaemonSet';

function daemonSet(spec: Record<string, unknown> = {}, containers?: unknown[]): any {
  return {
    apiVersion: 'apps/v1', kind: 'DaemonSet',
    metadata: { name: 'ds', namespace: 'default', labels: { app: 'web', tier: 'fe' }, uid: 'u1' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: containers ?? [
            { name: 'app', image: 'nginx:1.26', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], ports: [{ containerPort: 80, protocol: 'TCP' }] },
            { name: 'sidecar', image: 'busybox', command: ['sleep', '1d'] },
          ],
          volumes: [{ name: 'data', hostPath: { path: '/data', type: 'DirectoryOrCreate' } }],
          tolerations: [{ key: 'a', operator: 'Exists' }],
        },
      },
      ...spec,
    },
  };
}

const podSpec = (o: any) => o.spec.template.spec;
const names = (list: any[]) => list.map((x) => x.name);

interface Case { name: string; key?: string; original: any; patch: unknown; check: (result: any) => void }

const cases: Case[] = [
  {
    name: 'kubectl apply: image change with $setElementOrder/containers',
    original: daemonSet(),
    patch: { metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}\n' } },
      spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }], containers: [{ image: 'nginx:1.27', name: 'app' }] } } } },
    check: (r) => {
      assert.deepEqual(names(podSpec(r).containers), ['app', 'sidecar']);
      assert.equal(podSpec(r).containers[0].image, 'nginx:1.27');
      assert.deepEqual(podSpec(r).containers[0].env, [{ name: 'A', value: '1' }, { name: 'B', value: '2' }]);
      assert.equal(r.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'], '{}\n');
      assert.deepEqual(r.metadata.labels, { app: 'web', tier: 'fe' });
    },
  },
  {
    name: 'kubectl apply: a new container goes where $setElementOrder puts it',
    original: daemonSet(),
    patch: { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'init' }, { name: 'app' }, { name: 'sidecar' }], containers: [{ image: 'alpine', name: 'init' }] } } } },
    check: (r) => assert.deepEqual(names(podSpec(r).containers), ['init', 'app', 'sidecar']),
  },
  {
    name: 'kubectl apply: a removed container is a $patch: delete item',
    original: daemonSet(),
    patch: { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'app' }], containers: [{ $patch: 'delete', name: 'sidecar' }] } } } },
    check: (r) => assert.deepEqual(names(podSpec(r).containers), ['app']),
  },
  {
    name: 'kubectl apply: reordering only sends $setElementOrder',
    original: daemonSet(),
    patch: { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }] } } } },
    check: (r) => {
      assert.deepEqual(names(podSpec(r).containers), ['sidecar', 'app']);
      assert.equal(podSpec(r).containers[1].image, 'nginx:1.26');
    },
  },
  {
    name: 'kubectl apply: nested env change with $setElementOrder/env',
    original: daemonSet(),
    patch: { spec: { template: { spec: {
      '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }],
      containers: [{ '$setElementOrder/env': [{ name: 'B' }, { name: 'C' }], env: [{ name: 'C', value: '3' }, { $patch: 'delete', name: 'A' }], name: 'app' }],
    } } } },
    check: (r) => assert.deepEqual(podSpec(r).containers[0].env, [{ name: 'B', value: '2' }, { name: 'C', value: '3' }]),
  },
  {
    name: 'kubectl apply: a field removed from the manifest is null',
    original: daemonSet(),
    patch: { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }], containers: [{ command: null, name: 'sidecar' }] } } } },
    check: (r) => assert.deepEqual(podSpec(r).containers[1], { name: 'sidecar', image: 'busybox' }),
  },
  {
    name: 'kubectl apply: volume source switch with $retainKeys drops the old source',
    original: daemonSet(),
    patch: { spec: { template: { spec: { '$setElementOrder/volumes': [{ name: 'data' }], volumes: [{ $retainKeys: ['configMap', 'name'], configMap: { name: 'cm' }, name: 'data' }] } } } },
    check: (r) => assert.deepEqual(podSpec(r).volumes, [{ name: 'data', configMap: { name: 'cm' } }]),
  },
  {
    name: 'kubectl apply: Deployment strategy to Recreate with $retainKeys',
    key: 'apps/v1/Deployment',
    original: { kind: 'Deployment', spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } }, replicas: 3 } },
    patch: { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: null, type: 'Recreate' } } },
    check: (r) => assert.deepEqual(r.spec, { strategy: { type: 'Recreate' }, replicas: 3 }),
  },
  {
    name: 'kubectl rollout undo: ControllerRevision data replaces the template wholesale',
    original: daemonSet(),
    patch: { spec: { template: { $patch: 'replace', metadata: { creationTimestamp: null, labels: { app: 'web', rev: '1' } },
      spec: { containers: [{ image: 'nginx:1.25', imagePullPolicy: 'IfNotPresent', name: 'app' }], restartPolicy: 'Always' } } } },
    check: (r) => {
      assert.deepEqual(r.spec.template, {
        metadata: { labels: { app: 'web', rev: '1' } },
        spec: { containers: [{ image: 'nginx:1.25', imagePullPolicy: 'IfNotPresent', name: 'app' }], restartPolicy: 'Always' },
      });
      assert.deepEqual(r.spec.selector, { matchLabels: { app: 'web' } });
    },
  },
  {
    name: 'kubectl rollout undo: StatefulSet revision data likewise',
    key: 'apps/v1/StatefulSet',
    original: { kind: 'StatefulSet', spec: { replicas: 2, serviceName: 's', template: { spec: { containers: [{ name: 'a', image: 'x:2' }, { name: 'b', image: 'y' }] } } } },
    patch: { spec: { template: { $patch: 'replace', spec: { containers: [{ name: 'a', image: 'x:1' }] } } } },
    check: (r) => assert.deepEqual(r.spec, { replicas: 2, serviceName: 's', template: { spec: { containers: [{ name: 'a', image: 'x:1' }] } } }),
  },
  {
    name: 'kubectl rollout restart: template annotation merges in',
    original: daemonSet(),
    patch: { spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': '2024-12-01T10:00:00Z' } } } } },
    check: (r) => assert.deepEqual(r.spec.template.metadata, { labels: { app: 'web' }, annotations: { 'kubectl.kubernetes.io/restartedAt': '2024-12-01T10:00:00Z' } }),
  },
  {
    name: 'kubectl set image: a container item merges by name',
    original: daemonSet(),
    patch: { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }], containers: [{ image: 'busybox:1.36', name: 'sidecar' }] } } } },
    check: (r) => {
      assert.deepEqual(names(podSpec(r).containers), ['app', 'sidecar']);
      assert.deepEqual(podSpec(r).containers[1], { name: 'sidecar', image: 'busybox:1.36', command: ['sleep', '1d'] });
    },
  },
  {
    name: 'kubectl set env: a new variable is appended as $setElementOrder/env says',
    original: daemonSet(),
    patch: { spec: { template: { spec: {
      '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }],
      containers: [{ '$setElementOrder/env': [{ name: 'A' }, { name: 'B' }, { name: 'FOO' }], env: [{ name: 'FOO', value: 'bar' }], name: 'app' }],
    } } } },
    check: (r) => assert.deepEqual(names(podSpec(r).containers[0].env), ['A', 'B', 'FOO']),
  },
  {
    name: 'a bare SMP (no $setElementOrder) puts new list items first, as upstream does',
    original: daemonSet(),
    patch: { spec: { template: { spec: { containers: [{ env: [{ name: 'FOO', value: 'bar' }], name: 'app' }] } } } },
    check: (r) => assert.deepEqual(names(podSpec(r).containers[0].env), ['FOO', 'A', 'B']),
  },
  {
    name: 'kubectl set env FOO-: $patch: delete by name',
    original: daemonSet(),
    patch: { spec: { template: { spec: { containers: [{ env: [{ $patch: 'delete', name: 'A' }], name: 'app' }] } } } },
    check: (r) => assert.deepEqual(podSpec(r).containers[0].env, [{ name: 'B', value: '2' }]),
  },
  {
    name: 'tolerations have no merge key: the list is replaced',
    original: daemonSet(),
    patch: { spec: { template: { spec: { tolerations: [{ key: 'b', operator: 'Exists', effect: 'NoSchedule' }] } } } },
    check: (r) => assert.deepEqual(podSpec(r).tolerations, [{ key: 'b', operator: 'Exists', effect: 'NoSchedule' }]),
  },
  {
    name: 'container ports merge by containerPort alone (UDP on the same number merges into TCP)',
    original: daemonSet(),
    patch: { spec: { template: { spec: { containers: [{ name: 'app', ports: [{ containerPort: 80, protocol: 'UDP' }, { containerPort: 443 }] }] } } } },
    check: (r) => assert.deepEqual(podSpec(r).containers[0].ports, [{ containerPort: 80, protocol: 'UDP' }, { containerPort: 443 }]),
  },
  {
    name: 'rollout pause on a Deployment sets a scalar',
    key: 'apps/v1/Deployment',
    original: { spec: { replicas: 1 } },
    patch: { spec: { paused: true } },
    check: (r) => assert.deepEqual(r.spec, { replicas: 1, paused: true }),
  },
  {
    name: 'StatefulSet volumeClaimTemplates have no merge key: replaced',
    key: 'apps/v1/StatefulSet',
    original: { spec: { volumeClaimTemplates: [{ metadata: { name: 'a' } }, { metadata: { name: 'b' } }] } },
    patch: { spec: { volumeClaimTemplates: [{ metadata: { name: 'c' } }] } },
    check: (r) => assert.deepEqual(r.spec.volumeClaimTemplates, [{ metadata: { name: 'c' } }]),
  },
  // Nodes
  {
    name: 'kubectl taint: the whole taint list is sent and replaces the old one',
    key: 'v1/Node',
    original: { kind: 'Node', spec: { podCIDR: '10.0.0.0/24', taints: [{ key: 'old', effect: 'NoSchedule' }, { key: 'gone', effect: 'NoExecute' }] } },
    patch: { spec: { taints: [{ effect: 'NoSchedule', key: 'dedicated', value: 'gpu' }, { effect: 'NoSchedule', key: 'old' }] } },
    check: (r) => assert.deepEqual(r.spec, { podCIDR: '10.0.0.0/24', taints: [{ effect: 'NoSchedule', key: 'dedicated', value: 'gpu' }, { effect: 'NoSchedule', key: 'old' }] }),
  },
  {
    name: 'kubectl taint removing the last taint: taints null',
    key: 'v1/Node',
    original: { spec: { taints: [{ key: 'a', effect: 'NoSchedule' }], unschedulable: true } },
    patch: { spec: { taints: null } },
    check: (r) => assert.deepEqual(r.spec, { unschedulable: true }),
  },
  {
    name: 'kubectl cordon and uncordon',
    key: 'v1/Node',
    original: { spec: { unschedulable: true } },
    patch: { spec: { unschedulable: null } },
    check: (r) => assert.deepEqual(r.spec, {}),
  },
  {
    name: 'node status conditions merge by type (kubelet heartbeat)',
    key: 'v1/Node',
    original: { status: { conditions: [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: 'False', reason: 'KubeletNotReady' }],
      addresses: [{ type: 'InternalIP', address: '10.0.0.1' }, { type: 'Hostname', address: 'n1' }] } },
    patch: { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }], addresses: [{ type: 'InternalIP', address: '10.0.0.2' }] } },
    check: (r) => {
      assert.deepEqual(r.status.conditions, [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: 'True', reason: 'KubeletReady' }]);
      assert.deepEqual(r.status.addresses, [{ type: 'InternalIP', address: '10.0.0.2' }, { type: 'Hostname', address: 'n1' }]);
    },
  },
  {
    name: 'node podCIDRs is a primitive merge list',
    key: 'v1/Node',
    original: { spec: { podCIDRs: ['10.0.0.0/24'] } },
    patch: { spec: { podCIDRs: ['10.0.0.0/24', 'fd00::/64'] } },
    check: (r) => assert.deepEqual(r.spec.podCIDRs, ['10.0.0.0/24', 'fd00::/64']),
  },
  // Pods
  {
    name: 'pod status: conditions merge by type, containerStatuses are replaced',
    key: 'v1/Pod',
    original: { status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True' }],
      containerStatuses: [{ name: 'a', ready: false, restartCount: 1 }, { name: 'b', ready: false }] } },
    patch: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: [{ name: 'a', ready: true }] } },
    check: (r) => assert.deepEqual(r.status, {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True' }, { type: 'PodScheduled', status: 'True' }],
      containerStatuses: [{ name: 'a', ready: true }],
    }),
  },
  {
    name: 'pod podIPs and hostIPs merge by ip',
    key: 'v1/Pod',
    original: { status: { podIPs: [{ ip: '10.0.0.5' }] } },
    patch: { status: { podIPs: [{ ip: 'fd00::5' }], hostIPs: [{ ip: '192.168.0.1' }] } },
    check: (r) => assert.deepEqual(r.status, { podIPs: [{ ip: 'fd00::5' }, { ip: '10.0.0.5' }], hostIPs: [{ ip: '192.168.0.1' }] }),
  },
  {
    name: 'pod spec lists merge by their keys: imagePullSecrets, hostAliases, topologySpreadConstraints, volumeMounts',
    key: 'v1/Pod',
    original: { spec: {
      imagePullSecrets: [{ name: 'r1' }], hostAliases: [{ ip: '1.1.1.1', hostnames: ['a'] }],
      topologySpreadConstraints: [{ topologyKey: 'zone', maxSkew: 1 }],
      containers: [{ name: 'c', volumeMounts: [{ name: 'v', mountPath: '/a' }], volumeDevices: [{ name: 'd', devicePath: '/dev/x' }] }],
      ephemeralContainers: [{ name: 'debug', image: 'busybox' }],
    } },
    patch: { spec: {
      imagePullSecrets: [{ name: 'r2' }], hostAliases: [{ ip: '1.1.1.1', hostnames: ['b'] }],
      topologySpreadConstraints: [{ topologyKey: 'zone', maxSkew: 2 }],
      containers: [{ name: 'c', volumeMounts: [{ name: 'w', mountPath: '/a' }], volumeDevices: [{ name: 'e', devicePath: '/dev/y' }] }],
      ephemeralContainers: [{ name: 'debug2', image: 'alpine' }],
    } },
    check: (r) => assert.deepEqual(r.spec, {
      imagePullSecrets: [{ name: 'r2' }, { name: 'r1' }], hostAliases: [{ ip: '1.1.1.1', hostnames: ['b'] }],
      topologySpreadConstraints: [{ topologyKey: 'zone', maxSkew: 2 }],
      containers: [{ name: 'c', volumeMounts: [{ name: 'w', mountPath: '/a' }], volumeDevices: [{ name: 'e', devicePath: '/dev/y' }, { name: 'd', devicePath: '/dev/x' }] }],
      ephemeralContainers: [{ name: 'debug2', image: 'alpine' }, { name: 'debug', image: 'busybox' }],
    }),
  },
  {
    name: 'pod affinity lists have no merge key: replaced',
    key: 'v1/Pod',
    original: { spec: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a'] }] }] } } } } },
    patch: { spec: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['b'] }] }] } } } } },
    check: (r) => assert.deepEqual(r.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values, ['b']),
  },
  // ObjectMeta on every kind
  {
    name: 'ownerReferences merge by uid',
    key: 'v1/ConfigMap',
    original: { metadata: { ownerReferences: [{ uid: 'a', kind: 'X', name: 'x' }] } },
    patch: { metadata: { ownerReferences: [{ uid: 'a', controller: true }, { uid: 'b', kind: 'Y', name: 'y' }] } },
    check: (r) => assert.deepEqual(r.metadata.ownerReferences, [{ uid: 'a', kind: 'X', name: 'x', controller: true }, { uid: 'b', kind: 'Y', name: 'y' }]),
  },
  {
    name: 'finalizers are a primitive merge list: union, new ones first as upstream orders them',
    key: 'v1/Namespace',
    original: { metadata: { finalizers: ['a'] } },
    patch: { metadata: { finalizers: ['b', 'a'] } },
    check: (r) => assert.deepEqual(r.metadata.finalizers, ['b', 'a']),
  },
  {
    name: 'finalizers: $deleteFromPrimitiveList and $setElementOrder from kubectl apply',
    key: 'v1/Namespace',
    original: { metadata: { finalizers: ['x', 'y', 'z'] } },
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['x'], '$setElementOrder/finalizers': ['z', 'y'] } },
    check: (r) => assert.deepEqual(r.metadata.finalizers, ['z', 'y']),
  },
  {
    name: '$deleteFromPrimitiveList of an absent value or on an absent list changes nothing',
    key: 'v1/Namespace',
    original: { metadata: { finalizers: ['x'] }, spec: {} },
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['nope'] }, spec: { '$deleteFromPrimitiveList/finalizers': ['k'] } },
    check: (r) => assert.deepEqual(r, { metadata: { finalizers: ['x'] }, spec: {} }),
  },
  {
    name: 'labels merge, null deletes (and deleting a missing key is fine)',
    key: 'v1/Secret',
    original: { metadata: { labels: { a: '1', b: '2' } }, data: { k: 'dg==' } },
    patch: { metadata: { labels: { b: null, c: '3', zz: null } } },
    check: (r) => assert.deepEqual(r, { metadata: { labels: { a: '1', c: '3' } }, data: { k: 'dg==' } }),
  },
  // Services and others
  {
    name: 'Service ports merge by port',
    key: 'v1/Service',
    original: { spec: { ports: [{ port: 80, targetPort: 8080, name: 'http' }, { port: 443, name: 'https' }] } },
    patch: { spec: { ports: [{ port: 80, targetPort: 9090 }] } },
    check: (r) => assert.deepEqual(r.spec.ports, [{ port: 80, targetPort: 9090, name: 'http' }, { port: 443, name: 'https' }]),
  },
  {
    name: 'Endpoints subsets have no merge key: replaced',
    key: 'v1/Endpoints',
    original: { subsets: [{ addresses: [{ ip: '1.1.1.1' }] }] },
    patch: { subsets: [{ addresses: [{ ip: '2.2.2.2' }] }] },
    check: (r) => assert.deepEqual(r.subsets, [{ addresses: [{ ip: '2.2.2.2' }] }]),
  },
  {
    name: 'ServiceAccount secrets merge by name',
    key: 'v1/ServiceAccount',
    original: { secrets: [{ name: 'a' }] },
    patch: { secrets: [{ name: 'b' }] },
    check: (r) => assert.deepEqual(r.secrets, [{ name: 'b' }, { name: 'a' }]),
  },
  {
    name: 'PVC status conditions merge by type',
    key: 'v1/PersistentVolumeClaim',
    original: { status: { phase: 'Bound', conditions: [{ type: 'Resizing', status: 'True' }] } },
    patch: { status: { conditions: [{ type: 'FileSystemResizePending', status: 'True' }] } },
    check: (r) => assert.deepEqual(names(r.status.conditions.map((c: any) => ({ name: c.type }))), ['FileSystemResizePending', 'Resizing']),
  },
  {
    name: 'DaemonSet status conditions merge by type',
    original: { status: { conditions: [{ type: 'A', status: 'True' }] } },
    patch: { status: { conditions: [{ type: 'A', status: 'False' }] } },
    check: (r) => assert.deepEqual(r.status.conditions, [{ type: 'A', status: 'False' }]),
  },
  {
    name: 'a kind without Go types (a custom resource) merges maps and replaces lists',
    key: 'example.com/v1/Widget',
    original: { spec: { items: [{ name: 'a', v: 1 }], nested: { a: 1 } } },
    patch: { spec: { items: [{ name: 'a', v: 2 }], nested: { b: 2 } } },
    check: (r) => assert.deepEqual(r.spec, { items: [{ name: 'a', v: 2 }], nested: { a: 1, b: 2 } }),
  },
];

describe('strategic merge patch: kubectl shapes on served kinds', () => {
  for (const c of cases) {
    it(c.name, () => {
      const before = structuredClone(c.original);
      const patchBefore = structuredClone(c.patch);
      const result = applyPatch('strategic', c.original, c.patch, c.key ?? DS);
      c.check(result);
      assert.deepEqual(c.original, before, 'original untouched');
      assert.deepEqual(c.patch, patchBefore, 'patch untouched');
    });
  }
});

// A schema shaped like upstream's test type MergeItem, to exercise the rules on their own.
const merge = (patchMergeKey?: string, type?: string) => ({ type, strategies: ['merge'], patchMergeKey });
const item: PatchSchema = {
  root: 'Item',
  graph: {
    Item: {
      mergingList: merge('name', 'Item'), nonMergingList: { type: 'Item' }, mergingIntList: merge(),
      replacingMap: { strategies: ['replace'] }, retainMap: { type: 'Item', strategies: ['retainKeys'] },
      retainList: { type: 'Item', strategies: ['merge', 'retainKeys'], patchMergeKey: 'name' },
      badList: merge('name'),
    },
  },
};

const smp = (original: unknown, patch: unknown) => strategicMergePatch(structuredClone(original) as any, structuredClone(patch) as any, item);

interface RuleCase { name: string; original: unknown; patch: unknown; want: unknown }

const rules: RuleCase[] = [
  { name: 'scalars are replaced', original: { name: 'a', value: 'x' }, patch: { value: 'y' }, want: { name: 'a', value: 'y' } },
  { name: 'null deletes', original: { name: 'a', value: 'x' }, patch: { value: null }, want: { name: 'a' } },
  { name: 'a new key takes the patch value without its nulls', original: {}, patch: { m: { a: 1, b: null, c: { d: null } } }, want: { m: { a: 1, c: {} } } },
  { name: 'nulls are discarded inside new lists too, null list items kept', original: {}, patch: { l: [{ a: { b: 'x', c: null } }], s: ['k', null] }, want: { l: [{ a: { b: 'x' } }], s: ['k', null] } },
  { name: 'a new $patch map is dropped', original: {}, patch: { m: { $patch: 'replace', a: 1 } }, want: {} },
  { name: 'a new list loses its $patch items', original: {}, patch: { mergingList: [{ name: 'a' }, { name: 'b', $patch: 'delete' }] }, want: { mergingList: [{ name: 'a' }] } },
  { name: 'different JSON types: the patch wins', original: { v: { a: 1 } }, patch: { v: ['x'] }, want: { v: ['x'] } },
  { name: 'a null in the original is replaced', original: { v: null }, patch: { v: { a: 1, b: null } }, want: { v: { a: 1 } } },
  { name: 'nulls in the original elsewhere are kept', original: { thing: null }, patch: { other: 1 }, want: { thing: null, other: 1 } },
  { name: 'maps merge recursively', original: { m: { a: 1, n: { x: 1 } } }, patch: { m: { b: 2, n: { y: 2 } } }, want: { m: { a: 1, b: 2, n: { x: 1, y: 2 } } } },
  { name: '$patch: replace on a map', original: { m: { a: 1, b: 2 } }, patch: { m: { $patch: 'replace', c: 3 } }, want: { m: { c: 3 } } },
  { name: '$patch: delete on a map empties it', original: { m: { a: 1 } }, patch: { m: { $patch: 'delete' } }, want: { m: {} } },
  { name: '$patch: replace at the root', original: { a: 1, b: 2 }, patch: { $patch: 'replace', c: 3 }, want: { c: 3 } },
  { name: 'patchStrategy replace on a map field', original: { replacingMap: { a: 1 } }, patch: { replacingMap: { b: 2, c: null } }, want: { replacingMap: { b: 2 } } },
  { name: 'a non-merging list is replaced', original: { nonMergingList: [{ name: 'a' }, { name: 'b' }] }, patch: { nonMergingList: [{ name: 'c' }] }, want: { nonMergingList: [{ name: 'c' }] } },
  { name: 'merging list: matching items merge, new items are placed before server-only ones', original: { mergingList: [{ name: 'a', v: 1 }, { name: 'b' }] }, patch: { mergingList: [{ name: 'c' }, { name: 'a', v: 2 }] }, want: { mergingList: [{ name: 'c' }, { name: 'a', v: 2 }, { name: 'b' }] } },
  { name: 'merging list: patched items take patch order, server-only items keep their place before later ones', original: { mergingList: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }, patch: { mergingList: [{ name: 'c', x: 1 }, { name: 'a', x: 1 }] }, want: { mergingList: [{ name: 'b' }, { name: 'c', x: 1 }, { name: 'a', x: 1 }] } },
  { name: 'merging list: $patch: delete removes every item with the key', original: { mergingList: [{ name: 'a' }, { name: 'b' }, { name: 'a', dup: true }] }, patch: { mergingList: [{ name: 'a', $patch: 'delete' }] }, want: { mergingList: [{ name: 'b' }] } },
  { name: 'merging list: deleting a missing item is fine', original: { mergingList: [{ name: 'a' }] }, patch: { mergingList: [{ name: 'z', $patch: 'delete' }] }, want: { mergingList: [{ name: 'a' }] } },
  { name: 'merging list: $patch: replace replaces with the other items', original: { mergingList: [{ name: 'a' }, { name: 'b' }] }, patch: { mergingList: [{ name: 'c', v: null }, { $patch: 'replace' }] }, want: { mergingList: [{ name: 'c' }] } },
  { name: 'merging list: two empty lists', original: { mergingList: [] }, patch: { mergingList: [] }, want: { mergingList: [] } },
  { name: 'primitive merge list: union', original: { mergingIntList: [1, 2] }, patch: { mergingIntList: [3, 2] }, want: { mergingIntList: [3, 1, 2] } },
  { name: 'primitive merge list: $deleteFromPrimitiveList', original: { mergingIntList: [1, 2, 3, 2] }, patch: { '$deleteFromPrimitiveList/mergingIntList': [2] }, want: { mergingIntList: [1, 3] } },
  { name: '$deleteFromPrimitiveList: null deletes the list', original: { mergingIntList: [1] }, patch: { '$deleteFromPrimitiveList/mergingIntList': null }, want: {} },
  { name: '$setElementOrder: server-only items interleave by their original position', original: { mergingList: [{ name: 1 }, { name: 2 }, { name: 3 }, { name: 4 }] }, patch: { '$setElementOrder/mergingList': [{ name: 4 }, { name: 2 }] }, want: { mergingList: [{ name: 1 }, { name: 3 }, { name: 4 }, { name: 2 }] } },
  { name: '$setElementOrder on a primitive list', original: { mergingIntList: [1, 2, 7, 9, 8, 3, 4] }, patch: { '$setElementOrder/mergingIntList': [2, 1, 4, 3] }, want: { mergingIntList: [2, 1, 7, 9, 8, 4, 3] } },
  { name: '$setElementOrder with a new list', original: {}, patch: { '$setElementOrder/mergingList': [{ name: 'c' }, { name: 'a' }, { name: 'b' }], mergingList: [{ name: 'a' }, { name: 'b', $patch: 'delete' }, { name: 'b' }] }, want: { mergingList: [{ name: 'a' }, { name: 'b' }] } },
  { name: '$setElementOrder for an absent list does nothing', original: { x: 1 }, patch: { '$setElementOrder/mergingList': [{ name: 'a' }] }, want: { x: 1 } },
  { name: '$setElementOrder with add and delete (upstream orders by the list as edited in place)', original: { mergingList: [{ name: 1 }, { name: 2, other: 'b' }, { name: 4, other: 'c' }] }, patch: { '$setElementOrder/mergingList': [{ name: 2 }, { name: 3 }], mergingList: [{ name: 3 }, { name: 1, $patch: 'delete' }] }, want: { mergingList: [{ name: 2, other: 'b' }, { name: 4, other: 'c' }, { name: 3 }] } },
  { name: '$retainKeys clears unlisted keys', original: { retainMap: { name: 'a', value: 'v', other: 'o' } }, patch: { retainMap: { $retainKeys: ['name', 'value'], value: 'w' } }, want: { retainMap: { name: 'a', value: 'w' } } },
  { name: '$retainKeys allows nulls and directives outside the list', original: { retainMap: { name: 'a', mergingIntList: [1] } }, patch: { retainMap: { $retainKeys: ['name', 'mergingIntList'], other: null, '$deleteFromPrimitiveList/mergingIntList': [1] } }, want: { retainMap: { name: 'a', mergingIntList: [] } } },
  { name: '$retainKeys in items of a merge,retainKeys list', original: { retainList: [{ name: 'a', value: 'v', other: 'o' }] }, patch: { retainList: [{ $retainKeys: ['name', 'other'], name: 'a', other: 'p' }] }, want: { retainList: [{ name: 'a', other: 'p' }] } },
  { name: 'null patch value for a list with a merge strategy deletes it', original: { mergingList: [{ name: 'a' }] }, patch: { mergingList: null }, want: {} },
  { name: 'new merging list items keep directives other than $patch', original: { mergingList: [{ name: 'a' }] }, patch: { mergingList: [{ name: 'b', nested: { c: null, d: 1 } }] }, want: { mergingList: [{ name: 'b', nested: { d: 1 } }, { name: 'a' }] } },
];

describe('strategic merge patch: rules on a test schema', () => {
  for (const c of rules) {
    it(c.name, () => assert.deepEqual(smp(c.original, c.patch), c.want));
  }
});

interface ErrorCase { name: string; original: unknown; patch: unknown; code: number; message: string | RegExp; reason?: string }

const errors: ErrorCase[] = [
  { name: '$patch: merge on a map is not supported', original: { m: {} }, patch: { m: { $patch: 'merge', a: 1 } }, code: 500, message: 'unknown patch type: merge in map: map[$patch:merge a:1]' },
  { name: 'unknown $patch value on a map', original: {}, patch: { $patch: 'bogus' }, code: 500, message: 'unknown patch type: bogus in map: map[$patch:bogus]' },
  { name: '$patch: merge in a list', original: { mergingList: [{ name: 'a' }] }, patch: { mergingList: [{ $patch: 'merge' }] }, code: 500, message: 'merging lists cannot yet be specified in the patch' },
  { name: 'unknown $patch value in a list', original: { mergingList: [{ name: 'a' }] }, patch: { mergingList: [{ name: 'a', $patch: 'x' }] }, code: 500, message: 'unknown patch type: x in map: map[$patch:x name:a]' },
  { name: 'a merge list item without its merge key', original: { mergingList: [{ name: 'a' }] }, patch: { mergingList: [{ image: 'x' }] }, code: 500, message: 'map: map[image:x] does not contain declared merge key: name' },
  { name: 'a delete item without its merge key', original: { mergingList: [{ name: 'a' }] }, patch: { mergingList: [{ $patch: 'delete' }] }, code: 500, message: 'map: map[$patch:delete] does not contain declared merge key: name' },
  { name: 'mixed element types', original: { mergingList: [{ name: 'a' }] }, patch: { mergingList: ['x'] }, code: 500, message: 'list element types are not identical: [[map[name:a]] [x]]' },
  { name: 'lists of lists', original: { mergingIntList: [[1]] }, patch: { mergingIntList: [[2]] }, code: 422, message: 'the server rejected our request due to an error in our request', reason: 'Invalid' },
  { name: '$retainKeys must be a list', original: { retainMap: {} }, patch: { retainMap: { $retainKeys: 'name' } }, code: 400, message: 'invalid patch format of retainKeys', reason: 'BadRequest' },
  { name: 'a patch key outside $retainKeys', original: { retainMap: {} }, patch: { retainMap: { $retainKeys: ['name'], value: 'x' } }, code: 400, message: 'invalid patch format of retainKeys' },
  { name: '$setElementOrder without a list name', original: {}, patch: { $setElementOrder: [] }, code: 400, message: 'invalid patch format of setElementOrder list' },
  { name: '$deleteFromPrimitiveList without a list name', original: {}, patch: { $deleteFromPrimitiveList: [1] }, code: 400, message: 'invalid patch format of primitive list' },
  { name: '$setElementOrder that contradicts the patch order', original: { mergingList: [{ name: 'a' }, { name: 'b' }] }, patch: { '$setElementOrder/mergingList': [{ name: 'a' }, { name: 'b' }], mergingList: [{ name: 'b' }, { name: 'a' }] }, code: 500, message: /^The order in patch list:/ },
  { name: '$setElementOrder must be a list', original: {}, patch: { '$setElementOrder/mergingList': 'a' }, code: 500, message: 'expected a []interface {}, but received a string' },
  { name: 'a merge list of maps without a merge key', original: { mergingIntList: [{ a: 1 }] }, patch: { mergingIntList: [{ a: 2 }] }, code: 500, message: 'cannot merge lists without merge key for string' },
];

describe('strategic merge patch: errors as upstream reports them', () => {
  for (const c of errors) {
    it(c.name, () => {
      assert.throws(() => applyPatchWithSchema(c.original, c.patch), (e: unknown) => {
        assert.ok(e instanceof StatusError);
        assert.equal(e.code, c.code);
        if (typeof c.message === 'string') assert.equal(e.status.message, c.message);
        else assert.match(e.status.message ?? '', c.message);
        if (c.reason) assert.equal(e.reason, c.reason);
        if (c.code === 500) assert.equal(e.reason, undefined);
        return true;
      });
    });
  }
});

/** strategicMergePatch on the test schema, with errors turned into Status as applyPatch does. */
function applyPatchWithSchema(original: unknown, patch: unknown): unknown {
  try {
    return smp(original, patch);
  } catch (e) {
    return rethrow(e);
  }
}

function rethrow(e: unknown): never {
  if (e instanceof PatchError) throw toStatusError(e);
  throw e;
}

describe('strategic merge patch: document-level behaviour', () => {
  it('a null body changes nothing', () => {
    const ds = daemonSet();
    assert.deepEqual(applyPatch('strategic', ds, null, DS), ds);
  });
  it('an empty object changes nothing', () => {
    const ds = daemonSet();
    assert.deepEqual(applyPatch('strategic', ds, {}, DS), ds);
  });
  for (const [body, kind] of [[[], 'array'], ['x', 'string'], [1, 'number'], [true, 'bool']] as const) {
    it(`a ${kind} body is a 400`, () => {
      assert.throws(() => applyPatch('strategic', daemonSet(), body, DS), (e: unknown) => e instanceof StatusError && e.code === 400
        && e.status.message === `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`);
    });
  }
  it('a "__proto__" member is set as a member, not as the prototype', () => {
    const r = applyPatch('strategic', { metadata: { labels: {} } }, JSON.parse('{"metadata":{"labels":{"__proto__":{"x":1}}},"__proto__":{"y":2}}'), 'v1/Pod');
    assert.equal(Object.getPrototypeOf(r), Object.prototype);
    assert.equal(Object.getPrototypeOf(r.metadata.labels), Object.prototype);
    assert.ok(Object.hasOwn(r, '__proto__') && Object.hasOwn(r.metadata.labels, '__proto__'));
    assert.equal(({} as any).x, undefined);
  });
  it('the result does not alias the patch', () => {
    const patch = { spec: { template: { spec: { containers: [{ name: 'new', image: 'x', args: ['a'] }] } } } };
    const result = applyPatch('strategic', daemonSet(), patch, DS);
    result.spec.template.spec.containers[0].args.push('b');
    assert.deepEqual(patch.spec.template.spec.containers[0].args, ['a']);
  });
});

describe('supportsStrategicMerge', () => {
  const table: [string, boolean][] = [
    ['apps/v1/DaemonSet', true], ['apps/v1/StatefulSet', true], ['v1/Pod', true], ['v1/Node', true], ['v1/ConfigMap', true],
    ['coordination.k8s.io/v1/Lease', true], ['certificates.k8s.io/v1/CertificateSigningRequest', true], ['autoscaling/v1/Scale', true],
    ['rbac.authorization.k8s.io/v1/Role', true], ['example.com/v1/Widget', false], ['stable.example.com/v1/CronTab', false], ['nonsense', false],
  ];
  for (const [key, want] of table) it(`${key} → ${want}`, () => assert.equal(supportsStrategicMerge(key), want));
});
