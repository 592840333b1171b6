/**
 * Where the heavy lane starts paying: for JSON ConfigMap bodies of growing
 * size, the loop's time to read the body itself (decode + checks) beside the
 * loop's time when a worker reads it (posting the body, receiving the value:
 * the structured clone the loop still pays). The threshold in
 * src/apiserver/heavy/index.ts is where the second falls below the first.
 *
 *   node dist/bench/heavy-threshold.js
 */
import { HeavyPool } from '../src/apiserver/heavy/pool.js';
import { readObjectBody, type ObjectBodyJob } from '../src/apiserver/heavy/object-body.js';
import { percentile, fmtMs } from './lib/stats.js';
import { benchArgs } from './lib/args.js';

benchArgs('Loop time to read JSON ConfigMap bodies of growing size on the loop beside through a heavy-lane worker.', {});

const job = (bytes: number): ObjectBodyJob => {
  const data: Record<string, string> = {};
  for (let i = 0; Object.keys(data).length * 24 < bytes; i++) data[`key-${i}`] = 'value-0123456789';
  return {
    body: Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data })), type: 'application/json',
    into: { apiVersion: 'v1', kind: 'ConfigMap' }, endpoint: { group: '', version: 'v1', kind: 'ConfigMap' }, endpointApiVersion: 'v1', fieldValidation: 'Strict', builtIn: true,
  };
};

/** Loop time of one worker round trip: wall time minus the time the loop was free (measured by a 1 ms ticker's lag). */
async function loopCostOffLoop(pool: HeavyPool, j: ObjectBodyJob): Promise<number> {
  const started = performance.now();
  let busy = 0;
  let last = performance.now();
  const ticker = setInterval(() => { const now = performance.now(); busy += Math.max(0, now - last - 1); last = now; }, 1);
  const t = performance.now();
  await pool.run(j);
  const clone = performance.now() - t;
  clearInterval(ticker);
  void started;
  return Math.min(clone, busy + 0.5);
}

const pool = new HeavyPool({ size: 1 });
console.log('| body | on the loop (p50) | loop cost with the worker (p50) |\n| --- | --- | --- |');
for (const kib of [16, 64, 128, 256, 1024, 2048]) {
  const j = job(kib * 1024);
  const inline: number[] = [];
  const off: number[] = [];
  for (let r = 0; r < 7; r++) {
    const t = performance.now(); readObjectBody(j); inline.push(performance.now() - t);
    off.push(await loopCostOffLoop(pool, j));
  }
  console.log(`| ${kib} KiB | ${fmtMs(percentile(inline, 50))} | ${fmtMs(percentile(off, 50))} |`);
}
await pool.close();
