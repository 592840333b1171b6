/**
 * The bindings' congestion window (scheduler/bind-window.ts) driven by answer times given as
 * numbers: a late answer halves it once per round trip, fast answers grow it, both within
 * [min, max]. test/e2e/scheduler-bind-window.test.ts drives it through a real server.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BindWindow } from '../../src/scheduler/bind-window.js';

describe('BindWindow', () => {
  it('starts at max and halves once for the late answers of one round trip', () => {
    const w = new BindWindow({ max: 128, min: 16, targetMs: 250 });
    assert.equal(w.size, 128);
    // 128 bindings sent at 0..127 ms, answered 400 ms later: the first cuts, the rest were sent before the cut.
    for (let i = 0; i < 128; i++) w.answered(i, i + 400);
    assert.equal(w.size, 64);
    // A binding sent after the cut and answered late cuts again.
    w.answered(500, 900);
    assert.equal(w.size, 32);
  });

  it('never goes below min nor above max', () => {
    const w = new BindWindow({ max: 64, min: 16, targetMs: 100 });
    for (let t = 0; t < 20; t++) w.answered(t * 1000, t * 1000 + 500);
    assert.equal(w.size, 16);
    for (let i = 0; i < 1000; i++) w.answered(100_000 + i, 100_000 + i + 1);
    assert.equal(w.size, 64);
  });

  it('grows by one per answer far below the target, by one per window near it', () => {
    const w = new BindWindow({ max: 128, min: 16, targetMs: 200 });
    w.answered(0, 300);
    assert.equal(w.size, 64);
    for (let i = 0; i < 10; i++) w.answered(1000 + i, 1000 + i + 10);
    assert.equal(w.size, 74);
    // 80 answers at 150 ms (under the target, over a quarter of it) add one, not 80.
    for (let i = 0; i < 80; i++) w.answered(2000 + i, 2000 + i + 150);
    assert.equal(w.size, 75);
  });

  it('keeps a fixed size when min equals max (bindWindow: false)', () => {
    const w = new BindWindow({ max: 128, min: 128, targetMs: Infinity });
    w.answered(0, 10_000);
    assert.equal(w.size, 128);
  });
});
