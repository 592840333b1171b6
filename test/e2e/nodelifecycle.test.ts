/**
 * Node lifecycle, taint eviction and pod GC against a real `k8ts server`
 * and the real kubectl. The controllers run in this process, over HTTPS,
 * with short periods; nodes are simulated here (a Lease renewed every
 * 200 ms and a Ready condition), and a tiny fake kubelet marks pods on live
 * nodes Running and Ready and finishes their graceful deletion.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually } from './harness.js';
import type { Cluster } from './harness.js';
import { Clientset, EventRecorder, InformerFactory, loadKubeconfig } from '../../src/client/index.js';
import type { Informer } from '../../src/client/index.js';
import { defaultControllerConfig } from '../../src/controllers/types.js';
import type { Controller, ControllerContext } from '../../src/controllers/types.js';
import { NodeLifecycleController } from '../../src/controllers/nodelifecycle/index.js';
import { TaintEvictionController } from '../../src/controllers/tainteviction/index.js';
import { PodGCController } from '../../src/controllers/podgc/index.js';
import { silentLogger } from '../../src/util/log.js';
import { realClock, rfc3339 } from '../../src/util/clock.js';

const microTime = (d: Date) => d.toISOString().replace('Z', '000Z');

/** A node that heartbeats through its Lease until stopped. */
class SimNode {
  private timer?: NodeJS.Timeout;
  private generation = 0;
  constructor(private readonly clients: Clientset, readonly name: string) {}

  async register(): Promise<void> {
    const now = rfc3339(new Date());
    const ready = { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: now, lastTransitionTime: now };
    await this.clients.nodes.create(undefined, {
      apiVersion: 'v1', kind: 'Node', metadata: { name: this.name, labels: { 'kubernetes.io/hostname': this.name, 'kubernetes.io/os': 'linux' } },
      status: { conditions: [ready], capacity: { cpu: '4', memory: '8Gi', pods: '110' }, allocatable: { cpu: '4', memory: '8Gi', pods: '110' } },
    });
    await this.clients.leases.create('kube-node-lease', {
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.name, namespace: 'kube-node-lease' },
      spec: { holderIdentity: this.name, leaseDurationSeconds: 40, renewTime: microTime(new Date()) },
    });
    this.start();
  }

  start(): void {
    const generation = ++this.generation;
    const beat = async () => {
      try {
        await this.clients.leases.patch('kube-node-lease', this.name, { spec: { renewTime: microTime(new Date()) } });
      } catch { /* the node may be gone */ }
      if (generation === this.generation) this.timer = setTimeout(() => void beat(), 200);
    };
    void beat();
  }

  stop(): void {
    this.generation++;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** What a recovering kubelet posts: Ready again. */
  async postReady(): Promise<void> {
    const now = rfc3339(new Date());
    const node = await this.clients.nodes.get(undefined, this.name);
    node.status.conditions = (node.status.conditions ?? []).filter((c: any) => c.type === 'Ready')
      .map(() => ({ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: now, lastTransitionTime: now }));
    await this.clients.nodes.updateStatus(node);
  }
}

/** Just enough kubelet for these tests, for the nodes it is told are alive. */
class FakeKubelet {
  readonly deleted = new Map<string, any>();
  readonly alive = new Set<string>();
  constructor(private readonly clients: Clientset, private readonly pods: Informer) {
    pods.addEventHandler({ add: (p) => this.sync(p), update: (_o, p) => this.sync(p) });
  }

  private sync(p: any): void {
    const node = p.spec?.nodeName;
    if (!node || !this.alive.has(node)) return;
    const { namespace, name, uid } = p.metadata;
    if (p.metadata.deletionTimestamp) {
      this.deleted.set(`${namespace}/${name}`, p);
      void this.clients.pods.delete(namespace, name, { gracePeriodSeconds: 0, preconditions: { uid } }).catch(() => undefined);
      return;
    }
    if (p.status?.phase === 'Pending' || !p.status?.phase) {
      const now = rfc3339(new Date());
      const conditions = ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map((type) => ({ type, status: 'True', lastTransitionTime: now }));
      void this.clients.pods.patch(namespace, name, { status: { phase: 'Running', conditions, startTime: now } }, 'strategic', 'status').catch(() => undefined);
    }
  }
}

function podManifest(name: string, nodeName: string, tolerations: any[] = []): any {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { test: 'nl' } },
    spec: { nodeName, tolerations, terminationGracePeriodSeconds: 30, containers: [{ name: 'c', image: 'busybox' }] } };
}

const unreachableFor = (seconds?: number) => ['node.kubernetes.io/unreachable', 'node.kubernetes.io/not-ready']
  .map((key) => ({ key, operator: 'Exists', effect: 'NoExecute', ...(seconds === undefined ? {} : { tolerationSeconds: seconds }) }));

describe('node lifecycle, taint eviction and pod GC (e2e)', { timeout: 90_000 }, () => {
  let cluster: Cluster;
  let clients: Clientset;
  let informers: InformerFactory;
  let kubelet: FakeKubelet;
  const controllers: Controller[] = [];
  const nodes: SimNode[] = [];

  const kubectlJSON = async (args: string[]) => JSON.parse((await cluster.kubectl([...args, '-o', 'json'])).stdout);
  const podGone = async (name: string) => {
    const r = await cluster.kubectl(['get', 'pod', name, '--ignore-not-found', '-o', 'name']);
    return r.stdout.trim() === '';
  };
  const events = async (name: string) => (await kubectlJSON(['get', 'events', '--field-selector', `involvedObject.name=${name}`])).items
    .map((e: any) => `${e.type} ${e.reason} ${e.message}`);

  before(async () => {
    cluster = await startCluster({ extraArgs: ['--controllers', 'none'] });
    clients = new Clientset(loadKubeconfig(cluster.kubeconfig));
    informers = new InformerFactory(clients);
    const ctx: ControllerContext = {
      clients, informers, logger: silentLogger, clock: realClock,
      recorder: (component) => new EventRecorder(clients, component),
      config: { ...defaultControllerConfig, nodeMonitorGracePeriodMs: 2000, nodeStartupGracePeriodMs: 3000, nodeMonitorPeriodMs: 250 },
    };
    controllers.push(new NodeLifecycleController(ctx, { evictionLimiterQPS: 10 }), new TaintEvictionController(ctx),
      new PodGCController(ctx, { gcCheckPeriodMs: 300, quarantineTimeMs: 500 }));
    kubelet = new FakeKubelet(clients, informers.informer('pods'));
    for (const name of ['worker1', 'worker2', 'worker3']) {
      const n = new SimNode(clients, name);
      await n.register();
      nodes.push(n);
      kubelet.alive.add(name);
    }
    informers.start();
    await informers.waitForSync();
    for (const c of controllers) c.run();
  });

  after(async () => {
    for (const c of controllers) c.stop();
    for (const n of nodes) n.stop();
    informers?.stop();
    clients?.close();
    await cluster?.cleanup();
  });

  it('records RegisteredNode for each node', async () => {
    await eventually(async () => (await events('worker1')).includes('Normal RegisteredNode Node worker1 event: Registered Node worker1 in Controller'),
      10_000, 'RegisteredNode event');
  });

  it('kubectl taint NoExecute evicts an untolerating pod at once, a tolerating one after tolerationSeconds, and removing the taint cancels', async () => {
    const tol = (s?: number) => [{ key: 'k', operator: 'Exists', effect: 'NoExecute', ...(s === undefined ? {} : { tolerationSeconds: s }) }];
    for (const [name, t] of [['now', []], ['after5', tol(5)], ['cancelled', tol(12)], ['forever', tol()]] as const) {
      await clients.pods.create('default', podManifest(name, 'worker1', [...t]));
    }
    await eventually(async () => (await kubectlJSON(['get', 'pod', 'forever'])).status.phase === 'Running', 10_000, 'pods running');
    const t0 = Date.now();
    await cluster.kubectl(['taint', 'nodes', 'worker1', 'k=v:NoExecute']);
    await eventually(() => podGone('now'), 5_000, 'untolerating pod evicted');
    // "At once" is an order, not a stopwatch (the machine may be loaded): the untolerating pod
    // is gone while the one that tolerates the taint for 5 s is still there.
    assert.equal(await podGone('after5'), false, `the untolerating pod went only after the tolerating one (${Date.now() - t0} ms)`);
    await eventually(() => podGone('after5'), 15_000, 'pod with tolerationSeconds 5 evicted');
    const waited = Date.now() - t0;
    assert.ok(waited >= 4800, `evicted after its tolerationSeconds (${waited} ms)`);
    const evicted = kubelet.deleted.get('default/after5');
    const cond = evicted?.status?.conditions?.find((c: any) => c.type === 'DisruptionTarget');
    assert.deepEqual({ status: cond?.status, reason: cond?.reason, message: cond?.message },
      { status: 'True', reason: 'DeletionByTaintManager', message: 'Taint manager: deleting due to NoExecute taint' });
    await cluster.kubectl(['taint', 'nodes', 'worker1', 'k=v:NoExecute-']);
    await eventually(async () => (await events('cancelled')).includes('Normal TaintManagerEviction Cancelling deletion of Pod default/cancelled'),
      5_000, 'cancellation event');
    assert.ok((await events('now')).includes('Normal TaintManagerEviction Marking for deletion Pod default/now'));
    await new Promise((r) => setTimeout(r, Math.max(0, t0 + 13_000 - Date.now())));
    const kept = await kubectlJSON(['get', 'pod', 'cancelled']);
    assert.equal(kept.metadata.deletionTimestamp, undefined, 'the cancelled eviction did not happen');
    assert.equal((await kubectlJSON(['get', 'pod', 'forever'])).metadata.deletionTimestamp, undefined);
  });

  it('a node whose Lease stops goes Unknown, is tainted unreachable, and its pods are evicted after their tolerationSeconds', async () => {
    await clients.pods.create('default', podManifest('short', 'worker2', unreachableFor(2)));
    await clients.pods.create('default', podManifest('daemon', 'worker2', [{ operator: 'Exists' }]));
    await eventually(async () => (await kubectlJSON(['get', 'pod', 'short'])).status.phase === 'Running', 10_000, 'pods running');
    await eventually(async () => (await kubectlJSON(['get', 'pod', 'daemon'])).status.phase === 'Running', 10_000, 'pods running');
    const worker2 = nodes[1];
    worker2.stop();
    kubelet.alive.delete('worker2');
    const node = await eventually(async () => {
      const n = await kubectlJSON(['get', 'node', 'worker2']);
      return (n.spec.taints ?? []).some((t: any) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoExecute') && n;
    }, 10_000, 'unreachable NoExecute taint');
    const ready = node.status.conditions.find((c: any) => c.type === 'Ready');
    assert.deepEqual([ready.status, ready.reason, ready.message], ['Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.']);
    const noExec = node.spec.taints.find((t: any) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoExecute');
    assert.ok(noExec.timeAdded, 'the taint has timeAdded');
    await eventually(async () => (await kubectlJSON(['get', 'node', 'worker2'])).spec.taints
      .some((t: any) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoSchedule'), 5_000, 'unreachable NoSchedule taint');
    const out = (await cluster.kubectl(['get', 'nodes'])).stdout;
    assert.match(out, /worker2\s+NotReady/);
    const short = await eventually(async () => {
      const p = await kubectlJSON(['get', 'pod', 'short']);
      return p.metadata.deletionTimestamp && p;
    }, 8_000, 'pod evicted');
    const cond = short.status.conditions.find((c: any) => c.type === 'DisruptionTarget');
    assert.equal(cond?.reason, 'DeletionByTaintManager');
    assert.equal(short.status.conditions.find((c: any) => c.type === 'Ready')?.status, 'False', 'marked not Ready');
    assert.ok((await events('short')).includes('Warning NodeNotReady Node is not ready'));
    assert.ok((await events('worker2')).includes('Normal NodeNotReady Node worker2 status is now: NodeNotReady'));
    const daemon = await kubectlJSON(['get', 'pod', 'daemon']);
    assert.equal(daemon.metadata.deletionTimestamp, undefined, 'a pod tolerating forever stays');
  });

  it('a node that comes back loses its taints', async () => {
    const worker2 = nodes[1];
    worker2.start();
    await worker2.postReady();
    await eventually(async () => {
      const n = await kubectlJSON(['get', 'node', 'worker2']);
      return !(n.spec.taints ?? []).some((t: any) => t.key.startsWith('node.kubernetes.io/'));
    }, 10_000, 'taints removed');
  });

  it('a node reporting Ready=False gets the not-ready taints, removed when it is Ready again', async () => {
    const worker3 = nodes[2];
    const node = await clients.nodes.get(undefined, 'worker3');
    const now = rfc3339(new Date());
    node.status.conditions = [{ type: 'Ready', status: 'False', reason: 'KubeletNotReady', message: 'container runtime is down', lastHeartbeatTime: now, lastTransitionTime: now }];
    await clients.nodes.updateStatus(node);
    await eventually(async () => {
      const taints = (await kubectlJSON(['get', 'node', 'worker3'])).spec.taints ?? [];
      const has = (effect: string) => taints.some((t: any) => t.key === 'node.kubernetes.io/not-ready' && t.effect === effect);
      return has('NoExecute') && has('NoSchedule');
    }, 10_000, 'not-ready taints');
    await worker3.postReady();
    await eventually(async () => !(await kubectlJSON(['get', 'node', 'worker3'])).spec.taints?.length, 10_000, 'taints removed');
  });

  it('cordon adds the unschedulable taint and uncordon removes it', async () => {
    await cluster.kubectl(['cordon', 'worker3']);
    await eventually(async () => (await kubectlJSON(['get', 'node', 'worker3'])).spec.taints
      ?.some((t: any) => t.key === 'node.kubernetes.io/unschedulable' && t.effect === 'NoSchedule'), 5_000, 'unschedulable taint');
    await cluster.kubectl(['uncordon', 'worker3']);
    await eventually(async () => !(await kubectlJSON(['get', 'node', 'worker3'])).spec.taints?.length, 5_000, 'taint removed');
  });

  it('kubectl delete node removes the pods bound to it (pod GC)', async () => {
    await clients.pods.create('default', podManifest('on-w3', 'worker3', [{ operator: 'Exists' }]));
    await eventually(async () => (await kubectlJSON(['get', 'pod', 'on-w3'])).status.phase === 'Running', 10_000, 'pod running');
    nodes[2].stop();
    kubelet.alive.delete('worker3');
    await cluster.kubectl(['delete', 'node', 'worker3']);
    await eventually(() => podGone('on-w3'), 10_000, 'orphaned pod deleted');
    await eventually(async () => (await events('worker3')).includes('Normal RemovingNode Node worker3 event: Removing Node worker3 from Controller'),
      5_000, 'RemovingNode event');
  });
});

