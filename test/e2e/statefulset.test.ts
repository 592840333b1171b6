/**
 * The StatefulSet controller end to end: a real `k8ts server`, the real
 * kubectl, the controller in this process and a small simulated kubelet
 * (binds new pods to a node, makes them Running and Ready after a delay it
 * controls, finishes terminating pods unless told to hold them, as a node
 * that stopped answering would). Replays the seed walkthrough (muzzi-0, -1,
 * -2 in order; scale 3 -> 2 -> 5; rolling update 2, 1, 0; partition; undo;
 * Parallel) and checks order from a watch, not only the final state; then
 * identity (a terminating pod is never replaced while it exists), failed
 * pods, and the documentation's `web` StatefulSet with volumeClaimTemplates.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startCluster, eventually, Cluster, seedsDir, extractManifests } from './harness.js';
import { manifestDir } from './helpers.js';
import { Clientset, EventRecorder, InformerFactory, Informer, loadKubeconfig, isNotFound, isConflict } from '../../src/client/index.js';
import type { Controller, ControllerContext } from '../../src/controllers/types.js';
import { defaultControllerConfig } from '../../src/controllers/types.js';
import { statefulSetController } from '../../src/controllers/statefulset/index.js';
import { silentLogger, createLogger } from '../../src/util/log.js';
import { realClock, rfc3339 } from '../../src/util/clock.js';

const seed = extractManifests(readFileSync(join(seedsDir, '001_039ba886abd0a3e0.txt'), 'utf8')).map((y) => ({ yaml: y, obj: parse(y) }));
const seedDoc = (kind: string, name: string, pred: (o: any) => boolean = () => true) => {
  const d = seed.find((m) => m.obj.kind === kind && m.obj.metadata.name === name && pred(m.obj));
  if (!d) throw new Error(`seed has no ${kind} ${name}`);
  return d.yaml;
};

const isReady = (pod: any) => pod.status?.phase === 'Running' && (pod.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');

/**
 * A simulated kubelet: binds every new pod to `node`, reports it Running and
 * Ready `readyDelayMs` later, and removes terminating pods `terminateDelayMs`
 * later (grace 0), except those held (a node that stopped heartbeating cannot
 * confirm).
 */
class SimKubelet {
  readyDelayMs = 50;
  terminateDelayMs = 200;
  private readonly held = new Set<string>();
  private readonly stopping = new Set<string>();
  private readonly started = new Set<string>();
  private readonly bound = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly informers: InformerFactory;
  readonly pods: Informer;

  constructor(private readonly clients: Clientset, private readonly node: string) {
    this.informers = new InformerFactory(clients);
    this.pods = this.informers.informer('pods');
    this.pods.addEventHandler({ add: (p) => this.handle(p), update: (_o, p) => this.handle(p) });
  }

  async start(): Promise<void> {
    await this.clients.nodes.create(undefined, {
      metadata: { name: this.node, labels: { 'kubernetes.io/hostname': this.node } },
      status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: rfc3339(new Date()), lastTransitionTime: rfc3339(new Date()) }] },
    });
    this.informers.start();
    await this.informers.waitForSync();
  }

  stop(): void {
    this.informers.stop();
    for (const t of this.timers) clearTimeout(t);
  }

  /** Keep pods of this name terminating (their node is unreachable) until released. */
  hold(key: string): void { this.held.add(key); }
  release(key: string): void {
    this.held.delete(key);
    const p = this.pods.get(key);
    if (p) this.handle(p);
  }

  private later(ms: number, fn: () => Promise<void>): void {
    const t = setTimeout(() => { this.timers.delete(t); fn().catch(() => undefined); }, ms);
    this.timers.add(t);
  }

  private handle(pod: any): void {
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    const uid = pod.metadata.uid;
    if (pod.metadata.deletionTimestamp) {
      if (!this.held.has(key) && !this.stopping.has(uid)) {
        // Stopping containers takes a moment (and kubectl's `delete --wait` relies on seeing the pod terminate).
        this.stopping.add(uid);
        this.later(this.terminateDelayMs, async () => {
          if (this.held.has(key)) { this.stopping.delete(uid); return; }
          await this.clients.pods.delete(pod.metadata.namespace, pod.metadata.name, { gracePeriodSeconds: 0, preconditions: { uid } })
            .catch((e) => { if (!isNotFound(e) && !isConflict(e)) throw e; });
        });
      }
      return;
    }
    if (!pod.spec.nodeName) {
      if (this.bound.has(uid)) return;
      this.bound.add(uid);
      void this.clients.pods.createSub(pod.metadata.namespace, pod.metadata.name, 'binding', {
        apiVersion: 'v1', kind: 'Binding', metadata: { name: pod.metadata.name }, target: { apiVersion: 'v1', kind: 'Node', name: this.node },
      }).catch(() => this.bound.delete(uid));
      return;
    }
    if (pod.status?.phase !== 'Pending' || this.started.has(uid)) return;
    this.started.add(uid);
    this.later(this.readyDelayMs, () => this.setRunning(pod.metadata.namespace, pod.metadata.name, uid));
  }

  private async setRunning(namespace: string, name: string, uid: string): Promise<void> {
    for (let i = 0; i < 5; i++) {
      const pod = await this.clients.pods.get(namespace, name);
      if (pod.metadata.uid !== uid || pod.metadata.deletionTimestamp || pod.status?.phase !== 'Pending') return;
      const now = rfc3339(new Date());
      const cond = (type: string) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: now });
      pod.status = {
        ...pod.status, phase: 'Running', hostIP: '10.0.0.1', podIP: `10.244.0.${(uid.charCodeAt(0) % 200) + 2}`, startTime: now,
        conditions: [cond('Initialized'), cond('Ready'), cond('ContainersReady'), cond('PodScheduled')],
        containerStatuses: pod.spec.containers.map((c: any) => ({
          name: c.name, image: c.image, imageID: '', ready: true, started: true, restartCount: 0, state: { running: { startedAt: now } },
        })),
      };
      try {
        await this.clients.pods.updateStatus(pod);
        return;
      } catch (e) {
        if (!isConflict(e)) throw e;
      }
    }
  }

  /** Sets a pod's phase to Failed, as a kubelet reports a pod that ran out. */
  async fail(namespace: string, name: string): Promise<string> {
    const pod = await this.clients.pods.get(namespace, name);
    pod.status = { ...pod.status, phase: 'Failed', conditions: (pod.status.conditions ?? []).map((c: any) => ({ ...c, status: c.type === 'PodScheduled' ? 'True' : 'False' })) };
    await this.clients.pods.updateStatus(pod);
    return pod.metadata.uid;
  }
}

interface Rec {
  kind: 'Pod' | 'PersistentVolumeClaim';
  type: string;
  key: string;
  name: string;
  uid: string;
  rv: bigint;
  ready: boolean;
  deleting: boolean;
  obj: any;
}

/** Every pod and claim change in resourceVersion order, from watches opened before the test acts. */
class WatchLog {
  readonly recs: Rec[] = [];
  private readonly handles: { close(): void }[] = [];

  async start(clients: Clientset): Promise<void> {
    for (const [resource, kind] of [['pods', 'Pod'], ['persistentvolumeclaims', 'PersistentVolumeClaim']] as const) {
      const c = clients.resource(resource);
      const list = await c.list(undefined);
      this.handles.push(await c.watch(undefined, { resourceVersion: list.metadata.resourceVersion }, (e) => {
        if (e.type === 'BOOKMARK' || e.type === 'ERROR') return;
        const o = e.object;
        this.recs.push({
          kind, type: e.type, key: `${o.metadata.namespace}/${o.metadata.name}`, name: o.metadata.name, uid: o.metadata.uid,
          rv: BigInt(o.metadata.resourceVersion), ready: kind === 'Pod' && isReady(o), deleting: !!o.metadata.deletionTimestamp, obj: o,
        });
      }));
    }
  }

  close(): void { for (const h of this.handles) h.close(); }

  /** Records of `kind` in `namespace` after the mark, in resourceVersion order. */
  since(mark: bigint, namespace: string, kind: Rec['kind'] = 'Pod'): Rec[] {
    return this.recs.filter((r) => r.kind === kind && r.rv > mark && r.key.startsWith(`${namespace}/`)).sort((a, b) => (a.rv < b.rv ? -1 : a.rv > b.rv ? 1 : 0));
  }

  mark(): bigint { return this.recs.reduce((m, r) => (r.rv > m ? r.rv : m), 0n); }

  /** No two pods of the same name ever existed at once (ADDED ... DELETED per UID). */
  assertIdentityNeverDoubled(): void {
    const live = new Map<string, Set<string>>();
    for (const r of [...this.recs].filter((x) => x.kind === 'Pod').sort((a, b) => (a.rv < b.rv ? -1 : 1))) {
      let s = live.get(r.key);
      if (!s) live.set(r.key, (s = new Set()));
      if (r.type === 'DELETED') { s.delete(r.uid); continue; }
      s.add(r.uid);
      assert.ok(s.size <= 1, `two pods named ${r.key} at once: ${[...s].join(', ')} (rv ${r.rv})`);
    }
  }
}

const first = (recs: Rec[], pred: (r: Rec) => boolean): Rec | undefined => recs.find(pred);
const firstRV = (recs: Rec[], pred: (r: Rec) => boolean, what: string): bigint => {
  const r = first(recs, pred);
  assert.ok(r, `no event: ${what}`);
  return r.rv;
};
const addedOrder = (recs: Rec[]) => recs.filter((r) => r.type === 'ADDED').map((r) => r.name);
/** Names in the order their deletion began (first event with a deletionTimestamp, or the DELETED event). */
const deletionOrder = (recs: Rec[]) => {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const r of recs) {
    if ((r.deleting || r.type === 'DELETED') && !seen.has(r.uid)) { seen.add(r.uid); out.push(r.name); }
  }
  return out;
};

let cluster: Cluster;
let clients: Clientset;
let informers: InformerFactory;
let controller: Controller;
let kubelet: SimKubelet;
let log: WatchLog;
const manifests = manifestDir();

async function sts(namespace: string, name: string): Promise<any> {
  return JSON.parse((await cluster.kubectl(['get', 'statefulset', name, '-n', namespace, '-o', 'json'])).stdout);
}

/** Waits until the set has `replicas` Ready pods, all on its update revision, and its status has caught up. */
async function settled(namespace: string, name: string, replicas: number, timeoutMs = 15_000): Promise<any> {
  return eventually(async () => {
    const s = await sts(namespace, name);
    const st = s.status ?? {};
    const ok = st.observedGeneration === s.metadata.generation && st.replicas === replicas && (st.readyReplicas ?? 0) === replicas
      && (st.updatedReplicas ?? 0) === replicas && st.currentRevision === st.updateRevision;
    return ok ? s : undefined;
  }, timeoutMs, `${namespace}/${name} settled at ${replicas}`);
}

async function podsOf(namespace: string, selector: string): Promise<any[]> {
  return (await clients.pods.list(namespace, { labelSelector: selector })).items;
}

async function events(namespace: string, name: string): Promise<string[]> {
  const list = await clients.events.list(namespace);
  return list.items.filter((e: any) => e.involvedObject?.name === name && e.involvedObject?.kind === 'StatefulSet').map((e: any) => `${e.reason}: ${e.message}`);
}

before(async () => {
  // The protection controllers release a claim no pod uses (kubernetes.io/pvc-protection).
  cluster = await startCluster({ controllers: 'pvc-protection,pv-protection' });
  const config = loadKubeconfig(cluster.kubeconfig);
  clients = new Clientset(config, { qps: 0 });
  log = new WatchLog();
  await log.start(clients);
  kubelet = new SimKubelet(new Clientset(config, { qps: 0 }), 'sim-node-1');
  await kubelet.start();
  informers = new InformerFactory(clients);
  const ctx: ControllerContext = {
    clients, informers, logger: process.env.K8TS_TEST_LOG ? createLogger('statefulset-e2e', 'debug') : silentLogger, clock: realClock, config: defaultControllerConfig,
    recorder: (component) => new EventRecorder(clients, component),
  };
  controller = statefulSetController(ctx);
  informers.start();
  await informers.waitForSync();
  controller.run();
  const namespaces = ['par', 'idt', 'vol'].map((n) => `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${n}\n`).join('---\n');
  await cluster.kubectl(['apply', '-f', manifests.write('namespaces.yaml', namespaces)]);
});

after(async () => {
  controller?.stop();
  informers?.stop();
  kubelet?.stop();
  log?.close();
  clients?.close();
  manifests.close();
  await cluster?.cleanup();
});

describe('the seed walkthrough: muzzi', () => {
  test('OrderedReady: muzzi-0, -1, -2 are created in order, each after the previous is Ready', async () => {
    kubelet.readyDelayMs = 1100; // a second apart, so the seconds-precise timestamps are strictly ordered too
    const mark = log.mark();
    const file = manifests.write('muzzi.yaml', seedDoc('StatefulSet', 'muzzi', (o) => !o.spec.podManagementPolicy));
    assert.match((await cluster.kubectl(['create', '-f', file])).stdout, /statefulset.apps\/muzzi created/);
    const rollout = await cluster.kubectl(['rollout', 'status', 'statefulset/muzzi', '--timeout=30s']);
    assert.match(rollout.stdout, /partitioned roll out complete: 3 new pods have been updated/);
    const set = await settled('default', 'muzzi', 3);
    const recs = log.since(mark, 'default');
    assert.deepEqual(addedOrder(recs), ['muzzi-0', 'muzzi-1', 'muzzi-2']);
    const added = (n: number) => firstRV(recs, (r) => r.name === `muzzi-${n}` && r.type === 'ADDED', `muzzi-${n} added`);
    const ready = (n: number) => firstRV(recs, (r) => r.name === `muzzi-${n}` && r.ready, `muzzi-${n} ready`);
    for (const n of [0, 1]) {
      assert.ok(ready(n) < added(n + 1), `muzzi-${n + 1} was created before muzzi-${n} was Ready`);
      assert.ok(added(n) < added(n + 1) && ready(n) < ready(n + 1));
    }
    const pods = (await podsOf('default', 'app=nginx-statefulset')).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    const created = pods.map((p) => Date.parse(p.metadata.creationTimestamp));
    const readyAt = pods.map((p) => Date.parse(p.status.conditions.find((c: any) => c.type === 'Ready').lastTransitionTime));
    assert.ok(created[0] < created[1] && created[1] < created[2], `creation timestamps not strictly ordered: ${created}`);
    assert.ok(readyAt[0] < readyAt[1] && readyAt[1] < readyAt[2], `Ready transitions not strictly ordered: ${readyAt}`);
    for (const [i, p] of pods.entries()) {
      assert.equal(p.metadata.name, `muzzi-${i}`);
      assert.deepEqual(p.metadata.labels, {
        app: 'nginx-statefulset', 'statefulset.kubernetes.io/pod-name': `muzzi-${i}`, 'apps.kubernetes.io/pod-index': String(i),
        'controller-revision-hash': set.status.updateRevision,
      });
      assert.equal(p.spec.hostname, `muzzi-${i}`);
      assert.equal(p.spec.subdomain, 'nginx-statefulset-service');
      assert.deepEqual(p.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'muzzi', uid: set.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    }
    assert.match(set.status.updateRevision, /^muzzi-[bcdfghjklmnpqrstvwxz2456789]+$/);
    const get = await cluster.kubectl(['get', 'statefulset', 'muzzi']);
    assert.match(get.stdout.split('\n')[1], /^muzzi\s+3\/3\s+/);
    const ev = await events('default', 'muzzi');
    for (const n of [0, 1, 2]) assert.ok(ev.includes(`SuccessfulCreate: create Pod muzzi-${n} in StatefulSet muzzi successful`), ev.join('\n'));
  });

  test('scale 3 -> 2 deletes muzzi-2 only', async () => {
    kubelet.readyDelayMs = 50;
    const before = await podsOf('default', 'app=nginx-statefulset');
    const mark = log.mark();
    await cluster.kubectl(['scale', 'statefulset', 'muzzi', '--replicas=2']);
    await settled('default', 'muzzi', 2);
    await eventually(async () => (await podsOf('default', 'app=nginx-statefulset')).length === 2, 10_000, 'muzzi-2 gone');
    const recs = log.since(mark, 'default');
    assert.deepEqual(deletionOrder(recs), ['muzzi-2']);
    const after = await podsOf('default', 'app=nginx-statefulset');
    assert.deepEqual(after.map((p) => p.metadata.uid).sort(), before.filter((p) => p.metadata.name !== 'muzzi-2').map((p) => p.metadata.uid).sort());
    assert.ok((await events('default', 'muzzi')).includes('SuccessfulDelete: delete Pod muzzi-2 in StatefulSet muzzi successful'));
  });

  test('scale 2 -> 5 adds muzzi-2, -3, -4 in order; 5 -> 3 removes -4 then -3', async () => {
    let mark = log.mark();
    await cluster.kubectl(['scale', 'statefulset', 'muzzi', '--replicas=5']);
    await settled('default', 'muzzi', 5);
    let recs = log.since(mark, 'default');
    assert.deepEqual(addedOrder(recs), ['muzzi-2', 'muzzi-3', 'muzzi-4']);
    for (const n of [2, 3]) {
      const readyN = firstRV(recs, (r) => r.name === `muzzi-${n}` && r.ready, `muzzi-${n} ready`);
      const addedNext = firstRV(recs, (r) => r.name === `muzzi-${n + 1}` && r.type === 'ADDED', `muzzi-${n + 1} added`);
      assert.ok(readyN < addedNext, `muzzi-${n + 1} created before muzzi-${n} was Ready`);
    }
    mark = log.mark();
    await cluster.kubectl(['scale', 'statefulset', 'muzzi', '--replicas=3']);
    await settled('default', 'muzzi', 3);
    await eventually(async () => (await podsOf('default', 'app=nginx-statefulset')).length === 3, 10_000, 'muzzi-3 and -4 gone');
    recs = log.since(mark, 'default');
    assert.deepEqual(deletionOrder(recs), ['muzzi-4', 'muzzi-3']);
    const gone4 = firstRV(recs, (r) => r.name === 'muzzi-4' && r.type === 'DELETED', 'muzzi-4 deleted');
    const start3 = firstRV(recs, (r) => r.name === 'muzzi-3' && (r.deleting || r.type === 'DELETED'), 'muzzi-3 deletion');
    assert.ok(gone4 < start3, 'muzzi-3 was deleted before muzzi-4 was gone');
  });

  test('a rolling update replaces muzzi-2, then -1, then -0, each after the newer ones are Ready', async () => {
    const before = await sts('default', 'muzzi');
    const mark = log.mark();
    await cluster.kubectl(['set', 'image', 'statefulset/muzzi', 'nginx-statefulset=nginx:2']);
    const rollout = await cluster.kubectl(['rollout', 'status', 'statefulset/muzzi', '--timeout=30s']);
    assert.match(rollout.stdout, /partitioned roll out complete: 3 new pods have been updated/);
    const set = await settled('default', 'muzzi', 3);
    assert.notEqual(set.status.updateRevision, before.status.updateRevision);
    const recs = log.since(mark, 'default');
    assert.deepEqual(deletionOrder(recs), ['muzzi-2', 'muzzi-1', 'muzzi-0']);
    for (const n of [2, 1]) {
      const newReady = firstRV(recs, (r) => r.name === `muzzi-${n}` && r.ready && r.obj.spec.containers[0].image === 'nginx:2', `new muzzi-${n} ready`);
      const nextDeletion = firstRV(recs, (r) => r.name === `muzzi-${n - 1}` && (r.deleting || r.type === 'DELETED'), `muzzi-${n - 1} deletion`);
      assert.ok(newReady < nextDeletion, `muzzi-${n - 1} was replaced before the new muzzi-${n} was Ready`);
    }
    for (const p of await podsOf('default', 'app=nginx-statefulset')) {
      assert.equal(p.spec.containers[0].image, 'nginx:2');
      assert.equal(p.metadata.labels['controller-revision-hash'], set.status.updateRevision);
    }
    const history = await cluster.kubectl(['rollout', 'history', 'statefulset/muzzi']);
    assert.match(history.stdout, /REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);
  });

  test('rollout undo restores the previous template, re-using its revision with a new number', async () => {
    const revs = (await clients.controllerrevisions.list('default', { labelSelector: 'app=nginx-statefulset' })).items;
    const rev1 = revs.find((r: any) => r.revision === 1);
    const undo = await cluster.kubectl(['rollout', 'undo', 'statefulset/muzzi']);
    assert.match(undo.stdout, /statefulset.apps\/muzzi rolled back/);
    await cluster.kubectl(['rollout', 'status', 'statefulset/muzzi', '--timeout=30s']);
    const set = await settled('default', 'muzzi', 3);
    assert.equal(set.spec.template.spec.containers[0].image, 'nginx');
    assert.equal(set.status.updateRevision, rev1.metadata.name);
    for (const p of await podsOf('default', 'app=nginx-statefulset')) assert.equal(p.spec.containers[0].image, 'nginx');
    const after = (await clients.controllerrevisions.list('default', { labelSelector: 'app=nginx-statefulset' })).items;
    assert.deepEqual(after.map((r: any) => [r.metadata.name, r.revision]).sort((a: any, b: any) => a[1] - b[1]),
      [[revs.find((r: any) => r.revision === 2).metadata.name, 2], [rev1.metadata.name, 3]]);
    const history = await cluster.kubectl(['rollout', 'history', 'statefulset/muzzi']);
    assert.match(history.stdout, /REVISION\s+CHANGE-CAUSE\n2\s+<none>\n3\s+<none>/);
  });

  test('with partition 2 only muzzi-2 is updated; a deleted muzzi-0 comes back at the old revision', async () => {
    await cluster.kubectl(['patch', 'statefulset', 'muzzi', '-p', '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":2}}}}']);
    const before = await podsOf('default', 'app=nginx-statefulset');
    const mark = log.mark();
    await cluster.kubectl(['set', 'image', 'statefulset/muzzi', 'nginx-statefulset=nginx:3']);
    const rollout = await cluster.kubectl(['rollout', 'status', 'statefulset/muzzi', '--timeout=30s']);
    assert.match(rollout.stdout, /partitioned roll out complete: 1 new pods have been updated/);
    const set = await eventually(async () => {
      const s = await sts('default', 'muzzi');
      return s.status.observedGeneration === s.metadata.generation && s.status.readyReplicas === 3 && s.status.updatedReplicas === 1 ? s : undefined;
    }, 10_000, 'partitioned rollout');
    assert.notEqual(set.status.currentRevision, set.status.updateRevision);
    assert.deepEqual(deletionOrder(log.since(mark, 'default')), ['muzzi-2']);
    const pods = await podsOf('default', 'app=nginx-statefulset');
    const image = (n: string) => pods.find((p) => p.metadata.name === n)!.spec.containers[0].image;
    assert.deepEqual([image('muzzi-0'), image('muzzi-1'), image('muzzi-2')], ['nginx', 'nginx', 'nginx:3']);
    const uid = (ps: any[], n: string) => ps.find((p) => p.metadata.name === n)!.metadata.uid;
    assert.equal(uid(pods, 'muzzi-0'), uid(before, 'muzzi-0'));
    assert.equal(uid(pods, 'muzzi-1'), uid(before, 'muzzi-1'));

    // --wait=false: kubectl 1.32's wait can hang on a same-name replacement (docs/workloads.md); the uid wait below is the same check.
    await cluster.kubectl(['delete', 'pod', 'muzzi-0', '--wait=false']);
    const back = await eventually(async () => {
      const p = (await podsOf('default', 'statefulset.kubernetes.io/pod-name=muzzi-0'))[0];
      return p && p.metadata.uid !== uid(pods, 'muzzi-0') && isReady(p) ? p : undefined;
    }, 10_000, 'muzzi-0 back');
    assert.equal(back.spec.containers[0].image, 'nginx');
    assert.equal(back.metadata.labels['controller-revision-hash'], set.status.currentRevision);
    // Finish the rollout for the tests that follow.
    await cluster.kubectl(['patch', 'statefulset', 'muzzi', '-p', '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}']);
    await settled('default', 'muzzi', 3);
  });

  test('Parallel: all three pods are created before any is Ready', async () => {
    kubelet.readyDelayMs = 800;
    const mark = log.mark();
    const file = manifests.write('muzzi-parallel.yaml', seedDoc('StatefulSet', 'muzzi', (o) => o.spec.podManagementPolicy === 'Parallel'));
    await cluster.kubectl(['create', '-f', file, '-n', 'par']);
    await settled('par', 'muzzi', 3);
    const recs = log.since(mark, 'par');
    assert.deepEqual(addedOrder(recs).sort(), ['muzzi-0', 'muzzi-1', 'muzzi-2']);
    const lastAdded = recs.filter((r) => r.type === 'ADDED').reduce((m, r) => (r.rv > m ? r.rv : m), 0n);
    const firstReady = firstRV(recs, (r) => r.ready, 'a Ready pod');
    assert.ok(lastAdded < firstReady, 'a pod was Ready before all were created');
    kubelet.readyDelayMs = 50;
    // Parallel scale-down deletes without waiting for each pod to go.
    const mark2 = log.mark();
    await cluster.kubectl(['scale', 'statefulset', 'muzzi', '-n', 'par', '--replicas=0']);
    await eventually(async () => (await podsOf('par', 'app=nginx-statefulset')).length === 0, 10_000, 'par pods gone');
    assert.deepEqual(deletionOrder(log.since(mark2, 'par')).sort(), ['muzzi-0', 'muzzi-1', 'muzzi-2']);
  });
});

describe('identity', () => {
  const idt = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: idt
  namespace: idt
spec:
  serviceName: idt
  podManagementPolicy: Parallel
  replicas: 2
  selector:
    matchLabels: {app: idt}
  template:
    metadata:
      labels: {app: idt}
    spec:
      containers:
      - name: c
        image: busybox
`;

  test('a pod stuck terminating is not recreated until it is really gone', async () => {
    await cluster.kubectl(['apply', '-f', manifests.write('idt.yaml', idt)]);
    await settled('idt', 'idt', 2);
    const old = (await podsOf('idt', 'statefulset.kubernetes.io/pod-name=idt-1'))[0];
    kubelet.hold('idt/idt-1');
    const mark = log.mark();
    await cluster.kubectl(['delete', 'pod', 'idt-1', '-n', 'idt', '--wait=false']);
    // The controller has seen the terminating pod once it no longer counts it as current.
    await eventually(async () => (await sts('idt', 'idt')).status.updatedReplicas === 1, 10_000, 'terminating pod observed');
    // Make it act again (scale up): idt-2 appears, idt-1 is still not replaced.
    await cluster.kubectl(['scale', 'statefulset', 'idt', '-n', 'idt', '--replicas=3']);
    await eventually(async () => {
      const s = await sts('idt', 'idt');
      return s.status.observedGeneration === s.metadata.generation && s.status.readyReplicas === 3;
    }, 10_000, 'idt-2 ready');
    let recs = log.since(mark, 'idt');
    assert.deepEqual(addedOrder(recs), ['idt-2']);
    const stuck = await clients.pods.get('idt', 'idt-1');
    assert.equal(stuck.metadata.uid, old.metadata.uid);
    assert.ok(stuck.metadata.deletionTimestamp);
    // Force-deleting it (as an operator does for a lost node) lets the controller bring idt-1 back.
    await cluster.kubectl(['delete', 'pod', 'idt-1', '-n', 'idt', '--grace-period=0', '--force']);
    kubelet.release('idt/idt-1');
    await settled('idt', 'idt', 3);
    recs = log.since(mark, 'idt');
    const gone = firstRV(recs, (r) => r.uid === old.metadata.uid && r.type === 'DELETED', 'old idt-1 deleted');
    const again = firstRV(recs, (r) => r.name === 'idt-1' && r.type === 'ADDED', 'new idt-1 added');
    assert.ok(gone < again);
    log.assertIdentityNeverDoubled();
  });

  test('orphans that match are adopted (then condemned by ordinal); owned pods that stop matching are released', async () => {
    const set = await sts('idt', 'idt');
    const orphan = `apiVersion: v1
kind: Pod
metadata:
  name: idt-7
  namespace: idt
  labels: {app: idt}
spec:
  containers:
  - name: c
    image: busybox
`;
    const mark = log.mark();
    await cluster.kubectl(['apply', '-f', manifests.write('orphan.yaml', orphan)]);
    await eventually(async () => (await podsOf('idt', 'app=idt')).every((p) => p.metadata.name !== 'idt-7'),
      10_000, 'idt-7 adopted and deleted');
    const recs = log.since(mark, 'idt').filter((r) => r.name === 'idt-7');
    const adopted = firstRV(recs, (r) => (r.obj.metadata.ownerReferences ?? []).some((o: any) => o.uid === set.metadata.uid && o.controller), 'idt-7 adopted');
    const deleted = firstRV(recs, (r) => r.deleting || r.type === 'DELETED', 'idt-7 deleted');
    assert.ok(adopted < deleted);
    assert.ok((await events('idt', 'idt')).includes('SuccessfulDelete: delete Pod idt-7 in StatefulSet idt successful'));

    const stray = `apiVersion: v1
kind: Pod
metadata:
  name: idt-9
  namespace: idt
  labels: {app: stray}
  ownerReferences:
  - {apiVersion: apps/v1, kind: StatefulSet, name: idt, uid: ${set.metadata.uid}, controller: true}
spec:
  containers:
  - name: c
    image: busybox
`;
    await cluster.kubectl(['apply', '-f', manifests.write('stray.yaml', stray)]);
    const released = await eventually(async () => {
      const p = await clients.pods.get('idt', 'idt-9');
      return (p.metadata.ownerReferences ?? []).length === 0 ? p : undefined;
    }, 10_000, 'idt-9 released');
    assert.equal(released.metadata.deletionTimestamp, undefined);
    await cluster.kubectl(['delete', 'pod', 'idt-9', '-n', 'idt']);
  });

  test('a failed pod is deleted and recreated under the same name', async () => {
    const oldUid = await kubelet.fail('idt', 'idt-0');
    const back = await eventually(async () => {
      const p = (await podsOf('idt', 'statefulset.kubernetes.io/pod-name=idt-0'))[0];
      return p && p.metadata.uid !== oldUid && isReady(p) ? p : undefined;
    }, 10_000, 'idt-0 recreated');
    assert.equal(back.metadata.name, 'idt-0');
    assert.ok((await events('idt', 'idt')).includes('SuccessfulDelete: delete Pod idt-0 in StatefulSet idt successful'));
    log.assertIdentityNeverDoubled();
  });
});

describe('volumeClaimTemplates: the documentation\'s web StatefulSet', () => {
  const claims = async () => (await clients.resource('persistentvolumeclaims').list('vol')).items;
  const uids = async () => Object.fromEntries((await claims()).map((c: any) => [c.metadata.name, c.metadata.uid]));

  test('claims www-web-N are created before their pods and reused when pods come back', async () => {
    const mark = log.mark();
    const file = manifests.write('web.yaml', `${seedDoc('Service', 'nginx')}---\n${seedDoc('StatefulSet', 'web')}`);
    await cluster.kubectl(['apply', '-n', 'vol', '-f', file]);
    await settled('vol', 'web', 2);
    const pvcs = await claims();
    assert.deepEqual(pvcs.map((c: any) => c.metadata.name).sort(), ['www-web-0', 'www-web-1']);
    for (const c of pvcs) {
      assert.deepEqual(c.metadata.labels, { app: 'nginx' });
      assert.deepEqual(c.spec.accessModes, ['ReadWriteOnce']);
      assert.equal(c.spec.resources.requests.storage, '1Gi');
      assert.equal(c.metadata.ownerReferences, undefined);
    }
    const pods = log.since(mark, 'vol');
    const claimRecs = log.since(mark, 'vol', 'PersistentVolumeClaim');
    for (const n of [0, 1]) {
      const claimAdded = firstRV(claimRecs, (r) => r.name === `www-web-${n}` && r.type === 'ADDED', `www-web-${n} added`);
      const podAdded = firstRV(pods, (r) => r.name === `web-${n}` && r.type === 'ADDED', `web-${n} added`);
      assert.ok(claimAdded < podAdded, `web-${n} was created before its claim`);
    }
    const web1 = (await podsOf('vol', 'statefulset.kubernetes.io/pod-name=web-1'))[0];
    assert.deepEqual(web1.spec.volumes.find((v: any) => v.name === 'www'), { name: 'www', persistentVolumeClaim: { claimName: 'www-web-1' } });
    const ev = await events('vol', 'web');
    assert.ok(ev.includes('SuccessfulCreate: create Claim www-web-0 Pod web-0 in StatefulSet web success'), ev.join('\n'));

    const claimUids = await uids();
    await cluster.kubectl(['delete', 'pod', 'web-1', '-n', 'vol', '--wait=false']); // the uid wait below, not kubectl 1.32's (docs/workloads.md)
    const back = await eventually(async () => {
      const p = (await podsOf('vol', 'statefulset.kubernetes.io/pod-name=web-1'))[0];
      return p && p.metadata.uid !== web1.metadata.uid && isReady(p) ? p : undefined;
    }, 10_000, 'web-1 back');
    assert.equal(back.spec.volumes.find((v: any) => v.name === 'www').persistentVolumeClaim.claimName, 'www-web-1');
    assert.deepEqual(await uids(), claimUids);

    await cluster.kubectl(['scale', 'statefulset', 'web', '-n', 'vol', '--replicas=0']);
    await eventually(async () => (await podsOf('vol', 'app=nginx')).length === 0, 10_000, 'web scaled to 0');
    assert.deepEqual(await uids(), claimUids);
    await cluster.kubectl(['scale', 'statefulset', 'web', '-n', 'vol', '--replicas=2']);
    await settled('vol', 'web', 2);
    assert.deepEqual(await uids(), claimUids);
  });

  test('persistentVolumeClaimRetentionPolicy: owner references to the set, and to the condemned pod before it goes', async () => {
    await cluster.kubectl(['patch', 'statefulset', 'web', '-n', 'vol', '-p',
      '{"spec":{"persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Delete","whenScaled":"Delete"}}}']);
    const set = await sts('vol', 'web');
    const setRef = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: set.metadata.uid, controller: true, blockOwnerDeletion: true };
    await eventually(async () => (await claims()).every((c: any) => JSON.stringify(c.metadata.ownerReferences) === JSON.stringify([setRef])),
      10_000, 'claims owned by the set');
    const web1 = (await podsOf('vol', 'statefulset.kubernetes.io/pod-name=web-1'))[0];
    const mark = log.mark();
    await cluster.kubectl(['scale', 'statefulset', 'web', '-n', 'vol', '--replicas=1']);
    await eventually(async () => (await podsOf('vol', 'app=nginx')).length === 1, 10_000, 'web-1 gone');
    const claim1 = (await claims()).find((c: any) => c.metadata.name === 'www-web-1');
    assert.deepEqual(claim1.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Pod', name: 'web-1', uid: web1.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    const refSet = firstRV(log.since(mark, 'vol', 'PersistentVolumeClaim'),
      (r) => r.name === 'www-web-1' && (r.obj.metadata.ownerReferences ?? []).some((o: any) => o.uid === web1.metadata.uid), 'claim owned by web-1');
    const deleted = firstRV(log.since(mark, 'vol'), (r) => r.uid === web1.metadata.uid && (r.deleting || r.type === 'DELETED'), 'web-1 deletion');
    assert.ok(refSet < deleted, 'the claim got its pod owner only after the pod was deleted');
    // The garbage collector would now delete www-web-1; until it is gone, web-1 is not recreated on it.
    await cluster.kubectl(['scale', 'statefulset', 'web', '-n', 'vol', '--replicas=2']);
    await eventually(async () => {
      const s = await sts('vol', 'web');
      return s.status.observedGeneration === s.metadata.generation;
    }, 10_000, 'scale observed');
    assert.equal((await podsOf('vol', 'statefulset.kubernetes.io/pod-name=web-1')).length, 0);
    await cluster.kubectl(['delete', 'pvc', 'www-web-1', '-n', 'vol']);
    await settled('vol', 'web', 2);
    const fresh = (await claims()).find((c: any) => c.metadata.name === 'www-web-1');
    assert.notEqual(fresh.metadata.uid, claim1.metadata.uid);
    log.assertIdentityNeverDoubled();
  });
});
