/**
 * The DaemonSet controller's rules, table-driven: nodeShouldRunDaemonPod,
 * the manage and rolling-update plans, status numbers, surge/unavailable
 * arithmetic, revision hashing and history, expectations and back-off.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  nodeShouldRunDaemonPod, sameDaemonPodInputs, podsShouldBeOnNode, planManage, planRollingUpdate, computeStatus, updatedDesiredNodeCounts,
  findUpdatedPodsOnNode, scaledValueFromIntOrPercent, surgeCount, unavailableCount, allowsSurge, createPodTemplate,
  newDaemonPod, isPodUpdated, targetNodeName, daemonPodTolerations, compareDaemonPods, computeHash, revisionData,
  revisionMatches, newRevision, revisionsToDelete, canonicalJSON, ControllerExpectations, Backoff, controllerRevisionHashLabel,
} from '../../src/controllers/daemonset/index.js';
import type { PlanContext } from '../../src/controllers/daemonset/index.js';
import type { PodSpec } from 'kubernetes-types/core/v1.js';

// ---- fixtures ----

const controlPlaneTaint = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' };
const controlPlaneToleration = { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' };
const masterToleration = { key: 'node-role.kubernetes.io/master', operator: 'Exists', effect: 'NoSchedule' };

function node(name: string, o: { labels?: Record<string, string>; taints?: any[] } = {}): any {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name, ...(o.labels ?? {}) } }, spec: { taints: o.taints } };
}

interface DSOpts {
  name?: string;
  namespace?: string;
  tolerations?: any[];
  nodeSelector?: Record<string, string>;
  affinity?: any;
  nodeName?: string;
  hostNetwork?: boolean;
  strategy?: any;
  minReadySeconds?: number;
  annotations?: Record<string, string>;
  image?: string;
}

function daemonSet(o: DSOpts = {}): any {
  const name = o.name ?? 'ds';
  const spec: any = { containers: [{ name: 'c', image: o.image ?? 'img:v1' }] };
  if (o.tolerations) spec.tolerations = o.tolerations;
  if (o.nodeSelector) spec.nodeSelector = o.nodeSelector;
  if (o.affinity) spec.affinity = o.affinity;
  if (o.nodeName) spec.nodeName = o.nodeName;
  if (o.hostNetwork) spec.hostNetwork = true;
  return {
    apiVersion: 'apps/v1', kind: 'DaemonSet',
    metadata: { name, namespace: o.namespace ?? 'default', uid: `uid-${name}`, generation: 1, annotations: o.annotations },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec },
      updateStrategy: o.strategy ?? { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      minReadySeconds: o.minReadySeconds ?? 0,
      revisionHistoryLimit: 10,
    },
  };
}

const fluentd = () => daemonSet({ name: 'fluentd-elasticsearch', namespace: 'kube-system', tolerations: [controlPlaneToleration, masterToleration] });

const now = new Date('2025-01-01T00:10:00Z');

interface PodOpts {
  hash?: string;
  phase?: string;
  ready?: boolean | string;
  created?: string;
  deleting?: boolean;
  /** Bound (spec.nodeName) or only pinned by affinity. */
  scheduled?: boolean;
}

/** A daemon pod on `nodeName`; ready since `ready` (an RFC 3339 time) or long before `now` when true. */
function pod(name: string, nodeName: string, o: PodOpts = {}): any {
  const readySince = typeof o.ready === 'string' ? o.ready : '2025-01-01T00:00:00Z';
  const p: any = {
    metadata: {
      name, namespace: 'default', creationTimestamp: o.created ?? '2025-01-01T00:00:00Z',
      labels: { app: 'ds', [controllerRevisionHashLabel]: o.hash ?? 'new' },
    },
    spec: {
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] }] } } },
    },
    status: { phase: o.phase ?? 'Running', conditions: o.ready ? [{ type: 'Ready', status: 'True', lastTransitionTime: readySince }] : [] },
  };
  if (o.scheduled !== false) p.spec.nodeName = nodeName;
  if (o.deleting) p.metadata.deletionTimestamp = '2025-01-01T00:09:00Z';
  return p;
}

const nodeMap = (entries: [string, any[]][]) => new Map(entries);

const ctxFor = (ds: any, extra: Partial<PlanContext> = {}): PlanContext => ({ ds, hash: 'new', now, ...extra });
const cp = () => node('control-plane', { labels: { 'node-role.kubernetes.io/control-plane': '' }, taints: [controlPlaneTaint] });

// ---- nodeShouldRunDaemonPod ----

describe('nodeShouldRunDaemonPod', () => {
  const taint = (key: string, effect: string, value?: string) => ({ key, effect, ...(value ? { value } : {}) });
  // [description, node, ds, shouldRun, shouldContinueRunning]
  const table: [string, any, any, boolean, boolean][] = [
    ['seed: fluentd tolerating the control-plane taint runs on the control-plane node', cp(), fluentd(), true, true],
    ['seed: a DaemonSet without the toleration skips the control-plane node', cp(), daemonSet(), false, true],
    ['seed: a NoExecute taint without toleration: no pod, and an existing one goes', node('n', { taints: [taint('dedicated', 'NoExecute', 'db')] }), daemonSet(), false, false],
    ['a plain worker runs it', node('w1'), daemonSet(), true, true],
    ['NoExecute tolerated, NoSchedule not: keep running, create none',
      node('n', { taints: [taint('a', 'NoExecute'), taint('b', 'NoSchedule')] }), daemonSet({ tolerations: [{ key: 'a', operator: 'Exists', effect: 'NoExecute' }] }), false, true],
    ['a NoExecute toleration with tolerationSeconds still tolerates',
      node('n', { taints: [taint('a', 'NoExecute')] }), daemonSet({ tolerations: [{ key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }] }), true, true],
    ['PreferNoSchedule is ignored', node('n', { taints: [taint('p', 'PreferNoSchedule')] }), daemonSet(), true, true],
    ['an empty key with Exists tolerates every taint', node('n', { taints: [taint('x', 'NoExecute'), taint('y', 'NoSchedule', 'v')] }), daemonSet({ tolerations: [{ operator: 'Exists' }] }), true, true],
    ['an Equal toleration with another value does not tolerate', cp(), daemonSet({ tolerations: [{ key: controlPlaneTaint.key, operator: 'Equal', value: 'x', effect: 'NoSchedule' }] }), false, true],
    ['auto toleration: not-ready NoExecute', node('n', { taints: [taint('node.kubernetes.io/not-ready', 'NoExecute')] }), daemonSet(), true, true],
    ['auto toleration: unreachable NoExecute', node('n', { taints: [taint('node.kubernetes.io/unreachable', 'NoExecute')] }), daemonSet(), true, true],
    ['auto toleration: not-ready NoSchedule is not covered (NoExecute only)', node('n', { taints: [taint('node.kubernetes.io/not-ready', 'NoSchedule')] }), daemonSet(), false, true],
    ['auto toleration: disk-pressure', node('n', { taints: [taint('node.kubernetes.io/disk-pressure', 'NoSchedule')] }), daemonSet(), true, true],
    ['auto toleration: memory-pressure', node('n', { taints: [taint('node.kubernetes.io/memory-pressure', 'NoSchedule')] }), daemonSet(), true, true],
    ['auto toleration: pid-pressure', node('n', { taints: [taint('node.kubernetes.io/pid-pressure', 'NoSchedule')] }), daemonSet(), true, true],
    ['auto toleration: unschedulable (cordon)', node('n', { taints: [taint('node.kubernetes.io/unschedulable', 'NoSchedule')] }), daemonSet(), true, true],
    ['network-unavailable without hostNetwork is not tolerated', node('n', { taints: [taint('node.kubernetes.io/network-unavailable', 'NoSchedule')] }), daemonSet(), false, true],
    ['network-unavailable with hostNetwork is tolerated', node('n', { taints: [taint('node.kubernetes.io/network-unavailable', 'NoSchedule')] }), daemonSet({ hostNetwork: true }), true, true],
    ['nodeSelector matching', node('n', { labels: { disk: 'ssd' } }), daemonSet({ nodeSelector: { disk: 'ssd' } }), true, true],
    ['nodeSelector not matching: neither', node('n', { labels: { disk: 'hdd' } }), daemonSet({ nodeSelector: { disk: 'ssd' } }), false, false],
    ['required affinity not matching: neither', node('n'),
      daemonSet({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } } } }), false, false],
    ['required affinity matching', node('n', { labels: { zone: 'a' } }),
      daemonSet({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } } } }), true, true],
    ['affinity mismatch wins over a taint', node('n', { taints: [taint('x', 'NoExecute')] }), daemonSet({ nodeSelector: { a: 'b' } }), false, false],
    ['template nodeName of another node: neither', node('n'), daemonSet({ nodeName: 'other' }), false, false],
    ['template nodeName of this node', node('n'), daemonSet({ nodeName: 'n' }), true, true],
  ];
  for (const [desc, n, ds, run, cont] of table) {
    it(desc, () => assert.deepEqual(nodeShouldRunDaemonPod(n, ds), { shouldRun: run, shouldContinueRunning: cont }));
  }
});

describe('sameDaemonPodInputs: a node update that cannot change nodeShouldRunDaemonPod for any DaemonSet', () => {
  const withTaint = (t: object) => node('n', { labels: { a: '1' }, taints: [t] });
  const base = () => node('n', { labels: { a: '1', b: '2' }, taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }] });
  // [description, old, new, same]
  const table: [string, any, any, boolean][] = [
    ['a heartbeat (status only)', base(), { ...base(), status: { conditions: [{ type: 'Ready', status: 'True' }] } }, true],
    ['labels in another order', node('n', { labels: { a: '1', b: '2' } }), node('n', { labels: { b: '2', a: '1' } }), true],
    ['no labels and empty labels', { metadata: { name: 'n' } }, { metadata: { name: 'n', labels: {} } }, true],
    ['a label value changed', base(), node('n', { labels: { a: '1', b: '3' }, taints: base().spec.taints }), false],
    ['a label added', base(), node('n', { labels: { a: '1', b: '2', c: '' }, taints: base().spec.taints }), false],
    ['a label removed', base(), node('n', { labels: { a: '1' }, taints: base().spec.taints }), false],
    ['a label renamed, same count', node('n', { labels: { a: '1' } }), node('n', { labels: { x: '1' } }), false],
    ['a label on one side only, same count', { metadata: { name: 'n', labels: { a: undefined } } }, { metadata: { name: 'n', labels: { b: undefined } } }, false],
    ['a taint added', node('n'), withTaint({ key: 'k', effect: 'NoExecute' }), false],
    ['a taint\'s effect changed', withTaint({ key: 'k', effect: 'NoSchedule' }), withTaint({ key: 'k', effect: 'NoExecute' }), false],
    ['a taint\'s value changed', withTaint({ key: 'k', value: 'a', effect: 'NoSchedule' }), withTaint({ key: 'k', value: 'b', effect: 'NoSchedule' }), false],
    ['a taint\'s timeAdded changed', withTaint({ key: 'k', effect: 'NoExecute', timeAdded: '2026-12-04T00:00:00Z' }), withTaint({ key: 'k', effect: 'NoExecute', timeAdded: '2026-12-04T00:00:01Z' }), false],
    ['another name', node('n'), node('m'), false],
  ];
  for (const [desc, a, b, same] of table) {
    it(desc, () => {
      assert.equal(sameDaemonPodInputs(a, b), same);
      assert.equal(sameDaemonPodInputs(b, a), same, 'symmetric');
      if (same) for (const ds of [daemonSet(), daemonSet({ nodeSelector: { a: '1' } }), fluentd()]) assert.deepEqual(nodeShouldRunDaemonPod(a, ds), nodeShouldRunDaemonPod(b, ds));
    });
  }
});

// ---- pod construction ----

describe('daemon pods', () => {
  it('every pod gets the daemon tolerations, the hash and the template generation', () => {
    const ds = daemonSet({ tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }, controlPlaneToleration] });
    const t = createPodTemplate(ds.spec.template, 3, 'abc');
    assert.equal(t.metadata!.labels![controllerRevisionHashLabel], 'abc');
    assert.equal(t.metadata!.labels!['pod-template-generation'], '3');
    assert.equal(t.metadata!.labels!.app, 'ds');
    const keys = t.spec!.tolerations!.map((x: any) => `${x.key}:${x.effect}:${x.tolerationSeconds ?? ''}`);
    assert.deepEqual(keys, [
      'node.kubernetes.io/not-ready:NoExecute:', // replaced in place: no tolerationSeconds any more
      'node-role.kubernetes.io/control-plane:NoSchedule:',
      'node.kubernetes.io/unreachable:NoExecute:',
      'node.kubernetes.io/disk-pressure:NoSchedule:',
      'node.kubernetes.io/memory-pressure:NoSchedule:',
      'node.kubernetes.io/pid-pressure:NoSchedule:',
      'node.kubernetes.io/unschedulable:NoSchedule:',
    ]);
    assert.equal(ds.spec.template.spec.tolerations.length, 2, 'the DaemonSet is not modified');
  });

  it('hostNetwork adds network-unavailable', () => {
    assert.equal(daemonPodTolerations(false).length, 6);
    assert.deepEqual(daemonPodTolerations(true)[6], { key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' });
  });

  it('a pod is pinned by matchFields, named by generateName and owned by the DaemonSet', () => {
    const ds = daemonSet({ name: 'http-go', affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'Exists' }] }] }, preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [{ key: 'b', operator: 'Exists' }] } }] } } });
    const p = newDaemonPod(ds, createPodTemplate(ds.spec.template, 1, 'h'), 'w1');
    assert.equal(p.metadata!.generateName, 'http-go-');
    assert.equal(p.metadata!.name, undefined);
    assert.deepEqual(p.metadata!.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'http-go', uid: 'uid-http-go', controller: true, blockOwnerDeletion: true }]);
    assert.deepEqual(p.spec!.affinity!.nodeAffinity!.requiredDuringSchedulingIgnoredDuringExecution,
      { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['w1'] }] }] });
    assert.equal(p.spec!.affinity!.nodeAffinity!.preferredDuringSchedulingIgnoredDuringExecution!.length, 1, 'preferred terms are kept');
    assert.equal(targetNodeName(p), 'w1');
    assert.equal(targetNodeName({ ...p, spec: { ...p.spec!, nodeName: 'w2' } }), 'w2');
    assert.equal(targetNodeName({ spec: {} as PodSpec }), undefined);
  });

  it('isPodUpdated: by hash, or by template generation', () => {
    const p = { metadata: { labels: { [controllerRevisionHashLabel]: 'h1', 'pod-template-generation': '2' } } };
    assert.equal(isPodUpdated(p, 'h1', undefined), true);
    assert.equal(isPodUpdated(p, 'h2', undefined), false);
    assert.equal(isPodUpdated(p, 'h2', 2), true);
    assert.equal(isPodUpdated(p, '', 3), false);
  });

  it('order: scheduled first, then oldest, then by name', () => {
    const pods = [
      pod('c', 'n', { created: '2025-01-01T00:00:01Z' }), pod('b', 'n'), pod('a', 'n', { scheduled: false }), pod('a2', 'n'),
    ];
    assert.deepEqual(pods.sort(compareDaemonPods).map((p) => p.metadata.name), ['a2', 'b', 'c', 'a']);
  });
});

// ---- manage plan ----

describe('podsShouldBeOnNode', () => {
  const surge = daemonSet({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } } });
  const n = node('n');
  const names = (xs: string[]) => [...xs].sort();
  // [description, ds, node, pods on it (undefined: none), create?, pods to delete]
  const table: [string, any, any, any[] | undefined, boolean, string[]][] = [
    ['should run, no pod: create', daemonSet(), n, undefined, true, []],
    ['one running pod: nothing', daemonSet(), n, [pod('a', 'n')], false, []],
    ['extra pods: keep the oldest', daemonSet(), n, [pod('b', 'n', { created: '2025-01-01T00:00:05Z' }), pod('a', 'n'), pod('c', 'n', { created: '2025-01-01T00:00:09Z' })], false, ['b', 'c']],
    ['extra pods: a bound pod beats an older pending one', daemonSet(), n, [pod('old', 'n', { scheduled: false }), pod('new', 'n', { created: '2025-01-01T00:00:05Z' })], false, ['old']],
    ['succeeded pod: delete it', daemonSet(), n, [pod('a', 'n', { phase: 'Succeeded' })], false, ['a']],
    ['a pod being deleted only: wait for it (no surge)', daemonSet(), n, [pod('a', 'n', { deleting: true })], false, []],
    ['a pod being deleted only: create at once with surge', surge, n, [pod('a', 'n', { deleting: true })], true, []],
    ['surge: old ready, new not yet available: keep both', surge, n, [pod('old', 'n', { hash: 'old', ready: true }), pod('new', 'n', { created: '2025-01-01T00:01:00Z' })], false, []],
    ['surge: the new pod is available: the old goes', surge, n, [pod('old', 'n', { hash: 'old', ready: true }), pod('new', 'n', { ready: true, created: '2025-01-01T00:01:00Z' })], false, ['old']],
    ['surge: the old pod is not ready: it goes', surge, n, [pod('old', 'n', { hash: 'old' }), pod('new', 'n', { created: '2025-01-01T00:01:00Z' })], false, ['old']],
    ['surge: duplicates of a kind go, oldest kept', surge, n,
      [pod('old1', 'n', { hash: 'old', ready: true }), pod('old2', 'n', { hash: 'old', created: '2025-01-01T00:01:00Z' }), pod('new1', 'n', { created: '2025-01-01T00:02:00Z' }), pod('new2', 'n', { created: '2025-01-01T00:03:00Z' })],
      false, ['new2', 'old2']],
    ['untolerated NoExecute: every pod not being deleted goes', daemonSet(), node('n', { taints: [{ key: 'x', effect: 'NoExecute' }] }),
      [pod('a', 'n'), pod('b', 'n', { deleting: true })], false, ['a']],
    ['untolerated NoSchedule: an existing pod stays', daemonSet(), cp(), [pod('a', 'control-plane')], false, []],
    ['untolerated NoSchedule and no pod: nothing', daemonSet(), cp(), undefined, false, []],
    ['not matching the selector any more: delete', daemonSet({ nodeSelector: { a: 'b' } }), n, [pod('a', 'n')], false, ['a']],
  ];
  for (const [desc, ds, nd, pods, create, del] of table) {
    it(desc, () => {
      const m = nodeMap(pods ? [[nd.metadata.name, pods]] : []);
      const p = podsShouldBeOnNode(nd, m, ctxFor(ds));
      assert.deepEqual(p.nodesNeedingDaemonPods, create ? [nd.metadata.name] : []);
      assert.deepEqual(names(p.podsToDelete), del);
    });
  }

  it('a failed pod is deleted with a FailedDaemonPod event and a back-off step', () => {
    const p = podsShouldBeOnNode(n, nodeMap([['n', [pod('a', 'n', { phase: 'Failed' })]]]), ctxFor(daemonSet(), { failedPodBackoff: () => undefined }));
    assert.deepEqual(p.podsToDelete, ['a']);
    assert.deepEqual(p.backoffNodes, ['n']);
    assert.deepEqual(p.events, [{ type: 'Warning', reason: 'FailedDaemonPod', message: 'Found failed daemon pod default/a on node n, will try to kill it' }]);
  });

  it('a failed pod in back-off stays, and the sync comes back when the back-off ends', () => {
    const p = podsShouldBeOnNode(n, nodeMap([['n', [pod('a', 'n', { phase: 'Failed' })]]]), ctxFor(daemonSet(), { failedPodBackoff: () => 4000 }));
    assert.deepEqual(p.podsToDelete, []);
    assert.deepEqual(p.nodesNeedingDaemonPods, []);
    assert.equal(p.requeueAfterMs, 4000);
  });

  it('planManage: every node, plus pending pods pinned to nodes that are gone', () => {
    const nodes = [node('a'), node('b'), cp()];
    const m = nodeMap([['a', [pod('pa', 'a')]], ['gone', [pod('pending', 'gone', { scheduled: false }), pod('bound', 'gone')]]]);
    const p = planManage(nodes, m, ctxFor(daemonSet()));
    assert.deepEqual(p.nodesNeedingDaemonPods, ['b']);
    assert.deepEqual(p.podsToDelete, ['pending']);
    const f = planManage([...nodes], new Map(), ctxFor(fluentd()));
    assert.deepEqual(f.nodesNeedingDaemonPods, ['a', 'b', 'control-plane']);
  });
});

// ---- rolling update ----

describe('planRollingUpdate', () => {
  const nodes = [node('a'), node('b'), node('c')];
  const rolling = (maxUnavailable: any, maxSurge: any, minReadySeconds = 0) =>
    daemonSet({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable, maxSurge } }, minReadySeconds });
  const allOld = () => nodeMap(nodes.map((n) => [n.metadata.name, [pod(`old-${n.metadata.name}`, n.metadata.name, { hash: 'old', ready: true })]]));
  const run = (ds: any, m: Map<string, any[]>) => {
    const r = planRollingUpdate(nodes, m, ctxFor(ds));
    assert.ok(!('error' in r), JSON.stringify(r));
    return r as { podsToDelete: string[]; nodesToCreate: string[] };
  };

  it('maxUnavailable 1: one old pod at a time', () => assert.deepEqual(run(rolling(1, 0), allOld()), { podsToDelete: ['old-a'], nodesToCreate: [] }));
  it('maxUnavailable 50% of 3 rounds up to 2', () => assert.deepEqual(run(rolling('50%', 0), allOld()).podsToDelete, ['old-a', 'old-b']));
  it('a node with no pod counts against maxUnavailable', () => {
    const m = allOld();
    m.delete('a');
    assert.deepEqual(run(rolling(1, 0), m).podsToDelete, []);
  });
  it('a new pod not yet available counts against maxUnavailable', () => {
    const m = allOld();
    m.set('a', [pod('new-a', 'a')]);
    assert.deepEqual(run(rolling(1, 0), m).podsToDelete, []);
    m.set('a', [pod('new-a', 'a', { ready: true })]);
    assert.deepEqual(run(rolling(1, 0), m).podsToDelete, ['old-b']);
  });
  it('minReadySeconds: a pod ready too briefly is not available yet', () => {
    const m = allOld();
    m.set('a', [pod('new-a', 'a', { ready: '2025-01-01T00:09:55Z' })]);
    assert.deepEqual(run(rolling(1, 0, 10), m).podsToDelete, []);
    assert.deepEqual(run(rolling(1, 0, 5), m).podsToDelete, ['old-b']);
  });
  it('unavailable old pods are replaced at once, beyond maxUnavailable', () => {
    const m = nodeMap(nodes.map((n) => [n.metadata.name, [pod(`old-${n.metadata.name}`, n.metadata.name, { hash: 'old' })]]));
    assert.deepEqual(run(rolling(1, 0), m).podsToDelete, ['old-a', 'old-b', 'old-c']);
  });
  it('a terminating old pod is left alone (manage waits for it)', () => {
    const m = allOld();
    m.set('a', [pod('old-a', 'a', { hash: 'old', ready: true, deleting: true })]);
    assert.deepEqual(run(rolling(1, 0), m).podsToDelete, []);
  });
  it('maxUnavailable 0 and maxSurge 0 behaves as maxUnavailable 1', () => assert.deepEqual(run(rolling(0, 0), allOld()).podsToDelete, ['old-a']));

  it('maxSurge 1: a new pod beside one old pod, nothing deleted', () => assert.deepEqual(run(rolling(0, 1), allOld()), { podsToDelete: [], nodesToCreate: ['a'] }));
  it('maxSurge 1: while the surged pod is not available, nothing more', () => {
    const m = allOld();
    m.get('a')!.push(pod('new-a', 'a'));
    assert.deepEqual(run(rolling(0, 1), m), { podsToDelete: [], nodesToCreate: [] });
  });
  it('maxSurge 1: once available the old pod goes and the next node surges', () => {
    const m = allOld();
    m.get('a')!.push(pod('new-a', 'a', { ready: true }));
    assert.deepEqual(run(rolling(0, 1), m), { podsToDelete: ['old-a'], nodesToCreate: ['b'] });
  });
  it('maxSurge: an unavailable old pod gets its replacement at once, regardless of the limit', () => {
    const m = allOld();
    m.get('a')!.push(pod('new-a', 'a'));
    m.set('c', [pod('old-c', 'c', { hash: 'old' })]);
    assert.deepEqual(run(rolling(0, 1), m), { podsToDelete: [], nodesToCreate: ['c'] });
  });
  it('maxSurge 100%: every node at once', () => assert.deepEqual(run(rolling(0, '100%'), allOld()).nodesToCreate, ['a', 'b', 'c']));
  it('an invalid percentage is an error worded as upstream', () => {
    const r = planRollingUpdate(nodes, allOld(), ctxFor(rolling('x', 0)));
    assert.deepEqual(r, { error: "couldn't get unavailable numbers: invalid value for MaxUnavailable: invalid value for IntOrString: invalid type: string is not a percentage" });
  });

  it('findUpdatedPodsOnNode: two of a kind is not ok', () => {
    const ds = daemonSet();
    assert.equal(findUpdatedPodsOnNode(ds, [pod('a', 'n'), pod('b', 'n')], 'new').ok, false);
    assert.equal(findUpdatedPodsOnNode(ds, [pod('a', 'n', { hash: 'x' }), pod('b', 'n', { hash: 'y' })], 'new').ok, false);
    const r = findUpdatedPodsOnNode(ds, [pod('a', 'n', { hash: 'x' }), pod('b', 'n'), pod('c', 'n', { deleting: true })], 'new');
    assert.ok(r.ok && r.oldPod!.metadata!.name === 'a' && r.newPod!.metadata!.name === 'b');
  });

  it('updatedDesiredNodeCounts: desired nodes only, and empty entries for nodes without pods', () => {
    const m = new Map<string, any[]>();
    const r = updatedDesiredNodeCounts(rolling('34%', '10%'), [...nodes, cp()], m);
    assert.deepEqual(r, { maxSurge: 1, maxUnavailable: 2, desiredNumberScheduled: 3 });
    assert.deepEqual([...m.keys()], ['a', 'b', 'c']);
  });
});

describe('surge and unavailable arithmetic', () => {
  // [value, total, roundUp, expected]
  const table: [any, number, boolean, number | string][] = [
    [1, 3, true, 1], [5, 3, true, 5], ['25%', 10, true, 3], ['25%', 10, false, 2], ['30%', 10, true, 3], ['33%', 10, true, 4],
    ['10%', 3, true, 1], ['0%', 3, true, 0], ['100%', 7, true, 7], ['50%', 0, true, 0], ['1%', 1, true, 1], ['1%', 1, false, 0],
    ['abc', 3, true, 'invalid value for IntOrString: invalid type: string is not a percentage'],
    ['x%', 3, true, 'invalid value for IntOrString: invalid value "x%": strconv.Atoi: parsing "x": invalid syntax'],
    [undefined, 3, true, 'nil value for IntOrString'],
  ];
  for (const [v, total, up, want] of table) {
    it(`${JSON.stringify(v)} of ${total} (${up ? 'up' : 'down'})`, () => {
      assert.deepEqual(scaledValueFromIntOrPercent(v, total, up), typeof want === 'number' ? { value: want } : { error: want });
    });
  }
  it('surge only for RollingUpdate with maxSurge', () => {
    assert.deepEqual(surgeCount(daemonSet({ strategy: { type: 'OnDelete' } }), 5), { value: 0 });
    assert.deepEqual(surgeCount(daemonSet({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } } }), 5), { value: 0 });
    assert.deepEqual(surgeCount(daemonSet({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '20%' } } }), 6), { value: 2 });
    assert.deepEqual(unavailableCount(daemonSet({ strategy: { type: 'OnDelete' } }), 5), { value: 0 });
    assert.equal(allowsSurge(daemonSet({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '1%' } } })), true);
    assert.equal(allowsSurge(daemonSet()), false);
  });
});

// ---- status ----

describe('computeStatus', () => {
  it('counts desired, current, ready, available, updated, misscheduled, unavailable', () => {
    const nodes = [node('a'), node('b'), node('c'), node('d'), cp()];
    const m = nodeMap([
      ['a', [pod('pa', 'a', { ready: true })]],
      ['b', [pod('pb', 'b', { hash: 'old', ready: '2025-01-01T00:09:59Z' })]],
      ['c', [pod('pc', 'c', { scheduled: false })]],
      ['control-plane', [pod('pcp', 'control-plane', { ready: true })]],
    ]);
    const ds = daemonSet({ minReadySeconds: 5 });
    assert.deepEqual(computeStatus(nodes, m, ctxFor(ds)), {
      desiredNumberScheduled: 4, currentNumberScheduled: 3, numberMisscheduled: 1, numberReady: 2,
      updatedNumberScheduled: 2, numberAvailable: 1, numberUnavailable: 3,
    });
  });
  it('judges the oldest pod of a node', () => {
    const m = nodeMap([['a', [pod('new', 'a', { created: '2025-01-01T00:05:00Z', ready: true }), pod('old', 'a', { hash: 'old' })]]]);
    const s = computeStatus([node('a')], m, ctxFor(daemonSet()));
    assert.equal(s.numberReady, 0);
    assert.equal(s.updatedNumberScheduled, 0);
  });
});

// ---- history ----

describe('revisions', () => {
  it('the hash has upstream shape, is stable, and changes with the template and the collision count', () => {
    const a = daemonSet();
    const h = computeHash(a.spec.template);
    assert.match(h, /^[bcdfghjklmnpqrstvwxz2456789]{6,10}$/);
    assert.equal(computeHash(structuredClone(a.spec.template)), h);
    const reordered = { spec: a.spec.template.spec, metadata: a.spec.template.metadata };
    assert.equal(computeHash(reordered), h, 'key order does not matter');
    assert.notEqual(computeHash(daemonSet({ image: 'img:v2' }).spec.template), h);
    assert.notEqual(computeHash(a.spec.template, 1), h);
    assert.notEqual(computeHash(a.spec.template, 0), computeHash(a.spec.template, 1));
  });

  it('data is the strategic merge patch kubectl rollout undo sends', () => {
    const ds = daemonSet({ annotations: { 'kubernetes.io/change-cause': 'v1 rollout' } });
    assert.equal(canonicalJSON(revisionData(ds)),
      '{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"labels":{"app":"ds"}},"spec":{"containers":[{"image":"img:v1","name":"c"}]}}}}');
    const rev = newRevision(ds, 'abc', 3);
    assert.equal(rev.metadata!.name, 'ds-abc');
    assert.equal(rev.revision, 3);
    assert.deepEqual(rev.metadata!.labels, { app: 'ds', [controllerRevisionHashLabel]: 'abc' });
    assert.equal(rev.metadata!.annotations!['kubernetes.io/change-cause'], 'v1 rollout');
    assert.equal(rev.metadata!.ownerReferences![0].uid, 'uid-ds');
    assert.equal(revisionMatches(ds, rev), true);
    assert.equal(revisionMatches(daemonSet({ image: 'img:v2' }), rev), false);
    assert.equal(revisionMatches(ds, JSON.parse(JSON.stringify({ ...rev, data: { spec: { template: { spec: ds.spec.template.spec, metadata: ds.spec.template.metadata, $patch: 'replace' } } } }))), true);
  });

  it('cleanup keeps revisionHistoryLimit, oldest first, sparing live hashes', () => {
    const rev = (n: number) => ({ metadata: { name: `r${n}`, labels: { [controllerRevisionHashLabel]: `h${n}` } }, revision: n });
    const old = [rev(4), rev(1), rev(3), rev(2)];
    assert.deepEqual(revisionsToDelete(old, new Set(), 10), []);
    assert.deepEqual(revisionsToDelete(old, new Set(), 2), ['r1', 'r2']);
    assert.deepEqual(revisionsToDelete(old, new Set(['h1']), 2), ['r2', 'r3']);
    assert.deepEqual(revisionsToDelete(old, new Set(), 0), ['r1', 'r2', 'r3', 'r4']);
  });
});

// ---- expectations and back-off ----

describe('expectations', () => {
  it('met when observed, lowered, absent, or expired', () => {
    let t = 0;
    const clock = { now: () => new Date(t) };
    const e = new ControllerExpectations(clock, 1000);
    assert.equal(e.satisfied('k'), true);
    e.set('k', 2, 1);
    assert.equal(e.satisfied('k'), false);
    e.creationObserved('k');
    e.deletionObserved('k');
    assert.equal(e.satisfied('k'), false);
    e.lower('k', 1, 0);
    assert.equal(e.satisfied('k'), true);
    e.set('k', 1, 0);
    t = 1001;
    assert.equal(e.satisfied('k'), true, 'expired');
    e.set('k', 1, 0);
    e.delete('k');
    assert.equal(e.satisfied('k'), true);
  });

  it('back-off: 1 s, doubling, capped; forgotten after twice the maximum', () => {
    let t = 0;
    const b = new Backoff({ now: () => new Date(t) }, 1000, 4000);
    assert.equal(b.remaining('n'), undefined);
    b.next('n');
    assert.equal(b.remaining('n'), 1000);
    t = 1000;
    assert.equal(b.remaining('n'), undefined);
    b.next('n');
    t = 1500;
    assert.equal(b.remaining('n'), 1500);
    b.next('n');
    b.next('n');
    assert.equal(b.remaining('n'), 4000, 'capped');
    t = 1500 + 8001;
    assert.equal(b.remaining('n'), undefined);
    b.next('n');
    assert.equal(b.remaining('n'), 1000, 'starts over');
  });
});
