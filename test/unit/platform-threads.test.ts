/**
 * util/platform-threads.ts: which threads are V8's platform threads (Node 20
 * starts its delayed-task scheduler and `--v8-pool-size` workers right after
 * the main thread, names them all `node`, and libuv's pool comes later), read
 * from a table of births and from this very process.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { ownTasks, platformPoolSize, platformThreadIds } from '../../src/util/platform-threads.js';

test('the first 1 + pool-size threads born after the main thread, by start time then id', () => {
  const cases: { name: string; tasks: [number, number][]; pool: number; want: number[] }[] = [
    { name: 'in id order', tasks: [[100, 5], [101, 6], [102, 6], [103, 6], [104, 6], [105, 6], [106, 8], [107, 9], [108, 9]], pool: 4, want: [101, 102, 103, 104, 105] },
    { name: 'ids wrapped after the platform: start time first', tasks: [[100, 5], [900, 6], [901, 6], [2, 7], [3, 9]], pool: 1, want: [900, 901] },
    { name: 'listed out of order', tasks: [[106, 8], [103, 6], [100, 5], [102, 6], [101, 6]], pool: 2, want: [101, 102, 103] },
    { name: 'too few threads: none named', tasks: [[100, 5], [101, 6], [102, 6]], pool: 4, want: [] },
  ];
  for (const c of cases) assert.deepEqual(platformThreadIds(100, c.tasks.map(([tid, born]) => ({ tid, born })), c.pool), c.want, c.name);
});

test('the pool size: node\'s own flag (either spelling, = or a separate value), else 4; 0 is node\'s choice, unknown', () => {
  assert.equal(platformPoolSize([]), 4);
  assert.equal(platformPoolSize(['--v8-pool-size=1']), 1);
  assert.equal(platformPoolSize(['--v8_pool_size', '2', '--max-old-space-size=100']), 2);
  assert.equal(platformPoolSize(['--v8-pool-size=0']), undefined);
});

test('in this process: the platform threads are born before libuv\'s pool and a worker started later', async () => {
  await readFile(new URL(import.meta.url)); // libuv's pool has started
  const worker = new Worker('setInterval(() => {}, 1 << 30)', { eval: true });
  await new Promise((r) => worker.once('online', r));
  try {
    const tasks = ownTasks();
    const platform = platformThreadIds(process.pid, tasks, platformPoolSize()!);
    assert.equal(platform.length, platformPoolSize()! + 1);
    assert.ok(!platform.includes(process.pid));
    const born = new Map(tasks.map((t) => [t.tid, t.born]));
    const latest = Math.max(...platform.map((t) => born.get(t)!));
    // Every thread not named (the signal thread, libuv's pool, the worker) was born no earlier.
    for (const t of tasks) if (t.tid !== process.pid && !platform.includes(t.tid)) assert.ok(t.born >= latest, `thread ${t.tid}`);
    // The worker, started last, is the newest thread and not among them.
    const newest = tasks.filter((t) => t.tid !== process.pid).sort((a, b) => b.born - a.born || b.tid - a.tid)[0]!;
    assert.ok(!platform.includes(newest.tid));
  } finally { await worker.terminate(); }
});
