/**
 * How a StatefulSet sync runs its steps (runForAll: one by one for
 * OrderedReady, slow-start batches for Parallel), aggregated errors, and
 * PendingWrites (a sync waits until the informers show its own writes).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runForAll, aggregate, maxBatchSize } from '../../src/controllers/statefulset/podcontrol.js';
import { PendingWrites } from '../../src/controllers/statefulset/pending.js';
import type { Step } from '../../src/controllers/statefulset/plan.js';

const steps = (n: number, exitAt = -1): Step[] =>
  Array.from({ length: n }, (_, i) => ({ pod: { metadata: { name: `web-${i}` } }, actions: [], exit: i === exitAt }));

describe('runForAll', () => {
  it('OrderedReady runs steps in order and stops at the first exit', async () => {
    const ran: string[] = [];
    const r = await runForAll(steps(5, 2), true, async (s) => { ran.push(s.pod.metadata!.name!); });
    assert.deepEqual(ran, ['web-0', 'web-1', 'web-2']);
    assert.deepEqual(r, { stopped: true });
  });
  it('OrderedReady stops at the first error', async () => {
    const ran: string[] = [];
    const r = await runForAll(steps(5), true, async (s) => {
      ran.push(s.pod.metadata!.name!);
      if (s.pod.metadata!.name === 'web-1') throw new Error('boom');
    });
    assert.deepEqual(ran, ['web-0', 'web-1']);
    assert.equal(r.error?.message, 'boom');
  });
  it('Parallel runs slow-start batches of 1, 2, 4, ... and ignores exits', async () => {
    const batches: number[] = [];
    let inFlight = 0;
    let started = 0;
    const r = await runForAll(steps(20, 0), false, async () => {
      if (inFlight === 0) batches.push(0);
      inFlight++;
      started++;
      batches[batches.length - 1]++;
      await new Promise((res) => setTimeout(res, 1));
      inFlight--;
    });
    assert.deepEqual(batches, [1, 2, 4, 8, 5]);
    assert.equal(started, 20);
    assert.deepEqual(r, { stopped: false });
  });
  it('Parallel stops after a batch with errors and aggregates them', async () => {
    const ran: string[] = [];
    const r = await runForAll(steps(20), false, async (s) => {
      ran.push(s.pod.metadata!.name!);
      if (s.pod.metadata!.name === 'web-1' || s.pod.metadata!.name === 'web-2') throw new Error(`no ${s.pod.metadata!.name}`);
    });
    assert.deepEqual(ran, ['web-0', 'web-1', 'web-2']);
    assert.equal(r.error?.message, '[no web-1, no web-2]');
  });
  it('batches never exceed 500', () => assert.equal(maxBatchSize, 500));
  it('aggregate: none, one as is, several in brackets', () => {
    assert.equal(aggregate([]), undefined);
    assert.equal(aggregate([new Error('a')])?.message, 'a');
    assert.equal(aggregate([new Error('a'), new Error('b')])?.message, '[a, b]');
  });
});

describe('PendingWrites', () => {
  const clock = { t: 0, now() { return new Date(this.t); } };
  const cache = (rv: Record<string, string>, objs: Record<string, any> = {}) => ({
    lastResourceVersion: (r: string) => rv[r] ?? '',
    get: (_r: string, k: string) => objs[k],
  });

  it('a write is seen once its informer reaches the write\'s resourceVersion', () => {
    const p = new PendingWrites(clock);
    p.wrote('ns/web', 'pods', { metadata: { resourceVersion: '120' } });
    assert.equal(p.satisfied('ns/web', cache({ pods: '119' })), false);
    assert.deepEqual(p.setsWaitingOn('pods'), ['ns/web']);
    assert.equal(p.satisfied('ns/web', cache({ pods: '120' })), true);
    assert.deepEqual(p.setsWaitingOn('pods'), []);
  });
  it('a delete is seen when the pod is gone, replaced, or terminating', () => {
    const p = new PendingWrites(clock);
    const pod = (uid: string, deleting = false) => ({ metadata: { uid, ...(deleting ? { deletionTimestamp: 'x' } : {}) } });
    p.deleted('ns/web', 'pods', 'ns/web-1', 'u1');
    assert.equal(p.satisfied('ns/web', cache({}, { 'ns/web-1': pod('u1') })), false);
    assert.equal(p.satisfied('ns/web', cache({}, { 'ns/web-1': pod('u1', true) })), true);
    p.deleted('ns/web', 'pods', 'ns/web-1', 'u1');
    assert.equal(p.satisfied('ns/web', cache({}, { 'ns/web-1': pod('u2') })), true);
    p.deleted('ns/web', 'pods', 'ns/web-1', 'u1');
    assert.equal(p.satisfied('ns/web', cache({}, {})), true);
  });
  it('writes pending past the timeout count as seen', () => {
    const p = new PendingWrites(clock, 1000);
    p.wrote('ns/web', 'statefulsets', { metadata: { resourceVersion: '9' } });
    clock.t += 1001;
    assert.equal(p.satisfied('ns/web', cache({ statefulsets: '1' })), true);
  });
  it('opaque resourceVersions are not waited for', () => {
    const p = new PendingWrites(clock);
    p.wrote('ns/web', 'pods', { metadata: { resourceVersion: 'abc' } });
    assert.equal(p.satisfied('ns/web', cache({ pods: '1' })), true);
  });
});
