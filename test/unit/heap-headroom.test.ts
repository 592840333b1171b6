/**
 * cli/heap-headroom.ts: V8's heap growing factor follows the serving heap's live size: V8's own
 * while its largest factor keeps the garbage under the budget, then 1 + budget/live in steps of 5%,
 * never under the floor; and the watch
 * of full collections (cli/full-collections.ts) reads a real collection of this isolate.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { boundHeapHeadroom, headroomBudgetMiB, headroomPercent } from '../../src/cli/heap-headroom.js';
import { watchFullCollections } from '../../src/cli/full-collections.js';
import { silentLogger } from '../../src/util/log.js';

const MiB = 2 ** 20;

test('the growing percent by live heap: rules 1-3', () => {
  const cases: { what: string; liveMiB: number; want: number }[] = [
    { what: 'a small heap: V8\'s own', liveMiB: 40, want: 0 },
    { what: 'a third of the budget: V8\'s largest factor keeps it under the budget, V8\'s own', liveMiB: 128 / 3, want: 0 },
    { what: 'past a third: headroom of one budget, under V8\'s largest factor', liveMiB: 43, want: 295 },
    { what: 'half the budget: 200%', liveMiB: 64, want: 200 },
    { what: 'just under the budget: a factor of about 2', liveMiB: 127.9, want: 100 },
    { what: 'at the budget: headroom of one budget', liveMiB: 128, want: 100 },
    { what: 'twice the budget: 50%', liveMiB: 256, want: 50 },
    { what: 'rounded down to a step of 5', liveMiB: 300, want: 40 },
    { what: 'a large heap: the floor', liveMiB: 1024, want: 25 },
  ];
  for (const c of cases) assert.equal(headroomPercent(c.liveMiB * MiB, 128, 25), c.want, c.what);
});

test('the budget from K8TS_HEAP_HEADROOM_MIB: a positive number of MiB, else the default', () => {
  const cases: { env: string | undefined; want: number }[] = [
    { env: undefined, want: 128 }, { env: '', want: 128 }, { env: '64', want: 64 }, { env: ' 32 ', want: 32 },
    { env: '0', want: 128 }, { env: '-5', want: 128 }, { env: 'lots', want: 128 },
  ];
  for (const c of cases) assert.equal(headroomBudgetMiB(c.env === undefined ? {} : { K8TS_HEAP_HEADROOM_MIB: c.env }), c.want, String(c.env));
});

const gc = (): Promise<void> => {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  // The observer's entries arrive on a later turn of the loop.
  return new Promise((r) => setTimeout(r, 50));
};

test('a full collection is seen, and the factor set once it passes the budget', async () => {
  const watch = watchFullCollections();
  try {
    await gc();
    assert.ok((watch.lastUsedBytes() ?? 0) > 0, 'the heap after the collection');
  } finally {
    watch.close();
  }
  const set: string[] = [];
  // A budget far under this heap: the floor; a budget far over it: nothing set (V8's own stays).
  const small = boundHeapHeadroom({ budgetMiB: 0.01, minPercent: 25, logger: silentLogger, setFlags: (f) => set.push(f) });
  const large = boundHeapHeadroom({ budgetMiB: 1 << 20, minPercent: 25, logger: silentLogger, setFlags: (f) => set.push(`large ${f}`) });
  try {
    await gc();
    await gc();
    assert.deepEqual(set, ['--heap-growing-percent=25'], 'set once, at the floor; not set again while it holds');
  } finally {
    small.close();
    large.close();
  }
});
