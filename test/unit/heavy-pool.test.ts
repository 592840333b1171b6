/**
 * The heavy lane's pool (apiserver/heavy/pool.ts) keeps the same semantics whether a slot is a worker
 * thread (the default, lane-hosts.ts) or a child process (K8TS_HEAVY_LANE=process): the answer is the pure function's own
 * (object-body.ts), a job past its budget answers 504 and a fresh worker takes the slot, a worker
 * that dies fails its job with a 500 and is replaced, a full queue is refused with 429. For the
 * process: it starts on first use, stays for the next job, and every one of its threads runs at the
 * background nice with its garbage collection on one thread.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { HeavyPool } from '../../src/apiserver/heavy/pool.js';
import { readObjectBody, type ObjectBodyJob } from '../../src/apiserver/heavy/object-body.js';
import { StatusError } from '../../src/api/status.js';
import { backgroundNice } from '../../src/util/thread-priority.js';
import type { LaneKind } from '../../src/apiserver/heavy/lane-hosts.js';

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

const statusOf = async (p: Promise<unknown>): Promise<number> => {
  try { await p; return 200; } catch (e) { assert.ok(e instanceof StatusError, String(e)); return e.status.code!; }
};

/** The server's child processes (the lane's), from /proc. */
const children = (): number[] => readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);

for (const kind of ['process', 'thread'] as LaneKind[]) {
  test(`${kind}: the answer is object-body.ts's own, Warning header included`, async () => {
    const pool = new HeavyPool({ size: 1, kind });
    try {
      const job = configMap(2_000, { unknownField: 1 });
      const expected = readObjectBody(configMap(2_000, { unknownField: 1 }));
      const got = await pool.run(job);
      assert.deepEqual(got.obj, expected.obj);
      assert.deepEqual(got.warnings, expected.warnings);
      assert.ok(got.warnings, 'the unknown field is warned of');
    } finally { await pool.close(); }
  });

  test(`${kind}: past its budget a job answers 504, the worker is replaced, the next job is answered`, async () => {
    const pool = new HeavyPool({ size: 1, kind, budgetMs: 1 });
    try {
      assert.equal(await statusOf(pool.run(configMap(200_000))), 504);
      assert.equal(pool.replaced, 1);
    } finally { await pool.close(); }
    const next = new HeavyPool({ size: 1, kind, budgetMs: 30_000 });
    try { assert.equal(await statusOf(next.run(configMap(10))), 200); } finally { await next.close(); }
  });

  test(`${kind}: a full queue is refused with 429; queued jobs are answered in turn`, async () => {
    const pool = new HeavyPool({ size: 1, kind, maxQueue: 1 });
    try {
      const running = pool.run(configMap(50_000));
      const queued = pool.run(configMap(10));
      assert.equal(await statusOf(pool.run(configMap(10))), 429);
      assert.equal(await statusOf(running), 200);
      assert.equal(await statusOf(queued), 200);
    } finally { await pool.close(); }
  });
}

test('process: starts on first use, stays for the next job, every thread at the background nice, GC on one thread', async () => {
  const before = new Set(children());
  const pool = new HeavyPool({ size: 1, kind: 'process' });
  try {
    assert.deepEqual(children().filter((c) => !before.has(c)), [], 'started before its first job');
    await pool.run(configMap(10));
    const [pid, ...more] = children().filter((c) => !before.has(c));
    assert.ok(pid, 'no child process after a job');
    assert.deepEqual(more, []);
    await pool.run(configMap(10));
    assert.deepEqual(children().filter((c) => !before.has(c)), [pid], 'the same process serves the next job');
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    assert.ok(cmdline.includes('--single-threaded-gc'), cmdline.join(' '));
    const nices = readdirSync(`/proc/${pid}/task`).map((t) => Number(readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8').split(') ')[1]!.split(' ')[19 - 3]));
    assert.deepEqual(nices, nices.map(() => backgroundNice));
    assert.equal(readFileSync(`/proc/${pid}/comm`, 'utf8').trim(), 'k8ts-heavy');
    assert.notEqual(Number(readFileSync(`/proc/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19 - 3]), backgroundNice, 'the calling process was lowered');
  } finally { await pool.close(); }
});

test('process: one that dies mid-job fails that job with a 500, and a new one answers the next', async () => {
  const before = new Set(children());
  const pool = new HeavyPool({ size: 1, kind: 'process' });
  try {
    await pool.run(configMap(10));
    const [pid] = children().filter((c) => !before.has(c));
    const job = pool.run(configMap(200_000));
    process.kill(pid!, 'SIGKILL');
    assert.equal(await statusOf(job), 500);
    assert.equal(pool.replaced, 1);
    assert.equal(await statusOf(pool.run(configMap(10))), 200);
  } finally { await pool.close(); }
});
