/** strategies/pods.ts: a pod created with scheduling gates says so in its PodScheduled condition (upstream's applySchedulingGatedCondition). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { findResource } from '../../src/api/resources.js';
import { podStrategy } from '../../src/registry/strategies/pods.js';

describe('pod strategy: scheduling gates at creation', () => {
  const strategy = podStrategy(findResource('', 'v1', 'pods')!);
  const created = (spec: Partial<NonNullable<Pod['spec']>>): Pod => {
    const pod: Pod = { metadata: { name: 'test-pod' }, spec: { containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.6' }], ...spec }, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } };
    strategy.prepareForCreate(pod);
    return pod;
  };

  it('gates: Pending with PodScheduled False, reason SchedulingGated, null times', () => {
    const pod = created({ schedulingGates: [{ name: 'example.com/foo' }, { name: 'example.com/bar' }] });
    assert.deepEqual(pod.status, {
      phase: 'Pending', qosClass: 'BestEffort',
      conditions: [{ type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: null, reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' }],
    });
    // Each pod has a condition of its own (the binding replaces it in the pod's list).
    assert.notEqual(created({ schedulingGates: [{ name: 'a' }] }).status!.conditions![0], pod.status!.conditions![0]);
  });

  it('no gates, or an empty list: no condition, whatever the client sent as status', () => {
    assert.deepEqual(created({}).status, { phase: 'Pending', qosClass: 'BestEffort' });
    assert.deepEqual(created({ schedulingGates: [] }).status, { phase: 'Pending', qosClass: 'BestEffort' });
  });
});
