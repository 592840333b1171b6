/** The heartbeat loop: even spreading over the period, once per period, bounded concurrency, no pile-up. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HeartbeatScheduler } from '../../src/kubelet/heartbeat.js';
import { FakeTimers } from '../../src/kubelet/timers.js';

const flush = () => new Promise<void>((r) => setImmediate(r));

function counter(timers: FakeTimers, log: { key: string; at: number }[], key: string, work?: () => Promise<void>) {
  return { key, beat: async () => { log.push({ key, at: timers.nowMs() }); await work?.(); } };
}

describe('HeartbeatScheduler', () => {
  it('spreads tasks evenly over the slots, however many join', () => {
    for (const n of [1, 7, 100, 999, 5000]) {
      const s = new HeartbeatScheduler({ periodMs: 10_000, timers: new FakeTimers() });
      for (let i = 0; i < n; i++) s.add({ key: `n${i}`, beat: async () => {} });
      const loads = s.slotLoads();
      assert.equal(loads.length, 100);
      assert.equal(loads.reduce((a, b) => a + b, 0), n);
      assert.ok(Math.max(...loads) - Math.min(...loads) <= 1, `n=${n}: ${Math.min(...loads)}..${Math.max(...loads)}`);
    }
  });

  it('refills the gaps that removed tasks leave', () => {
    const s = new HeartbeatScheduler({ periodMs: 1000, slotMs: 100, timers: new FakeTimers() });
    for (let i = 0; i < 20; i++) s.add({ key: `n${i}`, beat: async () => {} });
    s.remove('n3'); s.remove('n4');
    s.add({ key: 'a', beat: async () => {} });
    s.add({ key: 'b', beat: async () => {} });
    assert.deepEqual(s.slotLoads(), Array(10).fill(2));
  });

  it('beats every task once per period, at an even rate', async () => {
    const timers = new FakeTimers();
    const log: { key: string; at: number }[] = [];
    const s = new HeartbeatScheduler({ periodMs: 10_000, timers });
    for (let i = 0; i < 1000; i++) s.add(counter(timers, log, `n${i}`));
    s.start();
    const start = timers.nowMs();
    for (let p = 0; p < 3; p++) {
      for (let step = 0; step < 100; step++) { timers.advance(100); await flush(); }
    }
    assert.equal(log.length, 3000);
    const perKey = new Map<string, number>();
    for (const e of log) perKey.set(e.key, (perKey.get(e.key) ?? 0) + 1);
    assert.ok([...perKey.values()].every((c) => c === 3));
    // Per 100 ms slot, 10 beats: the load is flat over the period.
    const perSlot = new Map<number, number>();
    for (const e of log) { const slot = Math.floor((e.at - start - 1) / 100); perSlot.set(slot, (perSlot.get(slot) ?? 0) + 1); }
    assert.ok([...perSlot.values()].every((c) => c === 10), JSON.stringify([...perSlot.values()].slice(0, 5)));
    // Each task keeps its phase: consecutive beats exactly one period apart.
    const n0 = log.filter((e) => e.key === 'n0').map((e) => e.at);
    assert.deepEqual([n0[1] - n0[0], n0[2] - n0[1]], [10_000, 10_000]);
    s.stop();
  });

  it('runs at most `concurrency` beats at once and queues the rest in order', async () => {
    const timers = new FakeTimers();
    let active = 0;
    let peak = 0;
    const release: (() => void)[] = [];
    const s = new HeartbeatScheduler({ periodMs: 100, slotMs: 100, concurrency: 4, timers });
    for (let i = 0; i < 10; i++) {
      s.add({ key: `n${i}`, beat: () => new Promise<void>((r) => { active++; peak = Math.max(peak, active); release.push(() => { active--; r(); }); }) });
    }
    s.start();
    timers.advance(100);
    await flush();
    assert.equal(active, 4);
    assert.equal(s.stats().queued, 6);
    while (release.length) { release.shift()!(); await flush(); }
    assert.equal(peak, 4);
    assert.equal(s.stats().beats, 10);
    s.stop();
  });

  it('skips a task whose previous beat is still running, instead of piling up', async () => {
    const timers = new FakeTimers();
    let calls = 0;
    let finish!: () => void;
    const s = new HeartbeatScheduler({ periodMs: 1000, slotMs: 100, timers });
    s.add({ key: 'slow', beat: () => { calls++; return new Promise<void>((r) => { finish = r; }); } });
    s.start();
    for (let i = 0; i < 35; i++) { timers.advance(100); await flush(); }
    assert.equal(calls, 1);
    assert.equal(s.stats().skipped, 3);
    finish();
    await flush();
    for (let i = 0; i < 10; i++) { timers.advance(100); await flush(); }
    assert.equal(calls, 2);
    s.stop();
  });

  it('a removed task beats no more, even if it was already queued', async () => {
    const timers = new FakeTimers();
    const log: { key: string; at: number }[] = [];
    let hold!: () => void;
    const s = new HeartbeatScheduler({ periodMs: 100, slotMs: 100, concurrency: 1, timers });
    s.add({ key: 'blocker', beat: () => new Promise<void>((r) => { hold = r; }) });
    s.add(counter(timers, log, 'victim'));
    s.start();
    timers.advance(100);
    await flush();
    s.remove('victim');
    hold();
    for (let i = 0; i < 5; i++) { await flush(); timers.advance(100); }
    assert.equal(log.length, 0);
    s.stop();
  });

  it('catches up the slots it missed when the loop was blocked, each once', async () => {
    // Timers that fire only when told, late: a blocked event loop.
    let now = Date.parse('2025-01-01T00:00:00Z');
    let armed: (() => void) | undefined;
    const timers = {
      now: () => new Date(now),
      setTimeout: (fn: () => void) => { armed = fn; return { id: 1 }; },
      clearTimeout: () => { armed = undefined; },
    };
    const log: string[] = [];
    const s = new HeartbeatScheduler({ periodMs: 1000, slotMs: 100, timers });
    for (let i = 0; i < 10; i++) s.add({ key: `n${i}`, beat: async () => { log.push(`n${i}`); } });
    s.start();
    now += 2500;
    armed!();
    await flush();
    assert.deepEqual([...log].sort(), Array.from({ length: 10 }, (_, i) => `n${i}`).sort(), 'every slot once, not 2.5 times');
    log.length = 0;
    now += 100;
    armed!();
    await flush();
    assert.equal(log.length, 1, 'then one slot per tick again');
    s.stop();
  });
});
