/**
 * The heavy lane's pool (apiserver/heavy/pool.ts) of worker threads (lane-worker.ts): the answer is
 * the pure function's own (object-body.ts), a job past its budget answers 504 and a fresh worker
 * takes the slot, a full queue is refused with 429.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { HeavyPool } from '../../src/apiserver/heavy/pool.js';
import { readObjectBody, type ObjectBodyJob } from '../../src/apiserver/heavy/object-body.js';
import { StatusError } from '../../src/api/status.js';

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

test('past its budget a job answers 504, the worker is replaced, the next job is answered', async () => {
  const pool = new HeavyPool({ size: 1, budgetMs: 1 });
  try {
    assert.equal(await statusOf(pool.run(configMap(200_000))), 504);
    assert.equal(pool.replaced, 1);
  } finally { await pool.close(); }
  const next = new HeavyPool({ size: 1, budgetMs: 30_000 });
  try { assert.equal(await statusOf(next.run(configMap(10))), 200); } finally { await next.close(); }
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
