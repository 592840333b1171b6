/**
 * bench/lib/quantile-interval.ts and the bystander's pooled figures (bench/lib/bystander-rows.ts):
 * the order-statistic interval of a p99 has no upper bound below about 400 samples, brackets the
 * true p99 at its stated confidence, and the bystander's verdict against 2x is within or over only
 * when the ratio's whole interval is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { percentileInterval, quantileRanks, ratioInterval } from '../../bench/lib/quantile-interval.js';
import { againstTarget, pooledP99, type Row } from '../../bench/lib/bystander-rows.js';

test('ranks of a p99 interval at 95%, by sample count', () => {
  const cases: [n: number, l: number, u: number][] = [
    [100, 97, 101], // 10 s of GETs: no sample bounds it from above
    [300, 293, 301], // 30 s: neither
    [900, 885, 897], // 3 repeats of 30 s: the 16th- to the 4th-slowest
    [1500, 1477, 1493],
  ];
  for (const [n, l, u] of cases) assert.deepEqual(quantileRanks(n, 99, 0.95), { l, u }, `n=${n}`);
});

test('the interval brackets the true p99 about as often as it says (uniform samples, seeded)', () => {
  let seed = 42; // mulberry32: a small seeded generator whose draws are close enough to independent
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  let covered = 0;
  const trials = 1000;
  for (let t = 0; t < trials; t++) {
    const q = percentileInterval(Array.from({ length: 900 }, random), 99);
    if (q.low <= 0.99 && 0.99 <= q.high) covered++;
  }
  assert.ok(covered / trials >= 0.92, `covered ${covered} of ${trials}`);
});

test('a ratio interval divides the bounds crosswise, unbounded where a side is', () => {
  const steps = (n: number, k: number) => Array.from({ length: n }, (_, i) => (i + 1) * k);
  const r = ratioInterval(steps(900, 2), steps(900, 1), 99);
  assert.equal(r.value, 2);
  assert.ok(r.low < 2 && r.high > 2);
  assert.equal(ratioInterval(steps(100, 2), steps(900, 1), 99).high, Infinity);
});

test('pooled p99: all repeats of an attack against the idle rows beside them, each idle row once', () => {
  const row = (server: string, name: string, samples: number[]): Row => ({ server, name, outcome: '', attacks: 1, samples, cpuMs: 0, wallMs: 1, loopRunMs: 0, loopWaitMs: 0 });
  const flat = (ms: number) => Array.from({ length: 500 }, () => ms);
  const rows = [row('this', 'idle', flat(1)), row('this', '4', flat(3)), row('this', 'idle', flat(1)), row('this', '4', flat(3)), row('this', 'idle', flat(1)),
    row('base', 'idle', flat(100))];
  const { p99, idleP99, ratio } = pooledP99(rows, [1, 3]);
  assert.equal(p99.value, 3);
  assert.equal(idleP99.value, 1);
  assert.equal(ratio.value, 3);
  assert.equal(againstTarget(ratio), 'over 2x');
  assert.equal(againstTarget({ value: 1.5, low: 1.2, high: 1.9 }), 'within 2x');
  assert.match(againstTarget({ value: 1.8, low: 1.1, high: 2.6 }), /^not told apart \(within 2x/);
});
