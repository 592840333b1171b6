/**
 * The heavy lane's pool (apiserver/heavy/pool.ts) of worker threads (lane-worker.ts): the answer is
 * the pure function's own (object-body.ts); a job past its CPU budget (its worker thread's own CPU
 * time) or its wall-clock deadline answers 504 and a fresh worker takes the slot, while a job
 * starved of CPU completes; a full queue is refused with 429.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { HeavyPool } from '../../src/apiserver/heavy/pool.js';
import { readObjectBody, type ObjectBodyJob } from '../../src/apiserver/heavy/object-body.js';
import { StatusError, type Status } from '../../src/api/status.js';
import { threadCpuMs } from '../../src/util/thread-cpu.js';

const configMap = (keys: number, extra: Record<string, unknown> = {}): ObjectBodyJob => {
  const data: Record<string, string> = {};
  for (let i = 0; i < keys; i++) data[`key-${i}`] = 'value';
  return {
    body: Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data, ...extra })), type: 'application/json',
    into: { apiVersion: 'v1', kind: 'ConfigMap' }, endpoint: { group: '', version: 'v1', kind: 'ConfigMap' }, endpointApiVersion: 'v1', fieldValidation: 'Warn', builtIn: true,
  };
};

// The lane's workers are unref'd (they never keep a server alive); a test's pending job must.
const keepAlive = setInterval(() => {}, 60_000);
after(() => clearInterval(keepAlive));

const refusal = async (p: Promise<unknown>): Promise<Status> => {
  try { await p; } catch (e) { assert.ok(e instanceof StatusError, String(e)); return e.status; }
  assert.fail('answered');
};

/** The kernel ids of this process's heavy-lane threads (named k8ts-heavy by worker.ts), oldest first. */
const heavyThreads = (): number[] => readdirSync('/proc/self/task').map(Number).sort((a, b) => a - b)
  .filter((t) => { try { return readFileSync(`/proc/self/task/${t}/comm`, 'utf8').trim() === 'k8ts-heavy'; } catch { return false; } });

const statusOf = async (p: Promise<unknown>): Promise<number> => {
  try { await p; return 200; } catch (e) { assert.ok(e instanceof StatusError, String(e)); return e.status.code!; }
};

test('the answer is object-body.ts\'s own, Warning header included', async () => {
  const pool = new HeavyPool({ size: 1 });
  try {
    const job = configMap(2_000, { unknownField: 1 });
    const expected = readObjectBody(configMap(2_000, { unknownField: 1 }));
    const got = await pool.run(job);
    assert.deepEqual(got.obj, expected.obj);
    assert.deepEqual(got.warnings, expected.warnings);
    assert.ok(got.warnings, 'the unknown field is warned of');
  } finally { await pool.close(); }
});

test('past its CPU budget a job answers 504, the worker is replaced, the next job is answered', async () => {
  const pool = new HeavyPool({ size: 1, cpuBudgetMs: 50, cpuCheckMs: 10 });
  try {
    const refused = await refusal(pool.run(configMap(200_000)));
    assert.equal(refused.code, 504);
    assert.equal(refused.message, 'Timeout: request did not complete within requested timeout - context deadline exceeded');
    assert.equal(pool.replaced, 1);
    assert.equal(await statusOf(pool.run(configMap(10))), 200);
  } finally { await pool.close(); }
});

test('past its wall-clock deadline a running job and a queued one answer the timeout filter\'s 504', async () => {
  const pool = new HeavyPool({ size: 1, deadlineMs: 150 });
  try {
    const running = refusal(pool.run(configMap(200_000)));
    const queued = refusal(pool.run(configMap(10)));
    for (const r of [await running, await queued]) {
      assert.equal(r.code, 504);
      assert.equal(r.message, 'Timeout: request did not complete within the allotted timeout');
    }
    assert.ok(pool.replaced >= 1);
  } finally { await pool.close(); }
});

/**
 * CI at load 38 starved the worker (0.66 s of CPU in 53 s) and a wall-clock budget cut off a
 * body that costs well under a second. Here four busy loops at the default nice share the
 * worker's one CPU (the worker is at nice 10: weight 110 against their 4 x 1,024, about 3% of
 * it), so a job of ~50 ms of CPU takes seconds; its budget of 0.5 s of CPU is not spent.
 */
test('a job starved of CPU by busy threads on its core completes: its budget counts its CPU, not its wait', { skip: process.platform !== 'linux' }, async (t) => {
  const pool = new HeavyPool({ size: 1, cpuBudgetMs: 500, cpuCheckMs: 50 });
  const hogs: ChildProcess[] = [];
  try {
    await pool.run(configMap(10)); // the worker is up, named and lowered
    const tid = heavyThreads().at(-1);
    assert.ok(tid, 'no k8ts-heavy thread');
    const cpu = Number(execFileSync('taskset', ['-pc', String(tid)], { encoding: 'utf8' }).trim().split(/:\s*/).at(-1)?.split(/[,-]/)[0]);
    execFileSync('taskset', ['-pc', String(cpu), String(tid)]);
    for (let i = 0; i < 4; i++) hogs.push(spawn('taskset', ['-c', String(cpu), process.execPath, '-e', 'for (;;) {}'], { stdio: 'ignore' }));
    await new Promise((r) => setTimeout(r, 200)); // the loops are spinning
    const job = configMap(20_000);
    const cpu0 = threadCpuMs(tid)!;
    const started = performance.now();
    assert.equal(await statusOf(pool.run(job)), 200);
    const wallMs = performance.now() - started;
    const cpuMs = threadCpuMs(tid)! - cpu0;
    t.diagnostic(`job: ${Math.round(wallMs)} ms, ${Math.round(cpuMs)} ms of its worker's CPU`);
    assert.equal(pool.replaced, 0);
    assert.ok(cpuMs < 500, `the job used ${Math.round(cpuMs)} ms of CPU`);
    // Starved for longer than its budget: a wall-clock budget of the same size would have cut it off.
    assert.ok(wallMs > 500, `the job was not starved (${Math.round(wallMs)} ms, ${Math.round(cpuMs)} ms of CPU)`);
  } finally {
    for (const h of hogs) h.kill('SIGKILL');
    await pool.close();
  }
});

test('a full queue is refused with 429; queued jobs are answered in turn', async () => {
  const pool = new HeavyPool({ size: 1, maxQueue: 1 });
  try {
    const running = pool.run(configMap(50_000));
    const queued = pool.run(configMap(10));
    assert.equal(await statusOf(pool.run(configMap(10))), 429);
    assert.equal(await statusOf(running), 200);
    assert.equal(await statusOf(queued), 200);
  } finally { await pool.close(); }
});
