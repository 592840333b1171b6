/**
 * The housekeeping wheel (src/kubelet/housekeeping.ts): every task once per period, spread over
 * the slots, on one timer that exists only while there are tasks.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HousekeepingWheel } from '../../src/kubelet/housekeeping.js';
import { FakeTimers } from '../../src/kubelet/timers.js';

describe('HousekeepingWheel', () => {
  it('runs every task once per period, the tasks spread evenly over the slots', () => {
    const timers = new FakeTimers();
    const wheel = new HousekeepingWheel({ periodMs: 2000, slots: 4, timers });
    const runs: number[][] = [];
    for (let i = 0; i < 8; i++) { runs.push([]); wheel.add(() => runs[i]!.push(timers.nowMs())); }
    timers.advance(6000);
    for (const r of runs) assert.equal(r.length, 3, 'one run per 2 s period');
    for (const r of runs) assert.deepEqual([r[1]! - r[0]!, r[2]! - r[1]!], [2000, 2000]);
    const perTick = new Map<number, number>();
    for (const r of runs) for (const at of r) perTick.set(at, (perTick.get(at) ?? 0) + 1);
    assert.deepEqual([...perTick.values()], Array(12).fill(2), 'two tasks a tick, every tick');
  });

  it('holds a timer only while it has tasks, and a removed task no longer runs', () => {
    const timers = new FakeTimers();
    const wheel = new HousekeepingWheel({ periodMs: 2000, slots: 2, timers });
    assert.equal(timers.size, 0);
    let a = 0, b = 0;
    const removeA = wheel.add(() => a++);
    const removeB = wheel.add(() => b++);
    assert.equal(timers.size, 1, 'one timer for all tasks');
    timers.advance(2000);
    removeA();
    removeA();
    timers.advance(4000);
    assert.deepEqual([a, b], [1, 3]);
    removeB();
    assert.equal(timers.size, 0, 'the last remove disarms');
    timers.advance(4000);
    assert.deepEqual([a, b], [1, 3]);
    wheel.add(() => a++);
    timers.advance(2000);
    assert.equal(a, 2, 'a task added after the wheel emptied runs again');
  });

  it('runs the other tasks of a tick when one throws', () => {
    const timers = new FakeTimers();
    const errors: string[] = [];
    const logger = { error: (msg: string) => errors.push(msg) } as unknown as ConstructorParameters<typeof HousekeepingWheel>[0]['logger'];
    const wheel = new HousekeepingWheel({ periodMs: 1000, slots: 1, timers, logger });
    let ran = 0;
    wheel.add(() => { throw new Error('boom'); });
    wheel.add(() => ran++);
    timers.advance(2000);
    assert.equal(ran, 2);
    assert.equal(errors.length, 2);
  });
});
