/**
 * bench/lib/wake-delays.ts: each wake-up of the serving thread is measured from its sched_waking to
 * the sched_switch that puts it on a CPU, and that wait is charged to whatever ran on that CPU
 * meanwhile (the server's heavy lane, other processes...), from `perf script` lines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wakeDelaysOf, type Holder } from '../../bench/lib/wake-delays.js';

const loop = 100;
const holders = new Map<number, Holder>([[200, 'heavy lane'], [201, 'V8 platform'], [0, 'nothing (idle)']]);
const sw = (cpu: number, at: string, prev: number, next: number) =>
  `[00${cpu}] ${at}:       sched:sched_switch: prev_comm=node prev_pid=${prev} prev_prio=130 prev_state=R ==> next_comm=node next_pid=${next} next_prio=120`;
const wake = (cpu: number, at: string, pid: number) => `[00${cpu}] ${at}:       sched:sched_waking: comm=node pid=${pid} prio=120 target_cpu=00${cpu}`;

test('a wake-up waits while the heavy lane and then another process run on its CPU', async () => {
  const d = await wakeDelaysOf([
    sw(0, '10.000000', 0, 200), // the worker takes CPU 0
    sw(1, '10.000500', 0, 201), // a platform thread takes CPU 1
    wake(0, '10.001000', loop),
    sw(0, '10.003000', 200, 999), // the worker leaves CPU 0 to another process after 2 ms of the wait
    sw(1, '10.003500', 201, 0), // CPU 1's runs are not the serving thread's CPU: not charged
    sw(0, '10.004000', 999, loop), // another process ran 1 ms, then the loop
  ], loop, holders);
  assert.equal(d.wakeups, 1);
  assert.ok(Math.abs(d.totalMs - 3) < 1e-6, String(d.totalMs));
  assert.deepEqual(Object.keys(d.byHolder).sort(), ['heavy lane', 'other processes']);
  assert.ok(Math.abs(d.byHolder['heavy lane']! - 2) < 1e-6);
  assert.ok(Math.abs(d.byHolder['other processes']! - 1) < 1e-6);
});

test('a wake-up onto an idle CPU costs only the switch; other threads\' wake-ups are not counted', async () => {
  const d = await wakeDelaysOf([
    wake(1, '20.000000', 555),
    sw(1, '20.000010', 0, 555),
    wake(1, '20.001000', loop),
    sw(1, '20.001020', 555, loop), // 555 ran its last 20 us of the wait
    wake(0, '20.002000', loop),
    sw(0, '20.002005', 0, loop), // CPU 0 was idle, first seen here
  ], loop, holders);
  assert.equal(d.wakeups, 2);
  assert.ok(Math.abs(d.totalMs - 0.025) < 1e-6, String(d.totalMs));
  assert.ok(Math.abs(d.byHolder['other processes']! - 0.02) < 1e-6);
  assert.equal(d.byHolder['heavy lane'], undefined);
});
