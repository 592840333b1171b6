/**
 * Writes take turns of the event loop once their bodies are read
 * (src/apiserver/flowcontrol/turns.ts): a burst starts, in arrival order,
 * as many per turn as fit in the loop's time quantum (util/loop-quantum.ts),
 * so the loop polls its sockets between groups. No timing assertions: each
 * write below spins past the quantum, so it ends its turn whatever the load.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextTurn } from '../../src/apiserver/flowcontrol/turns.js';
import { minTasksPerTurn, quantumMs } from '../../src/util/loop-quantum.js';

test('a burst of 10 writes that each use the quantum starts the least a turn runs (4) per turn, in order', async () => {
  await new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
  // A ticker re-queued from its own setImmediate runs once per loop turn: it numbers the turns.
  let turn = 0;
  let ticking = true;
  const tick = () => { turn++; if (ticking) setImmediate(tick); };
  setImmediate(tick);
  const started: Array<[number, number]> = [];
  await Promise.all(Array.from({ length: 10 }, (_, i) => nextTurn().then(() => {
    started.push([i, turn]);
    const until = performance.now() + quantumMs * 1.5;
    while (performance.now() < until) { /* the write's CPU-bound steps */ }
  })));
  ticking = false;
  assert.deepEqual(started.map(([i]) => i), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  const turns = started.map(([, t]) => t);
  assert.equal(minTasksPerTurn, 4);
  assert.deepEqual(turns.map((t) => t - turns[0]!), [0, 0, 0, 0, 1, 1, 1, 1, 2, 2]);
});

test('a lone request starts in the next turn', async () => {
  let ran = false;
  await nextTurn().then(() => { ran = true; });
  assert.equal(ran, true);
  // The queue is empty again: another burst starts from a fresh turn.
  const order: number[] = [];
  await Promise.all([1, 2].map((i) => nextTurn().then(() => order.push(i))));
  assert.deepEqual(order, [1, 2]);
});
