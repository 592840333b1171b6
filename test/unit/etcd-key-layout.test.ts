/**
 * The etcd key layout (src/storage/etcd/key-layout.ts): every built-in resource k8ts stores lands
 * at kube-apiserver's key (upstream's test/integration/etcd/data.go ExpectedEtcdPath, written out
 * here), comes back as the registry's key, and custom resources keep <group>/<plural>.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resources } from '../../src/api/resources.js';
import { listPrefix, objectKey } from '../../src/registry/keys.js';
import { builtinEtcdPaths, etcdKeyLayout, oldLayoutMoves } from '../../src/storage/etcd/key-layout.js';

/** upstream's ExpectedEtcdPath per group/resource, namespace "ns" (data.go's "etcdstoragepathtestnamespace"), name "x". */
const upstream: Record<string, string> = {
  '/configmaps': '/registry/configmaps/ns/x',
  '/services': '/registry/services/specs/ns/x',
  '/podtemplates': '/registry/podtemplates/ns/x',
  '/pods': '/registry/pods/ns/x',
  '/endpoints': '/registry/services/endpoints/ns/x',
  '/resourcequotas': '/registry/resourcequotas/ns/x',
  '/limitranges': '/registry/limitranges/ns/x',
  '/namespaces': '/registry/namespaces/x',
  '/nodes': '/registry/minions/x',
  '/persistentvolumes': '/registry/persistentvolumes/x',
  '/events': '/registry/events/ns/x',
  '/persistentvolumeclaims': '/registry/persistentvolumeclaims/ns/x',
  '/serviceaccounts': '/registry/serviceaccounts/ns/x',
  '/secrets': '/registry/secrets/ns/x',
  '/replicationcontrollers': '/registry/controllers/ns/x',
  'apps/daemonsets': '/registry/daemonsets/ns/x',
  'apps/deployments': '/registry/deployments/ns/x',
  'apps/statefulsets': '/registry/statefulsets/ns/x',
  'apps/replicasets': '/registry/replicasets/ns/x',
  'apps/controllerrevisions': '/registry/controllerrevisions/ns/x',
  'autoscaling/horizontalpodautoscalers': '/registry/horizontalpodautoscalers/ns/x',
  'batch/jobs': '/registry/jobs/ns/x',
  'batch/cronjobs': '/registry/cronjobs/ns/x',
  'certificates.k8s.io/certificatesigningrequests': '/registry/certificatesigningrequests/x',
  'coordination.k8s.io/leases': '/registry/leases/ns/x',
  'discovery.k8s.io/endpointslices': '/registry/endpointslices/ns/x',
  'events.k8s.io/events': '/registry/events/ns/x',
  'networking.k8s.io/ingresses': '/registry/ingress/ns/x',
  'networking.k8s.io/ingressclasses': '/registry/ingressclasses/x',
  'networking.k8s.io/networkpolicies': '/registry/networkpolicies/ns/x',
  'policy/poddisruptionbudgets': '/registry/poddisruptionbudgets/ns/x',
  'flowcontrol.apiserver.k8s.io/flowschemas': '/registry/flowschemas/x',
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations': '/registry/prioritylevelconfigurations/x',
  'storage.k8s.io/volumeattachments': '/registry/volumeattachments/x',
  'storage.k8s.io/storageclasses': '/registry/storageclasses/x',
  'storage.k8s.io/csistoragecapacities': '/registry/csistoragecapacities/ns/x',
  'storage.k8s.io/csinodes': '/registry/csinodes/x',
  'storage.k8s.io/csidrivers': '/registry/csidrivers/x',
  'rbac.authorization.k8s.io/roles': '/registry/roles/ns/x',
  'rbac.authorization.k8s.io/clusterroles': '/registry/clusterroles/x',
  'rbac.authorization.k8s.io/rolebindings': '/registry/rolebindings/ns/x',
  'rbac.authorization.k8s.io/clusterrolebindings': '/registry/clusterrolebindings/x',
  'admissionregistration.k8s.io/validatingwebhookconfigurations': '/registry/validatingwebhookconfigurations/x',
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': '/registry/mutatingwebhookconfigurations/x',
  'admissionregistration.k8s.io/validatingadmissionpolicies': '/registry/validatingadmissionpolicies/x',
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': '/registry/validatingadmissionpolicybindings/x',
  'scheduling.k8s.io/priorityclasses': '/registry/priorityclasses/x',
  'apiregistration.k8s.io/apiservices': '/registry/apiregistration.k8s.io/apiservices/x',
  'apiextensions.k8s.io/customresourcedefinitions': '/registry/apiextensions.k8s.io/customresourcedefinitions/x',
  'node.k8s.io/runtimeclasses': '/registry/runtimeclasses/x',
};

/** What the registry stores: every resource with a get (reviews and bindings are created, never stored). */
const stored = resources.filter((r) => r.verbs.includes('get'));
/** events.k8s.io Events are stored as core Events (upstream's cohabitating resources; src/registry/strategies/events.ts). */
const keyInfo = (r: (typeof resources)[number]) => (r.group === 'events.k8s.io' ? resources.find((c) => c.group === '' && c.plural === 'events')! : r);

test('every stored built-in resource lands at kube-apiserver\'s etcd key', () => {
  const layout = etcdKeyLayout();
  const seen = new Set<string>();
  for (const r of stored) {
    const gr = `${r.group}/${r.plural}`;
    seen.add(gr);
    const expected = upstream[gr];
    assert.ok(expected, `upstream's etcd path of ${gr} is written down in this test`);
    const key = objectKey(keyInfo(r), r.namespaced ? 'ns' : undefined, 'x');
    assert.equal(layout.toEtcd(key), expected, gr);
    assert.equal(layout.fromEtcd(expected), key, `${gr} back`);
  }
  assert.deepEqual(Object.keys(upstream).filter((gr) => !seen.has(gr)), [], 'every upstream entry is a served resource');
  // The table holds exactly the stored resources' registry paths.
  const registryPaths = new Set(stored.map((r) => `${keyInfo(r).group || 'core'}/${r.plural}`));
  assert.deepEqual(Object.keys(builtinEtcdPaths).sort(), [...registryPaths].sort());
});

test('custom resources, CRDs and APIServices keep <group>/<plural>; keys outside the registry and its own records only change root', () => {
  const layout = etcdKeyLayout();
  for (const key of [
    '/registry/example.com/widgets/ns/w', '/registry/example.com/clusterwidgets/w', '/registry/stable.example.com/crontabs/default/c',
    '/registry/apiextensions.k8s.io/customresourcedefinitions/crontabs.stable.example.com',
    '/registry/apiregistration.k8s.io/apiservices/v1.apps', '/registry/masterleases/10.0.0.1', '/registry/health',
    'compact_rev_key', '/elsewhere/a',
  ]) {
    assert.equal(layout.toEtcd(key), key);
    assert.equal(layout.fromEtcd(key), key);
  }
  // A custom resource named like a built-in one keeps its group.
  assert.equal(layout.toEtcd('/registry/pods.example.com/pods/ns/p'), '/registry/pods.example.com/pods/ns/p');
});

test('names keep their characters and suffixes: a key plus "\\0" maps to the mapped key plus "\\0" (list pages continue)', () => {
  const layout = etcdKeyLayout();
  assert.equal(layout.toEtcd('/registry/core/pods/ns/a.b-c\0'), '/registry/pods/ns/a.b-c\0');
  assert.equal(layout.toEtcd('/registry/core/services/kube-system/kube-dns'), '/registry/services/specs/kube-system/kube-dns');
  assert.equal(layout.fromEtcd('/registry/services/endpoints/default/kubernetes'), '/registry/core/endpoints/default/kubernetes');
  // Not one of upstream's service paths: nothing to map back.
  assert.equal(layout.fromEtcd('/registry/services/other/x'), '/registry/services/other/x');
});

test('prefixes: one resource, one namespace, the whole registry and the whole keyspace are each one etcd range', () => {
  const layout = etcdKeyLayout();
  const pods = resources.find((r) => r.group === '' && r.plural === 'pods')!;
  const nodes = resources.find((r) => r.group === '' && r.plural === 'nodes')!;
  assert.equal(layout.prefixToEtcd(listPrefix(pods)), '/registry/pods/');
  assert.equal(layout.prefixToEtcd(listPrefix(pods, 'default')), '/registry/pods/default/');
  assert.equal(layout.prefixToEtcd(listPrefix(nodes)), '/registry/minions/');
  assert.equal(layout.prefixToEtcd('/registry/'), '/registry/');
  assert.equal(layout.prefixToEtcd(''), '');
  assert.equal(layout.prefixToEtcd('/registry/masterleases/'), '/registry/masterleases/');
  assert.equal(layout.prefixToEtcd('/registry/example.com/'), '/registry/example.com/');
  // Resources of one group lie apart in etcd: no single range holds them.
  assert.throws(() => layout.prefixToEtcd('/registry/core/'), /no single etcd range/);
  assert.throws(() => layout.prefixToEtcd('/registry/apps/dep'), /no single etcd range/);
  assert.throws(() => layout.prefixToEtcd('/registry/core/pods'), /no single etcd range/);
});

test('keys of k8ts\'s old layout read from etcd are no registry keys (an older server\'s writes are no objects here)', () => {
  const layout = etcdKeyLayout();
  assert.equal(layout.fromEtcd('/registry/core/pods/ns/p'), '/k8ts-old-layout/registry/core/pods/ns/p');
  assert.equal(layout.fromEtcd('/registry/apps/deployments/ns/web'), '/k8ts-old-layout/registry/apps/deployments/ns/web');
  assert.equal(layout.fromEtcd('/registry/apiextensions.k8s.io/customresourcedefinitions/x'), '/registry/apiextensions.k8s.io/customresourcedefinitions/x');
  assert.equal(etcdKeyLayout('/cluster-a').fromEtcd('/cluster-a/core/nodes/n1'), '/k8ts-old-layout/cluster-a/core/nodes/n1');
  assert.equal(etcdKeyLayout('/cluster-a').fromEtcd('/registry/core/nodes/n1'), '/registry/core/nodes/n1');
});

test('--etcd-prefix: the same paths under another root, or at the top for "/"', () => {
  const a = etcdKeyLayout('/cluster-a');
  assert.equal(a.toEtcd('/registry/core/pods/ns/p'), '/cluster-a/pods/ns/p');
  assert.equal(a.fromEtcd('/cluster-a/pods/ns/p'), '/registry/core/pods/ns/p');
  assert.equal(a.toEtcd('/registry/health'), '/cluster-a/health');
  assert.equal(a.prefixToEtcd('/registry/'), '/cluster-a/');
  // Another root's keys are not this cluster's: they pass as they are.
  assert.equal(a.fromEtcd('/registry/pods/ns/p'), '/registry/pods/ns/p');
  const top = etcdKeyLayout('');
  assert.equal(top.toEtcd('/registry/apps/deployments/ns/web'), '/deployments/ns/web');
  assert.equal(top.fromEtcd('/deployments/ns/web'), '/registry/apps/deployments/ns/web');
  assert.equal(top.prefixToEtcd('/registry/'), '/');
});

test('the migration moves exactly the resources whose path changed, from the old layout under the root', () => {
  const moves = oldLayoutMoves('/cluster-a');
  assert.ok(moves.some((m) => m.from === '/cluster-a/core/nodes/' && m.to === '/cluster-a/minions/'));
  assert.ok(moves.some((m) => m.from === '/cluster-a/apps/deployments/' && m.to === '/cluster-a/deployments/'));
  assert.ok(!moves.some((m) => m.from.includes('apiextensions.k8s.io') || m.from.includes('apiregistration.k8s.io')));
  assert.equal(moves.length, Object.keys(builtinEtcdPaths).length - 2);
});
