/** Node pressure from injected measurements: thresholds, conditions, the transition period, /proc/meminfo. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PressureTracker, pressureOf, thresholdsMet, type NodeMeasurements } from '../../src/kubelet/pressure.js';
import { parseMeminfo } from '../../src/kubelet/hostpressure.js';
import { initialNode, nodeStatus, type NodeConfig } from '../../src/kubelet/nodestatus.js';

const Mi = 1024 * 1024;
const Gi = 1024 * Mi;
const disk = (availableFraction: number, inodesFreeFraction = 0.5) =>
  ({ availableBytes: availableFraction * 100 * Gi, capacityBytes: 100 * Gi, inodesFree: inodesFreeFraction * 1e6, inodes: 1e6 });
const measured = (memoryAvailable: number, nodefs = 0.5, imagefs = nodefs, inodes = 0.5): NodeMeasurements => ({
  memoryAvailableBytes: memoryAvailable, memoryCapacityBytes: 8 * Gi, nodefs: disk(nodefs, inodes), imagefs: disk(imagefs, inodes),
});

describe('eviction thresholds (defaults: memory 100Mi, nodefs 10%, imagefs 15%, inodes 5%)', () => {
  const table: [string, NodeMeasurements, string[], { memory: boolean; disk: boolean }][] = [
    ['plenty of everything', measured(4 * Gi), [], { memory: false, disk: false }],
    ['memory exactly 100Mi is not below it', measured(100 * Mi), [], { memory: false, disk: false }],
    ['memory 99Mi', measured(99 * Mi), ['memory.available'], { memory: true, disk: false }],
    ['nodefs 9% available', measured(4 * Gi, 0.09, 0.5), ['nodefs.available'], { memory: false, disk: true }],
    ['nodefs 12%: imagefs (the same disk) below 15%', measured(4 * Gi, 0.12), ['imagefs.available'], { memory: false, disk: true }],
    ['a dedicated imagefs at 14%', measured(4 * Gi, 0.5, 0.14), ['imagefs.available'], { memory: false, disk: true }],
    ['inodes 4% free', measured(4 * Gi, 0.5, 0.5, 0.04), ['nodefs.inodesFree', 'imagefs.inodesFree'], { memory: false, disk: true }],
    ['both', measured(10 * Mi, 0.01), ['memory.available', 'nodefs.available', 'imagefs.available'], { memory: true, disk: true }],
    ['nothing measured: no pressure', {}, [], { memory: false, disk: false }],
  ];
  for (const [name, m, signals, pressure] of table) {
    it(name, () => {
      const met = thresholdsMet(m);
      assert.deepEqual(met.map((t) => t.signal), signals);
      assert.deepEqual(pressureOf(met), pressure);
    });
  }
});

describe('PressureTracker (eviction-pressure-transition-period)', () => {
  it('keeps a condition True for the transition period after the threshold was last met', () => {
    const tracker = new PressureTracker(5 * 60_000);
    assert.deepEqual(tracker.observe(measured(50 * Mi), 0), { memory: true, disk: false });
    assert.deepEqual(tracker.observe(measured(4 * Gi), 60_000), { memory: true, disk: false });
    assert.deepEqual(tracker.observe(measured(4 * Gi), 299_999), { memory: true, disk: false });
    assert.deepEqual(tracker.observe(measured(4 * Gi), 300_000), { memory: false, disk: false });
  });
});

describe('parseMeminfo', () => {
  it('reads MemTotal and MemAvailable in bytes', () => {
    const text = 'MemTotal:       24683584 kB\nMemFree:         1000000 kB\nMemAvailable:   19505516 kB\nBuffers:  1 kB\n';
    assert.deepEqual(parseMeminfo(text), { total: 24683584 * 1024, available: 19505516 * 1024 });
  });
});

describe('pressure conditions in the node status', () => {
  const cfg = (): NodeConfig => ({
    nodeName: 'n1', labels: {}, annotations: {}, taints: [], os: 'linux', arch: 'amd64', internalIP: '192.0.2.1',
    capacity: { cpu: '4', memory: '8Gi', pods: '110', 'ephemeral-storage': '100Gi' },
    nodeInfo: {} as NodeConfig['nodeInfo'], kubeletPort: 10250,
  });
  const cond = (s: any, type: string) => s.conditions.find((c: any) => c.type === type);
  it('turns MemoryPressure and DiskPressure True with upstream words and events, then False again', () => {
    const events: string[] = [];
    const record = (_t: string, r: string) => events.push(r);
    const c = cfg();
    const n = initialNode(c, { errors: [] }, new Date('2025-01-01T00:00:00Z'));
    const under = nodeStatus(n, c, { errors: [], pressure: { memory: true, disk: true } }, new Date('2025-01-01T00:00:10Z'), record);
    assert.deepEqual([cond(under, 'MemoryPressure').status, cond(under, 'MemoryPressure').reason, cond(under, 'MemoryPressure').message],
      ['True', 'KubeletHasInsufficientMemory', 'kubelet has insufficient memory available']);
    assert.deepEqual([cond(under, 'DiskPressure').status, cond(under, 'DiskPressure').reason, cond(under, 'DiskPressure').message],
      ['True', 'KubeletHasDiskPressure', 'kubelet has disk pressure']);
    assert.equal(cond(under, 'DiskPressure').lastTransitionTime, '2025-01-01T00:00:10Z');
    assert.equal(cond(under, 'PIDPressure').status, 'False');
    assert.equal(cond(under, 'Ready').status, 'True', 'pressure does not make the node NotReady');
    const relieved = nodeStatus({ ...n, status: under }, c, { errors: [] }, new Date('2025-01-01T00:10:00Z'), record);
    assert.equal(cond(relieved, 'MemoryPressure').reason, 'KubeletHasSufficientMemory');
    assert.equal(cond(relieved, 'DiskPressure').status, 'False');
    assert.deepEqual(events, ['NodeHasInsufficientMemory', 'NodeHasDiskPressure', 'NodeHasSufficientMemory', 'NodeHasNoDiskPressure']);
  });
});
