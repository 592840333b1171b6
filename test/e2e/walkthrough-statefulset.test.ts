/**
 * The seed notes' StatefulSet walkthrough and the upstream `web` example on
 * the whole system: in-process controllers and scheduler, simulated nodes,
 * the local-path provisioner, driven with the real kubectl.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCluster, eventually, seedsDir, type Cluster } from './harness.js';
import { seedManifests } from './seed-manifests.js';
import { Clientset, loadKubeconfig } from '../../src/client/index.js';
import { NodeSimulator } from '../../src/kubelet/index.js';
import { silentLogger } from '../../src/util/log.js';

async function getJSON(cluster: Cluster, args: string[]): Promise<any> {
  return JSON.parse((await cluster.kubectl(['get', ...args, '-o', 'json'])).stdout);
}

describe('seed walkthrough: StatefulSets and their volumes (whole system)', () => {
  let cluster: Cluster;
  let clients: Clientset;
  let sim: NodeSimulator;
  const manifests = seedManifests(seedsDir);

  before(async () => {
    cluster = await startCluster({
      controllers: 'all',
      extraArgs: ['--node-monitor-grace-period', '3s', '--pod-gc-quarantine', '1s',
        '--default-not-ready-toleration-seconds', '2', '--default-unreachable-toleration-seconds', '2'],
    });
    clients = new Clientset(loadKubeconfig(cluster.kubeconfig));
    sim = new NodeSimulator(clients, { count: 0, renewIntervalMs: 1000, events: false, readyDelayMs: 300, logger: silentLogger });
    await sim.start();
    await sim.addNode('control-plane', { controlPlane: true });
    await sim.addNode('worker1');
    await sim.addNode('worker2');
  });

  after(async () => {
    await sim?.close();
    clients?.close();
    await cluster?.cleanup();
  });

  it('muzzi (OrderedReady) creates muzzi-0, -1, -2 in order, each after the previous is Ready', async () => {
    const m = manifests.find((x) => x.obj.kind === 'StatefulSet' && x.obj.metadata.name === 'muzzi' && !x.obj.spec.podManagementPolicy)!;
    const path = join(cluster.dataDir, 'muzzi.yaml');
    writeFileSync(path, m.yaml);
    await cluster.kubectl(['create', '-f', path]);
    const pods = await eventually(async () => {
      const list = (await getJSON(cluster, ['pods', '-l', 'app=nginx-statefulset'])).items;
      const ready = list.filter((p: any) => p.status.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True'));
      return ready.length === 3 && list;
    }, 30_000, 'three ready muzzi pods');
    const byName = new Map<string, any>(pods.map((p: any) => [p.metadata.name, p]));
    for (const [prev, next] of [['muzzi-0', 'muzzi-1'], ['muzzi-1', 'muzzi-2']]) {
      const readyAt = Date.parse(byName.get(prev).status.conditions.find((c: any) => c.type === 'Ready').lastTransitionTime);
      const createdAt = Date.parse(byName.get(next).metadata.creationTimestamp);
      assert.ok(createdAt >= readyAt, `${next} created (${createdAt}) before ${prev} was Ready (${readyAt})`);
    }
    const { stdout } = await cluster.kubectl(['get', 'sts', 'muzzi', '--no-headers']);
    assert.match(stdout, /^muzzi\s+3\/3\s+/);
  });

  it('kubectl scale statefulset muzzi --replicas=2 removes muzzi-2; --replicas=5 adds 2, 3, 4', async () => {
    await cluster.kubectl(['scale', 'statefulset', 'muzzi', '--replicas=2']);
    await eventually(async () => {
      const names = (await getJSON(cluster, ['pods', '-l', 'app=nginx-statefulset'])).items.map((p: any) => p.metadata.name).sort();
      return names.join(',') === 'muzzi-0,muzzi-1';
    }, 30_000, 'muzzi-2 removed');
    await cluster.kubectl(['scale', 'statefulset', 'muzzi', '--replicas=5']);
    const pods = await eventually(async () => {
      const list = (await getJSON(cluster, ['pods', '-l', 'app=nginx-statefulset'])).items;
      return list.length === 5 && list.every((p: any) => p.status.phase === 'Running') && list;
    }, 30_000, 'five muzzi pods');
    const created = (n: string) => Date.parse(pods.find((p: any) => p.metadata.name === n).metadata.creationTimestamp);
    assert.ok(created('muzzi-2') <= created('muzzi-3') && created('muzzi-3') <= created('muzzi-4'));
  });

  it('the upstream web StatefulSet gets claims www-web-0/1 bound to local volumes; a deleted pod comes back with its claim and node', async () => {
    const svc = manifests.find((x) => x.obj.kind === 'Service' && x.obj.metadata.name === 'nginx')!;
    const web = manifests.find((x) => x.obj.kind === 'StatefulSet' && x.obj.metadata.name === 'web')!;
    const path = join(cluster.dataDir, 'web.yaml');
    writeFileSync(path, `${svc.yaml}---\n${web.yaml}`);
    await cluster.kubectl(['create', '-f', path]);
    await eventually(async () => {
      const pvcs = (await getJSON(cluster, ['pvc'])).items;
      const bound = pvcs.filter((c: any) => c.status.phase === 'Bound').map((c: any) => c.metadata.name).sort();
      return bound.join(',') === 'www-web-0,www-web-1';
    }, 45_000, 'www-web-0 and www-web-1 Bound');
    const before = await eventually(async () => {
      const p = await getJSON(cluster, ['pod', 'web-1']);
      return p.status.phase === 'Running' && p;
    }, 30_000, 'web-1 running');
    await cluster.kubectl(['delete', 'pod', 'web-1', '--wait=false']); // the uid wait below, not kubectl 1.32's (docs/workloads.md)
    const after = await eventually(async () => {
      const p = await getJSON(cluster, ['pod', 'web-1']).catch(() => undefined);
      return p && p.metadata.uid !== before.metadata.uid && p.status.phase === 'Running' && p;
    }, 30_000, 'web-1 back');
    assert.equal(after.spec.nodeName, before.spec.nodeName);
    const claim = (p: any) => p.spec.volumes.find((v: any) => v.name === 'www').persistentVolumeClaim.claimName;
    assert.equal(claim(after), 'www-web-1');
    const ep = await eventually(async () => {
      const e = await getJSON(cluster, ['endpoints', 'nginx']);
      const addrs = e.subsets?.[0]?.addresses ?? [];
      return addrs.length === 2 && addrs;
    }, 30_000, 'nginx endpoints');
    assert.deepEqual(ep.map((a: any) => a.hostname).sort(), ['web-0', 'web-1']);
  });

  it('with whenScaled: Delete, scaling web down deletes the condemned claim and its volume', async () => {
    await cluster.kubectl(['patch', 'sts', 'web', '--type', 'merge', '-p', '{"spec":{"persistentVolumeClaimRetentionPolicy":{"whenScaled":"Delete"}}}']);
    const pv = (await getJSON(cluster, ['pvc', 'www-web-1'])).spec.volumeName;
    await cluster.kubectl(['scale', 'sts', 'web', '--replicas=1']);
    await eventually(async () => {
      const names = (await getJSON(cluster, ['pvc'])).items.map((c: any) => c.metadata.name);
      return names.includes('www-web-0') && !names.includes('www-web-1');
    }, 30_000, 'www-web-1 deleted');
    await eventually(async () => !(await getJSON(cluster, ['pv'])).items.some((v: any) => v.metadata.name === pv), 30_000, `${pv} deleted`);
  });

  it('identity: a pod on a node that stops heartbeating is not replaced until its node is deleted; never two at once', async () => {
    const victim = (await getJSON(cluster, ['pod', 'muzzi-4']));
    const node = victim.spec.nodeName;
    const events: { type: string; name: string; uid: string; rv: number }[] = [];
    const list = await clients.pods.list('default');
    const watch = await clients.pods.watch('default', { resourceVersion: list.metadata.resourceVersion }, (e) => {
      if (e.object?.metadata?.name?.startsWith('muzzi-')) {
        events.push({ type: e.type, name: e.object.metadata.name, uid: e.object.metadata.uid, rv: Number(e.object.metadata.resourceVersion) });
      }
    });
    try {
      sim.stopNode(node, { freezePods: true });
      await eventually(async () => !!(await getJSON(cluster, ['pod', 'muzzi-4'])).metadata.deletionTimestamp, 30_000, 'muzzi-4 evicted (Terminating)');
      // While its kubelet is gone the pod stays Terminating under the same uid: no replacement.
      await new Promise((r) => setTimeout(r, 2000));
      assert.equal((await getJSON(cluster, ['pod', 'muzzi-4'])).metadata.uid, victim.metadata.uid);
      await cluster.kubectl(['delete', 'node', node]);
      const back = await eventually(async () => {
        const p = await getJSON(cluster, ['pod', 'muzzi-4']).catch(() => undefined);
        return p && p.metadata.uid !== victim.metadata.uid && p.status.phase === 'Running' && p;
      }, 30_000, 'muzzi-4 recreated');
      assert.notEqual(back.spec.nodeName, node);
    } finally {
      watch.close();
    }
    // Per name, a new uid appears only after the previous uid's DELETED event.
    const live = new Map<string, string>();
    for (const e of events) {
      if (e.type === 'DELETED') { if (live.get(e.name) === e.uid) live.delete(e.name); continue; }
      const cur = live.get(e.name);
      assert.ok(!cur || cur === e.uid, `${e.name}: ${e.uid} appeared while ${cur} still existed`);
      live.set(e.name, e.uid);
    }
  });
});
