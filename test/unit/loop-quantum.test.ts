/**
 * The loop's time quantum (src/util/loop-quantum.ts): tasks run in order, a task's cost includes
 * the microtasks it starts, and once a turn has used its quantum the rest wait for a poll of the
 * sockets, so a client whose bytes wait in its socket is read between them. No assertion is on
 * how long anything took: each task below spins until the clock has moved past the quantum, so
 * which turn it ends is determined, whatever the machine's load.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { inQuantum, inQuantumFirst, minTasksPerTurn, nextQuantum, quantumMs, waitingTasks } from '../../src/util/loop-quantum.js';

/** Spins until the clock has moved past the whole quantum. */
const spinPastQuantum = () => { const until = performance.now() + quantumMs * 1.5; while (performance.now() < until) { /* spin */ } };

/** Waits until a turn of the loop has passed with nothing queued: a test's tasks then start a turn of their own. */
const afterQuietTurn = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

/** Numbers the turns of the loop: a ticker re-queued from its own setImmediate runs once per turn. */
function turnCounter() {
  let turn = 0;
  let ticking = true;
  const tick = () => { turn++; if (ticking) setImmediate(tick); };
  setImmediate(tick);
  return { now: () => turn, stop: () => { ticking = false; } };
}

/** For tasks that each use the whole quantum: the first `minTasksPerTurn` of a turn run, the next waits for another turn. */
function assertGroupsOfMin(at: number[]) {
  for (let i = 1; i < at.length; i++) {
    if (i % minTasksPerTurn === 0) assert.ok(at[i]! > at[i - 1]!, `task ${i} ran in turn ${at[i]}, after task ${i - 1} in turn ${at[i - 1]}`);
    else assert.equal(at[i], at[i - 1], `task ${i} ran in the same turn as task ${i - 1}`);
  }
}

test('tasks run in the order given; once a turn has used the quantum (and run its least), the next waits for another turn', async () => {
  await afterQuietTurn();
  const turns = turnCounter();
  const ran: Array<[number, number]> = [];
  await Promise.all(Array.from({ length: 3 * minTasksPerTurn + 1 }, (_, i) => new Promise<void>((resolve) => inQuantum(() => {
    ran.push([i, turns.now()]);
    spinPastQuantum();
    resolve();
  }))));
  turns.stop();
  assert.deepEqual(ran.map(([i]) => i), Array.from({ length: 3 * minTasksPerTurn + 1 }, (_, i) => i));
  assertGroupsOfMin(ran.map(([, t]) => t));
  assert.equal(waitingTasks(), 0);
});

test('tasks queued first (answers of durable writes) run before every waiting task, under the same quantum', async () => {
  await afterQuietTurn();
  const turns = turnCounter();
  const ran: Array<[string, number]> = [];
  const task = (name: string) => () => { ran.push([name, turns.now()]); spinPastQuantum(); };
  const queued: Array<Promise<void>> = [];
  const add = (queue: typeof inQuantum, name: string) => queued.push(new Promise<void>((resolve) => queue(() => { task(name)(); resolve(); })));
  // Two turns' worth of new work waits; then the first answers arrive, and more while the work runs.
  for (let i = 0; i < 2 * minTasksPerTurn; i++) add(inQuantum, `work${i}`);
  add(inQuantumFirst, 'ack0');
  add(inQuantumFirst, 'ack1');
  queued.push(new Promise<void>((resolve) => inQuantum(() => { add(inQuantumFirst, 'ack2'); resolve(); })));
  await Promise.all(queued);
  await Promise.all(queued);
  turns.stop();
  const order = ran.map(([name]) => name);
  assert.deepEqual(order.slice(0, 2), ['ack0', 'ack1']);
  // ack2, queued by the last task, ran after it, behind nothing.
  assert.equal(order.at(-1), 'ack2');
  assert.deepEqual(order.filter((n) => n.startsWith('work')), Array.from({ length: 2 * minTasksPerTurn }, (_, i) => `work${i}`));
  // The quantum still bounds each turn: at most minTasksPerTurn of these spinning tasks share one.
  const perTurn = new Map<number, number>();
  for (const [, t] of ran) perTurn.set(t, (perTurn.get(t) ?? 0) + 1);
  for (const n of perTurn.values()) assert.ok(n <= minTasksPerTurn, `a turn ran ${n} tasks`);
  assert.equal(waitingTasks(), 0);
});

test("a task's cost includes the async steps it starts before its next I/O", async () => {
  // The previous test's last turn may still be running its chain (its tasks' continuations end the test).
  await afterQuietTurn();
  const turns = turnCounter();
  const ranIn: number[] = [];
  // Each waiter's continuation does its work after three awaits, as a request's steps do.
  const step = async (i: number) => {
    await nextQuantum();
    ranIn[i] = turns.now();
    await Promise.resolve();
    await Promise.resolve();
    await Promise.resolve();
    spinPastQuantum();
  };
  await Promise.all(Array.from({ length: 2 * minTasksPerTurn + 1 }, (_, i) => step(i)));
  turns.stop();
  // Counted from the waiter's own steps: were they not, the quantum would never be used up and all would share one turn.
  assertGroupsOfMin(ranIn);
});

test('a lone task and a burst of cheap ones all run; the queue is empty after', async () => {
  await nextQuantum();
  const order: number[] = [];
  await Promise.all([1, 2, 3].map((i) => nextQuantum().then(() => order.push(i))));
  assert.deepEqual(order, [1, 2, 3]);
  assert.equal(waitingTasks(), 0);
  // More than the queue keeps before it drops the slots it has run: still every task, in order.
  const many: number[] = [];
  const expected = Array.from({ length: 5000 }, (_, i) => i);
  await Promise.all(expected.map((i) => nextQuantum().then(() => many.push(i))));
  assert.deepEqual(many, expected);
  assert.equal(waitingTasks(), 0);
});

test("another client's bytes, already in its socket, are read between tasks that each use the quantum", async () => {
  let received = -1;
  let done = 0;
  const server = createServer((s: Socket) => s.once('data', () => { received = done; }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('connection', () => resolve()));
  await new Promise<void>((resolve) => client.once('connect', () => resolve()));
  const burst = 20;
  // The byte reaches the server's socket now (loopback); then twenty tasks of more than a quantum
  // each are queued in the same callback.
  client.write('x');
  const all = Array.from({ length: burst }, () => new Promise<void>((resolve) => inQuantum(() => { spinPastQuantum(); done++; resolve(); })));
  await Promise.all(all);
  client.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  assert.ok(received >= 0, 'the socket was read');
  assert.ok(received < burst, `the socket was read after ${received} of ${burst} tasks, not after all of them`);
});
