import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { applyDefaults } from '../../src/api/defaults/index.js';

const defaulted = (key: string, obj: any) => {
  applyDefaults(key, obj);
  return obj;
};
const template = () => ({ metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'x:1' }] } });

test('DaemonSet: RollingUpdate 1/0, history 10', () => {
  const ds = defaulted('apps/v1/DaemonSet', { spec: { selector: { matchLabels: { app: 'a' } }, template: template() } });
  assert.deepEqual(ds.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
  assert.equal(ds.spec.revisionHistoryLimit, 10);
  assert.equal(ds.spec.template.spec.dnsPolicy, 'ClusterFirst');
  const onDelete = defaulted('apps/v1/DaemonSet', { spec: { updateStrategy: { type: 'OnDelete' } } });
  assert.deepEqual(onDelete.spec.updateStrategy, { type: 'OnDelete' });
});

test('StatefulSet: replicas, policies, partition and claim templates', () => {
  const sts = defaulted('apps/v1/StatefulSet', { spec: { template: template(), volumeClaimTemplates: [
    { metadata: { name: 'www' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1024Mi' } } } }] } });
  assert.equal(sts.spec.replicas, 1);
  assert.equal(sts.spec.podManagementPolicy, 'OrderedReady');
  assert.deepEqual(sts.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
  assert.equal(sts.spec.revisionHistoryLimit, 10);
  assert.deepEqual(sts.spec.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Retain', whenScaled: 'Retain' });
  assert.deepEqual(sts.spec.volumeClaimTemplates[0], {
    apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'www' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' }, status: { phase: 'Pending' },
  });
  const explicit = defaulted('apps/v1/StatefulSet', { spec: { updateStrategy: { type: 'RollingUpdate' } } });
  assert.deepEqual(explicit.spec.updateStrategy, { type: 'RollingUpdate' }, 'an explicit type without rollingUpdate stays as is');
});

test('Deployment: replicas 1, RollingUpdate 25%/25%, history 10, deadline 600', () => {
  const d = defaulted('apps/v1/Deployment', { spec: { template: template() } });
  assert.equal(d.spec.replicas, 1);
  assert.deepEqual(d.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
  assert.equal(d.spec.revisionHistoryLimit, 10);
  assert.equal(d.spec.progressDeadlineSeconds, 600);
  const zero = defaulted('apps/v1/Deployment', { spec: { replicas: 0, strategy: { type: 'Recreate' } } });
  assert.equal(zero.spec.replicas, 0);
  assert.deepEqual(zero.spec.strategy, { type: 'Recreate' });
});

test('ReplicaSet: replicas 1', () => {
  assert.equal(defaulted('apps/v1/ReplicaSet', { spec: { template: template() } }).spec.replicas, 1);
});

test('Service: ClusterIP, None affinity, TCP, targetPort, Cluster policies, SingleStack', () => {
  const svc = defaulted('v1/Service', { spec: { selector: { app: 'a' }, ports: [{ port: 80 }, { port: 53, protocol: 'UDP', targetPort: 'dns' }] } });
  assert.deepEqual(svc.spec, {
    selector: { app: 'a' }, ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }, { port: 53, protocol: 'UDP', targetPort: 'dns' }],
    sessionAffinity: 'None', type: 'ClusterIP', internalTrafficPolicy: 'Cluster', ipFamilyPolicy: 'SingleStack',
  });
  const headless = defaulted('v1/Service', { spec: { clusterIP: 'None', selector: { app: 'a' } } });
  assert.deepEqual([headless.spec.clusterIPs, headless.spec.ipFamilyPolicy], [['None'], 'SingleStack']);
  const bare = defaulted('v1/Service', { spec: { clusterIP: 'None' } });
  assert.equal(bare.spec.ipFamilyPolicy, 'RequireDualStack');
  const lb = defaulted('v1/Service', { spec: { type: 'LoadBalancer', ports: [{ port: 443 }], sessionAffinity: 'ClientIP' } });
  assert.equal(lb.spec.externalTrafficPolicy, 'Cluster');
  assert.equal(lb.spec.allocateLoadBalancerNodePorts, true);
  assert.deepEqual(lb.spec.sessionAffinityConfig, { clientIP: { timeoutSeconds: 10800 } });
  const ext = defaulted('v1/Service', { spec: { type: 'ExternalName', externalName: 'x.example.com' } });
  assert.deepEqual(ext.spec, { type: 'ExternalName', externalName: 'x.example.com', sessionAffinity: 'None' });
});

test('Namespace: name label, kubernetes finalizer, Active', () => {
  const ns = defaulted('v1/Namespace', { metadata: { name: 'team' } });
  assert.deepEqual(ns, { metadata: { name: 'team', labels: { 'kubernetes.io/metadata.name': 'team' } }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
  const finalizing = defaulted('v1/Namespace', { metadata: { name: 'x', deletionTimestamp: '2024-01-01T00:00:00Z' }, spec: {}, status: { phase: 'Terminating' } });
  assert.deepEqual(finalizing.spec, {}, 'a namespace being deleted keeps its emptied finalizers');
});

test('Node: allocatable defaults to capacity', () => {
  const node = defaulted('v1/Node', { status: { capacity: { cpu: '4', memory: '8192Mi', pods: '110' } } });
  assert.deepEqual(node.status.allocatable, { cpu: '4', memory: '8Gi', pods: '110' });
  assert.equal(node.status.capacity.memory, '8Gi');
  assert.deepEqual(defaulted('v1/Node', { metadata: { name: 'n' } }), { metadata: { name: 'n' } });
});

test('PersistentVolume and PersistentVolumeClaim', () => {
  const pv = defaulted('v1/PersistentVolume', { spec: { capacity: { storage: '1Gi' }, hostPath: { path: '/d' } } });
  assert.equal(pv.spec.persistentVolumeReclaimPolicy, 'Retain');
  assert.equal(pv.spec.volumeMode, 'Filesystem');
  assert.equal(pv.spec.hostPath.type, '');
  assert.deepEqual(pv.status, { phase: 'Pending' });
  const pvc = defaulted('v1/PersistentVolumeClaim', { spec: { resources: { requests: { storage: '0.5Gi' } } } });
  assert.deepEqual(pvc, { spec: { resources: { requests: { storage: '512Mi' } }, volumeMode: 'Filesystem' }, status: { phase: 'Pending' } });
});

test('Secret: Opaque, stringData merged into data', () => {
  const s = defaulted('v1/Secret', { data: { a: 'YQ==' }, stringData: { b: 'hello' } });
  assert.deepEqual(s, { type: 'Opaque', data: { a: 'YQ==', b: 'aGVsbG8=' } });
});

test('Endpoints, StorageClass and CSR conditions', () => {
  assert.deepEqual(defaulted('v1/Endpoints', { subsets: [{ ports: [{ port: 80 }] }] }).subsets[0].ports[0], { port: 80, protocol: 'TCP' });
  assert.deepEqual(defaulted('storage.k8s.io/v1/StorageClass', { provisioner: 'p' }), { provisioner: 'p', reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
  const csr = defaulted('certificates.k8s.io/v1/CertificateSigningRequest', { status: { conditions: [{ type: 'Approved' }] } });
  assert.equal(csr.status.conditions[0].status, 'True');
});

test('kinds without defaults and non-objects are left alone', () => {
  const cm = { data: { a: 'b' } };
  applyDefaults('v1/ConfigMap', cm);
  assert.deepEqual(cm, { data: { a: 'b' } });
  applyDefaults('v1/Pod', null);
  applyDefaults('example.com/v1/Widget', { spec: {} });
});

test('every defaulter is idempotent', () => {
  const objs: [string, any][] = [
    ['apps/v1/DaemonSet', { spec: { template: template() } }], ['apps/v1/StatefulSet', { spec: { template: template(), volumeClaimTemplates: [{ spec: {} }] } }],
    ['apps/v1/Deployment', { spec: { template: template() } }], ['apps/v1/ReplicaSet', { spec: {} }],
    ['v1/Service', { spec: { clusterIP: '10.0.0.1', ports: [{ port: 1 }], type: 'NodePort' } }], ['v1/Namespace', { metadata: { name: 'n' } }],
    ['v1/Node', { status: { capacity: { cpu: '1' } } }], ['v1/PersistentVolume', { spec: {} }], ['v1/PersistentVolumeClaim', {}],
    ['v1/Secret', { stringData: { a: 'b' } }], ['storage.k8s.io/v1/StorageClass', {}],
  ];
  for (const [key, obj] of objs) {
    applyDefaults(key, obj);
    const once = structuredClone(obj);
    applyDefaults(key, obj);
    assert.deepEqual(obj, once, key);
  }
});
