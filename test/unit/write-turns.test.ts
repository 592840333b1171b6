/**
 * Writes take turns of the event loop once their bodies are read
 * (src/apiserver/flowcontrol/turns.ts): a burst starts, in arrival order,
 * as many per turn as fit in the loop's time quantum (util/loop-quantum.ts),
 * so the loop polls its sockets between groups. No timing assertions: each
 * write below spins past the quantum, so it ends its turn whatever the load.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { nextTurn, servedInTurn } from '../../src/apiserver/flowcontrol/turns.js';
import { readBody } from '../../src/apiserver/body.js';
import { inQuantum, minTasksPerTurn, quantumMs, runningTask } from '../../src/util/loop-quantum.js';

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

/**
 * Serves POSTs as server.ts serves writes: their first steps in a loop-quantum task, then the body
 * read by readBody; each answer says whether the steps after the body ran in that same task.
 */
async function bodyTurnServer() {
  const server = createServer((req, res) => {
    inQuantum(() => {
      servedInTurn(req);
      const arrival = runningTask();
      readBody(req).then((body) => res.end(JSON.stringify({ sameTask: runningTask() === arrival, inTask: runningTask() !== 0, bytes: body.length })));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** Sends one POST on a fresh connection: headers and body in one write, or the body `laterMs` after the headers. */
function post(port: number, body: string, laterMs?: number): Promise<{ sameTask: boolean; inTask: boolean; bytes: number }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const head = `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
    let answer = '';
    socket.on('data', (d) => { answer += d; });
    socket.on('end', () => resolve(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4).replace(/^[0-9a-f]+\r\n/, '').split('\r\n')[0]!)));
    socket.on('error', reject);
    if (laterMs === undefined) socket.write(head + body);
    else { socket.write(head); setTimeout(() => socket.write(body), laterMs); }
  });
}

test('a write whose body came with its headers goes on in the task of its turn; one whose body came later takes another turn', async () => {
  const { server, port } = await bodyTurnServer();
  try {
    const whole = await post(port, '{"kind":"Pod"}');
    assert.deepEqual(whole, { sameTask: true, inTask: true, bytes: 14 });
    // The body arrives in a later read of the socket (I/O awaited): its steps wait for a turn again.
    const later = await post(port, '{"kind":"Pod"}', 30);
    assert.deepEqual(later, { sameTask: false, inTask: true, bytes: 14 });
  } finally {
    server.close();
  }
});

test('runningTask numbers each task through its microtasks, and is 0 between turns', async () => {
  assert.equal(runningTask(), 0);
  const seen: Array<[number, number]> = [];
  await Promise.all([0, 1].map((i) => new Promise<void>((resolve) => inQuantum(() => {
    const at = runningTask();
    Promise.resolve().then(() => Promise.resolve()).then(() => { seen[i] = [at, runningTask()]; resolve(); });
  }))));
  assert.ok(seen[0]![0] > 0 && seen[1]![0] > seen[0]![0], `tasks numbered ${JSON.stringify(seen)}`);
  assert.deepEqual(seen.map(([at, later]) => later === at), [true, true]);
  await new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
  assert.equal(runningTask(), 0);
});
