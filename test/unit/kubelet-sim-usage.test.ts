/** The simulated runtime's usage model (runtime/simulated/usage-model.ts, usage-profiles.ts, usage.ts), on a fake clock. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cfsPeriodMs, SimulatedNodeUsage } from '../../src/kubelet/runtime/simulated/usage-model.js';
import { containerUsageSpec, hpaExampleRequestCpuMs, usageProfile } from '../../src/kubelet/runtime/simulated/usage-profiles.js';
import { SimulatedRuntimeUsage } from '../../src/kubelet/runtime/simulated/usage.js';
import { FakeTimers } from '../../src/kubelet/timers.js';

const MiB = 1024 * 1024;
const flush = async () => { for (let i = 0; i < 5; i++) await Promise.resolve(); };

/** A node of `cores` with one container per spec; serve() answers when the model has run the work. */
function node(cores = 4) {
  const timers = new FakeTimers();
  const usage = new SimulatedNodeUsage({ cores, memoryBytes: 8 * 1024 * MiB, timers, system: { cores: 0, workingSetBytes: 100 * MiB } });
  const start = timers.nowMs();
  /** Serves `costMs` and returns the model time (ms since start) it was answered at, advancing the clock 1 ms at a time. */
  const served = async (key: string, costMs: number, limitMs = 10_000) => {
    let at: number | undefined;
    void usage.serve(key, costMs).then(() => { at = timers.nowMs() - start; });
    for (let i = 0; i < limitMs && at === undefined; i++) { timers.advance(1); await flush(); }
    return at;
  };
  const cpuMs = (key: string) => usage.containerUsage(key)!.cpuNanoSeconds / 1e6;
  return { timers, usage, start, served, cpuMs };
}

describe('simulated usage model', () => {
  it('rule 1: an idle container uses its baseline from its start; the node adds the system baseline', () => {
    const { timers, usage, start } = node();
    usage.ensure('web', { idleCores: 0.001, workingSetBytes: 3 * MiB }, start);
    timers.advance(10_000);
    assert.deepEqual(usage.containerUsage('web'), { cpuNanoSeconds: 10_000_000, workingSetBytes: 3 * MiB });
    const n = usage.nodeUsage();
    assert.equal(n.cpuNanoSeconds, 10_000_000);
    assert.equal(n.memory.workingSetBytes, 103 * MiB);
    assert.equal(n.memory.availableBytes, 8 * 1024 * MiB - 103 * MiB);
    assert.equal(usage.containerUsage('other'), undefined);
  });

  it('rule 2: without a limit a request runs at one core: 30 ms of CPU answers after 30 ms', async () => {
    const { usage, start, served, cpuMs } = node();
    usage.ensure('php', { idleCores: 0, workingSetBytes: 0 }, start);
    assert.equal(await served('php', 30), 30);
    assert.ok(Math.abs(cpuMs('php') - 30) < 1e-3, String(cpuMs('php')));
  });

  it('rule 3: a 500m limit gives 50 ms per 100 ms period: 60 ms of work waits for the second period (throttled)', async () => {
    const { usage, start, served, cpuMs } = node();
    usage.ensure('php', { limitCores: 0.5, idleCores: 0, workingSetBytes: 0 }, start);
    // 50 ms of CPU in the first period, throttled to 100 ms, the last 10 ms in the second.
    assert.equal(await served('php', 60), 110);
    assert.ok(Math.abs(cpuMs('php') - 60) < 1e-3);
    assert.equal(cfsPeriodMs, 100);
  });

  it('rule 3: a serial client of a throttled container gets at most the limit, over many periods', async () => {
    const { timers, usage, start, served, cpuMs } = node();
    usage.ensure('php', { limitCores: 0.5, idleCores: 0, workingSetBytes: 0 }, start);
    // A wget loop: request, 10 ms sleep, request... for 10 s of model time.
    while (timers.nowMs() - start < 10_000) {
      await served('php', 30);
      timers.advance(10);
    }
    const elapsed = timers.nowMs() - start;
    const cores = cpuMs('php') / elapsed;
    assert.ok(cores <= 0.5 + 1e-6 && cores > 0.45, `throttled to the limit: ${cores}`);
  });

  it('rule 4: more threads than cores share them; two requests on one core take twice as long', async () => {
    const { timers, usage, start } = node(1);
    usage.ensure('a', { idleCores: 0, workingSetBytes: 0 }, start);
    usage.ensure('b', { idleCores: 0, workingSetBytes: 0 }, start);
    const done: string[] = [];
    void usage.serve('a', 20).then(() => done.push(`a@${timers.nowMs() - start}`));
    void usage.serve('b', 20).then(() => done.push(`b@${timers.nowMs() - start}`));
    for (let i = 0; i < 100; i++) { timers.advance(1); await flush(); }
    assert.deepEqual(done, ['a@40', 'b@40']);
  });

  it('rule 5: a removed container\'s CPU stays in the node\'s counter, which never goes back', async () => {
    const { timers, usage, start, served } = node();
    usage.ensure('php', { idleCores: 0.001, workingSetBytes: 5 * MiB }, start);
    await served('php', 40);
    timers.advance(1000);
    const before = usage.nodeUsage().cpuNanoSeconds;
    usage.remove('php');
    const after = usage.nodeUsage();
    assert.equal(after.cpuNanoSeconds, before);
    assert.equal(after.memory.workingSetBytes, 100 * MiB);
    assert.deepEqual(usage.keys(), []);
  });

  it('a late timer catches up: the work is counted as if it had fired on time', async () => {
    const { timers, usage, start, cpuMs } = node();
    usage.ensure('php', { limitCores: 0.5, idleCores: 0, workingSetBytes: 0 }, start);
    let answered = false;
    void usage.serve('php', 60).then(() => { answered = true; });
    timers.advance(5000);
    await flush();
    assert.ok(answered);
    assert.ok(Math.abs(cpuMs('php') - 60) < 1e-3);
  });
});

describe('simulated usage profiles', () => {
  it('hpa-example costs tens of ms a request; busybox idles under 1 MiB; nginx a few MiB; unknown images 1m and 4 MiB', () => {
    for (const image of ['registry.k8s.io/hpa-example', 'k8s.gcr.io/hpa-example:latest', 'gcr.io/google_containers/hpa-example']) {
      assert.equal(usageProfile(image).requestCpuMs, hpaExampleRequestCpuMs, image);
    }
    assert.ok(hpaExampleRequestCpuMs >= 10 && hpaExampleRequestCpuMs < 100);
    assert.ok(usageProfile('busybox:1.28').workingSetBytes < MiB);
    const nginx = usageProfile('nginx');
    assert.ok(nginx.workingSetBytes >= MiB && nginx.workingSetBytes < 10 * MiB);
    assert.deepEqual(usageProfile('example.com/whatever:1'), { idleMilli: 1, workingSetBytes: 4 * MiB, requestCpuMs: 0.5 });
  });

  it('a container\'s limits: the CPU limit becomes the quota, the memory limit caps the working set', () => {
    assert.deepEqual(containerUsageSpec({ name: 'php-apache', image: 'registry.k8s.io/hpa-example', resources: { limits: { cpu: '500m' }, requests: { cpu: '200m' } } }),
      { limitCores: 0.5, idleCores: 0.001, workingSetBytes: 11 * MiB });
    assert.deepEqual(containerUsageSpec({ name: 'web', image: 'nginx', resources: { limits: { memory: '1Mi' } } }), { idleCores: 0, workingSetBytes: MiB, memoryLimitBytes: MiB });
  });
});

describe('simulated runtime usage (usage.ts)', () => {
  it('stats: running containers only, cumulative CPU and working set; an ended one leaves and the node keeps its CPU', () => {
    const timers = new FakeTimers();
    const usage = new SimulatedRuntimeUsage({ cpu: '2', memory: '4Gi' }, timers);
    const startedAt = timers.now();
    const php = { podUID: 'u1', id: 'sim://a', spec: { name: 'php-apache', image: 'registry.k8s.io/hpa-example' }, startedAt };
    const box = { podUID: 'u2', id: 'sim://b', spec: { name: 'box', image: 'busybox' }, startedAt };
    assert.equal(usage.stats([php, box]).length, 2);
    timers.advance(10_000);
    const [a, b] = usage.stats([php, box]);
    assert.deepEqual({ ...a, timestamp: undefined }, { podUID: 'u1', name: 'php-apache', timestamp: undefined, usageCoreNanoSeconds: 10_000_000, workingSetBytes: 11 * MiB, usageBytes: 11 * MiB, rssBytes: 11 * MiB });
    assert.equal(b!.usageCoreNanoSeconds, 0);
    const node = usage.nodeUsage();
    assert.equal(node.memory.totalBytes, 4 * 1024 * MiB);
    assert.deepEqual(usage.stats([box]).map((s) => s.name), ['box']);
    assert.ok(usage.nodeUsage().cpuNanoSeconds >= node.cpuNanoSeconds);
    usage.close();
  });
});
