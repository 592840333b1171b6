/**
 * util/thread-priority.ts on real threads: a worker lowers itself, and only
 * itself (nice is per thread on Linux), never raises a priority it lowered
 * before, and names itself for `top -H`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

const helper = new URL('../../src/util/thread-priority.js', import.meta.url).href;

/** Field 19 (nice) and the name of one thread of this process, as the kernel reports them. */
function thread(tid: number): { nice: number; comm: string } {
  const stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8');
  return { nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19 - 3]), comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) };
}

/** Runs `calls` (nice values) in a fresh worker thread; answers what each call returned and the lines it logged. Keeps the worker until `done`. */
async function inWorker(calls: number[]): Promise<{ tids: (number | undefined)[]; lines: string[]; done(): Promise<number> }> {
  const w = new Worker(`
    const { parentPort } = require('node:worker_threads');
    // Alive until terminated: a worker whose loop empties ends, and its /proc/<pid>/task/<tid> goes with it.
    setInterval(() => {}, 1 << 30);
    import(${JSON.stringify(helper)}).then(({ lowerThisThread }) => {
      const lines = [];
      const logger = { info: (msg, kv) => lines.push(JSON.stringify({ msg, ...kv })) };
      const tids = ${JSON.stringify(calls)}.map((n) => lowerThisThread('k8ts-test', logger, n));
      parentPort.postMessage({ tids, lines });
    });
  `, { eval: true });
  const answer = await new Promise<{ tids: (number | undefined)[]; lines: string[] }>((resolve, reject) => { w.once('message', resolve); w.once('error', reject); });
  return { ...answer, done: () => w.terminate() };
}

test('a thread lowers its own nice value, not the process\'s', async () => {
  const before = thread(process.pid).nice;
  const w = await inWorker([19]);
  try {
    const tid = w.tids[0]!;
    assert.ok(tid > 0 && tid !== process.pid);
    assert.deepEqual(thread(tid), { nice: 19, comm: 'k8ts-test' });
    assert.equal(thread(process.pid).nice, before);
    assert.deepEqual(w.lines.map((l) => JSON.parse(l)), [{ msg: 'thread runs at a lower priority than the serving thread', thread: 'k8ts-test', tid, nice: 19 }]);
  } finally { await w.done(); }
});

test('a priority is never raised: a thread at nice 10 asked for 5 stays at 10', async () => {
  const w = await inWorker([10, 5]);
  try {
    const tid = w.tids[0]!;
    assert.equal(w.tids[1], tid);
    assert.equal(thread(tid).nice, 10);
    assert.equal(JSON.parse(w.lines[1]).nice, 10);
  } finally { await w.done(); }
});

/** Field 41 (policy) of one thread of this process: 0 SCHED_OTHER, 5 SCHED_IDLE. */
const policyOf = (tid: number) => { const stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8'); return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[41 - 3]); };

test('K8TS_HEAVY_SCHED_IDLE picks the threads given the idle policy: 1 both, worker or platform one of them', async () => {
  const { idlePolicyRequested } = await import(helper) as typeof import('../../src/util/thread-priority.js');
  const asked = (v?: string) => (['worker', 'platform'] as const).filter((t) => idlePolicyRequested(t, v === undefined ? {} : { K8TS_HEAVY_SCHED_IDLE: v }));
  assert.deepEqual(asked(), []);
  assert.deepEqual(asked('0'), []);
  assert.deepEqual(asked('1'), ['worker', 'platform']);
  assert.deepEqual(asked('worker'), ['worker']);
  assert.deepEqual(asked('platform'), ['platform']);
});

test('a thread given the idle policy has it, and only that thread (chrt on a real worker)', async () => {
  const { idlePolicyFor } = await import(helper) as typeof import('../../src/util/thread-priority.js');
  const w = await inWorker([10]);
  try {
    const tid = w.tids[0]!;
    const lines: string[] = [];
    const logger = { info: (msg: string, kv?: object) => lines.push(JSON.stringify({ msg, ...kv })) };
    assert.deepEqual(idlePolicyFor([tid], logger as never, 'k8ts-test'), [tid]);
    assert.equal(policyOf(tid), 5);
    assert.equal(policyOf(process.pid), 0);
    assert.deepEqual(lines.map((l) => JSON.parse(l)), [{ msg: 'threads run at the idle scheduling policy', threads: 'k8ts-test', tids: String(tid) }]);
    // A thread that does not exist keeps nothing and says why, without throwing.
    lines.length = 0;
    assert.deepEqual(idlePolicyFor([2 ** 22 + 7], logger as never, 'gone'), []);
    assert.equal(JSON.parse(lines[0]!).msg, 'threads keep their scheduling policy');
  } finally { await w.done(); }
});
