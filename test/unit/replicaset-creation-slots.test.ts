/**
 * CreationSlots (src/controllers/replicaset/creation-slots.ts): at most `limit` syncs create
 * pods at once; the others wait in line, first come first served, and each slot given back
 * hands the first in line back to the queue.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CreationSlots } from '../../src/controllers/replicaset/creation-slots.js';

describe('CreationSlots', () => {
  it('gives out `limit` slots, then puts keys in line in the order they came', () => {
    const woken: string[] = [];
    const slots = new CreationSlots(2, (k) => woken.push(k));
    assert.equal(slots.tryAcquire('a'), true);
    assert.equal(slots.tryAcquire('b'), true);
    assert.equal(slots.tryAcquire('c'), false);
    assert.equal(slots.tryAcquire('d'), false);
    // A key already in line keeps its place when it asks again.
    assert.equal(slots.tryAcquire('c'), false);
    assert.deepEqual(slots.queued, ['c', 'd']);
    assert.equal(slots.inUse, 2);
    slots.release();
    assert.deepEqual(woken, ['c']);
    assert.deepEqual(slots.queued, ['d']);
    assert.equal(slots.tryAcquire('c'), true);
    slots.release();
    slots.release();
    assert.deepEqual(woken, ['c', 'd']);
    assert.equal(slots.inUse, 0);
  });

  it('a key that gets a slot leaves the line; a forgotten one is not woken', () => {
    const woken: string[] = [];
    const slots = new CreationSlots(1, (k) => woken.push(k));
    assert.equal(slots.tryAcquire('a'), true);
    assert.equal(slots.tryAcquire('b'), false);
    assert.equal(slots.tryAcquire('c'), false);
    slots.forget('b');
    slots.release();
    assert.deepEqual(woken, ['c']);
    assert.equal(slots.tryAcquire('c'), true);
    assert.deepEqual(slots.queued, []);
  });

  it('never fewer than one slot (a single worker still creates)', () => {
    const slots = new CreationSlots(0, () => undefined);
    assert.equal(slots.limit, 1);
    assert.equal(slots.tryAcquire('a'), true);
    assert.equal(slots.tryAcquire('b'), false);
  });
});
