/**
 * The persistent-volume controller and local-path provisioner against the
 * real server, driven with the real kubectl: the default StorageClass, a
 * WaitForFirstConsumer claim that waits, then (with the scheduler's
 * selected-node annotation) gets a Bound PV pinned to that node with its
 * directory made; deleting the claim deletes PV and directory (Delete);
 * a Retain class keeps the Released PV. The controller runs in the test
 * process against a temp base directory.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, eventually, Cluster } from './harness.js';
import { Clientset, InformerFactory, EventRecorder, loadKubeconfig } from '../../src/client/index.js';
import type { Controller, ControllerContext } from '../../src/controllers/types.js';
import { defaultControllerConfig } from '../../src/controllers/types.js';
import { silentLogger } from '../../src/util/log.js';
import { realClock } from '../../src/util/clock.js';
import { makePersistentVolumeController } from '../../src/controllers/volume/index.js';
import { podVolumesFitNode } from '../../src/api/volumebinding.js';

let cluster: Cluster;
let clients: Clientset;
let informers: InformerFactory;
let controller: Controller;
let base: string;

const nodeYaml = (name: string) => `apiVersion: v1
kind: Node
metadata:
  name: ${name}
  labels:
    kubernetes.io/hostname: ${name}
status:
  conditions:
  - type: Ready
    status: "True"
    reason: KubeletReady
    message: kubelet is posting ready status
    lastHeartbeatTime: "2024-01-01T00:00:00Z"
    lastTransitionTime: "2024-01-01T00:00:00Z"
`;

const claimYaml = (name: string, cls: string, extra = '') => `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ${name}
${extra}spec:
  storageClassName: ${cls}
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
`;

/** Table rows as cells, header first. */
async function rows(args: string[]): Promise<string[][]> {
  const { stdout } = await cluster.kubectl(['get', ...args]);
  return stdout.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));
}

async function events(name: string): Promise<any[]> {
  const { stdout } = await cluster.kubectl(['get', 'events', '--field-selector', `involvedObject.name=${name}`, '-o', 'json']);
  return JSON.parse(stdout).items;
}

before(async () => {
  // The server runs the protection controllers: claims and volumes carry their finalizers (StorageObjectInUseProtection).
  cluster = await startCluster({ controllers: 'pvc-protection,pv-protection' });
  base = mkdtempSync(join(tmpdir(), 'k8ts-local-path-'));
  clients = new Clientset(loadKubeconfig(cluster.kubeconfig));
  informers = new InformerFactory(clients);
  const ctx: ControllerContext = {
    clients, informers, logger: silentLogger, clock: realClock, config: { ...defaultControllerConfig },
    recorder: (component) => new EventRecorder(clients, component),
  };
  controller = makePersistentVolumeController({ basePath: base, resyncPeriodMs: 1000 })(ctx);
  informers.start();
  await informers.waitForSync();
  controller.run();
  await cluster.kubectl(['apply', '-f', '-'], { input: `${nodeYaml('worker-1')}---\n${nodeYaml('worker-2')}` });
});

after(async () => {
  controller?.stop();
  informers?.stop();
  clients?.close();
  await cluster?.cleanup();
  if (base) rmSync(base, { recursive: true, force: true });
});

describe('local-path provisioning', () => {
  test('the default StorageClass local-path exists, as k3s ships it', async () => {
    const table = await eventually(async () => {
      const r = await rows(['storageclass']);
      return r.length > 1 ? r : undefined;
    }, 10_000, 'storage class');
    assert.deepEqual(table[0], ['NAME', 'PROVISIONER', 'RECLAIMPOLICY', 'VOLUMEBINDINGMODE', 'ALLOWVOLUMEEXPANSION', 'AGE']);
    assert.deepEqual(table[1].slice(0, 5), ['local-path (default)', 'rancher.io/local-path', 'Delete', 'WaitForFirstConsumer', 'false']);
  });

  test('a WaitForFirstConsumer claim waits, then binds a PV pinned to the selected node; deleting it deletes the PV', async () => {
    await cluster.kubectl(['apply', '-f', '-'], { input: claimYaml('data', 'local-path') });
    await eventually(async () => (await events('data')).some((e) => e.reason === 'WaitForFirstConsumer'
      && e.message === 'waiting for first consumer to be created before binding'), 10_000, 'WaitForFirstConsumer event');
    assert.equal((await rows(['pvc', 'data']))[1][1], 'Pending');
    assert.equal((await cluster.kubectl(['get', 'pv', '-o', 'name'])).stdout.trim(), '');

    // What the scheduler does when it binds a pod that uses the claim.
    await cluster.kubectl(['annotate', 'pvc', 'data', 'volume.kubernetes.io/selected-node=worker-1']);
    const claim = JSON.parse((await cluster.kubectl(['get', 'pvc', 'data', '-o', 'json'])).stdout);
    const pvName = `pvc-${claim.metadata.uid}`;
    const row = await eventually(async () => {
      const r = await rows(['pvc', 'data']);
      return r[1][1] === 'Bound' ? r : undefined;
    }, 10_000, 'claim Bound');
    assert.deepEqual(row[0].slice(0, 6), ['NAME', 'STATUS', 'VOLUME', 'CAPACITY', 'ACCESS MODES', 'STORAGECLASS']);
    assert.deepEqual(row[1].slice(0, 6), ['data', 'Bound', pvName, '1Gi', 'RWO', 'local-path']);

    const pvRows = await rows(['pv']);
    assert.deepEqual(pvRows[1].slice(0, 7), [pvName, '1Gi', 'RWO', 'Delete', 'Bound', 'default/data', 'local-path']);

    const pv = JSON.parse((await cluster.kubectl(['get', 'pv', pvName, '-o', 'json'])).stdout);
    const dir = join(base, `${pvName}_default_data`);
    assert.deepEqual(pv.spec.hostPath, { path: dir, type: 'DirectoryOrCreate' });
    assert.deepEqual(pv.spec.nodeAffinity.required.nodeSelectorTerms, [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['worker-1'] }] }]);
    assert.equal(pv.metadata.annotations['pv.kubernetes.io/provisioned-by'], 'rancher.io/local-path');
    assert.equal(pv.spec.claimRef.uid, claim.metadata.uid);
    assert.equal(pv.status.phase, 'Bound');
    assert.ok(existsSync(dir), 'volume directory made');

    const bound = JSON.parse((await cluster.kubectl(['get', 'pvc', 'data', '-o', 'json'])).stdout);
    assert.equal(bound.spec.volumeName, pvName);
    for (const [k, v] of Object.entries({
      'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes',
      'volume.kubernetes.io/storage-provisioner': 'rancher.io/local-path', 'volume.beta.kubernetes.io/storage-provisioner': 'rancher.io/local-path',
      'volume.kubernetes.io/selected-node': 'worker-1',
    })) assert.equal(bound.metadata.annotations[k], v, k);
    assert.deepEqual(bound.status, { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } });

    const reasons = await eventually(async () => {
      const evs = await events('data');
      return evs.some((e) => e.reason === 'ProvisioningSucceeded') ? evs : undefined;
    }, 5000, 'ProvisioningSucceeded');
    assert.ok(reasons.some((e) => e.reason === 'ProvisioningSucceeded' && e.message === `Successfully provisioned volume ${pvName}`));
    assert.ok(reasons.some((e) => e.reason === 'ExternalProvisioning'));

    // The scheduler's predicate, over what the API serves: the pod can only go to worker-1.
    const nodes = JSON.parse((await cluster.kubectl(['get', 'nodes', '-o', 'json'])).stdout).items;
    const scs = JSON.parse((await cluster.kubectl(['get', 'sc', '-o', 'json'])).stdout).items;
    const pod = { metadata: { name: 'web-0', namespace: 'default' }, spec: { containers: [], volumes: [{ name: 'www', persistentVolumeClaim: { claimName: 'data' } }] } };
    const fit = (n: any) => podVolumesFitNode(pod, n, new Map([['default/data', bound]]), new Map([[pvName, pv]]), new Map(scs.map((s: any) => [s.metadata.name, s])));
    assert.deepEqual(fit(nodes.find((n: any) => n.metadata.name === 'worker-1')), { ok: true });
    assert.equal((fit(nodes.find((n: any) => n.metadata.name === 'worker-2')) as any).reason, 'node(s) had volume node affinity conflict');

    await cluster.kubectl(['delete', 'pvc', 'data']);
    await eventually(async () => (await cluster.kubectl(['get', 'pv', '-o', 'name'])).stdout.trim() === '', 10_000, 'PV deleted');
    assert.ok(!existsSync(dir), 'volume directory removed');
  });

  test('a Retain class (Immediate) keeps the Released volume', async () => {
    await cluster.kubectl(['apply', '-f', '-'], {
      input: `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: keep
provisioner: rancher.io/local-path
reclaimPolicy: Retain
volumeBindingMode: Immediate
---
${claimYaml('kept', 'keep')}`,
    });
    const row = await eventually(async () => {
      const r = await rows(['pvc', 'kept']);
      return r[1][1] === 'Bound' ? r : undefined;
    }, 10_000, 'Immediate claim Bound');
    const pvName = row[1][2];
    const pv = JSON.parse((await cluster.kubectl(['get', 'pv', pvName, '-o', 'json'])).stdout);
    assert.equal(pv.spec.persistentVolumeReclaimPolicy, 'Retain');
    assert.ok(['worker-1', 'worker-2'].includes(pv.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]));

    await cluster.kubectl(['delete', 'pvc', 'kept']);
    const released = await eventually(async () => {
      const r = await rows(['pv', pvName]);
      return r[1][4] === 'Released' ? r : undefined;
    }, 10_000, 'PV Released');
    assert.deepEqual(released[1].slice(0, 7), [pvName, '1Gi', 'RWO', 'Retain', 'Released', 'default/kept', 'keep']);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal((await rows(['pv', pvName]))[1][4], 'Released', 'still there after a resync');
    assert.ok(existsSync(pv.spec.hostPath.path), 'directory kept');
  });

  test('static binding as in the docs (task-pv-volume / task-pv-claim, class manual)', async () => {
    await cluster.kubectl(['apply', '-f', '-'], {
      input: `apiVersion: v1
kind: PersistentVolume
metadata:
  name: task-pv-volume
  labels:
    type: local
spec:
  storageClassName: manual
  capacity:
    storage: 10Gi
  accessModes:
    - ReadWriteOnce
  hostPath:
    path: "/mnt/data"
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: task-pv-claim
spec:
  storageClassName: manual
  accessModes:
    - ReadWriteOnce
  resources:
    requests:
      storage: 3Gi
`,
    });
    const pvRow = await eventually(async () => {
      const r = await rows(['pv', 'task-pv-volume']);
      return r[1][4] === 'Bound' ? r : undefined;
    }, 10_000, 'static PV Bound');
    assert.deepEqual(pvRow[1].slice(0, 7), ['task-pv-volume', '10Gi', 'RWO', 'Retain', 'Bound', 'default/task-pv-claim', 'manual']);
    const claimRow = await eventually(async () => {
      const r = await rows(['pvc', 'task-pv-claim']);
      return r[1][1] === 'Bound' ? r : undefined;
    }, 10_000, 'static claim Bound');
    assert.deepEqual(claimRow[1].slice(0, 6), ['task-pv-claim', 'Bound', 'task-pv-volume', '10Gi', 'RWO', 'manual']);
    const pv = JSON.parse((await cluster.kubectl(['get', 'pv', 'task-pv-volume', '-o', 'json'])).stdout);
    assert.equal(pv.metadata.annotations['pv.kubernetes.io/bound-by-controller'], 'yes');

    await cluster.kubectl(['delete', 'pvc', 'task-pv-claim']);
    await eventually(async () => (await rows(['pv', 'task-pv-volume']))[1][4] === 'Released', 10_000, 'static PV Released');
  });

  test('a claim of an unknown class reports ProvisioningFailed', async () => {
    await cluster.kubectl(['apply', '-f', '-'], { input: claimYaml('orphan', 'gold') });
    await eventually(async () => (await events('orphan')).some((e) => e.reason === 'ProvisioningFailed'
      && e.message === 'storageclass.storage.k8s.io "gold" not found'), 10_000, 'ProvisioningFailed event');
    assert.equal((await rows(['pvc', 'orphan']))[1][1], 'Pending');
  });
});
