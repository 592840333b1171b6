/** Pod request arithmetic (component-helpers PodRequests) and resource names. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  isExtendedResourceName, isScalarResourceName, podNonZeroRequests, podRequestAmounts, podRequests, resourceListAmounts,
} from '../../src/api/resource-helpers.js';
import { milliValue, parseQuantity } from '../../src/api/quantity.js';

const c = (requests?: Record<string, string>, extra: any = {}) => ({ name: 'c', image: 'i', ...(requests ? { resources: { requests } } : {}), ...extra });

describe('podRequests', () => {
  const cases: [string, any, { milliCPU: number; memory: number; ephemeralStorage?: number; scalar?: Record<string, number> }][] = [
    ['no requests', { containers: [c()] }, { milliCPU: 0, memory: 0 }],
    ['one container', { containers: [c({ cpu: '500m', memory: '1Gi' })] }, { milliCPU: 500, memory: 2 ** 30 }],
    ['containers add up', { containers: [c({ cpu: '1' }), c({ cpu: '250m', memory: '100M' })] }, { milliCPU: 1250, memory: 100_000_000 }],
    ['an init container larger than the containers wins', { containers: [c({ cpu: '100m' })], initContainers: [c({ cpu: '2' })] }, { milliCPU: 2000, memory: 0 }],
    ['an init container smaller than the containers does not count', { containers: [c({ cpu: '1' })], initContainers: [c({ cpu: '200m' })] }, { milliCPU: 1000, memory: 0 }],
    ['the largest init container, per resource', {
      containers: [c({ cpu: '100m', memory: '1Gi' })], initContainers: [c({ cpu: '3' }), c({ memory: '2Gi' })],
    }, { milliCPU: 3000, memory: 2 * 2 ** 30 }],
    ['a sidecar adds to the containers', {
      containers: [c({ cpu: '1' })], initContainers: [c({ cpu: '500m' }, { restartPolicy: 'Always' })],
    }, { milliCPU: 1500, memory: 0 }],
    ['an init container after a sidecar needs the sidecar too', {
      containers: [c({ cpu: '100m' })], initContainers: [c({ cpu: '500m' }, { restartPolicy: 'Always' }), c({ cpu: '2' })],
    }, { milliCPU: 2500, memory: 0 }],
    ['an init container before a sidecar does not', {
      containers: [c({ cpu: '100m' })], initContainers: [c({ cpu: '2' }), c({ cpu: '500m' }, { restartPolicy: 'Always' })],
    }, { milliCPU: 2000, memory: 0 }],
    ['overhead is added', { containers: [c({ cpu: '1' })], overhead: { cpu: '250m', memory: '120Mi' } }, { milliCPU: 1250, memory: 120 * 2 ** 20 }],
    ['cpu rounds up to millicores', { containers: [c({ cpu: '0.0001' })] }, { milliCPU: 1, memory: 0 }],
    ['extended resources and hugepages are scalar', {
      containers: [c({ 'example.com/gpu': '2', 'hugepages-2Mi': '4Mi', 'ephemeral-storage': '1Gi' })],
    }, { milliCPU: 0, memory: 0, ephemeralStorage: 2 ** 30, scalar: { 'example.com/gpu': 2, 'hugepages-2Mi': 4 * 2 ** 20 } }],
  ];
  for (const [name, spec, want] of cases) {
    it(name, () => {
      const got = podRequests(spec);
      assert.equal(got.milliCPU, want.milliCPU);
      assert.equal(got.memory, want.memory);
      assert.equal(got.ephemeralStorage, want.ephemeralStorage ?? 0);
      assert.deepEqual(Object.fromEntries(got.scalar), want.scalar ?? {});
    });
  }
});

describe('podNonZeroRequests', () => {
  const cases: [string, any, { milliCPU: number; memory: number }][] = [
    ['a container without requests counts 100m and 200Mi', { containers: [c()] }, { milliCPU: 100, memory: 200 * 2 ** 20 }],
    ['per container', { containers: [c(), c({ cpu: '1' })] }, { milliCPU: 1100, memory: 400 * 2 ** 20 }],
    ['an explicit zero stays zero', { containers: [c({ cpu: '0', memory: '0' })] }, { milliCPU: 0, memory: 0 }],
    ['only the missing resource is defaulted', { containers: [c({ memory: '1Gi' })] }, { milliCPU: 100, memory: 2 ** 30 }],
  ];
  for (const [name, spec, want] of cases) it(name, () => assert.deepEqual(podNonZeroRequests(spec), want));
});

describe('podRequestAmounts', () => {
  // One pass for containers-only pods, the general rules otherwise: always what the two functions give.
  const specs: [string, any][] = [
    ['no containers', { containers: [] }],
    ['no requests', { containers: [c()] }],
    ['cpu and memory', { containers: [c({ cpu: '100m', memory: '500Mi' })] }],
    ['memory sums round up once', { containers: [c({ memory: '0.5' }), c({ memory: '0.5' }), c({ memory: '1500m' })] }],
    ['cpu only, memory defaulted', { containers: [c({ cpu: '250m' }), c({ memory: '1Gi' })] }],
    ['explicit zeros stay zero', { containers: [c({ cpu: '0', memory: '0' })] }],
    ['ephemeral-storage', { containers: [c({ cpu: '1', 'ephemeral-storage': '1Gi' }), c({ 'ephemeral-storage': '0.5' })] }],
    ['not a quantity counts as absent', { containers: [c({ cpu: 'lots', memory: '1Gi' })] }],
    ['an extended resource', { containers: [c({ cpu: '1', 'example.com/gpu': '2' })] }],
    ['pods as a request', { containers: [c({ pods: '1' })] }],
    ['init containers', { containers: [c({ cpu: '100m' })], initContainers: [c({ cpu: '2' })] }],
    ['a sidecar', { containers: [c({ cpu: '1' })], initContainers: [c({ cpu: '500m', memory: '1Gi' }, { restartPolicy: 'Always' })] }],
    ['overhead', { containers: [c({ cpu: '1' })], overhead: { cpu: '250m', memory: '120Mi' } }],
    ['no spec', undefined],
  ];
  for (const [name, spec] of specs) {
    it(name, () => {
      const got = podRequestAmounts(spec);
      const want = podRequests(spec);
      assert.deepEqual({ ...got.requests, scalar: Object.fromEntries(got.requests.scalar) }, { ...want, scalar: Object.fromEntries(want.scalar) });
      assert.deepEqual(got.nonZero, podNonZeroRequests(spec));
    });
  }
  it('the same quantity string parses the same every time', () => {
    for (let i = 0; i < 3; i++) assert.equal(podRequestAmounts({ containers: [c({ cpu: '1500m' })] }).requests.milliCPU, 1500);
  });
});

describe('resource names', () => {
  const cases: [string, boolean, boolean][] = [
    ['cpu', false, false], ['memory', false, false], ['example.com/gpu', true, true], ['nvidia.com/gpu', true, true],
    ['kubernetes.io/foo', false, true], ['requests.example.com/gpu', false, false], ['hugepages-1Gi', false, true],
    ['attachable-volumes-aws-ebs', false, true], ['bad/name/x', false, false],
  ];
  for (const [name, extended, scalar] of cases) {
    it(name, () => {
      assert.equal(isExtendedResourceName(name), extended);
      assert.equal(isScalarResourceName(name), scalar);
    });
  }
  it('allocatable lists parse into numbers', () => {
    const r = resourceListAmounts({ cpu: '2', memory: '4Gi', pods: '110', 'example.com/gpu': '1' });
    assert.deepEqual([r.milliCPU, r.memory, r.pods, r.scalar.get('example.com/gpu')], [2000, 4 * 2 ** 30, 110, 1]);
  });
});

describe('quantity fast path', () => {
  // The integer-with-suffix fast path must agree with the exact parser.
  const values = ['0', '1', '100m', '2500m', '999999999999m', '1k', '5M', '3G', '2T', '1Ki', '500Mi', '32Gi', '1Ti', '007', '1.5', '1e3', '0.1', '1500u', '12345678901234'];
  for (const v of values) {
    it(v, () => {
      const exact = Number(milliValue(parseQuantity(v)!));
      assert.equal(resourceListAmounts({ cpu: v }).milliCPU, exact);
      assert.equal(podRequests({ containers: [{ name: 'c', image: 'i', resources: { requests: { cpu: v } } }] }).milliCPU, exact);
    });
  }
});
