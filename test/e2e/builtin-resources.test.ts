/**
 * The built-in resources a kubectl user expects from a kubeadm 1.32 cluster
 * besides the workloads: storage.k8s.io's CSIDriver, CSINode, VolumeAttachment
 * and CSIStorageCapacity, and flowcontrol.apiserver.k8s.io's FlowSchema and
 * PriorityLevelConfiguration with the configuration kube-apiserver bootstraps.
 * Driven with the real kubectl 1.32 (api-resources, get, describe, explain,
 * apply with server-side field validation, 422s in upstream's words) and
 * @kubernetes/client-node's typed StorageV1Api; simulated nodes register their
 * CSINodes, which the garbage collector removes with their Nodes.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, eventually, type Cluster } from './harness.js';
import { KubeConfig, StorageV1Api } from './client-node-package.js';
import { cells, kubectlExpect } from './helpers.js';
import { Clientset, loadKubeconfig } from '../../src/client/index.js';
import { NodeSimulator } from '../../src/kubelet/index.js';
import { silentLogger } from '../../src/util/log.js';

let cluster: Cluster;

before(async () => { cluster = await startCluster({ controllers: 'garbagecollector' }); });
after(async () => { await cluster?.cleanup(); });

const { ok, fails } = kubectlExpect(() => cluster);
const rows = (out: string) => out.trim().split('\n').map(cells);

describe('discovery and explain', () => {
  test('kubectl api-resources lists them as kube-apiserver 1.32 does (no short names)', async () => {
    const out = await ok(['api-resources', '--no-headers']);
    const listed = out.trim().split('\n').map((l) => l.trim().split(/\s+/).join(' '));
    for (const want of [
      'csidrivers storage.k8s.io/v1 false CSIDriver', 'csinodes storage.k8s.io/v1 false CSINode',
      'csistoragecapacities storage.k8s.io/v1 true CSIStorageCapacity', 'volumeattachments storage.k8s.io/v1 false VolumeAttachment',
      'flowschemas flowcontrol.apiserver.k8s.io/v1 false FlowSchema',
      'prioritylevelconfigurations flowcontrol.apiserver.k8s.io/v1 false PriorityLevelConfiguration',
    ]) assert.ok(listed.includes(want), `${want}\n${out}`);
  });

  test('kubectl explain reaches into their specs', async () => {
    const fs = await ok(['explain', 'flowschema.spec']);
    assert.match(fs, /KIND:\s+FlowSchema/);
    assert.match(fs, /matchingPrecedence\s+<integer>/);
    assert.match(fs, /priorityLevelConfiguration\s+<PriorityLevelConfigurationReference> -required-/);
    assert.match(await ok(['explain', 'csidriver.spec.fsGroupPolicy']), /FIELD: fsGroupPolicy <string>/);
    assert.match(await ok(['explain', 'volumeattachments.spec.source']), /persistentVolumeName\s+<string>/);
    assert.match(await ok(['explain', 'prioritylevelconfiguration.spec.limited.limitResponse.queuing']), /handSize\s+<integer>/);
  });
});

describe('API Priority and Fairness configuration', () => {
  test('kubectl get flowschemas shows the bootstrapped schemas with their columns, in name order', async () => {
    const [header, ...body] = rows(await ok(['get', 'flowschemas']));
    assert.deepEqual(header, ['NAME', 'PRIORITYLEVEL', 'MATCHINGPRECEDENCE', 'DISTINGUISHERMETHOD', 'AGE', 'MISSINGPL']);
    const byName = new Map(body.map((r) => [r[0], r]));
    assert.deepEqual(body.map((r) => r[0]), ['catch-all', 'endpoint-controller', 'exempt', 'global-default', 'kube-controller-manager', 'kube-scheduler',
      'kube-system-service-accounts', 'probes', 'service-accounts', 'system-leader-election', 'system-node-high', 'system-nodes', 'workload-leader-election']);
    assert.deepEqual(byName.get('exempt')!.slice(1, 4), ['exempt', '1', '<none>']);
    assert.deepEqual(byName.get('catch-all')!.slice(1, 4), ['catch-all', '10000', 'ByUser']);
    assert.deepEqual(byName.get('kube-scheduler')!.slice(1, 4), ['workload-high', '800', 'ByNamespace']);
    // MISSINGPL: the server wrote each schema's Dangling condition before it was ready (no write trails readiness).
    assert.deepEqual(body.filter((r) => r[5] !== 'False'), []);
  });

  test('kubectl get prioritylevelconfigurations shows the eight levels', async () => {
    const [header, ...body] = rows(await ok(['get', 'prioritylevelconfigurations']));
    assert.deepEqual(header, ['NAME', 'TYPE', 'NOMINALCONCURRENCYSHARES', 'QUEUES', 'HANDSIZE', 'QUEUELENGTHLIMIT', 'AGE']);
    const byName = new Map(body.map((r) => [r[0], r.slice(1, 6)]));
    assert.equal(byName.size, 8);
    assert.deepEqual(byName.get('exempt'), ['Exempt', '<none>', '<none>', '<none>', '<none>']);
    assert.deepEqual(byName.get('catch-all'), ['Limited', '5', '<none>', '<none>', '<none>']);
    assert.deepEqual(byName.get('workload-low'), ['Limited', '100', '128', '6', '50']);
  });

  test('describe shows the auto-update annotation; the mandatory specs cannot change (422)', async () => {
    assert.match(await ok(['describe', 'flowschema', 'exempt']), /Annotations:\s+apf\.kubernetes\.io\/autoupdate-spec: true/);
    const err = await fails(['patch', 'flowschema', 'catch-all', '--type=merge', '-p', '{"spec":{"matchingPrecedence":9000}}']);
    assert.match(err, /The FlowSchema "catch-all" is invalid: spec: Invalid value: .*: spec of 'catch-all' must equal the fixed value/);
  });

  test('a user FlowSchema and level: apply, server-side apply, and bad input in upstream\'s words', async () => {
    const level = 'apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: PriorityLevelConfiguration\nmetadata:\n  name: batch\nspec:\n  type: Limited\n  limited:\n    limitResponse:\n      type: Queue\n      queuing: {}\n';
    assert.match(await ok(['apply', '-f', '-'], level), /prioritylevelconfiguration.flowcontrol.apiserver.k8s.io\/batch created/);
    assert.deepEqual(rows(await ok(['get', 'prioritylevelconfiguration', 'batch', '--no-headers']))[0].slice(0, 6), ['batch', 'Limited', '30', '64', '8', '50']);
    const schema = (precedence: number) => 'apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: FlowSchema\nmetadata:\n  name: batch-jobs\nspec:\n'
      + `  priorityLevelConfiguration:\n    name: batch\n  matchingPrecedence: ${precedence}\n  distinguisherMethod:\n    type: ByUser\n`
      + '  rules:\n  - subjects:\n    - kind: ServiceAccount\n      serviceAccount:\n        namespace: batch\n        name: "*"\n'
      + '    resourceRules:\n    - verbs: ["*"]\n      apiGroups: ["batch"]\n      resources: ["jobs"]\n      namespaces: ["batch"]\n';
    assert.match(await ok(['apply', '--server-side', '-f', '-'], schema(2000)), /flowschema.flowcontrol.apiserver.k8s.io\/batch-jobs serverside-applied/);
    assert.match(await ok(['get', 'flowschema', 'batch-jobs', '-o', 'jsonpath={.metadata.generation} {.spec.matchingPrecedence}']), /^1 2000$/);
    await eventually(async () => rows(await ok(['get', 'flowschema', 'batch-jobs', '--no-headers']))[0][5] === 'False', 30_000, 'batch-jobs MISSINGPL False');
    await ok(['delete', 'prioritylevelconfiguration', 'batch']);
    await eventually(async () => rows(await ok(['get', 'flowschema', 'batch-jobs', '--no-headers']))[0][5] === 'True', 30_000, 'batch-jobs MISSINGPL True once its level is gone');
    const err = await fails(['apply', '--server-side', '-f', '-'], schema(1));
    assert.match(err, /FlowSchema "batch-jobs" is invalid: spec\.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1/);
    const bad = 'apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: FlowSchema\nmetadata:\n  name: bad\nspec:\n  rules:\n  - subjects: []\n';
    assert.equal(await fails(['create', '-f', '-'], bad), [
      'The FlowSchema "bad" is invalid: ',
      '* spec.priorityLevelConfiguration.name: Required value: must reference a priority level',
      '* spec.rules[0].subjects: Required value: subjects must contain at least one value',
      '* spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty',
    ].join('\n'));
    assert.match(await fails(['apply', '-f', '-'], level.replace('type: Limited', 'type: Limited\n  bogus: 1')), /strict decoding error: unknown field "spec.bogus"/);
  });
});

describe('the APF configuration producer at a restart (upstream\'s ensurer)', () => {
  test('suggested specs marked for auto-update come back, an operator\'s "false" is kept, deleted ones return, dropped ones go', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-apf-'));
    let c = await startCluster({ dataDir });
    try {
      const k = kubectlExpect(() => c);
      const shares = (name: string) => k.ok(['get', 'prioritylevelconfiguration', name, '-o', 'jsonpath={.spec.limited.nominalConcurrencyShares} {.metadata.annotations.apf\\.kubernetes\\.io/autoupdate-spec}']);
      await k.ok(['patch', 'prioritylevelconfiguration', 'global-default', '--type=merge', '-p', '{"spec":{"limited":{"nominalConcurrencyShares":99}}}']);
      await k.ok(['patch', 'prioritylevelconfiguration', 'workload-low', '--type=merge', '-p',
        '{"metadata":{"annotations":{"apf.kubernetes.io/autoupdate-spec":"false"}},"spec":{"limited":{"nominalConcurrencyShares":7}}}']);
      await k.ok(['delete', 'flowschema', 'service-accounts']);
      await k.ok(['annotate', 'flowschema', 'probes', 'apf.kubernetes.io/autoupdate-spec-']);
      const schema = (name: string, annotations: string) => `apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: FlowSchema\nmetadata:\n  name: ${name}\n${annotations}spec:\n`
        + '  priorityLevelConfiguration:\n    name: global-default\n  matchingPrecedence: 5000\n  rules:\n  - subjects:\n    - kind: Group\n      group:\n        name: team\n'
        + '    nonResourceRules:\n    - verbs: ["get"]\n      nonResourceURLs: ["/version"]\n';
      await k.ok(['create', '-f', '-'], schema('dropped-by-upgrade', '  annotations:\n    apf.kubernetes.io/autoupdate-spec: "true"\n'));
      await k.ok(['create', '-f', '-'], schema('mine', ''));
      assert.equal(await shares('global-default'), '99 true');
      await c.stop();
      c = await startCluster({ dataDir });
      assert.equal(await shares('global-default'), '20 true', 'the bootstrap spec is back');
      assert.equal(await shares('workload-low'), '7 false', 'the operator opted out');
      assert.match(await k.ok(['get', 'flowschema', 'service-accounts', '--show-managed-fields', '-o', 'jsonpath={.spec.matchingPrecedence} {.metadata.managedFields[*].manager}']),
        /^9000 .*\bapi-priority-and-fairness-config-producer-v1\b/);
      assert.equal(await k.ok(['get', 'flowschema', 'probes', '-o', 'jsonpath={.metadata.annotations.apf\\.kubernetes\\.io/autoupdate-spec}']), 'true', 'generation 1: annotated again');
      assert.match(await k.fails(['get', 'flowschema', 'dropped-by-upgrade']), /flowschemas.flowcontrol.apiserver.k8s.io "dropped-by-upgrade" not found/);
      await k.ok(['get', 'flowschema', 'mine']);
    } finally {
      await c.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('CSI objects', () => {
  const driver = 'apiVersion: storage.k8s.io/v1\nkind: CSIDriver\nmetadata:\n  name: hostpath.csi.k8s.io\nspec:\n  podInfoOnMount: true\n  tokenRequests:\n  - audience: vault\n';

  test('a CSIDriver: defaults, columns, describe, and attachRequired immutable (422)', async () => {
    assert.match(await ok(['apply', '-f', '-'], driver), /csidriver.storage.k8s.io\/hostpath.csi.k8s.io created/);
    const [header, row] = rows(await ok(['get', 'csidrivers']));
    assert.deepEqual(header, ['NAME', 'ATTACHREQUIRED', 'PODINFOONMOUNT', 'STORAGECAPACITY', 'TOKENREQUESTS', 'REQUIRESREPUBLISH', 'MODES', 'AGE']);
    assert.deepEqual(row.slice(0, 7), ['hostpath.csi.k8s.io', 'true', 'true', 'false', 'vault', 'false', 'Persistent']);
    const spec = JSON.parse(await ok(['get', 'csidriver', 'hostpath.csi.k8s.io', '-o', 'jsonpath={.spec}']));
    assert.deepEqual(spec, {
      attachRequired: true, fsGroupPolicy: 'ReadWriteOnceWithFSType', podInfoOnMount: true, requiresRepublish: false, seLinuxMount: false,
      storageCapacity: false, tokenRequests: [{ audience: 'vault' }], volumeLifecycleModes: ['Persistent'],
    });
    assert.match(await ok(['describe', 'csidriver', 'hostpath.csi.k8s.io']), /Attach Required:\s+true/);
    assert.equal(await fails(['patch', 'csidriver', 'hostpath.csi.k8s.io', '--type=merge', '-p', '{"spec":{"attachRequired":false}}']),
      'The CSIDriver "hostpath.csi.k8s.io" is invalid: spec.attachedRequired: Invalid value: false: field is immutable');
    // podInfoOnMount is mutable in 1.32, and a spec change bumps the generation.
    await ok(['patch', 'csidriver', 'hostpath.csi.k8s.io', '--type=merge', '-p', '{"spec":{"podInfoOnMount":false}}']);
    assert.equal(await ok(['get', 'csidriver', 'hostpath.csi.k8s.io', '-o', 'jsonpath={.metadata.generation}']), '2');
  });

  test('a VolumeAttachment: columns, and its spec immutable (422)', async () => {
    const va = 'apiVersion: storage.k8s.io/v1\nkind: VolumeAttachment\nmetadata:\n  name: va1\nspec:\n  attacher: hostpath.csi.k8s.io\n  nodeName: worker1\n  source:\n    persistentVolumeName: pv1\n';
    await ok(['create', '-f', '-'], va);
    const [header, row] = rows(await ok(['get', 'volumeattachments']));
    assert.deepEqual(header, ['NAME', 'ATTACHER', 'PV', 'NODE', 'ATTACHED', 'AGE']);
    assert.deepEqual(row.slice(0, 5), ['va1', 'hostpath.csi.k8s.io', 'pv1', 'worker1', 'false']);
    assert.match(await fails(['patch', 'volumeattachment', 'va1', '--type=merge', '-p', '{"spec":{"nodeName":"worker2"}}']),
      /^The VolumeAttachment "va1" is invalid: spec: Invalid value: .*: field is immutable$/);
    assert.equal(await fails(['create', '-f', '-'], va.replace('name: va1', 'name: va2').replace(/ {2}source:\n.*\n/, '  source: {}\n')),
      'The VolumeAttachment "va2" is invalid: spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName');
  });

  test('a CSIStorageCapacity in a namespace', async () => {
    const cap = 'apiVersion: storage.k8s.io/v1\nkind: CSIStorageCapacity\nmetadata:\n  name: cap1\n  namespace: default\nstorageClassName: fast\ncapacity: 1024Mi\n';
    await ok(['create', '-f', '-'], cap);
    assert.deepEqual(rows(await ok(['get', 'csistoragecapacities', '-n', 'default'])), [['NAME', 'STORAGECLASSNAME', 'CAPACITY'], ['cap1', 'fast', '1Gi']]);
  });

  test('@kubernetes/client-node creates and lists CSIDrivers with the typed StorageV1Api', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(cluster.kubeconfig);
    const storage = kc.makeApiClient(StorageV1Api);
    const created = await storage.createCSIDriver({ body: { metadata: { name: 'typed.csi.example.com' }, spec: { attachRequired: false } } });
    assert.equal(created.spec?.attachRequired, false);
    assert.deepEqual(created.spec?.volumeLifecycleModes, ['Persistent']);
    const list = await storage.listCSIDriver();
    assert.deepEqual(list.items.map((d) => d.metadata?.name).sort(), ['hostpath.csi.k8s.io', 'typed.csi.example.com']);
  });

  test('each simulated node registers its CSINode, owned by the Node, and it goes with the Node', async () => {
    const clients = new Clientset(loadKubeconfig(cluster.kubeconfig));
    const sim = new NodeSimulator(clients, { count: 2, namePrefix: 'csi-node-', logger: silentLogger });
    try {
      await sim.start();
      const names = async () => (await ok(['get', 'csinodes', '-o', 'name'])).trim().split('\n').filter(Boolean).sort();
      await eventually(async () => JSON.stringify(await names()) === '["csinode.storage.k8s.io/csi-node-0","csinode.storage.k8s.io/csi-node-1"]',
        30_000, 'a CSINode per node', async () => (await names()).join(' '));
      const node = JSON.parse(await ok(['get', 'node', 'csi-node-1', '-o', 'json']));
      const csiNode = JSON.parse(await ok(['get', 'csinode', 'csi-node-1', '-o', 'json']));
      assert.deepEqual(csiNode.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: 'csi-node-1', uid: node.metadata.uid }]);
      assert.deepEqual(csiNode.spec, { drivers: [] });
      assert.deepEqual(rows(await ok(['get', 'csinode', 'csi-node-1', '--no-headers']))[0].slice(0, 2), ['csi-node-1', '0']);
      await ok(['delete', 'node', 'csi-node-1']);
      await eventually(async () => JSON.stringify(await names()) === '["csinode.storage.k8s.io/csi-node-0"]', 30_000, 'the CSINode collected with its Node',
        async () => (await names()).join(' '));
    } finally {
      await sim.close();
      clients.close();
    }
  });
});
