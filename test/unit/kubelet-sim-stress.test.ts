/**
 * The stress programs of the resource pages (runtime/simulated/stress.ts),
 * the usage model's busy threads and time-varying working sets
 * (usage-model.ts rules 6 and 7) and the OOM killer's moment (oom-kill.ts),
 * on a fake clock.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Container } from 'kubernetes-types/core/v1.js';
import { stressWorkload, touchBytesPerMs } from '../../src/kubelet/runtime/simulated/stress.js';
import { oomKillAfterMs } from '../../src/kubelet/runtime/simulated/oom-kill.js';
import { SimulatedNodeUsage } from '../../src/kubelet/runtime/simulated/usage-model.js';
import { containerUsageSpec } from '../../src/kubelet/runtime/simulated/usage-profiles.js';
import { FakeTimers } from '../../src/kubelet/timers.js';

const MiB = 1024 * 1024;
/** The Assign Memory Resources page's containers. */
const memoryDemo = (bytes: string, limit: string, request: string): Container => ({
  name: 'memory-demo-ctr', image: 'polinux/stress', command: ['stress'], args: ['--vm', '1', '--vm-bytes', bytes, '--vm-hang', '1'],
  resources: { limits: { memory: limit }, requests: { memory: request } },
});
/** The Assign CPU Resources page's container. */
const cpuDemo = (cpus: string, limit?: string): Container => ({
  name: 'cpu-demo-ctr', image: 'vish/stress', args: ['-cpus', cpus], ...(limit ? { resources: { limits: { cpu: limit } } } : {}),
});

function node(cores: number) {
  const timers = new FakeTimers();
  const usage = new SimulatedNodeUsage({ cores, memoryBytes: 8 * 1024 * MiB, timers, system: { cores: 0, workingSetBytes: 0 } });
  return { timers, usage, start: timers.nowMs() };
}

describe('stress workloads (stress.ts)', () => {
  it('polinux/stress --vm 1 --vm-bytes 150M --vm-hang 1: 150 MiB (powers of 1024) on a 5 MiB base, mostly asleep; the info line', () => {
    const w = stressWorkload(memoryDemo('150M', '200Mi', '100Mi'))!;
    assert.equal(w.busyThreads, 0);
    assert.equal(w.workingSetAt(0), 5 * MiB);
    assert.equal(w.workingSetAt(60_000), 155 * MiB);
    const touchMs = (150 * MiB) / touchBytesPerMs;
    assert.ok(Math.abs(w.sleepyCores - touchMs / (touchMs + 1000)) < 1e-12);
    assert.ok(w.sleepyCores > 0.01 && w.sleepyCores < 0.2, `${w.sleepyCores}`);
    assert.equal(w.startLog, 'stress: info: [1] dispatching hogs: 0 cpu, 0 io, 1 vm, 0 hdd\n');
    assert.equal(w.exceedsAfter(200 * MiB), undefined);
  });

  it('GNU stress options: short and long names, --name=value, the vm workers busy without --vm-hang, held for ever with --vm-hang 0', () => {
    const table: [string[], number, number, number][] = [
      // argv, busy threads, sleepy cores, working set at a minute
      [['-c', '2'], 2, 0, 5 * MiB],
      [['--cpu=1', '--io', '1', '--hdd', '1'], 3, 0, 5 * MiB],
      [['--vm', '2', '--vm-bytes', '64m'], 2, 0, 133 * MiB],
      [['--vm', '1'], 1, 0, 261 * MiB],
      [['--vm', '1', '--vm-bytes', '1g', '--vm-hang', '0'], 0, 0, 1029 * MiB],
      [['--vm', '1', '--vm-bytes', '10M', '--vm-hang', '1', '--vm-keep'], 1, 0, 15 * MiB],
      [['--vm', '1', '--vm-bytes', '4096k', '--vm-hang', '2'], 0, -1, 9 * MiB],
    ];
    for (const [args, busy, sleepy, ws] of table) {
      const w = stressWorkload({ name: 'c', image: 'polinux/stress', command: ['/usr/bin/stress'], args })!;
      assert.equal(w.busyThreads, busy, args.join(' '));
      if (sleepy >= 0) assert.equal(w.sleepyCores, sleepy, args.join(' '));
      else assert.ok(w.sleepyCores > 0 && w.sleepyCores < 0.01, args.join(' '));
      assert.equal(w.workingSetAt(60_000), ws, args.join(' '));
    }
  });

  it('vish/stress: -cpus spin goroutines; -mem-total arrives in -mem-alloc-size steps every -mem-alloc-sleep', () => {
    assert.equal(stressWorkload(cpuDemo('2'))!.busyThreads, 2);
    const w = stressWorkload({ name: 'c', image: 'docker.io/vish/stress:latest', args: ['-mem-total', '150Mi', '-mem-alloc-size', '10Mi', '--mem-alloc-sleep=1s'] })!;
    assert.equal(w.busyThreads, 0);
    assert.deepEqual([0, 999, 1000, 4500, 14_000, 60_000].map((t) => w.workingSetAt(t) / MiB), [12, 12, 22, 52, 152, 152]);
    // 100Mi: 2 MiB base + 10 allocations (102 MiB) pass it; the 10th comes 9 s after the start.
    assert.equal(w.exceedsAfter(100 * MiB), 9000);
    assert.equal(w.exceedsAfter(200 * MiB), undefined);
  });

  it('any other container is no stress program', () => {
    assert.equal(stressWorkload({ name: 'c', image: 'nginx' }), undefined);
    assert.equal(stressWorkload({ name: 'c', image: 'vish/stress', command: ['sh', '-c', 'sleep 1'] }), undefined);
    assert.equal(stressWorkload({ name: 'c', image: 'busybox', command: ['sh'], args: ['-c', 'stress --vm 1'] }), undefined);
  });
});

describe('the OOM killer (oom-kill.ts)', () => {
  it('memory-demo-2 (250M under a 100Mi limit) is killed once its touched pages pass the limit; memory-demo (150M under 200Mi) never', () => {
    assert.equal(oomKillAfterMs(memoryDemo('150M', '200Mi', '100Mi')), undefined);
    const at = oomKillAfterMs(memoryDemo('250M', '100Mi', '50Mi'))!;
    assert.equal(at, (95 * MiB) / touchBytesPerMs);
    assert.ok(at > 0 && at < 1000, `${at}`);
  });

  it('no memory limit, or no growing working set: never', () => {
    assert.equal(oomKillAfterMs({ ...memoryDemo('250M', '100Mi', '50Mi'), resources: {} }), undefined);
    assert.equal(oomKillAfterMs({ name: 'web', image: 'nginx', resources: { limits: { memory: '1Mi' } } }), undefined);
  });
});

describe('busy threads and growing working sets in the usage model (rules 6 and 7)', () => {
  it('cpu-demo: two spinning threads under a 1-CPU limit use one core; without a limit two; on one core one', () => {
    const cases: [number, string | undefined, number][] = [[4, '1', 1], [4, undefined, 2], [1, undefined, 1], [4, '500m', 0.5]];
    for (const [cores, limit, want] of cases) {
      const { timers, usage, start } = node(cores);
      usage.ensure('cpu-demo', containerUsageSpec(cpuDemo('2', limit)), start);
      timers.advance(10_000);
      const cpuMs = usage.containerUsage('cpu-demo')!.cpuNanoSeconds / 1e6;
      assert.ok(Math.abs(cpuMs - want * 10_000) < 1e-3, `${cores} cores, limit ${limit}: ${cpuMs} ms`);
      usage.close();
    }
  });

  it('two busy containers on one core share it; the node counts both', () => {
    const { timers, usage, start } = node(1);
    usage.ensure('a', containerUsageSpec(cpuDemo('1')), start);
    usage.ensure('b', containerUsageSpec(cpuDemo('1')), start);
    timers.advance(10_000);
    for (const k of ['a', 'b']) assert.ok(Math.abs(usage.containerUsage(k)!.cpuNanoSeconds / 1e6 - 5000) < 1e-3, k);
    assert.ok(Math.abs(usage.nodeUsage().cpuNanoSeconds / 1e6 - 10_000) < 1e-3);
    usage.close();
  });

  it('a busy container leaves a request\'s share of the node to a server beside it', async () => {
    const { timers, usage, start } = node(1);
    usage.ensure('spin', containerUsageSpec(cpuDemo('1')), start);
    usage.ensure('web', { idleCores: 0, workingSetBytes: MiB }, start);
    let done = false;
    void usage.serve('web', 10).then(() => { done = true; });
    // One core, two threads: the request runs at half speed, 20 ms.
    timers.advance(19);
    await Promise.resolve();
    assert.equal(done, false);
    timers.advance(2);
    for (let i = 0; i < 5; i++) await Promise.resolve();
    assert.equal(done, true);
    usage.close();
  });

  it('memory-demo\'s working set follows its touched pages to 155 MiB; the memory limit caps what is reported', () => {
    const { timers, usage, start } = node(4);
    usage.ensure('memory-demo', containerUsageSpec(memoryDemo('150M', '200Mi', '100Mi')), start);
    assert.equal(usage.containerUsage('memory-demo')!.workingSetBytes, 5 * MiB);
    timers.advance(10_000);
    assert.equal(usage.containerUsage('memory-demo')!.workingSetBytes, 155 * MiB);
    assert.equal(usage.nodeUsage().memory.workingSetBytes, 155 * MiB);
    usage.ensure('memory-demo-2', containerUsageSpec(memoryDemo('250M', '100Mi', '50Mi')), timers.nowMs());
    timers.advance(10_000);
    assert.equal(usage.containerUsage('memory-demo-2')!.workingSetBytes, 100 * MiB);
    usage.close();
  });
});
