/**
 * Storage Object in Use Protection (the "Persistent Volumes" concept page)
 * on a real server with the real kubectl: the StorageObjectInUseProtection
 * admission plugin puts kubernetes.io/pvc-protection and
 * kubernetes.io/pv-protection on new claims and volumes (`kubectl describe`
 * shows them); a claim a pod uses stays Terminating after `kubectl delete
 * pvc --wait=false` until the pod is gone, and a Bound volume stays
 * Terminating until its claim is gone. Whole system: the controller
 * manager (pvc-protection, pv-protection, the binder, the scheduler) in the
 * server, one simulated node.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, type Cluster } from './harness.js';
import { Clientset, loadKubeconfig } from '../../src/client/index.js';
import { NodeSimulator } from '../../src/kubelet/index.js';
import { silentLogger } from '../../src/util/log.js';

/** A manual-class volume and a claim that binds it, as one List. */
const volumeAndClaim = (pv: string, claim: string) => JSON.stringify({
  apiVersion: 'v1', kind: 'List', items: [
    { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: pv },
      spec: { storageClassName: 'manual', capacity: { storage: '2Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/mnt/protected' } } },
    { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: claim },
      spec: { storageClassName: 'manual', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
  ],
});

/** A pod with the claim mounted. */
const podUsing = (pod: string, claim: string) => JSON.stringify({
  apiVersion: 'v1', kind: 'Pod', metadata: { name: pod },
  spec: {
    volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claim } }],
    containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'], volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
  },
});

describe('Storage Object in Use Protection (whole system, real kubectl)', () => {
  let cluster: Cluster;
  let clients: Clientset;
  let sim: NodeSimulator;
  const kubectl = (args: string[], input?: string) => cluster.kubectl(args, input === undefined ? {} : { input });
  /** The STATUS column of `kubectl get pvc|pv NAME`. */
  const status = async (kind: 'pvc' | 'pv', name: string, allowFail = false) => {
    const { stdout, code } = await cluster.kubectl(['get', kind, name, '--no-headers'], { allowFail });
    if (code !== 0) return undefined;
    return stdout.trim().split(/\s+/)[kind === 'pvc' ? 1 : 4];
  };
  const gone = async (kind: string, name: string) => (await cluster.kubectl(['get', kind, name], { allowFail: true })).code !== 0;

  before(async () => {
    cluster = await startCluster({ controllers: 'all' });
    clients = new Clientset(loadKubeconfig(cluster.kubeconfig));
    sim = new NodeSimulator(clients, { count: 0, renewIntervalMs: 1000, events: false, readyDelayMs: 100, logger: silentLogger });
    await sim.start();
    await sim.addNode('worker1');
  });

  after(async () => {
    await sim?.close();
    clients?.close();
    await cluster?.cleanup();
  });

  it('new claims and volumes get the finalizers; kubectl describe shows them', async () => {
    await kubectl(['apply', '-f', '-'], volumeAndClaim('task-pv-volume', 'task-pv-claim'));
    await eventually(async () => (await status('pvc', 'task-pv-claim')) === 'Bound', 15_000, 'claim Bound');
    const pvc = (await kubectl(['describe', 'pvc', 'task-pv-claim'])).stdout;
    assert.match(pvc, /^Finalizers:\s+\[kubernetes\.io\/pvc-protection\]$/m);
    const pv = (await kubectl(['describe', 'pv', 'task-pv-volume'])).stdout;
    assert.match(pv, /^Finalizers:\s+\[kubernetes\.io\/pv-protection\]$/m);
    assert.equal((await kubectl(['get', 'pvc', 'task-pv-claim', '-o', 'jsonpath={.metadata.finalizers}'])).stdout, '["kubernetes.io/pvc-protection"]');
  });

  it('a claim in use stays Terminating until its pod is deleted; its Bound volume until the claim is gone', async () => {
    await kubectl(['apply', '-f', '-'], podUsing('task-pv-pod', 'task-pv-claim'));
    await kubectl(['wait', '--for=condition=Ready', 'pod/task-pv-pod', '--timeout=60s']);
    const mark = cluster.serverLog().length;
    const deleted = await kubectl(['delete', 'pvc', 'task-pv-claim', '--wait=false']);
    assert.equal(deleted.stdout, 'persistentvolumeclaim "task-pv-claim" deleted\n');
    // The controller saw the deletion and kept the claim (its log line), and it still is there, Terminating.
    await eventually(async () => cluster.serverLog().slice(mark).includes('Keeping PVC because it is being used') || undefined, 15_000, 'pvc-protection kept the claim');
    assert.equal(await status('pvc', 'task-pv-claim'), 'Terminating');
    assert.match((await kubectl(['describe', 'pvc', 'task-pv-claim'])).stdout, /^Status:\s+Terminating \(lasts .+\)$/m);

    // The volume is Bound to the Terminating claim: deleting it leaves it Terminating too.
    await kubectl(['delete', 'pv', 'task-pv-volume', '--wait=false']);
    await eventually(async () => cluster.serverLog().slice(mark).includes('Keeping PV because it is being used') || undefined, 15_000, 'pv-protection kept the volume');
    assert.equal(await status('pv', 'task-pv-volume'), 'Terminating');

    // The pod goes: the claim is released, then the volume (Released, not Bound) too.
    await kubectl(['delete', 'pod', 'task-pv-pod']);
    await eventually(async () => (await gone('pvc', 'task-pv-claim')) || undefined, 15_000, 'claim removed once unused');
    await eventually(async () => (await gone('pv', 'task-pv-volume')) || undefined, 15_000, 'volume removed once not Bound');
  });

  it('a claim no pod uses goes at once (kubectl delete waits for it)', async () => {
    await kubectl(['apply', '-f', '-'], volumeAndClaim('free-pv', 'free-claim'));
    await eventually(async () => (await status('pvc', 'free-claim')) === 'Bound', 15_000, 'claim Bound');
    assert.equal((await kubectl(['delete', 'pvc', 'free-claim', '--timeout=30s'])).stdout, 'persistentvolumeclaim "free-claim" deleted\n');
    assert.ok(await gone('pvc', 'free-claim'));
    await eventually(async () => (await status('pv', 'free-pv')) === 'Released' || undefined, 15_000, 'volume Released');
    await kubectl(['delete', 'pv', 'free-pv', '--timeout=30s']);
    assert.ok(await gone('pv', 'free-pv'));
  });
});
