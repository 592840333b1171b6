/**
 * cli/heap-growing-at-scale.ts: the serving process tightens V8's heap growing factor once its live
 * heap (used after a full collection) passes the threshold, gives it back under half of it, and
 * leaves it alone when the operator chose one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { HeapGrowingSwitch, tightenHeapGrowingAtScale } from '../../src/cli/heap-growing-at-scale.js';
import { heapGrowingChosen } from '../../src/cli/v8-flags.js';
import { silentLogger } from '../../src/util/log.js';

const MiB = 2 ** 20;

test('the factor follows the live heap, with a gap between setting and clearing', () => {
  const set: string[] = [];
  const sw = new HeapGrowingSwitch(silentLogger, { thresholdMiB: 100, percent: 50, setFlags: (f) => set.push(f) });
  assert.equal(sw.afterFullCollection(80 * MiB), false, 'under the threshold: V8\'s own');
  assert.equal(sw.afterFullCollection(120 * MiB), true);
  assert.equal(sw.afterFullCollection(130 * MiB), true, 'set once');
  assert.equal(sw.afterFullCollection(60 * MiB), true, 'between half and the threshold: kept');
  assert.equal(sw.afterFullCollection(40 * MiB), false, 'under half: V8\'s own again');
  assert.deepEqual(set, ['--heap-growing-percent=50', '--heap-growing-percent=0']);
});

test('a full collection of this thread reaches the switch', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const set: string[] = [];
  const stop = tightenHeapGrowingAtScale(silentLogger, { thresholdMiB: 1, percent: 50, usedBytes: () => 2 * MiB, setFlags: (f) => set.push(f) });
  try {
    gc();
    for (let i = 0; i < 50 && !set.length; i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(set, ['--heap-growing-percent=50']);
  } finally {
    stop();
  }
});

test('the operator\'s choice wins: K8TS_HEAP_GROWING_PERCENT (0 included) or node\'s own flag', () => {
  assert.equal(heapGrowingChosen({}, []), false);
  assert.equal(heapGrowingChosen({ K8TS_HEAP_GROWING_PERCENT: '' }, []), false);
  assert.equal(heapGrowingChosen({ K8TS_HEAP_GROWING_PERCENT: '0' }, []), true);
  assert.equal(heapGrowingChosen({ K8TS_HEAP_GROWING_PERCENT: '100' }, []), true);
  assert.equal(heapGrowingChosen({}, ['--max-old-space-size=4096 --heap_growing_percent=30']), true);
  assert.equal(heapGrowingChosen({}, ['--max-old-space-size=4096']), false);
});
