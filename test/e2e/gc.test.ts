/**
 * The garbage collector against a real `k8ts server` and the real kubectl:
 * `kubectl delete ds` with --cascade=background (the default), orphan and
 * foreground, on a DaemonSet whose pods this test creates with
 * ownerReferences itself (no DaemonSet controller runs), plus dangling and
 * absent owners. A fake kubelet finishes graceful pod deletions when allowed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually } from './harness.js';
import type { Cluster } from './harness.js';
import { Clientset, EventRecorder, InformerFactory, loadKubeconfig } from '../../src/client/index.js';
import { defaultControllerConfig } from '../../src/controllers/types.js';
import type { ControllerContext } from '../../src/controllers/types.js';
import { GarbageCollectorController } from '../../src/controllers/garbagecollector/index.js';
import { silentLogger } from '../../src/util/log.js';
import { realClock } from '../../src/util/clock.js';
import { cronTab, cronTabCRD, crdName } from './crd-fixture.js';

const dsYaml = (name: string) => `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: ${name}
spec:
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: c
        image: busybox
`;

describe('garbage collector (e2e)', { timeout: 90_000 }, () => {
  let cluster: Cluster;
  let clients: Clientset;
  let informers: InformerFactory;
  let gc: GarbageCollectorController;
  /** While true, pods with a deletionTimestamp are finished off (grace 0), as a kubelet would. */
  let kubeletActive = true;
  let kubeletTimer: NodeJS.Timeout | undefined;
  let stopped = false;

  const kubectlJSON = async (args: string[]) => JSON.parse((await cluster.kubectl([...args, '-o', 'json'])).stdout);
  const podsOf = async (app: string) => (await kubectlJSON(['get', 'pods', '-l', `app=${app}`])).items as any[];

  async function createOwnerWithPods(name: string, count = 2): Promise<any> {
    await cluster.kubectl(['create', '-f', '-'], { input: dsYaml(name) });
    const ds = await kubectlJSON(['get', 'ds', name]);
    const ref = { apiVersion: 'apps/v1', kind: 'DaemonSet', name, uid: ds.metadata.uid, controller: true, blockOwnerDeletion: true };
    for (let i = 0; i < count; i++) {
      await clients.pods.create('default', {
        apiVersion: 'v1', kind: 'Pod',
        metadata: { name: `${name}-${i}`, namespace: 'default', labels: { app: name }, ownerReferences: [ref] },
        spec: { nodeName: 'worker1', containers: [{ name: 'c', image: 'busybox' }] },
      });
    }
    return ds;
  }

  before(async () => {
    cluster = await startCluster({ extraArgs: ['--controllers', 'none'] });
    clients = new Clientset(loadKubeconfig(cluster.kubeconfig));
    informers = new InformerFactory(clients);
    const ctx: ControllerContext = {
      clients, informers, logger: silentLogger, clock: realClock,
      recorder: (component) => new EventRecorder(clients, component), config: { ...defaultControllerConfig },
    };
    // Discovery is read again every half second, so custom resources created by a test are monitored soon.
    gc = new GarbageCollectorController(ctx, { discoveryPeriodMs: 500 });
    informers.start();
    await informers.waitForSync();
    gc.run();
    const kubelet = async () => {
      if (kubeletActive) {
        try {
          for (const p of (await clients.pods.list('default')).items) {
            if (p.metadata.deletionTimestamp) await clients.pods.delete('default', p.metadata.name, { gracePeriodSeconds: 0 }).catch(() => undefined);
          }
        } catch { /* the server is going away */ }
      }
      if (!stopped) kubeletTimer = setTimeout(() => void kubelet(), 100);
    };
    void kubelet();
  });

  after(async () => {
    stopped = true;
    if (kubeletTimer) clearTimeout(kubeletTimer);
    gc?.stop();
    informers?.stop();
    clients?.close();
    await cluster?.cleanup();
  });

  it('kubectl delete ds (background) deletes its pods', async () => {
    await createOwnerWithPods('bg');
    assert.equal((await podsOf('bg')).length, 2);
    await cluster.kubectl(['delete', 'ds', 'bg']);
    await eventually(async () => (await podsOf('bg')).length === 0, 10_000, 'pods of bg deleted');
  });

  it('kubectl delete ds --cascade=orphan leaves its pods without the ownerReference', async () => {
    await createOwnerWithPods('orph');
    const r = await cluster.kubectl(['delete', 'ds', 'orph', '--cascade=orphan']);
    assert.match(r.stdout, /daemonset.apps "orph" deleted/);
    await eventually(async () => (await cluster.kubectl(['get', 'ds', 'orph', '--ignore-not-found', '-o', 'name'])).stdout.trim() === '', 10_000, 'ds gone');
    const pods = await podsOf('orph');
    assert.equal(pods.length, 2);
    for (const p of pods) {
      // Upstream omits the emptied list (omitempty); k8ts' server currently keeps `[]`.
      assert.deepEqual(p.metadata.ownerReferences ?? [], [], `${p.metadata.name} has no ownerReferences`);
      assert.equal(p.metadata.deletionTimestamp, undefined);
    }
  });

  it('kubectl delete ds --cascade=foreground keeps the owner until its pods are gone', async () => {
    await createOwnerWithPods('fg');
    kubeletActive = false;
    await cluster.kubectl(['delete', 'ds', 'fg', '--cascade=foreground', '--wait=false']);
    await eventually(async () => {
      const pods = await podsOf('fg');
      return pods.length === 2 && pods.every((p) => p.metadata.deletionTimestamp);
    }, 10_000, 'pods of fg terminating');
    const ds = await kubectlJSON(['get', 'ds', 'fg']);
    assert.ok(ds.metadata.deletionTimestamp, 'the owner is being deleted');
    assert.deepEqual(ds.metadata.finalizers, ['foregroundDeletion'], 'and waits for its dependents');
    kubeletActive = true;
    await cluster.kubectl(['wait', '--for=delete', 'ds/fg', '--timeout=20s']);
    assert.equal((await podsOf('fg')).length, 0);
  });

  it('a dependent with another owner keeps living without the deleted owner\'s reference', async () => {
    await createOwnerWithPods('multi', 1);
    const cm = await clients.resource('configmaps').create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'multi-cm' } });
    const pod = await clients.pods.get('default', 'multi-0');
    pod.metadata.ownerReferences.push({ apiVersion: 'v1', kind: 'ConfigMap', name: 'multi-cm', uid: cm.metadata.uid });
    await clients.pods.update(pod);
    await cluster.kubectl(['delete', 'configmap', 'multi-cm']);
    await eventually(async () => {
      const p = await kubectlJSON(['get', 'pod', 'multi-0']);
      return p.metadata.ownerReferences?.length === 1 && p.metadata.ownerReferences[0].kind === 'DaemonSet' && !p.metadata.deletionTimestamp;
    }, 10_000, 'dangling reference removed');
    await cluster.kubectl(['delete', 'ds', 'multi']);
    await eventually(async () => (await podsOf('multi')).length === 0, 10_000, 'pods of multi deleted');
  });

  it('an object whose owner never existed (or has another uid) is deleted', async () => {
    await cluster.kubectl(['create', '-f', '-'], { input: dsYaml('real') });
    const ownerRefs = [
      { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'nonexistent', uid: '00000000-0000-0000-0000-000000000001' },
      { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'real', uid: '00000000-0000-0000-0000-000000000002' },
    ];
    for (const [i, r] of ownerRefs.entries()) {
      await clients.resource('configmaps').create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `dangling-${i}`, labels: { app: 'dangling' }, ownerReferences: [r] } });
    }
    await eventually(async () => (await kubectlJSON(['get', 'configmaps', '-l', 'app=dangling'])).items.length === 0, 10_000, 'dangling dependents deleted');
    assert.ok(await kubectlJSON(['get', 'ds', 'real']), 'the namesake with another uid is untouched');
  });

  it('custom resources own and are owned: deleting the owner deletes the dependent', async () => {
    await cluster.kubectl(['apply', '-f', '-'], { input: cronTabCRD });
    await cluster.kubectl(['wait', '--for=condition=Established', `crd/${crdName}`, '--timeout=60s']);
    await cluster.kubectl(['apply', '-f', '-'], { input: cronTab('owner') });
    const ct = await kubectlJSON(['get', 'crontab', 'owner']);
    const toCronTab = { apiVersion: 'stable.example.com/v1', kind: 'CronTab', name: 'owner', uid: ct.metadata.uid };
    await clients.resource('configmaps').create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owned-by-ct', ownerReferences: [toCronTab] } });
    const cm = await kubectlJSON(['get', 'configmap', 'owned-by-ct']);
    const toConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owned-by-ct', uid: cm.metadata.uid };
    await cluster.kubectl(['apply', '-f', '-'], { input: cronTab('dependent').replace('  name: dependent', `  name: dependent\n  ownerReferences: [${JSON.stringify(toConfigMap)}]`) });
    const gone = async (args: string[]) => (await cluster.kubectl([...args, '--ignore-not-found', '-o', 'name'])).stdout.trim() === '';
    // The CronTab goes, so its ConfigMap goes (owner is a custom resource), so the dependent CronTab goes (dependent is one).
    await cluster.kubectl(['delete', 'crontab', 'owner']);
    await eventually(() => gone(['get', 'configmap', 'owned-by-ct']), 60_000, 'the ConfigMap owned by a CronTab collected');
    await eventually(() => gone(['get', 'crontab', 'dependent']), 60_000, 'the CronTab owned by the ConfigMap collected');
  });
});
