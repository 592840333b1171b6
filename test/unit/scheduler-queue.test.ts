/**
 * The scheduling queue: priority order, back-off, the unschedulable set left
 * only on cluster events the rejecting plugins say may help (never by
 * polling, except upstream's 5-minute flush), gates, and pod updates.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SchedulingQueue, isPodUpdated, type QueuedPodInfo } from '../../src/scheduler/queue.js';
import type { ClusterEvent } from '../../src/scheduler/framework.js';
import { defaultProfile, eventMayHelp } from '../../src/scheduler/profile.js';
import { controlPlaneTaint, makeNode, makePod } from '../../src/scheduler/testing/wrappers.js';

class FakeClock {
  t = 1_000_000;
  now(): Date { return new Date(this.t); }
  advance(ms: number): void { this.t += ms; }
}

/** The scheduler's hint over the default profile. */
const profile = defaultProfile();
const profileHint = (info: QueuedPodInfo, event: ClusterEvent) => eventMayHelp(profile, info.unschedulablePlugins, event, info.pod);

function newQueue(clock = new FakeClock()) {
  return { clock, q: new SchedulingQueue({ clock, hint: profileHint }) };
}

/** Pops and marks the pod unschedulable because of the given plugins. */
function failWith(q: SchedulingQueue, plugins: string[]): QueuedPodInfo {
  const next = q.pop();
  assert.ok(next, 'a pod to pop');
  next.info.unschedulablePlugins = new Set(plugins);
  q.addUnschedulableIfNotPresent(next.info, next.cycle);
  return next.info;
}

describe('SchedulingQueue', () => {
  it('pops higher priority first, then the earliest added', () => {
    const { q, clock } = newQueue();
    q.add(makePod('low', { priority: 0 }));
    clock.advance(1);
    q.add(makePod('high', { priority: 10 }));
    clock.advance(1);
    q.add(makePod('low2', { priority: 0 }));
    assert.deepEqual([q.pop()?.info.key, q.pop()?.info.key, q.pop()?.info.key, q.pop()], ['default/high', 'default/low', 'default/low2', undefined]);
  });

  it('pops hundreds of pods in priority, then arrival order, however they were added and updated', () => {
    // The heap compares the keys an entry took when it was pushed; a status update of a queued pod
    // (a new object, same priority) and a deleted pod's leftover entry must not disturb the order.
    const { q, clock } = newQueue();
    const want: { key: string; priority: number; at: number }[] = [];
    for (let i = 0; i < 300; i++) {
      const priority = (i * 7919) % 5;
      const pod = makePod(`p${i}`, { priority });
      q.add(pod);
      want.push({ key: `default/p${i}`, priority, at: clock.t });
      if (i % 3 === 0) clock.advance(1);
      if (i % 10 === 0) q.update(pod, { ...pod, status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False' }] } });
    }
    for (const gone of [5, 77, 150]) q.delete(makePod(`p${gone}`));
    const expected = want.filter((w) => !['default/p5', 'default/p77', 'default/p150'].includes(w.key))
      .sort((a, b) => b.priority - a.priority || a.at - b.at || Number(a.key.slice(9)) - Number(b.key.slice(9)))
      .map((w) => w.key);
    const got: string[] = [];
    for (let next = q.pop(); next; next = q.pop()) got.push(next.info.key);
    assert.deepEqual(got, expected);
  });

  it('a pod is queued once however often it is added', () => {
    const { q } = newQueue();
    q.add(makePod('a'));
    q.add(makePod('a'));
    assert.equal(q.sizes.active, 1);
    q.delete(makePod('a'));
    assert.equal(q.pop(), undefined);
  });

  it('an unschedulable pod stays put without events, however long (until the 5-minute flush)', () => {
    const { q, clock } = newQueue();
    q.add(makePod('p'));
    failWith(q, ['TaintToleration']);
    clock.advance(60_000);
    q.flushBackoffQCompleted();
    q.flushUnschedulablePodsLeftover();
    assert.deepEqual(q.sizes, { active: 0, backoff: 0, unschedulable: 1 });
    clock.advance(5 * 60_000);
    q.flushUnschedulablePodsLeftover();
    assert.deepEqual(q.sizes, { active: 1, backoff: 0, unschedulable: 0 });
  });

  const eventCases: [string, string[], ClusterEvent, boolean][] = [
    ['taint removed from a node helps a pod rejected by TaintToleration', ['TaintToleration'],
      { type: 'NodeUpdate', oldNode: makeNode('n', { taints: [controlPlaneTaint] }), newNode: makeNode('n') }, true],
    ['taint added does not', ['TaintToleration'], { type: 'NodeUpdate', oldNode: makeNode('n'), newNode: makeNode('n', { taints: [controlPlaneTaint] }) }, false],
    ['a label change does not help a taint rejection', ['TaintToleration'],
      { type: 'NodeUpdate', oldNode: makeNode('n', { taints: [controlPlaneTaint] }), newNode: makeNode('n', { taints: [controlPlaneTaint], labels: { a: 'b' } }) }, false],
    ['a deleted pod helps a pod short of cpu', ['NodeResourcesFit'], { type: 'AssignedPodDelete', pod: makePod('x', { nodeName: 'n' }) }, true],
    ['a deleted pod does not help a taint rejection', ['TaintToleration'], { type: 'AssignedPodDelete', pod: makePod('x', { nodeName: 'n' }) }, false],
    ['a new untainted node helps', ['TaintToleration', 'NodeResourcesFit'], { type: 'NodeAdd', node: makeNode('new') }, true],
    ['a new node too small does not help a pod short of cpu', ['NodeResourcesFit'], { type: 'NodeAdd', node: makeNode('new', { cpu: '1' }) }, false],
    ['a storage change does not help a taint rejection', ['TaintToleration'], { type: 'StorageChange', resource: 'persistentvolumeclaims', obj: {} }, false],
    ['a plugin without queueing hints (VolumeBinding) is retried on any event', ['VolumeBinding'],
      { type: 'StorageChange', resource: 'persistentvolumeclaims', obj: {} }, true],
    ['... on node events too', ['VolumeBinding', 'TaintToleration'], { type: 'NodeUpdate', oldNode: makeNode('n'), newNode: makeNode('n', { labels: { a: 'b' } }) }, true],
    ['uncordoning helps a NodeUnschedulable rejection', ['NodeUnschedulable'],
      { type: 'NodeUpdate', oldNode: makeNode('n', { unschedulable: true }), newNode: makeNode('n') }, true],
    ['a label that now matches helps a NodeAffinity rejection', ['NodeAffinity'],
      { type: 'NodeUpdate', oldNode: makeNode('n'), newNode: makeNode('n', { labels: { disktype: 'ssd' } }) }, true],
  ];
  for (const [name, plugins, event, moves] of eventCases) {
    it(name, () => {
      const { q } = newQueue();
      q.add(makePod('p', { cpu: '1500m', nodeSelector: plugins.includes('NodeAffinity') ? { disktype: 'ssd' } : undefined }));
      failWith(q, plugins);
      q.moveAllToActiveOrBackoffQueue(event);
      const s = q.sizes;
      assert.equal(s.unschedulable, moves ? 0 : 1);
      assert.equal(s.active + s.backoff, moves ? 1 : 0);
    });
  }

  it('a moved pod still backing off waits in backoffQ, then returns to activeQ', () => {
    const { q, clock } = newQueue();
    q.add(makePod('p'));
    failWith(q, ['NodeResourcesFit']);
    q.moveAllToActiveOrBackoffQueue({ type: 'AssignedPodDelete', pod: makePod('x', { nodeName: 'n' }) });
    assert.deepEqual(q.sizes, { active: 0, backoff: 1, unschedulable: 0 });
    clock.advance(999);
    q.flushBackoffQCompleted();
    assert.equal(q.sizes.backoff, 1);
    clock.advance(1);
    q.flushBackoffQCompleted();
    assert.deepEqual(q.sizes, { active: 1, backoff: 0, unschedulable: 0 });
  });

  it('back-off doubles per attempt up to 10 s', () => {
    const { q } = newQueue();
    const info = { attempts: 0 } as QueuedPodInfo;
    const got = [1, 2, 3, 4, 5, 6].map((a) => { info.attempts = a; return q.backoffDurationMs(info); });
    assert.deepEqual(got, [1000, 2000, 4000, 8000, 10_000, 10_000]);
  });

  it('an event during the pod\'s scheduling cycle sends it to backoffQ instead of unschedulable', () => {
    const { q } = newQueue();
    q.add(makePod('p'));
    const next = q.pop()!;
    q.moveAllToActiveOrBackoffQueue({ type: 'NodeAdd', node: makeNode('n') });
    next.info.unschedulablePlugins = new Set(['TaintToleration']);
    q.addUnschedulableIfNotPresent(next.info, next.cycle);
    assert.deepEqual(q.sizes, { active: 0, backoff: 1, unschedulable: 0 });
  });

  it('a pod rejected for no plugin in particular retries after its back-off', () => {
    const { q } = newQueue();
    q.add(makePod('p'));
    failWith(q, []);
    assert.deepEqual(q.sizes, { active: 0, backoff: 1, unschedulable: 0 });
  });

  it('an update to the unschedulable pod that may help moves it; a status-only update does not', () => {
    const { q } = newQueue();
    const pod = makePod('p');
    q.add(pod);
    failWith(q, ['TaintToleration']);
    const statusOnly = { ...pod, metadata: { ...pod.metadata, resourceVersion: '9' }, status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False' }] } };
    q.update(pod, statusOnly);
    assert.equal(q.sizes.unschedulable, 1);
    const tolerating = makePod('p', { tolerations: [{ operator: 'Exists' }] });
    q.update(statusOnly, tolerating);
    assert.equal(q.sizes.unschedulable, 0);
  });

  it('scheduling-gated pods wait until the gates are removed', () => {
    const { q } = newQueue();
    const gated = makePod('g', { schedulingGates: [{ name: 'example.com/wait' }] });
    q.add(gated);
    assert.equal(q.pop(), undefined);
    q.moveAllToActiveOrBackoffQueue({ type: 'NodeAdd', node: makeNode('n') });
    assert.equal(q.pop(), undefined);
    q.update(gated, makePod('g'));
    assert.equal(q.pop()?.info.key, 'default/g');
  });

  it('waitForPod resolves when a pod arrives', async () => {
    const { q } = newQueue();
    let woke = false;
    const w = q.waitForPod().then(() => { woke = true; });
    await Promise.resolve();
    assert.equal(woke, false);
    q.add(makePod('p'));
    await w;
    assert.equal(woke, true);
  });

  it('isPodUpdated ignores status, resourceVersion and managedFields', () => {
    const a = makePod('p');
    assert.equal(isPodUpdated(a, { ...a, status: { phase: 'Running' }, metadata: { ...a.metadata, resourceVersion: '2', managedFields: [{}] } }), false);
    assert.equal(isPodUpdated(a, { ...a, metadata: { ...a.metadata, labels: { x: 'y' } } }), true);
  });
});
