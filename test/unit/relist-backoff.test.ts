import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RelistBackoff } from '../../src/util/relist-backoff.js';

describe('RelistBackoff', () => {
  it('doubles from the first delay to the cap while watches keep failing at once', () => {
    let now = 0;
    const b = new RelistBackoff(100, 10_000, () => now);
    const delays = [];
    for (let i = 0; i < 10; i++) { b.watching(); now += 50; delays.push(b.next()); }
    assert.deepEqual(delays, [100, 200, 400, 800, 1600, 3200, 6400, 10_000, 10_000, 10_000]);
  });
  it('failed lists (no watch opened) back off too', () => {
    const b = new RelistBackoff(1000, 10_000, () => 0);
    assert.deepEqual([b.next(), b.next(), b.next(), b.next(), b.next()], [1000, 2000, 4000, 8000, 10_000]);
  });
  it('starts again from the first delay once a watch has lasted the cap', () => {
    let now = 0;
    const b = new RelistBackoff(100, 10_000, () => now);
    b.next(); b.next(); b.next();
    b.watching();
    now += 10_000;
    assert.equal(b.next(), 100);
  });
});
