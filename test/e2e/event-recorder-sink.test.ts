/**
 * The event recorder writes as client-go's broadcaster does: events queued
 * (at most 1,000, the rest dropped) and written one at a time, so a
 * controller's burst of events never has hundreds of POSTs in flight
 * holding the API server's seats beside its real writes. Against a real
 * server, through a real Clientset; the one wrapper only counts the
 * recorder's creates in flight.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster } from './harness.js';
import { apiServerOnly } from './helpers.js';
import { Clientset, EventRecorder, loadKubeconfig } from '../../src/client/index.js';
import { maxQueuedEvents } from '../../src/client/events.js';

let cluster: Cluster;
let clients: Clientset;
before(async () => {
  cluster = await startCluster(apiServerOnly);
  clients = new Clientset(loadKubeconfig(cluster.kubeconfig), { qps: 0 });
});
after(async () => { await cluster?.cleanup(); });

/** A pod-shaped object of its own uid, so the spam filter (25 per object) keeps every event. */
const pod = (i: number) => ({ kind: 'Pod', apiVersion: 'v1', metadata: { name: `burst-${i}`, namespace: 'burst', uid: `uid-${i}`, resourceVersion: '1' } });

describe('EventRecorder sink', () => {
  test('a burst of 1,500 events: one write in flight, 1,000 queued, the rest dropped, every kept event stored', async () => {
    await clients.resource('namespaces').create(undefined, { metadata: { name: 'burst' } });
    let inFlight = 0;
    let maxInFlight = 0;
    const create = clients.events.create.bind(clients.events);
    clients.events.create = (async (...args: Parameters<typeof create>) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try { return await create(...args); } finally { inFlight--; }
    }) as typeof create;
    const recorder = new EventRecorder(clients, 'burst-controller');
    for (let i = 0; i < 1500; i++) recorder.event(pod(i), 'Normal', 'SuccessfulCreate', `Created pod: burst-${i}`);
    // The first is being written, maxQueuedEvents wait, the rest were dropped.
    assert.equal(recorder.queued, maxQueuedEvents);
    assert.equal(recorder.dropped, 1500 - 1 - maxQueuedEvents);
    for (let i = 0; i < 600 && (recorder.queued > 0 || inFlight > 0); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(recorder.queued, 0);
    assert.equal(maxInFlight, 1);
    const listed = await clients.events.list('burst');
    assert.equal(listed.items.length, 1 + maxQueuedEvents);
    // Stamped when they happened, in order: the first kept event names burst-0, the last kept burst-1000.
    const names = new Set(listed.items.map((e: { involvedObject?: { name?: string } }) => e.involvedObject?.name));
    assert.ok(names.has('burst-0') && names.has(`burst-${maxQueuedEvents}`) && !names.has(`burst-${maxQueuedEvents + 1}`));
  });

  test('a repeat is still aggregated into one Event with a count', async () => {
    const recorder = new EventRecorder(clients, 'burst-controller');
    for (let i = 0; i < 3; i++) recorder.event(pod(9999), 'Warning', 'FailedCreate', 'quota exceeded');
    for (let i = 0; i < 200 && recorder.queued > 0; i++) await new Promise((r) => setTimeout(r, 25));
    let counted: number | undefined;
    for (let i = 0; i < 200 && counted !== 3; i++) {
      const items = (await clients.events.list('burst')).items.filter((e: { reason?: string }) => e.reason === 'FailedCreate');
      assert.ok(items.length <= 1, `${items.length} FailedCreate events`);
      counted = items[0]?.count;
      if (counted !== 3) await new Promise((r) => setTimeout(r, 25));
    }
    assert.equal(counted, 3);
  });
});
