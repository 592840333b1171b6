/**
 * The DaemonSet controller end to end: a real `k8ts server`, the real kubectl,
 * and the controller running in this process against the server over HTTPS.
 * The seed walkthrough (000_79921c3a89c462f0.txt): fluentd-elasticsearch and
 * http-go land one pod per node including the tainted control-plane node, a
 * DaemonSet without the toleration skips it, a joining node gets its pods, a
 * deleted or failed pod comes back; then rolling updates with maxUnavailable
 * and with maxSurge, checked on pod names and revision hashes, rollout
 * status/history/undo/restart.
 *
 * Until the scheduler and simulated kubelet land, `FakeNodeAgents` plays both
 * for the test's nodes: it binds pending pods to the node of their matchFields
 * affinity, reports bound pods Running and Ready through /status, and
 * finishes graceful deletions. Swap it for the real ones when they exist.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { startCluster, eventually, seedsDir } from './harness.js';
import type { Cluster } from './harness.js';
import { extractManifests } from './seed-manifests.js';
import { Clientset, InformerFactory, EventRecorder, loadKubeconfig } from '../../src/client/index.js';
import type { Informer } from '../../src/client/index.js';
import { daemonSetController } from '../../src/controllers/daemonset/index.js';
import type { Controller, ControllerContext } from '../../src/controllers/types.js';
import { defaultControllerConfig } from '../../src/controllers/types.js';
import { silentLogger } from '../../src/util/log.js';
import { realClock, rfc3339 } from '../../src/util/clock.js';
import { podIsReady } from '../../src/api/pods.js';

const hashLabel = 'controller-revision-hash';

/** The scheduler's bind and the kubelet's status reports, for nodes named in `nodes`. */
class FakeNodeAgents {
  readonly nodes = new Set<string>();
  private readonly busy = new Set<string>();
  constructor(private readonly clients: Clientset, pods: Informer) {
    pods.addEventHandler({ add: (p) => this.handle(p), update: (_o, p) => this.handle(p) });
  }

  private handle(pod: any): void {
    const key = `${pod.metadata.namespace}/${pod.metadata.name}/${pod.metadata.resourceVersion}`;
    if (this.busy.has(key)) return;
    const action = this.next(pod);
    if (!action) return;
    this.busy.add(key);
    void action().catch(() => { /* level-triggered: the next event retries */ }).finally(() => this.busy.delete(key));
  }

  private next(pod: any): (() => Promise<unknown>) | undefined {
    const { namespace, name } = pod.metadata;
    if (pod.metadata.deletionTimestamp) return () => this.clients.pods.delete(namespace, name, { gracePeriodSeconds: 0 });
    if (!pod.spec.nodeName) {
      const target = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.[0]?.matchFields?.[0]?.values?.[0];
      if (!target || !this.nodes.has(target)) return undefined;
      return () => this.clients.pods.createSub(namespace, name, 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { apiVersion: 'v1', kind: 'Node', name: target } });
    }
    if (!this.nodes.has(pod.spec.nodeName) || pod.status?.phase !== 'Pending') return undefined;
    const now = rfc3339(new Date());
    const conditions = ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastTransitionTime: now }));
    return () => this.clients.pods.patch(namespace, name, { status: { phase: 'Running', conditions, startTime: now } }, 'merge', 'status');
  }
}

/** Watches one DaemonSet's pods and checks the rolling-update invariants at every change. */
class RolloutObserver {
  maxUnavailableSeen = 0;
  maxDoubledNodesSeen = 0;
  /** Per node, whether the new pod was created before the old one started terminating. */
  readonly order: string[] = [];
  private active = false;
  constructor(private readonly pods: Informer, private readonly app: string, private readonly nodes: () => string[]) {
    pods.addEventHandler({ add: (p) => this.observe('add', p), update: (o, p) => this.observe(o.metadata.deletionTimestamp ? '' : p.metadata.deletionTimestamp ? 'terminate' : '', p), delete: (p) => this.observe('', p) });
  }

  start(): void { this.active = true; this.maxUnavailableSeen = 0; this.maxDoubledNodesSeen = 0; this.order.length = 0; }
  stop(): void { this.active = false; }

  private observe(kind: string, pod: any): void {
    if (!this.active || pod.metadata.labels?.app !== this.app) return;
    const node = pod.spec.nodeName ?? pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.[0]?.matchFields?.[0]?.values?.[0];
    if (kind) this.order.push(`${kind} ${node}`);
    const live = this.pods.list().filter((p) => p.metadata.labels?.app === this.app && !p.metadata.deletionTimestamp);
    let unavailable = 0;
    let doubled = 0;
    for (const n of this.nodes()) {
      const onNode = live.filter((p) => p.spec.nodeName === n || JSON.stringify(p.spec.affinity ?? {}).includes(`"${n}"`));
      if (!onNode.some(podIsReady)) unavailable++;
      if (onNode.length > 1) doubled++;
    }
    this.maxUnavailableSeen = Math.max(this.maxUnavailableSeen, unavailable);
    this.maxDoubledNodesSeen = Math.max(this.maxDoubledNodesSeen, doubled);
  }
}

describe('DaemonSet controller (e2e)', { timeout: 90_000 }, () => {
  let cluster: Cluster;
  let clients: Clientset;
  let informers: InformerFactory;
  let testInformers: InformerFactory;
  let controller: Controller;
  let agents: FakeNodeAgents;
  let observer: RolloutObserver;
  const workers = ['worker1', 'worker2'];
  const allNodes = () => [...agents.nodes];

  const seeds = extractManifests(readFileSync(join(seedsDir, '000_79921c3a89c462f0.txt'), 'utf8')).map((y) => parse(y));
  const fluentdYaml = stringify(seeds.find((m) => m.metadata.name === 'fluentd-elasticsearch'));
  const httpGo = seeds.find((m) => m.metadata.name === 'http-go');
  const noTol = structuredClone(httpGo);
  noTol.metadata.name = 'no-tol';
  noTol.spec.selector.matchLabels = { app: 'no-tol' };
  noTol.spec.template.metadata.labels = { app: 'no-tol' };
  delete noTol.spec.template.spec.tolerations;

  const kubectl = (...args: string[]) => cluster.kubectl(args);
  const podsOf = async (app: string, ns = 'default') => (await clients.pods.list(ns, { labelSelector: `app=${app}` })).items;
  const livePods = async (app: string, ns = 'default') => (await podsOf(app, ns)).filter((p) => !p.metadata.deletionTimestamp);
  /** `kubectl get ds` columns DESIRED CURRENT READY UP-TO-DATE AVAILABLE of one DaemonSet. */
  const dsColumns = async (name: string, ns = 'default') => {
    const out = (await kubectl('get', 'ds', name, '-n', ns, '--no-headers')).stdout.trim().split(/\s+/);
    return out.slice(1, 6).join(' ');
  };
  const addNode = async (name: string, controlPlane = false) => {
    await clients.nodes.create(undefined, {
      apiVersion: 'v1', kind: 'Node',
      metadata: { name, labels: { 'kubernetes.io/hostname': name, ...(controlPlane ? { 'node-role.kubernetes.io/control-plane': '' } : {}) } },
      spec: controlPlane ? { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] } : {},
    });
    agents.nodes.add(name);
  };
  const rolledOut = (name: string, want: number) => eventually(async () => (await dsColumns(name)) === `${want} ${want} ${want} ${want} ${want}`, 20_000, `${name} rolled out on ${want} nodes`);
  const currentHash = async (name: string) => {
    const revs = (await clients.controllerrevisions.list('default')).items.filter((r) => r.metadata.name.startsWith(`${name}-`));
    const ds = await clients.daemonsets.get('default', name);
    const template = JSON.stringify(ds.spec.template.spec.containers[0].image);
    return revs.find((r) => JSON.stringify(r.data.spec.template.spec.containers[0].image) === template)?.metadata.labels[hashLabel];
  };

  before(async () => {
    cluster = await startCluster();
    clients = new Clientset(loadKubeconfig(cluster.kubeconfig));
    informers = new InformerFactory(clients);
    const ctx: ControllerContext = {
      clients, informers, logger: silentLogger, clock: realClock, config: defaultControllerConfig,
      recorder: (component) => new EventRecorder(clients, component),
    };
    controller = daemonSetController(ctx);
    testInformers = new InformerFactory(clients);
    const pods = testInformers.informer('pods');
    agents = new FakeNodeAgents(clients, pods);
    observer = new RolloutObserver(pods, 'http-go', allNodes);
    informers.start();
    testInformers.start();
    await Promise.all([informers.waitForSync(), testInformers.waitForSync()]);
    controller.run();
    await addNode('control-plane', true);
    for (const w of workers) await addNode(w);
  });

  after(async () => {
    controller?.stop();
    informers?.stop();
    testInformers?.stop();
    clients?.close();
    await cluster?.cleanup();
  });

  it('seed DaemonSets land one pod per node, the tolerated control-plane node included', async () => {
    await cluster.kubectl(['apply', '-f', '-'], { input: fluentdYaml });
    await cluster.kubectl(['apply', '-f', '-'], { input: stringify(httpGo) });
    await rolledOut('http-go', 3);
    await eventually(async () => (await dsColumns('fluentd-elasticsearch', 'kube-system')) === '3 3 3 3 3', 20_000, 'fluentd on 3 nodes');
    for (const [app, ns, selector] of [['http-go', 'default', 'app=http-go'], ['fluentd-elasticsearch', 'kube-system', 'name=fluentd-elasticsearch']]) {
      const sel = (await clients.pods.list(ns, { labelSelector: selector })).items;
      assert.deepEqual(sel.map((p: any) => p.spec.nodeName).sort(), ['control-plane', 'worker1', 'worker2']);
      for (const p of sel) {
        assert.ok(p.metadata.name.startsWith(`${app}-`), p.metadata.name);
        assert.deepEqual(p.metadata.ownerReferences.map((r: any) => [r.kind, r.name, r.controller, r.blockOwnerDeletion]), [['DaemonSet', app, true, true]]);
        assert.ok(p.metadata.labels[hashLabel]);
        assert.ok(p.metadata.labels['pod-template-generation']);
        const keys = p.spec.tolerations.map((t: any) => `${t.key}:${t.effect}`);
        for (const k of ['node.kubernetes.io/not-ready:NoExecute', 'node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/disk-pressure:NoSchedule',
          'node.kubernetes.io/memory-pressure:NoSchedule', 'node.kubernetes.io/pid-pressure:NoSchedule', 'node.kubernetes.io/unschedulable:NoSchedule']) {
          assert.ok(keys.includes(k), `${p.metadata.name} lacks ${k}`);
        }
        assert.deepEqual(p.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms,
          [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [p.spec.nodeName] }] }]);
      }
    }
    const header = (await kubectl('get', 'ds')).stdout.split('\n')[0].split(/\s{2,}/);
    assert.deepEqual(header, ['NAME', 'DESIRED', 'CURRENT', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'NODE SELECTOR', 'AGE']);
    const events = (await kubectl('get', 'events', '--field-selector', 'involvedObject.name=http-go', '-o', 'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}')).stdout;
    assert.match(events, /^SuccessfulCreate: Created pod: http-go-\w{5}$/m);
  });

  it('a DaemonSet without the toleration skips the control-plane node', async () => {
    await cluster.kubectl(['apply', '-f', '-'], { input: stringify(noTol) });
    await eventually(async () => (await dsColumns('no-tol')) === '2 2 2 2 2', 20_000, 'no-tol on the 2 workers');
    assert.deepEqual((await livePods('no-tol')).map((p) => p.spec.nodeName).sort(), workers);
  });

  it('a node that joins gets its pods', async () => {
    await addNode('worker3');
    await rolledOut('http-go', 4);
    await eventually(async () => (await dsColumns('no-tol')) === '3 3 3 3 3', 20_000, 'no-tol on worker3');
    await eventually(async () => (await dsColumns('fluentd-elasticsearch', 'kube-system')) === '4 4 4 4 4', 20_000, 'fluentd on worker3');
  });

  it('a deleted pod is recreated, and so is a failed one', async () => {
    const onW1 = (await livePods('http-go')).find((p) => p.spec.nodeName === 'worker1');
    await kubectl('delete', 'pod', onW1.metadata.name, '--wait=false');
    await eventually(async () => (await livePods('http-go')).some((p) => p.spec.nodeName === 'worker1' && p.metadata.name !== onW1.metadata.name && podIsReady(p)), 10_000, 'a new pod on worker1');
    const onW2 = (await livePods('http-go')).find((p) => p.spec.nodeName === 'worker2');
    await clients.pods.patch('default', onW2.metadata.name, { status: { phase: 'Failed', conditions: [] } }, 'merge', 'status');
    await eventually(async () => (await livePods('http-go')).some((p) => p.spec.nodeName === 'worker2' && p.metadata.name !== onW2.metadata.name && podIsReady(p)), 10_000, 'a new pod on worker2');
    await rolledOut('http-go', 4);
    const events = (await kubectl('get', 'events', '--field-selector', 'involvedObject.name=http-go,reason=FailedDaemonPod', '-o', 'jsonpath={.items[*].message}')).stdout;
    assert.match(events, new RegExp(`Found failed daemon pod default/${onW2.metadata.name} on node worker2, will try to kill it`));
  });

  it('a node that stops qualifying loses its pod; NoSchedule alone leaves it misscheduled', async () => {
    await kubectl('taint', 'nodes', 'worker3', 'dedicated=db:NoSchedule');
    await eventually(async () => {
      const ds = await clients.daemonsets.get('default', 'no-tol');
      return ds.status.desiredNumberScheduled === 2 && ds.status.numberMisscheduled === 1 && ds.status.currentNumberScheduled === 2;
    }, 10_000, 'no-tol misscheduled on worker3');
    assert.ok((await livePods('no-tol')).some((p) => p.spec.nodeName === 'worker3'), 'a NoSchedule taint does not evict');
    await kubectl('taint', 'nodes', 'worker3', 'dedicated=db:NoExecute');
    await eventually(async () => !(await livePods('no-tol')).some((p) => p.spec.nodeName === 'worker3'), 10_000, 'no-tol pod gone from worker3');
    await eventually(async () => (await dsColumns('no-tol')) === '2 2 2 2 2', 10_000, 'no-tol on 2 nodes');
    await eventually(async () => (await clients.daemonsets.get('default', 'no-tol')).status.numberMisscheduled === 0, 10_000, 'nothing misscheduled');
    await kubectl('label', 'nodes', 'worker1', 'disk=hdd');
    await kubectl('patch', 'ds', 'no-tol', '-p', '{"spec":{"template":{"spec":{"nodeSelector":{"disk":"ssd"}}}}}');
    await eventually(async () => (await livePods('no-tol')).length === 0, 10_000, 'no node matches the selector');
    await eventually(async () => (await dsColumns('no-tol')) === '0 0 0 0 0', 10_000, 'no-tol desired 0');
    await kubectl('label', 'nodes', 'worker1', 'disk=ssd', '--overwrite');
    await eventually(async () => (await livePods('no-tol')).map((p) => p.spec.nodeName).join() === 'worker1', 10_000, 'a relabelled node gets its pod');
    await kubectl('patch', 'ds', 'no-tol', '--type=json', '-p', '[{"op":"remove","path":"/spec/template/spec/nodeSelector"}]');
    await kubectl('taint', 'nodes', 'worker3', 'dedicated-');
    await eventually(async () => (await dsColumns('no-tol')) === '3 3 3 3 3', 20_000, 'no-tol back on 3 nodes');
  });

  it('OnDelete replaces a pod only when it is deleted', async () => {
    await kubectl('patch', 'ds', 'no-tol', '-p', '{"spec":{"updateStrategy":{"type":"OnDelete","rollingUpdate":null}}}');
    const before = await livePods('no-tol');
    await kubectl('set', 'image', 'ds/no-tol', 'http-go=gasbugs/http-go:v2');
    await eventually(async () => {
      const ds = await clients.daemonsets.get('default', 'no-tol');
      return ds.status.observedGeneration === ds.metadata.generation && (ds.status.updatedNumberScheduled ?? 0) === 0;
    }, 10_000, 'the new template observed, no pod updated');
    assert.deepEqual((await livePods('no-tol')).map((p) => p.metadata.name).sort(), before.map((p) => p.metadata.name).sort());
    const victim = before.find((p) => p.spec.nodeName === 'worker2');
    await kubectl('delete', 'pod', victim.metadata.name, '--wait=false');
    await eventually(async () => {
      const p = (await livePods('no-tol')).find((x) => x.spec.nodeName === 'worker2');
      return p && p.metadata.name !== victim.metadata.name && p.spec.containers[0].image === 'gasbugs/http-go:v2' && podIsReady(p);
    }, 10_000, 'the replacement runs the new template');
    await eventually(async () => (await clients.daemonsets.get('default', 'no-tol')).status.updatedNumberScheduled === 1, 10_000, 'one pod updated');
    assert.equal((await kubectl('get', 'ds', 'no-tol', '--no-headers')).stdout.trim().split(/\s+/)[4], '1', 'UP-TO-DATE 1');
  });

  it('set image rolls pods one at a time with maxUnavailable 1', async () => {
    const before = new Set((await livePods('http-go')).map((p) => p.metadata.name));
    const oldHash = await currentHash('http-go');
    observer.start();
    await kubectl('set', 'image', 'ds/http-go', 'http-go=gasbugs/http-go:v2');
    const status = await kubectl('rollout', 'status', 'ds/http-go', '--timeout=30s');
    assert.match(status.stdout, /daemon set "http-go" successfully rolled out/);
    observer.stop();
    await rolledOut('http-go', 4);
    const pods = await livePods('http-go');
    const newHash = await currentHash('http-go');
    assert.ok(newHash && newHash !== oldHash);
    assert.equal(pods.length, 4);
    for (const p of pods) {
      assert.ok(!before.has(p.metadata.name), `${p.metadata.name} was replaced`);
      assert.equal(p.metadata.labels[hashLabel], newHash);
      assert.equal(p.spec.containers[0].image, 'gasbugs/http-go:v2');
    }
    assert.equal(observer.maxUnavailableSeen, 1, 'never more than one node without a ready pod');
    assert.equal(observer.maxDoubledNodesSeen, 0, 'no surge');
  });

  it('with maxSurge 1 and maxUnavailable 0 the new pod comes up before the old one goes', async () => {
    await kubectl('patch', 'ds', 'http-go', '-p', '{"spec":{"updateStrategy":{"rollingUpdate":{"maxSurge":1,"maxUnavailable":0}}}}');
    await kubectl('annotate', 'ds', 'http-go', 'kubernetes.io/change-cause=image v3');
    const before = new Set((await livePods('http-go')).map((p) => p.metadata.name));
    observer.start();
    await kubectl('set', 'image', 'ds/http-go', 'http-go=gasbugs/http-go:v3');
    await kubectl('rollout', 'status', 'ds/http-go', '--timeout=30s');
    await rolledOut('http-go', 4);
    observer.stop();
    const pods = await livePods('http-go');
    const hash = await currentHash('http-go');
    assert.deepEqual(pods.map((p) => [p.metadata.labels[hashLabel], p.spec.containers[0].image, before.has(p.metadata.name)]),
      pods.map(() => [hash, 'gasbugs/http-go:v3', false]));
    assert.equal(observer.maxUnavailableSeen, 0, 'every node kept a ready pod');
    assert.equal(observer.maxDoubledNodesSeen, 1, 'one node surged at a time');
    for (const n of allNodes()) {
      const i = observer.order.indexOf(`add ${n}`);
      const j = observer.order.indexOf(`terminate ${n}`);
      assert.ok(i >= 0 && j > i, `on ${n} the new pod was added before the old one terminated: ${observer.order.join(', ')}`);
    }
  });

  it('rollout history lists the revisions with their change-cause', async () => {
    const out = (await kubectl('rollout', 'history', 'ds/http-go')).stdout;
    assert.match(out, /^daemonset.apps\/http-go/m);
    const rows = out.split('\n').filter((l) => /^\d+\s/.test(l)).map((l) => l.trim().split(/\s+/));
    assert.deepEqual(rows.map((r) => r[0]), ['1', '2', '3']);
    assert.match(out, /^3\s+image v3$/m);
    const revs = (await clients.controllerrevisions.list('default', { labelSelector: 'app=http-go' })).items;
    for (const r of revs) {
      assert.equal(r.metadata.name, `http-go-${r.metadata.labels[hashLabel]}`);
      assert.equal(r.data.spec.template.$patch, 'replace');
    }
  });

  it('rollout undo restores the previous template and rolls forward', async () => {
    const v2Hash = (await clients.controllerrevisions.list('default', { labelSelector: 'app=http-go' })).items.find((r) => r.revision === 2).metadata.labels[hashLabel];
    const out = await kubectl('rollout', 'undo', 'ds/http-go');
    assert.match(out.stdout, /daemonset.apps\/http-go rolled back/);
    await kubectl('rollout', 'status', 'ds/http-go', '--timeout=30s');
    await rolledOut('http-go', 4);
    const ds = await clients.daemonsets.get('default', 'http-go');
    assert.equal(ds.spec.template.spec.containers[0].image, 'gasbugs/http-go:v2');
    await eventually(async () => (await livePods('http-go')).every((p) => p.metadata.labels[hashLabel] === v2Hash && p.spec.containers[0].image === 'gasbugs/http-go:v2'), 10_000, 'pods back on v2');
    const rows = (await kubectl('rollout', 'history', 'ds/http-go')).stdout.split('\n').filter((l) => /^\d+\s/.test(l)).map((l) => l.trim().split(/\s+/)[0]);
    assert.deepEqual(rows, ['1', '3', '4'], 'revision 2 became 4');

    await kubectl('rollout', 'undo', 'ds/http-go', '--to-revision=1');
    await kubectl('rollout', 'status', 'ds/http-go', '--timeout=30s');
    await eventually(async () => (await livePods('http-go')).every((p) => p.spec.containers[0].image === 'gasbugs/http-go'), 10_000, 'pods back on revision 1');
    const after = (await kubectl('rollout', 'history', 'ds/http-go')).stdout.split('\n').filter((l) => /^\d+\s/.test(l)).map((l) => l.trim().split(/\s+/)[0]);
    assert.deepEqual(after, ['3', '4', '5']);
  });

  it('rollout restart replaces every pod', async () => {
    const before = new Set((await livePods('http-go')).map((p) => p.metadata.name));
    await kubectl('rollout', 'restart', 'ds/http-go');
    await kubectl('rollout', 'status', 'ds/http-go', '--timeout=30s');
    await eventually(async () => {
      const pods = await livePods('http-go');
      return pods.length === 4 && pods.every((p) => !before.has(p.metadata.name) && podIsReady(p));
    }, 20_000, 'every pod replaced');
    await rolledOut('http-go', 4);
    const ds = await clients.daemonsets.get('default', 'http-go');
    assert.equal(ds.status.observedGeneration, ds.metadata.generation);
    const revisions = async () => (await kubectl('rollout', 'history', 'ds/http-go')).stdout.split('\n').filter((l) => /^\d+\s/.test(l)).map((l) => l.trim().split(/\s+/)[0]).join();
    assert.equal(await revisions(), '3,4,5,6');
    await kubectl('patch', 'ds', 'http-go', '-p', '{"spec":{"revisionHistoryLimit":1}}');
    await eventually(async () => (await revisions()) === '5,6', 10_000, 'history cut to one old revision');
  });
});
