/** metrics.k8s.io from kubelet summaries: quantities and the summary → NodeMetrics/PodMetrics rules (metrics-api/convert.ts). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { cpuQuantity, memoryQuantity, nodeMetricsOf, podMetricsOf } from '../../src/apiserver/metrics-api/convert.js';
import type { PodStats, Summary } from '../../src/api/stats-summary.js';

const now = new Date('2026-12-01T16:00:30.250Z');
const o = { now, window: '10s' };
const time = '2026-12-01T16:00:29.987654Z';

describe('metrics.k8s.io quantities (as metrics-server writes them)', () => {
  const cases: [string, () => string, string][] = [
    ['CPU in nano-cores', () => cpuQuantity(12_345_678), '12345678n'],
    ['CPU that is whole micro-cores', () => cpuQuantity(12_345_000), '12345u'],
    ['CPU that is whole milli-cores', () => cpuQuantity(5_000_000), '5m'],
    ['one core', () => cpuQuantity(1_000_000_000), '1'],
    ['no CPU', () => cpuQuantity(0), '0'],
    ['a fractional rate is rounded', () => cpuQuantity(1500.6), '1501n'],
    ['memory in whole pages', () => memoryQuantity(4096 * 300), '1200Ki'],
    ['memory in whole MiB', () => memoryQuantity(64 * 1024 * 1024), '64Mi'],
    ['memory not a multiple of 1024', () => memoryQuantity(1000), '1k'],
    ['no memory', () => memoryQuantity(0), '0'],
  ];
  for (const [name, f, want] of cases) it(name, () => assert.equal(f(), want));
});

const node: Node = { metadata: { name: 'n1', labels: { zone: 'a' } } };
const summary = (cpu?: number, mem?: number): Summary => ({
  node: {
    nodeName: 'n1', startTime: time,
    cpu: { time, usageCoreNanoSeconds: 9e12, ...(cpu !== undefined ? { usageNanoCores: cpu } : {}) },
    ...(mem !== undefined ? { memory: { time, workingSetBytes: mem } } : {}),
  },
  pods: [],
});

describe('NodeMetrics from a summary', () => {
  it('has the rate, the working set, the node labels, a second-precision timestamp and the window', () => {
    assert.deepEqual(nodeMetricsOf(node, summary(250_000_000, 2 * 1024 ** 3), o), {
      kind: 'NodeMetrics', apiVersion: 'metrics.k8s.io/v1beta1',
      metadata: { name: 'n1', creationTimestamp: '2026-12-01T16:00:30Z', labels: { zone: 'a' } },
      timestamp: '2026-12-01T16:00:29Z', window: '10s', usage: { cpu: '250m', memory: '2Gi' },
    });
  });
  it('a node without a CPU rate (one reading so far) has no metrics', () => assert.equal(nodeMetricsOf(node, summary(undefined, 1024), o), undefined));
  it('a node without memory (a simulated node) has no metrics', () => assert.equal(nodeMetricsOf(node, summary(1, undefined), o), undefined));
});

const pod: Pod = { metadata: { name: 'p', namespace: 'ns', labels: { app: 'x' } } };
const container = (name: string, cpu?: number, mem?: number, t = time) => ({
  name, startTime: time,
  ...(cpu !== undefined ? { cpu: { time: t, usageNanoCores: cpu, usageCoreNanoSeconds: 1 } } : {}),
  ...(mem !== undefined ? { memory: { time: t, workingSetBytes: mem } } : {}),
});
const podStats = (containers: PodStats['containers']): PodStats => ({ podRef: { name: 'p', namespace: 'ns', uid: 'u' }, startTime: time, containers });

describe('PodMetrics from a summary', () => {
  it('lists every container with its usage; the timestamp is the newest reading', () => {
    const m = podMetricsOf(pod, podStats([container('a', 1_000_000, 4096), container('b', 0, 8192, '2026-12-01T16:00:31.5Z')]), o);
    assert.deepEqual(m, {
      kind: 'PodMetrics', apiVersion: 'metrics.k8s.io/v1beta1',
      metadata: { name: 'p', namespace: 'ns', creationTimestamp: '2026-12-01T16:00:30Z', labels: { app: 'x' } },
      timestamp: '2026-12-01T16:00:31Z', window: '10s',
      containers: [{ name: 'a', usage: { cpu: '1m', memory: '4Ki' } }, { name: 'b', usage: { cpu: '0', memory: '8Ki' } }],
    });
  });
  it('one container without a CPU rate: the whole pod has no metrics (not under-reported)', () => {
    assert.equal(podMetricsOf(pod, podStats([container('a', 1, 4096), container('b', undefined, 4096)]), o), undefined);
  });
  it('one container without memory: no metrics', () => assert.equal(podMetricsOf(pod, podStats([container('a', 1, undefined)]), o), undefined));
  it('no containers measured: no metrics', () => assert.equal(podMetricsOf(pod, podStats([]), o), undefined));
});
