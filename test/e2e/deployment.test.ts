/**
 * Deployments, ReplicaSets and ReplicationControllers end to end: a real
 * `k8ts server` running the replicaset, deployment, replicationcontroller,
 * garbage-collector controllers and the scheduler, simulated nodes
 * (NodeSimulator) running the pods, and the real kubectl.
 *
 * A Deployment (6 replicas, maxSurge 2, maxUnavailable 1) is rolled forward,
 * paused and resumed, undone, and scaled in the middle of a rollout. Watches
 * on its ReplicaSets and pods (informers in this process) check at every
 * single event that the ReplicaSets' sizes never add up to more than
 * replicas + maxSurge and the available pods never drop below
 * replicas − maxUnavailable, for the replicas in force during the phase
 * (both ends while it changes). maxSurge bounds the ReplicaSets' sizes, as
 * upstream's controller computes it (NewRSNewReplicas totals spec.replicas):
 * the pods themselves may pass it for a moment while a ReplicaSet just
 * scaled down still has pods its controller has not deleted yet (CI once saw
 * 13 pods for a bound of 12 under load). A Recreate Deployment never has an
 * old and a new pod at once.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { startCluster, eventually, type Cluster } from './harness.js';
import { Clientset, InformerFactory, loadKubeconfig } from '../../src/client/index.js';
import type { Informer } from '../../src/client/index.js';
import { NodeSimulator } from '../../src/kubelet/index.js';
import { silentLogger } from '../../src/util/log.js';
import { podIsReady } from '../../src/api/pods.js';

const timeout = 60_000;

/** Counts the app's pods and ReplicaSet sizes at every watch event and remembers the extremes. */
class PodCountWatcher {
  maxActive = 0;
  maxDesired = 0;
  minAvailable = Infinity;
  events = 0;
  private watching = false;
  constructor(private readonly pods: Informer, private readonly replicaSets: Informer, private readonly app: string) {
    const on = () => this.observe();
    pods.addEventHandler({ add: on, update: on, delete: on });
    replicaSets.addEventHandler({ add: on, update: on, delete: on });
  }

  counts(): { active: number; available: number; desired: number } {
    const mine = this.pods.list().filter((p) => p.metadata.labels?.app === this.app && !p.metadata.deletionTimestamp);
    const rss = this.replicaSets.list().filter((r) => r.metadata.labels?.app === this.app);
    const desired = rss.reduce((n, r) => n + (r.spec?.replicas ?? 1), 0);
    return { active: mine.length, available: mine.filter(podIsReady).length, desired };
  }

  start(): void {
    this.watching = true;
    this.events = 0;
    this.maxActive = 0;
    this.maxDesired = 0;
    this.minAvailable = Infinity;
    this.observe();
  }

  stop(): { maxDesired: number; maxActive: number; minAvailable: number; events: number } {
    this.watching = false;
    return { maxDesired: this.maxDesired, maxActive: this.maxActive, minAvailable: this.minAvailable, events: this.events };
  }

  private observe(): void {
    if (!this.watching) return;
    this.events++;
    const { active, available, desired } = this.counts();
    this.maxActive = Math.max(this.maxActive, active);
    this.maxDesired = Math.max(this.maxDesired, desired);
    this.minAvailable = Math.min(this.minAvailable, available);
  }
}

describe('Deployments, ReplicaSets and ReplicationControllers on simulated nodes', () => {
  let cluster: Cluster;
  let clients: Clientset;
  let sim: NodeSimulator;
  let informers: InformerFactory;
  let watcher: PodCountWatcher;

  const kubectl = async (...args: string[]) => (await cluster.kubectl(args)).stdout;
  const json = async (...args: string[]) => JSON.parse(await kubectl(...args, '-o', 'json'));
  const images = async (app: string) => {
    const pods = (await json('get', 'pods', '-l', `app=${app}`)).items.filter((p: any) => !p.metadata.deletionTimestamp);
    return pods.map((p: any) => p.spec.containers[0].image).sort();
  };
  const rolledOut = async (name: string) => {
    const out = await kubectl('rollout', 'status', `deployment/${name}`, '--timeout=60s');
    assert.match(out, new RegExp(`deployment "${name}" successfully rolled out`));
  };
  /** Waits until the Deployment's controller has seen its latest spec. */
  const observed = (name: string) => eventually(async () => {
    const d = await json('get', 'deployment', name);
    return (d.status?.observedGeneration ?? 0) >= d.metadata.generation && d;
  }, timeout, `${name} observed`);

  before(async () => {
    cluster = await startCluster({ controllers: 'replicaset,deployment,replicationcontroller,garbagecollector,scheduler' });
    clients = new Clientset(loadKubeconfig(cluster.kubeconfig));
    sim = new NodeSimulator(clients, { count: 4, renewIntervalMs: 1000, logger: silentLogger });
    await sim.start();
    informers = new InformerFactory(clients);
    watcher = new PodCountWatcher(informers.informer('pods'), informers.informer('replicasets'), 'web');
    informers.start();
    await informers.waitForSync();
  });

  after(async () => {
    informers?.stop();
    await sim?.close();
    clients?.close();
    await cluster?.cleanup();
  });

  it('kubectl create deployment brings up the replicas through a pod-template-hash ReplicaSet', async () => {
    assert.match(await kubectl('create', 'deployment', 'web', '--image=nginx:1.26', '--replicas=6'), /deployment.apps\/web created/);
    await kubectl('patch', 'deployment', 'web', '--type=merge', '-p', JSON.stringify({ spec: { strategy: { rollingUpdate: { maxSurge: 2, maxUnavailable: 1 } } } }));
    await rolledOut('web');
    const rss = (await json('get', 'rs', '-l', 'app=web')).items;
    assert.equal(rss.length, 1);
    const hash = rss[0].metadata.labels['pod-template-hash'];
    assert.match(hash, /^[bcdfghjklmnpqrstvwxz2456789]+$/);
    assert.equal(rss[0].metadata.name, `web-${hash}`);
    assert.equal(rss[0].spec.selector.matchLabels['pod-template-hash'], hash);
    assert.equal(rss[0].metadata.annotations['deployment.kubernetes.io/revision'], '1');
    assert.deepEqual(rss[0].metadata.ownerReferences.map((r: any) => [r.kind, r.name, r.controller, r.blockOwnerDeletion]), [['Deployment', 'web', true, true]]);
    const pods = (await json('get', 'pods', '-l', 'app=web')).items;
    assert.equal(pods.length, 6);
    for (const p of pods) {
      assert.match(p.metadata.name, new RegExp(`^web-${hash}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
      assert.equal(p.metadata.ownerReferences[0].name, rss[0].metadata.name);
    }
    const d = await json('get', 'deployment', 'web');
    assert.deepEqual(d.status.conditions.map((c: any) => [c.type, c.status, c.reason]).sort(),
      [['Available', 'True', 'MinimumReplicasAvailable'], ['Progressing', 'True', 'NewReplicaSetAvailable']]);
    assert.equal(d.status.availableReplicas, 6);
    const header = (await kubectl('get', 'deploy,rs')).split('\n').filter((l) => l.startsWith('NAME'));
    assert.deepEqual(header.map((h) => h.trim().split(/\s+/)), [['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE'], ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE']]);
    assert.match(await kubectl('get', 'deploy', 'web', '--no-headers'), /^web\s+6\/6\s+6\s+6\s+/);
  });

  it('a rolling update stays within maxSurge and maxUnavailable at every watched pod event', async () => {
    watcher.start();
    await kubectl('set', 'image', 'deployment/web', 'nginx=nginx:1.27');
    await rolledOut('web');
    await eventually(async () => (await images('web')).every((i: string) => i === 'nginx:1.27') && watcher.counts().active === 6, timeout, 'old pods gone');
    const seen = watcher.stop();
    assert.ok(seen.events > 12, `watched ${seen.events} events`);
    assert.ok(seen.maxDesired <= 6 + 2, `ReplicaSets add up to at most replicas + maxSurge, saw ${JSON.stringify(seen)}`);
    assert.ok(seen.minAvailable >= 6 - 1, `at least replicas - maxUnavailable available, saw ${seen.minAvailable}`);
    const history = await kubectl('rollout', 'history', 'deployment/web');
    assert.match(history, /REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);
  });

  it('a paused Deployment records changes without rolling them out; resume rolls them out', async () => {
    assert.match(await kubectl('rollout', 'pause', 'deployment/web'), /deployment.apps\/web paused/);
    await kubectl('set', 'image', 'deployment/web', 'nginx=nginx:1.28');
    const d = await observed('web');
    assert.equal(d.spec.paused, true);
    const progressing = d.status.conditions.find((c: any) => c.type === 'Progressing');
    assert.deepEqual([progressing.status, progressing.reason, progressing.message], ['Unknown', 'DeploymentPaused', 'Deployment is paused']);
    assert.equal((await json('get', 'rs', '-l', 'app=web')).items.length, 2, 'no ReplicaSet for the paused template');
    assert.deepEqual(await images('web'), Array(6).fill('nginx:1.27'));
    // An annotation-only change bumps the generation (upstream's strategy) and is observed.
    const before = d.metadata.generation;
    await kubectl('annotate', 'deployment', 'web', 'kubernetes.io/change-cause=pin nginx 1.28');
    assert.equal((await observed('web')).metadata.generation, before + 1);
    watcher.start();
    assert.match(await kubectl('rollout', 'resume', 'deployment/web'), /deployment.apps\/web resumed/);
    await rolledOut('web');
    await eventually(async () => (await images('web')).every((i: string) => i === 'nginx:1.28') && watcher.counts().active === 6, timeout, 'resumed rollout done');
    const seen = watcher.stop();
    assert.ok(seen.maxDesired <= 8 && seen.minAvailable >= 5, JSON.stringify(seen));
    assert.equal((await json('get', 'deployment', 'web')).metadata.annotations['deployment.kubernetes.io/revision'], '3');
  });

  it('rollout undo rolls back to the previous template as a new revision', async () => {
    watcher.start();
    assert.match(await kubectl('rollout', 'undo', 'deployment/web'), /deployment.apps\/web rolled back/);
    await rolledOut('web');
    await eventually(async () => (await images('web')).every((i: string) => i === 'nginx:1.27') && watcher.counts().active === 6, timeout, 'undo done');
    const seen = watcher.stop();
    assert.ok(seen.maxDesired <= 8 && seen.minAvailable >= 5, JSON.stringify(seen));
    // Revision 2's ReplicaSet is reused as revision 4 and remembers its old number.
    const rss = (await json('get', 'rs', '-l', 'app=web')).items;
    const current = rss.find((r: any) => r.spec.replicas === 6);
    assert.equal(current.metadata.annotations['deployment.kubernetes.io/revision'], '4');
    assert.equal(current.metadata.annotations['deployment.kubernetes.io/revision-history'], '2');
    assert.match(await kubectl('rollout', 'history', 'deployment/web'), /REVISION\s+CHANGE-CAUSE\n1\s+<none>\n3\s+pin nginx 1\.28\n4\s+<none>/);
  });

  it('scaling in the middle of a rollout scales the ReplicaSets proportionally and stays within bounds', async () => {
    watcher.start();
    await kubectl('set', 'image', 'deployment/web', 'nginx=nginx:1.29');
    await kubectl('scale', 'deployment/web', '--replicas=10');
    await rolledOut('web');
    await eventually(async () => {
      const imgs = await images('web');
      return imgs.length === 10 && imgs.every((i: string) => i === 'nginx:1.29') && watcher.counts().active === 10;
    }, timeout, 'scaled rollout done');
    const seen = watcher.stop();
    // Replicas went from 6 to 10: ReplicaSets of at most 10 + 2 in all, at least 6 - 1 pods available.
    assert.ok(seen.maxDesired <= 12, `ReplicaSets add up to at most 12, saw ${JSON.stringify(seen)}`);
    assert.ok(seen.minAvailable >= 5, `saw ${JSON.stringify(seen)}`);
    const d = await json('get', 'deployment', 'web');
    assert.deepEqual([d.status.replicas, d.status.updatedReplicas, d.status.readyReplicas, d.status.availableReplicas], [10, 10, 10, 10]);
    const active = (await json('get', 'rs', '-l', 'app=web')).items.filter((r: any) => r.spec.replicas > 0);
    assert.equal(active.length, 1);
    assert.equal(active[0].metadata.annotations['deployment.kubernetes.io/desired-replicas'], '10');
    assert.equal(active[0].metadata.annotations['deployment.kubernetes.io/max-replicas'], '12');
    const events = await kubectl('get', 'events', '--field-selector', 'involvedObject.name=web,reason=ScalingReplicaSet', '-o', 'jsonpath={.items[*].message}');
    assert.match(events, /Scaled up replica set web-\w+ from \d+ to \d+/);
  });

  it('kubectl scale down keeps the ready pods and expose finds the selector', async () => {
    await kubectl('scale', 'deployment/web', '--replicas=3');
    await eventually(async () => watcher.counts().active === 3 && (await json('get', 'deployment', 'web')).status.replicas === 3, timeout, 'scaled down');
    assert.match(await kubectl('expose', 'deployment', 'web', '--port=80'), /service\/web exposed/);
    const svc = await json('get', 'service', 'web');
    assert.deepEqual(svc.spec.selector, { app: 'web' });
  });

  it('Recreate removes every old pod before the first new one exists', async () => {
    await cluster.kubectl(['apply', '-f', '-'], {
      input: stringify({
        apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'rec' },
        spec: {
          replicas: 3, strategy: { type: 'Recreate' }, selector: { matchLabels: { app: 'rec' } },
          template: { metadata: { labels: { app: 'rec' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.26' }] } },
        },
      }),
    });
    await rolledOut('rec');
    const pods = informers.informer('pods');
    let overlap = 0;
    let sawNew = false;
    const check = () => {
      const mine = pods.list().filter((p) => p.metadata.labels?.app === 'rec');
      const olds = mine.filter((p) => p.spec.containers[0].image === 'nginx:1.26').length;
      const news = mine.filter((p) => p.spec.containers[0].image === 'nginx:1.27').length;
      if (news > 0) sawNew = true;
      overlap = Math.max(overlap, Math.min(olds, news));
    };
    pods.addEventHandler({ add: check, update: check, delete: check });
    await kubectl('set', 'image', 'deployment/rec', 'c=nginx:1.27');
    await rolledOut('rec');
    await eventually(async () => (await images('rec')).join() === 'nginx:1.27,nginx:1.27,nginx:1.27', timeout, 'recreated');
    assert.equal(sawNew, true);
    assert.equal(overlap, 0, 'an old pod (even terminating) and a new pod never existed together');
  });

  it('a ReplicaSet adopts matching orphan pods and creates only the missing ones', async () => {
    for (const name of ['orphan-a', 'orphan-b']) {
      await cluster.kubectl(['apply', '-f', '-'], {
        input: stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'orphan' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }),
      });
    }
    await cluster.kubectl(['apply', '-f', '-'], {
      input: stringify({
        apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'adopter' },
        spec: {
          replicas: 3, selector: { matchLabels: { app: 'orphan' } },
          template: { metadata: { labels: { app: 'orphan' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
        },
      }),
    });
    const rs = await eventually(async () => {
      const r = await json('get', 'rs', 'adopter');
      return r.status?.readyReplicas === 3 && r;
    }, timeout, 'adopter ready');
    const pods = (await json('get', 'pods', '-l', 'app=orphan')).items;
    assert.equal(pods.length, 3);
    for (const p of pods) assert.deepEqual(p.metadata.ownerReferences.map((r: any) => [r.kind, r.uid, r.controller]), [['ReplicaSet', rs.metadata.uid, true]]);
    assert.deepEqual(pods.map((p: any) => p.metadata.name).filter((n: string) => n.startsWith('orphan-')).sort(), ['orphan-a', 'orphan-b']);
    // A pod whose labels stop matching is released.
    await kubectl('label', 'pod', 'orphan-a', 'app=gone', '--overwrite');
    await eventually(async () => {
      const released = await json('get', 'pod', 'orphan-a');
      return (released.metadata.ownerReferences ?? []).length === 0 && (await json('get', 'pods', '-l', 'app=orphan')).items.length === 3;
    }, timeout, 'orphan-a released and replaced');
  });

  it('a ReplicationController keeps its replicas and scales with kubectl scale', async () => {
    await cluster.kubectl(['apply', '-f', '-'], {
      input: stringify({
        apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'legacy' },
        spec: { replicas: 2, template: { metadata: { labels: { app: 'legacy' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
      }),
    });
    const ready = (n: number) => eventually(async () => {
      const rc = await json('get', 'rc', 'legacy');
      const pods = (await json('get', 'pods', '-l', 'app=legacy')).items.filter((p: any) => !p.metadata.deletionTimestamp);
      return rc.status?.readyReplicas === n && rc.status?.replicas === n && pods.length === n && rc;
    }, timeout, `legacy at ${n}`);
    const rc = await ready(2);
    assert.deepEqual(rc.spec.selector, { app: 'legacy' }, 'selector defaulted from the template labels');
    assert.match(await kubectl('scale', 'rc', 'legacy', '--replicas=4'), /replicationcontroller\/legacy scaled/);
    await ready(4);
    await kubectl('scale', 'rc', 'legacy', '--replicas=1');
    await ready(1);
    const row = (await kubectl('get', 'rc', 'legacy', '-o', 'wide')).split('\n');
    assert.deepEqual(row[0].trim().split(/\s+/), ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    assert.match(row[1], /^legacy\s+1\s+1\s+1\s+\S+\s+c\s+nginx\s+app=legacy/);
    const pod = (await json('get', 'pods', '-l', 'app=legacy')).items.find((p: any) => !p.metadata.deletionTimestamp);
    assert.deepEqual(pod.metadata.ownerReferences.map((r: any) => [r.apiVersion, r.kind, r.name]), [['v1', 'ReplicationController', 'legacy']]);
  });
});
