/** The scheduler's event sink: bounded queue that drops, token-bucket pacing, one write at a time. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { EventSink, asPod } from '../../src/scheduler/events.js';

const pod = { metadata: { name: 'p', namespace: 'default' } };

describe('EventSink', () => {
  it('writes a burst at once, queues the rest, drops beyond the queue limit', () => {
    const written: string[] = [];
    const sink = new EventSink({ event: (_o, _t, reason) => { written.push(reason); } }, { qps: 1, burst: 2, maxQueued: 3 });
    for (let i = 0; i < 6; i++) sink.event(pod, 'Normal', `e${i}`, 'm');
    assert.deepEqual(written, ['e0', 'e1']);
    assert.equal(sink.queued, 3);
    assert.equal(sink.dropped, 1);
    sink.close();
  });

  it('eventLazily builds an event only when the sink keeps it, and counts the ones it drops', () => {
    const written: string[] = [];
    const sink = new EventSink({ event: (_o, _t, reason, message) => { written.push(`${reason}: ${message}`); } }, { qps: 1, burst: 1, maxQueued: 2 });
    let built = 0;
    for (let i = 0; i < 5; i++) sink.eventLazily(() => { built++; return [pod, 'Normal', 'Scheduled', `m${i}`]; });
    assert.deepEqual(written, ['Scheduled: m0']);
    assert.equal(built, 3); // the one written and the two queued; the last two were dropped unbuilt
    assert.equal(sink.queued, 2);
    assert.equal(sink.dropped, 2);
    sink.close();
    sink.eventLazily(() => { built++; return [pod, 'Normal', 'Scheduled', 'after close']; });
    assert.equal(built, 3);
  });

  it('paces the queue at qps', async () => {
    const written: string[] = [];
    const sink = new EventSink({ event: (_o, _t, reason) => { written.push(reason); } }, { qps: 100, burst: 1 });
    for (let i = 0; i < 4; i++) sink.event(pod, 'Normal', `e${i}`, 'm');
    assert.equal(written.length, 1);
    // The rest follow at the pace of the limiter; wait for them rather than for a fixed time (this machine is shared).
    for (let i = 0; i < 500 && written.length < 4; i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(written, ['e0', 'e1', 'e2', 'e3']);
    sink.close();
  });

  it('keeps one write in flight when the recorder returns a promise', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    let done = 0;
    const sink = new EventSink({
      event: () => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        return new Promise<void>((r) => setTimeout(() => { inFlight--; done++; r(); }, 2));
      },
    }, { qps: 0 });
    for (let i = 0; i < 5; i++) sink.event(pod, 'Warning', 'FailedScheduling', `m${i}`);
    while (done < 5) await new Promise((r) => setTimeout(r, 5));
    assert.equal(maxInFlight, 1);
    sink.close();
  });
});

describe('asPod', () => {
  it('gives an informer pod kind and apiVersion for involvedObject, on a copy, and keeps a pod that has them', () => {
    const informerPod = { metadata: { name: 'p', namespace: 'default', uid: 'u1' }, spec: { containers: [] } };
    const involved = asPod(informerPod);
    assert.equal(involved.kind, 'Pod');
    assert.equal(involved.apiVersion, 'v1');
    assert.equal(involved.metadata, informerPod.metadata);
    assert.equal((informerPod as { kind?: string }).kind, undefined);
    const typed: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'q' } };
    assert.equal(asPod(typed), typed);
  });
});
