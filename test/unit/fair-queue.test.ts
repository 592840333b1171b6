/**
 * The fair queue's rules (src/apiserver/flowcontrol/fair-queue.ts): a free
 * seat is taken at once; past the seats, each flow waits in its own FIFO;
 * freed seats go to the waiting flows in turn; a full flow queue rejects; a
 * request that leaves while waiting gives up its place.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FairQueue, defaultQueueLength, defaultSeats, type Release } from '../../src/apiserver/flowcontrol/fair-queue.js';

const never = () => {};
const isRelease = (r: unknown): r is Release => typeof r === 'function';

test('free seats are taken at once, without waiting', () => {
  const q = new FairQueue({ seats: 2, queueLength: 1 });
  assert.ok(isRelease(q.acquire('a', never)));
  assert.ok(isRelease(q.acquire('a', never)));
  assert.deepEqual(q.stats, { inUse: 2, waiting: 0 });
});

test('a freed seat goes to the flows in turn, not to the flow with most waiting', async () => {
  const q = new FairQueue({ seats: 1, queueLength: 10 });
  const first = q.acquire('flood', never) as Release;
  const order: string[] = [];
  // Each request, once seated, records its turn and gives the seat back.
  const wait = (flow: string, n: number) => (q.acquire(flow, never) as Promise<Release>).then((release) => { order.push(`${flow}${n}`); release(); });
  const waiting = [wait('flood', 1), wait('flood', 2), wait('flood', 3), wait('other', 1), wait('flood', 4), wait('other', 2)];
  assert.deepEqual(q.stats, { inUse: 1, waiting: 6 });
  first();
  await Promise.all(waiting);
  assert.deepEqual(order, ['flood1', 'other1', 'flood2', 'other2', 'flood3', 'flood4']);
  assert.deepEqual(q.stats, { inUse: 0, waiting: 0 });
});

test("a flow whose queue is full is rejected; another flow still queues", () => {
  const q = new FairQueue({ seats: 1, queueLength: 2 });
  q.acquire('flood', never);
  assert.ok(q.acquire('flood', never) instanceof Promise);
  assert.ok(q.acquire('flood', never) instanceof Promise);
  assert.equal(q.acquire('flood', never), 'rejected');
  assert.ok(q.acquire('other', never) instanceof Promise);
});

test('a request that leaves while waiting gives its place up', async () => {
  const q = new FairQueue({ seats: 1, queueLength: 5 });
  const first = q.acquire('a', never) as Release;
  let leave = () => {};
  const gone = q.acquire('a', (forget) => { leave = forget; });
  const next = q.acquire('b', never) as Promise<Release>;
  leave();
  assert.deepEqual(q.stats, { inUse: 1, waiting: 1 });
  first();
  (await next)();
  let settled = false;
  void (gone as Promise<Release>).then(() => { settled = true; });
  await new Promise((r) => setImmediate(r));
  assert.equal(settled, false);
  assert.deepEqual(q.stats, { inUse: 0, waiting: 0 });
});

test('a seat given back twice counts once', () => {
  const q = new FairQueue({ seats: 1, queueLength: 1 });
  const release = q.acquire('a', never) as Release;
  release();
  release();
  assert.deepEqual(q.stats, { inUse: 0, waiting: 0 });
  assert.ok(isRelease(q.acquire('a', never)));
});

test("the server's defaults queue a DaemonSet's slow-start batch of 128 creates and the scheduler's 250 bindings without a 429 (upstream: a hand of 6 queues of 50 a flow)", () => {
  const q = new FairQueue({ seats: defaultSeats, queueLength: defaultQueueLength });
  const creates = Array.from({ length: 128 }, () => q.acquire('system:kube-controller-manager', never));
  const bindings = Array.from({ length: 250 }, () => q.acquire('system:kube-scheduler', never));
  assert.equal([...creates, ...bindings].filter((r) => r === 'rejected').length, 0);
  assert.deepEqual(q.stats, { inUse: defaultSeats, waiting: 128 + 250 - defaultSeats });
  // A lone flow is refused once 300 of its requests wait, as upstream's would be.
  const more = Array.from({ length: 300 - 250 + 1 }, () => q.acquire('system:kube-scheduler', never));
  assert.deepEqual(more.map((r) => r === 'rejected'), [...Array(50).fill(false), true]);
});

test("a flow's waiting bodies are bounded in bytes too: past the bound its next request is refused, another flow's is queued, and bytes given back on grant and on leaving count again", async () => {
  const q = new FairQueue({ seats: 1, queueLength: 300, queueBytes: 100 });
  const first = q.acquire('big', never, 0) as Release;
  let leave: () => void = () => {};
  const a = q.acquire('big', never, 60) as Promise<Release>;
  const b = q.acquire('big', (forget) => { leave = forget; }, 40);
  assert.ok(b instanceof Promise);
  assert.equal(q.acquire('big', never, 1), 'rejected');
  assert.ok(q.acquire('other', never, 100) instanceof Promise);
  leave(); // b leaves the queue: its 40 bytes are free again
  assert.ok(q.acquire('big', never, 40) instanceof Promise);
  first(); // a is seated: its 60 bytes leave the queue
  (await a)();
  assert.ok(q.acquire('big', never, 60) instanceof Promise);
  assert.equal(q.acquire('big', never, 1), 'rejected');
});

test('a lone request waits whatever its size: the byte bound counts only what already waits', () => {
  const q = new FairQueue({ seats: 1, queueLength: 300, queueBytes: 10 });
  q.acquire('f', never);
  assert.ok(q.acquire('f', never, 1000) instanceof Promise);
  assert.equal(q.acquire('f', never, 1), 'rejected');
});
