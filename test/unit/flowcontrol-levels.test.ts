/**
 * API Priority and Fairness as the server applies kube-apiserver's default
 * objects (src/apiserver/flowcontrol): which FlowSchema, priority level and
 * flow each kind of request lands in (classify.ts), and how the server's
 * seats are shared among the levels (levels.ts): nominal seats by shares,
 * guaranteed seats no other level takes, borrowing of the rest.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from '../../src/api/flowcontrol/bootstrap.js';
import { Classifier, flowOf } from '../../src/apiserver/flowcontrol/classify.js';
import { PriorityLevels, seatsOf } from '../../src/apiserver/flowcontrol/levels.js';
import { defaultSeats, type Release } from '../../src/apiserver/flowcontrol/fair-queue.js';
import type { UserInfo } from '../../src/apiserver/auth/types.js';
import type { RequestInfo } from '../../src/apiserver/request-info.js';

const classifier = new Classifier([...mandatoryFlowSchemas(), ...suggestedFlowSchemas()]);
const configs = [...mandatoryPriorityLevels(), ...suggestedPriorityLevels()];
const auth = 'system:authenticated';
const node: UserInfo = { name: 'system:node:n1', groups: ['system:nodes', auth] };
const scheduler: UserInfo = { name: 'system:kube-scheduler', groups: [auth] };
const kcm: UserInfo = { name: 'system:kube-controller-manager', groups: [auth] };
const admin: UserInfo = { name: 'kubernetes-admin', groups: ['system:masters', auth] };
const alice: UserInfo = { name: 'alice', groups: [auth] };
const ksa = (name: string): UserInfo => ({ name: `system:serviceaccount:kube-system:${name}`, groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', auth] });
const appSA: UserInfo = { name: 'system:serviceaccount:apps:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:apps', auth] };
const anonymous: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

const res = (verb: string, group: string, resource: string, namespace?: string, subresource?: string): RequestInfo =>
  ({ isResourceRequest: true, path: '/', verb, group, version: 'v1', resource, namespace, subresource, parts: [] });
const path = (verb: string, p: string): RequestInfo => ({ isResourceRequest: false, path: p, verb, group: '', version: '', parts: [] });

describe("classification by kube-apiserver's default FlowSchemas", () => {
  const cases: [string, UserInfo, RequestInfo, string, string][] = [
    ['a node renews its Lease', node, res('update', 'coordination.k8s.io', 'leases', 'kube-node-lease'), 'system-node-high', 'node-high'],
    ['a node writes its status', node, res('patch', '', 'nodes', undefined, 'status'), 'system-node-high', 'node-high'],
    ['a node updates its Node', node, res('update', '', 'nodes'), 'system-node-high', 'node-high'],
    ["a node writes a pod's status", node, res('update', '', 'pods', 'default', 'status'), 'system-nodes', 'system'],
    ['the scheduler binds a pod', scheduler, res('create', '', 'pods', 'default', 'binding'), 'kube-scheduler', 'workload-high'],
    ['the scheduler renews its leader Lease', scheduler, res('update', 'coordination.k8s.io', 'leases', 'kube-system'), 'system-leader-election', 'leader-election'],
    ['the controller manager creates a pod', kcm, res('create', '', 'pods', 'default'), 'kube-controller-manager', 'workload-high'],
    ["node lifecycle taints a node", kcm, res('patch', '', 'nodes'), 'kube-controller-manager', 'workload-high'],
    ['the controller manager writes Endpoints', kcm, res('update', '', 'endpoints', 'default'), 'endpoint-controller', 'workload-high'],
    ['a kube-system service account', ksa('coredns'), res('list', '', 'services'), 'kube-system-service-accounts', 'workload-high'],
    ['a kube-system service account elects a leader on a ConfigMap', ksa('x'), res('update', '', 'configmaps', 'kube-system'), 'workload-leader-election', 'leader-election'],
    ['a kube-system service account elects a leader on a Lease', ksa('x'), res('update', 'coordination.k8s.io', 'leases', 'kube-system'), 'system-leader-election', 'leader-election'],
    ["an application's service account", appSA, res('create', '', 'configmaps', 'apps'), 'service-accounts', 'workload-low'],
    ['a user', alice, res('create', '', 'configmaps', 'default'), 'global-default', 'global-default'],
    ['system:masters', admin, res('delete', '', 'pods', 'default'), 'exempt', 'exempt'],
    ['a health probe, anonymous', anonymous, path('get', '/readyz'), 'probes', 'exempt'],
    ['anonymous, elsewhere', anonymous, path('get', '/version'), 'global-default', 'global-default'],
    ["a node's list of pods (not its own objects)", node, res('list', '', 'pods'), 'system-nodes', 'system'],
  ];
  for (const [what, user, info, schema, level] of cases) {
    it(`${what}: ${schema} → ${level}`, () => {
      const s = classifier.classify(user, info);
      assert.equal(s?.name, schema);
      assert.equal(s?.priorityLevel, level);
    });
  }

  it('flows: ByUser per user, ByNamespace per namespace (cluster-scoped writes apart), each schema apart; the key is made once', () => {
    const kcmPod = classifier.classify(kcm, res('create', '', 'pods', 'default'))!;
    const kcmNode = classifier.classify(kcm, res('patch', '', 'nodes'))!;
    const bind = classifier.classify(scheduler, res('create', '', 'pods', 'default', 'binding'))!;
    const podFlow = flowOf(kcmPod, kcm, res('create', '', 'pods', 'default'));
    assert.notEqual(podFlow, flowOf(kcmNode, kcm, res('patch', '', 'nodes')));
    assert.notEqual(podFlow, flowOf(bind, scheduler, res('create', '', 'pods', 'default', 'binding')));
    assert.equal(podFlow, flowOf(kcmPod, kcm, res('update', '', 'pods', 'default')));
    assert.equal(flowOf(kcmPod, kcm, res('create', '', 'pods', 'default')), podFlow, 'the same string, not a new one');
    const gd = classifier.classify(alice, res('create', '', 'configmaps', 'a'))!;
    assert.notEqual(flowOf(gd, alice, res('create', '', 'configmaps', 'a')), flowOf(gd, { name: 'bob', groups: [auth] }, res('create', '', 'configmaps', 'a')));
    assert.equal(flowOf(gd, alice, res('create', '', 'configmaps', 'a')), flowOf(gd, alice, res('create', '', 'configmaps', 'b')));
  });

  it('a user object made per request (impersonation) with other groups is classified by its own groups', () => {
    assert.equal(classifier.classify({ name: 'alice', groups: ['system:masters', auth] }, res('create', '', 'pods', 'a'))?.name, 'exempt');
    assert.equal(classifier.classify({ name: 'alice', groups: [auth] }, res('create', '', 'pods', 'a'))?.name, 'global-default');
  });
});

describe('seats shared among the levels', () => {
  it("nominal seats are each level's shares of the server's, rounded up; lendable seats round(nominal × lendablePercent)", () => {
    const seats = Object.fromEntries(seatsOf(configs, 32));
    assert.deepEqual(seats, {
      'catch-all': { nominal: 1, lendable: 0 }, exempt: { nominal: 0, lendable: 0 }, system: { nominal: 4, lendable: 1 },
      'node-high': { nominal: 6, lendable: 2 }, 'leader-election': { nominal: 2, lendable: 0 }, 'workload-high': { nominal: 6, lendable: 3 },
      'workload-low': { nominal: 14, lendable: 13 }, 'global-default': { nominal: 3, lendable: 2 },
    });
    // kube-apiserver's own defaults (400 + 200 seats): the figures its /metrics shows.
    const upstream = seatsOf(configs, 600);
    assert.deepEqual([upstream.get('workload-high')!.nominal, upstream.get('node-high')!.nominal, upstream.get('global-default')!.nominal], [98, 98, 49]);
  });

  const never = () => {};
  const take = (levels: PriorityLevels, level: string, flow: string) => levels.byName.get(level)!.queue!.acquire(flow, never);
  const seatAll = (levels: PriorityLevels, level: string, flow: string) => {
    const held: Release[] = [];
    for (let got = take(levels, level, flow); typeof got === 'function'; got = take(levels, level, flow)) held.push(got);
    return held;
  };

  it('at 64 seats (--max-mutating-requests-inflight 64): workload-high (the scheduler\'s bindings, the controller manager\'s creates) borrows 44, and the other levels keep their guaranteed seats', () => {
    assert.equal(defaultSeats, 32);
    assert.deepEqual(Object.fromEntries(seatsOf(configs, 64)), {
      'catch-all': { nominal: 2, lendable: 0 }, exempt: { nominal: 0, lendable: 0 }, system: { nominal: 8, lendable: 3 },
      'node-high': { nominal: 11, lendable: 3 }, 'leader-election': { nominal: 3, lendable: 0 }, 'workload-high': { nominal: 11, lendable: 6 },
      'workload-low': { nominal: 27, lendable: 24 }, 'global-default': { nominal: 6, lendable: 3 },
    });
    const levels = new PriorityLevels(configs, 64);
    assert.equal(levels.total, 68);
    // Alone, it holds every seat but the other levels' guaranteed ones: 68 − (2 + 5 + 8 + 3 + 3 + 3).
    const held = seatAll(levels, 'workload-high', 'kube-scheduler\x00default');
    assert.equal(held.length, 44);
    // The others' guaranteed seats stay theirs: a node's heartbeat and a user's create are seated at once.
    assert.equal(typeof take(levels, 'node-high', 'node-1'), 'function');
    assert.equal(typeof take(levels, 'global-default', 'alice'), 'function');
    assert.deepEqual(levels.stats, { inUse: 44 + 2, waiting: 1 });
  });

  it("a flood in one level borrows the free seats but never another level's guaranteed ones; a node's heartbeat is seated at once", () => {
    const levels = new PriorityLevels(configs, 32);
    assert.equal(levels.total, 36);
    const held: Release[] = [];
    for (;;) {
      const got = take(levels, 'global-default', 'flood');
      if (typeof got !== 'function') break;
      held.push(got);
    }
    // Every seat but the other levels' guaranteed ones: 36 − (1 + 3 + 4 + 2 + 3 + 1).
    assert.equal(held.length, 36 - 14);
    assert.equal(typeof take(levels, 'node-high', 'node-1'), 'function');
    assert.equal(typeof take(levels, 'workload-high', 'kube-scheduler\x00default'), 'function');
    // A second level borrows no more: its next request waits.
    for (let i = 0; i < 2; i++) assert.equal(typeof take(levels, 'workload-high', 'kube-scheduler\x00default'), 'function');
    assert.ok(take(levels, 'workload-high', 'kube-scheduler\x00default') instanceof Promise);
  });

  it('a freed seat goes to the levels with requests waiting in turn; a level under its guarantee is seated first', async () => {
    const levels = new PriorityLevels(configs, 32);
    // workload-low's guaranteed seat and the 21 it may borrow (as global-default's flood above).
    const held = Array.from({ length: 22 }, () => take(levels, 'workload-low', 'sa') as Release);
    assert.ok(held.every((r) => typeof r === 'function'));
    // global-default's one guaranteed seat was kept for it: seated at once; its next request must borrow.
    assert.equal(typeof take(levels, 'global-default', 'u'), 'function');
    const order: string[] = [];
    const wait = (level: string, flow: string) => (take(levels, level, flow) as Promise<Release>).then((r) => { order.push(level); return r; });
    const waiting = [wait('workload-low', 'sa'), wait('workload-low', 'sa'), wait('global-default', 'u')];
    held[0]!(); held[1]!();
    await new Promise((r) => setImmediate(r));
    assert.equal(order.length, 2);
    assert.ok(order.includes('global-default'), `one seat each in turn: ${order}`);
    held[2]!();
    await Promise.all(waiting);
    assert.equal(levels.stats.waiting, 0);
  });

  it('catch-all rejects rather than queues once its seats and the free ones are taken', () => {
    const levels = new PriorityLevels(configs, 2);
    const catchAll = levels.byName.get('catch-all')!;
    assert.equal(catchAll.rejects, true);
    const results = Array.from({ length: 10 }, () => take(levels, 'catch-all', 'x'));
    assert.ok(results.some((r) => typeof r === 'function'));
    assert.equal(results.at(-1), 'rejected');
    assert.ok(!results.some((r) => r instanceof Promise));
  });
});
