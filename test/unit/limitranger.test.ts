/** LimitRanger's defaults and constraints (upstream plugin/pkg/admission/limitranger) and LimitRange defaulting. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { aggregateMessage, applyLimitRangeDefaults, limitRangerAnnotation, validatePVCLimits, validatePodLimits } from '../../src/apiserver/admission/limitrange-rules.js';
import { applyDefaults } from '../../src/api/defaults/index.js';

const lr = (limits: any[]) => ({ metadata: { name: 'lr' }, spec: { limits } });
const pod = (containers: any[]) => ({ metadata: { name: 'p' }, spec: { containers } });

describe('LimitRange defaulting (SetDefaults_LimitRangeItem)', () => {
  it('default <- max, defaultRequest <- default, then <- min; Container items only', () => {
    const obj: any = lr([{ type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' } }, { type: 'Pod', max: { cpu: '4' } }]);
    applyDefaults('v1/LimitRange', obj);
    assert.deepEqual(obj.spec.limits[0].default, { cpu: '2' });
    assert.deepEqual(obj.spec.limits[0].defaultRequest, { cpu: '2', memory: '64Mi' });
    assert.equal(obj.spec.limits[1].default, undefined);
  });
});

describe('applyLimitRangeDefaults', () => {
  const range = lr([{ type: 'Container', default: { cpu: '500m', memory: '128Mi' }, defaultRequest: { cpu: '250m', memory: '128Mi' } }]);
  it('fills missing requests and limits and annotates the pod', () => {
    const p: any = pod([{ name: 'a', resources: { limits: { cpu: '1' }, requests: { cpu: '1' } } }, { name: 'b' }]);
    applyLimitRangeDefaults(p, range as any);
    assert.deepEqual(p.spec.containers[0].resources, { limits: { cpu: '1', memory: '128Mi' }, requests: { cpu: '1', memory: '128Mi' } });
    assert.deepEqual(p.spec.containers[1].resources, { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m', memory: '128Mi' } });
    assert.equal(p.metadata.annotations[limitRangerAnnotation],
      'LimitRanger plugin set: memory request for container a; memory limit for container a; cpu, memory request for container b; cpu, memory limit for container b');
  });
  it('a range without Container defaults changes nothing', () => {
    const p: any = pod([{ name: 'a' }]);
    applyLimitRangeDefaults(p, lr([{ type: 'Pod', max: { cpu: '1' } }]) as any);
    assert.deepEqual(p, pod([{ name: 'a' }]));
  });
});

describe('validatePodLimits', () => {
  const c = (requests: any, limits: any) => ({ name: 'c', resources: { requests, limits } });
  const table: [string, any[], any, string[]][] = [
    ['max on the limit', [{ type: 'Container', max: { cpu: '1' } }], c({ cpu: '500m' }, { cpu: '2' }), ['maximum cpu usage per Container is 1, but limit is 2']],
    ['max without a limit', [{ type: 'Container', max: { cpu: '1' } }], c({ cpu: '500m' }, undefined), ['maximum cpu usage per Container is 1.  No limit is specified']],
    ['min on the request', [{ type: 'Container', min: { memory: '64Mi' } }], c({ memory: '32Mi' }, { memory: '1Gi' }), ['minimum memory usage per Container is 64Mi, but request is 32Mi']],
    ['ratio', [{ type: 'Container', maxLimitRequestRatio: { cpu: '2' } }], c({ cpu: '100m' }, { cpu: '1' }), ['cpu max limit to request ratio per Container is 2, but provided ratio is 10.000000']],
    ['pod totals', [{ type: 'Pod', max: { cpu: '1' } }], c({ cpu: '1' }, { cpu: '1500m' }), ['maximum cpu usage per Pod is 1, but limit is 1500m']],
    ['within bounds', [{ type: 'Container', min: { cpu: '100m' }, max: { cpu: '1' } }], c({ cpu: '500m' }, { cpu: '1' }), []],
  ];
  for (const [name, limits, container, want] of table) {
    it(name, () => assert.deepEqual(validatePodLimits(pod([container]) as any, lr(limits) as any), want));
  }
  it('several messages aggregate as upstream prints them', () => {
    assert.equal(aggregateMessage(['a']), 'a');
    assert.equal(aggregateMessage(['a', 'b']), '[a, b]');
  });
});

describe('validatePVCLimits', () => {
  const range = lr([{ type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } }]);
  const pvc = (storage?: string) => ({ spec: { resources: { requests: storage ? { storage } : {} } } });
  it('storage request within min and max', () => {
    assert.deepEqual(validatePVCLimits(pvc('5Gi') as any, range as any), []);
    assert.deepEqual(validatePVCLimits(pvc('20Gi') as any, range as any), ['maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi']);
    assert.deepEqual(validatePVCLimits(pvc('500Mi') as any, range as any), ['minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi']);
  });
});
