/**
 * The cold sweep's own cost on a server whose objects are all cold or recently touched
 * (registry/watch-cache/cold-sweep.ts): a tick stops within its budget however many entries it
 * only skips, and once a walk has reached the end of the map, ticks do not walk it again until
 * the generations turn (before, every 100 ms tick walked every cached pod: 150,000 lookups a
 * tick on an idle server).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ColdSweep } from '../../src/registry/watch-cache/cold-sweep.js';
import { coldFormFor, isCold } from '../../src/registry/watch-cache/cold.js';

const form = coldFormFor('/registry/core/pods/')!;

function pods(n: number): { map: Map<string, unknown>; walks: () => number } {
  const map = new Map<string, unknown>();
  for (let i = 0; i < n; i++) {
    map.set(`/registry/core/pods/ns/p-${i}`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: `p-${i}`, namespace: 'ns', uid: `u-${i}`, resourceVersion: String(i + 1) }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx' }] } });
  }
  let walks = 0;
  const entries = map.entries.bind(map);
  map.entries = () => { walks++; return entries(); };
  return { map, walks: () => walks };
}

test('a walk that reached the end is not walked again until the generations turn', () => {
  const { map, walks } = pods(50);
  const sweep = new ColdSweep(form, () => map, { afterMs: 60_000, tickMs: 0, budgetMs: Infinity });
  // Nothing touched yet and no turn due: all go cold in the first walk.
  assert.equal(sweep.sweep(Infinity), 50);
  assert.equal([...map.values()].filter(isCold).length, 50);
  assert.equal(walks(), 1);
  for (let i = 0; i < 20; i++) assert.equal(sweep.sweep(Infinity), 0);
  assert.equal(walks(), 1, 'no walk of a map already walked since the last turn');
  // A replaced map (a relist) is walked.
  const other = pods(3);
  const swept = new ColdSweep(form, () => other.map, { afterMs: 60_000, tickMs: 0, budgetMs: Infinity });
  swept.touch('/registry/core/pods/ns/p-0');
  assert.equal(swept.sweep(Infinity), 2);
  assert.equal(swept.sweep(Infinity), 0);
  assert.equal(other.walks(), 1);
});

test('with every turn due (afterMs 0) each sweep walks again, and a touched object goes cold two turns later', () => {
  const { map, walks } = pods(4);
  const sweep = new ColdSweep(form, () => map, { afterMs: 0, tickMs: 0, budgetMs: Infinity });
  const key = '/registry/core/pods/ns/p-2';
  sweep.touch(key);
  assert.equal(sweep.sweep(Infinity), 3, 'the touched one is in the generation just turned');
  assert.equal(isCold(map.get(key)), false);
  assert.equal(sweep.sweep(Infinity), 1);
  assert.equal(isCold(map.get(key)), true);
  assert.equal(walks(), 2);
});

test('a tick that only skips entries still stops at its budget', () => {
  const { map } = pods(200_000);
  const sweep = new ColdSweep(form, () => map, { afterMs: 60_000, tickMs: 0, budgetMs: Infinity });
  for (const key of map.keys()) sweep.touch(key);
  assert.equal(sweep.sweep(0), 0);
  const walk = (sweep as unknown as { walk?: unknown }).walk;
  assert.ok(walk !== undefined, 'the walk stopped part-way, to go on at the next tick');
  // It goes on from where it stopped and ends within a few more ticks of unbounded budget.
  assert.equal(sweep.sweep(Infinity), 0);
  assert.equal((sweep as unknown as { walk?: unknown }).walk, undefined);
});
