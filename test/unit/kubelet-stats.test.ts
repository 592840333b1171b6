/** The kubelet's resource summary: /proc parsing, the CPU rate sampler, pod entries and the resource metrics text. */
import { describe, it } from 'node:test';
import { spawn } from 'node:child_process';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { machineMemory, parseMeminfo, parseProcessStat, parseProcStatCPU, parseStatusRSS } from '../../src/kubelet/stats/procfs.js';
import { CPURateSampler } from '../../src/kubelet/stats/sampler.js';
import { podStatsOf } from '../../src/kubelet/stats/podstats.js';
import { fromCRIStats } from '../../src/kubelet/runtime/cri/stats.js';
import { processContainerStats } from '../../src/kubelet/runtime/process/stats.js';
import { resourceMetricsText } from '../../src/kubelet/server/stats.js';
import type { RuntimeContainerStats } from '../../src/kubelet/runtime/runtime.js';

describe('/proc parsing', () => {
  it('/proc/stat: busy time is user+nice+system+irq+softirq+steal ticks, in ns', () => {
    const text = 'cpu  100 5 50 9000 40 3 2 1 0 0\ncpu0 50 2 25 4500 20 1 1 0 0 0\nintr 1\n';
    assert.equal(parseProcStatCPU(text), (100 + 5 + 50 + 3 + 2 + 1) * 10_000_000);
    assert.equal(parseProcStatCPU('intr 1\n'), undefined);
  });
  it('/proc/meminfo: working set = (total - free) - inactive file; available = total - working set', () => {
    const text = 'MemTotal:       1000 kB\nMemFree:         200 kB\nMemAvailable:    600 kB\nInactive(file):  300 kB\nHugePages_Total:       0\n';
    const m = parseMeminfo(text);
    assert.equal(m.get('HugePages_Total'), 0);
    assert.deepEqual(machineMemory(m), { totalBytes: 1000 * 1024, usageBytes: 800 * 1024, workingSetBytes: 500 * 1024, availableBytes: 500 * 1024 });
    assert.equal(machineMemory(new Map()), undefined);
  });
  it('/proc/PID/stat: utime + stime and the process group, past a command name with spaces and parentheses', () => {
    const text = '4242 (sh (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 12345 1000 100 0\n';
    assert.deepEqual(parseProcessStat(text), { cpuNanoSeconds: 300 * 10_000_000, pgrp: 4242 });
  });
  it('/proc/PID/status: VmRSS in bytes, 0 without one', () => {
    assert.equal(parseStatusRSS('Name:\tsh\nVmRSS:\t    1234 kB\n'), 1234 * 1024);
    assert.equal(parseStatusRSS('Name:\tkthreadd\n'), 0);
  });
});

describe('CPURateSampler', () => {
  it('rules 1-4: no rate at first; delta over seconds after the window; the last rate sooner; restart starts over', () => {
    const s = new CPURateSampler(1_000);
    assert.equal(s.observe('c', 0, 1e9), undefined);
    assert.equal(s.observe('c', 10_000, 6e9), 500_000_000, '5 s of CPU in 10 s = half a core');
    assert.equal(s.observe('c', 10_400, 9e9), 500_000_000, 'too soon: the previous rate');
    assert.equal(s.observe('c', 12_000, 8e9), 1_000_000_000, 'measured from the kept reading at 10 s');
    assert.equal(s.observe('c', 20_000, 1e8), undefined, 'a lower total: the container restarted');
    assert.equal(s.observe('c', 30_000, 1e8), 0);
  });
  it('retain forgets ended containers', () => {
    const s = new CPURateSampler(1_000);
    s.observe('a', 0, 1);
    s.observe('b', 0, 1);
    s.retain(new Set(['b']));
    assert.equal(s.observe('a', 5_000, 5e9 + 1), undefined);
    assert.equal(s.observe('b', 5_000, 5e9 + 1), 1e9);
  });
});

const at = new Date('2026-12-01T16:00:00Z');
const reading = (podUID: string, name: string, cpu?: number, mem?: number): RuntimeContainerStats =>
  ({ podUID, name, timestamp: at, ...(cpu !== undefined ? { usageCoreNanoSeconds: cpu } : {}), ...(mem !== undefined ? { workingSetBytes: mem } : {}) });
const pod = (name: string, uid: string): Pod => ({
  metadata: { name, namespace: 'ns', uid, creationTimestamp: '2026-12-01T15:00:00Z' },
  status: { startTime: '2026-12-01T15:00:01Z', containerStatuses: [{ name: 'a', image: '', imageID: '', ready: true, restartCount: 0, state: { running: { startedAt: '2026-12-01T15:00:02Z' } } }] },
});

describe('pod entries of the summary', () => {
  it('matches containers by pod UID, sums them into the pod, leaves out pods without readings', () => {
    const rates: Record<string, number> = { a: 100, b: 50 };
    const out = podStatsOf([pod('p', 'u1'), pod('q', 'u2')], [reading('u1', 'b', 7, 4096), reading('u1', 'a', 3, 1024), reading('u9', 'x', 1, 1)], (r) => rates[r.name]);
    assert.equal(out.length, 1);
    assert.deepEqual(out[0].podRef, { name: 'p', namespace: 'ns', uid: 'u1' });
    assert.deepEqual(out[0].containers.map((c) => [c.name, c.startTime, c.cpu?.usageNanoCores, c.memory?.workingSetBytes]),
      [['a', '2026-12-01T15:00:02Z', 100, 1024], ['b', '2026-12-01T15:00:01Z', 50, 4096]]);
    assert.deepEqual(out[0].cpu, { time: at.toISOString(), usageNanoCores: 150, usageCoreNanoSeconds: 10 });
    assert.deepEqual(out[0].memory, { time: at.toISOString(), workingSetBytes: 5120 });
  });
  it('a pod rate is absent while any container lacks one', () => {
    const out = podStatsOf([pod('p', 'u1')], [reading('u1', 'a', 3, 1), reading('u1', 'b', 7, 1)], (r) => (r.name === 'a' ? 5 : undefined));
    assert.equal(out[0].cpu?.usageNanoCores, undefined);
    assert.equal(out[0].cpu?.usageCoreNanoSeconds, 10);
  });
});

describe('CRI ContainerStats', () => {
  const labels = { 'io.kubernetes.pod.uid': 'u1', 'io.kubernetes.container.name': 'main' };
  it('reads the cumulative CPU, working set and its timestamp (ns since the epoch)', () => {
    const r = fromCRIStats({
      attributes: { id: 'c1', metadata: { name: 'main', attempt: 0 }, labels, annotations: {} },
      cpu: { timestamp: 1_764_604_800_123_456_789, usageCoreNanoSeconds: { value: 42 }, usageNanoCores: null },
      memory: { timestamp: 1_764_604_800_123_456_789, workingSetBytes: { value: 4096 }, usageBytes: { value: 8192 }, rssBytes: null },
    });
    assert.deepEqual(r, { podUID: 'u1', name: 'main', timestamp: new Date(1_764_604_800_123), usageCoreNanoSeconds: 42, workingSetBytes: 4096, usageBytes: 8192 });
  });
  it('a container the runtime did not measure (exited) gives nothing', () => {
    assert.equal(fromCRIStats({ attributes: { id: 'c1', metadata: null, labels, annotations: {} }, cpu: null, memory: null }), undefined);
  });
});

describe('/metrics/resource', () => {
  it('writes upstream metric names with container, namespace and pod labels and millisecond timestamps', () => {
    const time = '2026-12-01T16:00:00.000Z';
    const text = resourceMetricsText({
      node: { nodeName: 'n', startTime: time, cpu: { time, usageCoreNanoSeconds: 2.5e9 }, memory: { time, workingSetBytes: 1024 } },
      pods: [{ podRef: { name: 'p', namespace: 'ns', uid: 'u' }, startTime: time, containers: [{ name: 'c', startTime: time, cpu: { time, usageCoreNanoSeconds: 1e9 }, memory: { time, workingSetBytes: 512 } }],
        cpu: { time, usageCoreNanoSeconds: 1e9 }, memory: { time, workingSetBytes: 512 } }],
    });
    const ms = Date.parse(time);
    assert.match(text, /^# TYPE container_cpu_usage_seconds_total counter$/m);
    assert.ok(text.includes(`container_cpu_usage_seconds_total{container="c",namespace="ns",pod="p"} 1 ${ms}\n`));
    assert.ok(text.includes(`container_memory_working_set_bytes{container="c",namespace="ns",pod="p"} 512 ${ms}\n`));
    assert.ok(text.includes(`node_cpu_usage_seconds_total 2.5 ${ms}\n`));
    assert.ok(text.includes(`pod_memory_working_set_bytes{namespace="ns",pod="p"} 512 ${ms}\n`));
    assert.ok(text.endsWith('scrape_error 0\n'));
  });
});

describe('process runtime container stats (a real process group)', () => {
  it('sums CPU and resident memory over the group led by the recorded pid; a gone group gives nothing', async () => {
    // A group leader and a busy child, as `sh -c` containers are.
    const child = spawn('sh', ['-c', 'sh -c "while :; do :; done" & wait'], { detached: true, stdio: 'ignore' });
    try {
      const running = [{ podUID: 'u1', name: 'busy', pid: child.pid! }];
      let stats = processContainerStats(running, () => at);
      for (let i = 0; i < 200 && !((stats[0]?.usageCoreNanoSeconds ?? 0) > 0); i++) {
        await new Promise((r) => setTimeout(r, 50));
        stats = processContainerStats(running, () => at);
      }
      assert.equal(stats.length, 1);
      assert.equal(stats[0].podUID, 'u1');
      assert.equal(stats[0].name, 'busy');
      assert.ok(stats[0].usageCoreNanoSeconds! > 0, "the busy child's CPU time is counted");
      assert.ok(stats[0].workingSetBytes! > 0);
      assert.equal(stats[0].rssBytes, stats[0].workingSetBytes);
    } finally {
      process.kill(-child.pid!, 'SIGKILL');
    }
    await new Promise((r) => child.once('exit', r));
    for (let i = 0; i < 200 && processContainerStats([{ podUID: 'u1', name: 'busy', pid: child.pid! }], () => at).length; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(processContainerStats([{ podUID: 'u1', name: 'busy', pid: child.pid! }], () => at), []);
  });
});
