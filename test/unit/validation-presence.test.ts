/**
 * The pod validators of fields a typical pod leaves out run only when the field is there
 * (podspec.ts, container.ts, pod.ts, and ObjectMeta's in objectmeta.ts): each such field, null or of the wrong JSON type, still
 * gives no error (as when its validator ran and found nothing), and an invalid value is still
 * reported at its path. The decoding checks prune unknown fields whatever the mode that found them,
 * and fill null list items and map values (skipped only for a body without any).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyDefaults } from '../../src/api/defaults/index.js';
import { validateCreate } from '../../src/api/validation/index.js';
import { checkFields } from '../../src/apiserver/field-checks.js';

const basePod = (): any => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name: 'web', namespace: 'default' },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], volumes: [{ name: 'data', emptyDir: {} }] },
});

function errorsOf(mutate: (p: any) => void): string[] {
  const pod = basePod();
  mutate(pod);
  applyDefaults('v1/Pod', pod);
  return validateCreate('v1/Pod', pod).map((e) => e.field);
}

/** [what, the field's parent, its name, an invalid value, the path an error must start with]. */
const guarded: [string, (p: any) => any, string, unknown, string][] = [
  ['annotations', (p) => p.metadata, 'annotations', { 'controller.kubernetes.io/pod-deletion-cost': 'x' }, 'metadata.annotations'],
  ['annotations (ObjectMeta)', (p) => p.metadata, 'annotations', { 'bad key!': 'v' }, 'metadata.annotations'],
  ['labels', (p) => p.metadata, 'labels', { 'bad key!': 'v' }, 'metadata.labels'],
  ['ownerReferences', (p) => p.metadata, 'ownerReferences', [{}], 'metadata.ownerReferences'],
  ['finalizers', (p) => p.metadata, 'finalizers', ['not a finalizer!'], 'metadata.finalizers'],
  ['initContainers', (p) => p.spec, 'initContainers', [{ name: 'init' }], 'spec.initContainers[0].image'],
  ['nodeSelector', (p) => p.spec, 'nodeSelector', { 'bad key!': 'v' }, 'spec.nodeSelector'],
  ['affinity', (p) => p.spec, 'affinity', { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } }, 'spec.affinity'],
  ['dnsConfig', (p) => p.spec, 'dnsConfig', { nameservers: ['not-an-ip'] }, 'spec.dnsConfig.nameservers[0]'],
  ['readinessGates', (p) => p.spec, 'readinessGates', [{ conditionType: 'bad type!' }], 'spec.readinessGates[0].conditionType'],
  ['schedulingGates', (p) => p.spec, 'schedulingGates', [{ name: 'bad gate!' }], 'spec.schedulingGates[0]'],
  ['topologySpreadConstraints', (p) => p.spec, 'topologySpreadConstraints', [{}], 'spec.topologySpreadConstraints[0].maxSkew'],
  ['ports', (p) => p.spec.containers[0], 'ports', [{}], 'spec.containers[0].ports[0].containerPort'],
  ['env', (p) => p.spec.containers[0], 'env', [{ name: '' }], 'spec.containers[0].env[0].name'],
  ['envFrom', (p) => p.spec.containers[0], 'envFrom', [{ prefix: 'bad=' }], 'spec.containers[0].envFrom[0]'],
  ['volumeMounts', (p) => p.spec.containers[0], 'volumeMounts', [{ name: 'nope', mountPath: '/x' }], 'spec.containers[0].volumeMounts[0].name'],
  ['volumeDevices', (p) => p.spec.containers[0], 'volumeDevices', [{ name: 'nope', devicePath: '/d' }], 'spec.containers[0].volumeDevices[0].name'],
  ['securityContext', (p) => p.spec.containers[0], 'securityContext', { runAsUser: -1 }, 'spec.containers[0].securityContext.runAsUser'],
  ['livenessProbe', (p) => p.spec.containers[0], 'livenessProbe', {}, 'spec.containers[0].livenessProbe'],
  ['readinessProbe', (p) => p.spec.containers[0], 'readinessProbe', {}, 'spec.containers[0].readinessProbe'],
  ['startupProbe', (p) => p.spec.containers[0], 'startupProbe', {}, 'spec.containers[0].startupProbe'],
];

describe('validators of fields a typical pod leaves out', () => {
  it('the typical pod is valid', () => assert.deepEqual(errorsOf(() => {}), []));
  for (const [what, parent, field, invalid, path] of guarded) {
    it(`${what}: null or of another JSON type is no error, an invalid value is reported at ${path}`, () => {
      assert.deepEqual(errorsOf((p) => { parent(p)[field] = null; }), [], 'null');
      assert.deepEqual(errorsOf((p) => { parent(p)[field] = 7; }), [], 'a number');
      const errs = errorsOf((p) => { parent(p)[field] = invalid; });
      assert.ok(errs.some((f) => f.startsWith(path)), `${path} in ${JSON.stringify(errs)}`);
    });
  }
  it('dnsPolicy None without dnsConfig is still refused', () => {
    assert.ok(errorsOf((p) => { p.spec.dnsPolicy = 'None'; }).includes('spec.dnsConfig'));
  });
  it('hostNetwork and hostUsers: false are still checked', () => {
    assert.deepEqual(errorsOf((p) => { p.spec.hostNetwork = true; p.spec.containers[0].ports = [{ containerPort: 80, hostPort: 81 }]; }), ['spec.containers[0].ports[0].hostPort']);
    assert.ok(errorsOf((p) => { p.spec.hostUsers = false; p.spec.hostNetwork = true; }).includes('spec.hostNetwork'));
  });
});

describe('checkFields prunes unknown fields in every mode', () => {
  const info = { group: '', version: 'v1', kind: 'Pod' };
  const sink = { setHeader: () => sink } as never;
  for (const mode of [undefined, 'Warn', 'Ignore']) {
    it(`${mode ?? 'default'}: unknown fields dropped, known ones kept`, () => {
      const pod: any = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', bogus: 1 }, spec: { containers: [{ name: 'c', image: 'i', imagez: 'x' }] }, extra: true };
      checkFields(info, pod, mode, sink);
      assert.deepEqual(pod, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } });
    });
    it(`${mode ?? 'default'}: a body without unknown fields is left as it is`, () => {
      const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } };
      const before = structuredClone(pod);
      checkFields(info, pod, mode, sink);
      assert.deepEqual(pod, before);
    });
  }
});

describe('checkFields finds unknown fields through the type walk', () => {
  const info = { group: '', version: 'v1', kind: 'Pod' };
  it('an unknown field deep in a list is warned with its path, and refused under Strict', () => {
    const body = () => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'i', env: [{ name: 'A', valueFrom: { fieldRef: { fieldPath: 'x', bogus: 1 } } }] }] } });
    const warnings: string[] = [];
    const sink = { setHeader: (_: string, v: string[]) => { warnings.push(...v); return sink; } } as never;
    checkFields(info, body(), 'Warn', sink);
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0], '299 - "unknown field \\"spec.containers[0].env[0].valueFrom.fieldRef.bogus\\""');
    assert.throws(() => checkFields(info, body(), 'Strict', sink), /strict decoding error: unknown field "spec\.containers\[0\]\.env\[0\]\.valueFrom\.fieldRef\.bogus"/);
  });
  it('map keys are not unknown fields', () => {
    const warnings: string[] = [];
    const sink = { setHeader: (_: string, v: string[]) => { warnings.push(...v); return sink; } } as never;
    checkFields(info, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { bogus: 'x' } }, spec: { nodeSelector: { any: 'key' }, containers: [{ name: 'c', image: 'i' }] } }, 'Strict', sink);
    assert.deepEqual(warnings, []);
  });
});

describe('checkFields fills null items found by the type walk', () => {
  const info = { group: '', version: 'v1', kind: 'Pod' };
  const sink = { setHeader: () => sink } as never;
  it('a null list item or map value becomes its zero value, at any depth', () => {
    const pod: any = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: null } },
      spec: { containers: [{ name: 'c', image: 'i', args: ['x', null] }], tolerations: [null] } };
    checkFields(info, pod, undefined, sink);
    assert.deepEqual(pod.metadata.labels, { a: '' });
    assert.deepEqual(pod.spec.containers[0].args, ['x', '']);
    assert.deepEqual(pod.spec.tolerations, [{}]);
  });
  it('a null field (not an item) is left as it is', () => {
    const pod: any = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: null }, spec: { containers: [{ name: 'c', image: 'i', args: null }] } };
    checkFields(info, pod, undefined, sink);
    assert.equal(pod.metadata.labels, null);
    assert.equal(pod.spec.containers[0].args, null);
  });
  it('a type error is still answered first', () => {
    const pod: any = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 5, args: [null] }] } };
    assert.throws(() => checkFields(info, pod, undefined, sink), /cannot unmarshal number into Go struct field Container\.spec\.containers\.image of type string/);
  });
});
