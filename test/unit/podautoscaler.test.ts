/**
 * The HPA's arithmetic (upstream replica_calculator_test.go and
 * horizontal_test.go cases): the replicas a resource metric asks for, with
 * the tolerance, missing and unready pods; and the normalization through
 * the stabilization window, the rate limits and min/max with their reasons.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { normalize, normalizeWithBehavior, resourceReplicas } from '../../src/controllers/podautoscaler/index.js';

const pod = (name: string, cpu = '100m', ready = true): Pod => ({
  metadata: { name, namespace: 'default' },
  spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu } } }] },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
const util = (averageUtilization: number) => ({ kind: 'Utilization' as const, averageUtilization });

describe('resourceReplicas', () => {
  it('scales up by the usage ratio, rounding up', () => {
    // 3 pods at 100m requests using 150m each: 150% of a 50% target → ratio 3 → 9 pods.
    const r = resourceReplicas(3, util(50), 'cpu', [pod('a'), pod('b'), pod('c')], new Map([['a', 150], ['b', 150], ['c', 150]]));
    assert.deepEqual(r, { replicas: 9, utilization: 150, averageMilli: 150 });
  });
  it('within the 10% tolerance the count stays', () => {
    assert.equal(resourceReplicas(2, util(50), 'cpu', [pod('a'), pod('b')], new Map([['a', 54], ['b', 54]])).replicas, 2);
    assert.equal(resourceReplicas(2, util(50), 'cpu', [pod('a'), pod('b')], new Map([['a', 56], ['b', 56]])).replicas, 3);
  });
  it('scales down when all pods are below the target', () => {
    assert.equal(resourceReplicas(4, util(50), 'cpu', [pod('a'), pod('b'), pod('c'), pod('d')], new Map([['a', 10], ['b', 10], ['c', 10], ['d', 10]])).replicas, 1);
  });
  it('a pod without metrics counts as its full request when scaling down', () => {
    // Measured: a, b at 20% of 100m → down; c missing counts 100%: (20+20+100)/3 = 46.7% of 50% → ratio 0.93, within tolerance: stays.
    assert.equal(resourceReplicas(3, util(50), 'cpu', [pod('a'), pod('b'), pod('c')], new Map([['a', 20], ['b', 20]])).replicas, 3);
  });
  it('unready pods count as idle when scaling up', () => {
    // a at 200% (ratio 4), b unready: (200 + 0) / 2 = 100% → ratio 2 → 4 pods.
    assert.equal(resourceReplicas(2, util(50), 'cpu', [pod('a'), pod('b', '100m', false)], new Map([['a', 200], ['b', 500]])).replicas, 4);
  });
  it('a container without a request is upstream\'s error', () => {
    const p = pod('a');
    delete p.spec!.containers[0].resources;
    assert.throws(() => resourceReplicas(1, util(50), 'cpu', [p], new Map([['a', 10]])), /missing request for cpu in container c of Pod a/);
  });
  it('no metrics at all is upstream\'s error', () => {
    assert.throws(() => resourceReplicas(1, util(50), 'cpu', [pod('a')], new Map()), /no metrics returned from resource metrics API/);
  });
  it('AverageValue targets divide the average usage by the value', () => {
    assert.equal(resourceReplicas(2, { kind: 'AverageValue', averageMilli: 100 }, 'cpu', [pod('a'), pod('b')], new Map([['a', 300], ['b', 300]])).replicas, 6);
  });
});

describe('normalize (no spec.behavior)', () => {
  it('scale-up is limited to max(2 × current, 4), then maxReplicas', () => {
    const n = normalize(2, 20, 1, 10, [], 0);
    assert.deepEqual([n.replicas, n.limited.status, n.limited.reason], [4, 'True', 'ScaleUpLimit']);
    assert.deepEqual(normalize(8, 20, 1, 10, [], 0).limited.reason, 'TooManyReplicas');
  });
  it('scale-down waits for the highest recommendation of the last 5 minutes', () => {
    const history = [{ atMs: 0, replicas: 5 }];
    const n = normalize(5, 2, 1, 10, history, 60_000);
    assert.deepEqual([n.replicas, n.ableToScale.reason], [5, 'ScaleDownStabilized']);
    assert.equal(normalize(5, 2, 1, 10, [{ atMs: 0, replicas: 5 }], 301_000).replicas, 2);
  });
  it('below minReplicas: TooFewReplicas', () => {
    const n = normalize(3, 1, 2, 10, [], 0);
    assert.deepEqual([n.replicas, n.limited.reason, n.limited.message], [2, 'TooFewReplicas', 'the desired replica count is less than the minimum replica count']);
  });
  it('within range: DesiredWithinRange, not limited', () => {
    const n = normalize(3, 5, 1, 10, [], 0);
    assert.deepEqual([n.replicas, n.limited.status, n.limited.reason], [5, 'False', 'DesiredWithinRange']);
  });
});

describe('normalizeWithBehavior', () => {
  it('the default scale-up policies: 4 pods or 100% per 15 s, the larger', () => {
    assert.equal(normalizeWithBehavior(2, 50, 1, 100, {}, [], [], [], 0).replicas, 6);
    assert.equal(normalizeWithBehavior(10, 50, 1, 100, {}, [], [], [], 0).replicas, 20);
  });
  it('scale-up already done in the period counts against it', () => {
    // 10 now, 5 added 5 s ago: the period started at 5 → at most 10 (100%) or 9 (4 pods): no further growth.
    const n = normalizeWithBehavior(10, 50, 1, 100, {}, [], [{ atMs: 10_000, change: 5 }], [], 15_000);
    assert.deepEqual([n.replicas, n.limited.reason], [10, 'ScaleUpLimit']);
  });
  it('a Pods policy of 1 per minute on scale-down', () => {
    const behavior = { scaleDown: { stabilizationWindowSeconds: 0, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } };
    const n = normalizeWithBehavior(5, 1, 1, 10, behavior, [], [], [], 0);
    assert.deepEqual([n.replicas, n.limited.reason], [4, 'ScaleDownLimit']);
  });
  it('selectPolicy Disabled never scales that way', () => {
    assert.equal(normalizeWithBehavior(3, 10, 1, 10, { scaleUp: { selectPolicy: 'Disabled' } }, [], [], [], 0).replicas, 3);
  });
});
