/**
 * Ephemeral containers (upstream's validateEphemeralContainers and
 * ValidatePodEphemeralContainersUpdate, v1.32): what a write through
 * pods/ephemeralcontainers may add, and the words it is refused with; and
 * the pod strategy's dropNonEphemeralContainerUpdates.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { applyDefaults } from '../../src/api/defaults/index.js';
import { fieldErrorMessage } from '../../src/api/field-errors.js';
import { validateUpdate } from '../../src/api/validation/index.js';
import { dropNonEphemeralContainerUpdates } from '../../src/registry/strategies/pods.js';

const basePod = (): any => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name: 'web', namespace: 'default', uid: 'u1', creationTimestamp: '2024-01-01T00:00:00Z', resourceVersion: '5' },
  spec: {
    nodeName: 'n1',
    initContainers: [{ name: 'init', image: 'busybox' }],
    containers: [{ name: 'app', image: 'nginx:1.27' }],
    volumes: [{ name: 'data', emptyDir: {} }],
  },
});

const debug = (extra: Record<string, unknown> = {}) => ({ name: 'debugger', image: 'busybox', ...extra });

/** The errors of a write through pods/ephemeralcontainers that turns `prepare`'s pod into `mutate`'s. */
function ephemeralUpdate(mutate: (p: any) => void, prepare: (p: any) => void = () => {}): string[] {
  const old = basePod();
  prepare(old);
  applyDefaults('v1/Pod', old);
  const next = structuredClone(old);
  mutate(next);
  applyDefaults('v1/Pod', next);
  return validateUpdate('v1/Pod', next, old, 'ephemeralcontainers').map(fieldErrorMessage);
}

const ephemeralOnly = 'Forbidden: cannot be set for an Ephemeral Container';
const withOne = (p: any) => { p.spec.ephemeralContainers = [debug({ targetContainerName: 'app' })]; };

const cases: [string, (p: any) => void, ((p: any) => void) | undefined, string[]][] = [
  ['adding one', withOne, undefined, []],
  ['adding one targeting an init container', (p) => { p.spec.ephemeralContainers = [debug({ targetContainerName: 'init' })]; }, undefined, []],
  ['adding a second one', (p) => { p.spec.ephemeralContainers.push(debug({ name: 'debugger-2' })); }, withOne, []],
  ['adding one with env, mounts and a security context', (p) => {
    p.spec.ephemeralContainers = [debug({ env: [{ name: 'A', value: '1' }], volumeMounts: [{ name: 'data', mountPath: '/data' }], securityContext: { privileged: true }, stdin: true, tty: true })];
  }, undefined, []],
  ['image required', (p) => { p.spec.ephemeralContainers = [{ name: 'debugger' }]; }, undefined, ['spec.ephemeralContainers[0].image: Required value']],
  ['padded image', (p) => { p.spec.ephemeralContainers = [debug({ image: 'busybox ' })]; }, undefined,
    ['spec.ephemeralContainers[0].image: Invalid value: "busybox ": must not have leading or trailing whitespace']],
  ['name required', (p) => { p.spec.ephemeralContainers = [{ image: 'busybox' }]; }, undefined, ['spec.ephemeralContainers[0].name: Required value']],
  ['name of a container', (p) => { p.spec.ephemeralContainers = [debug({ name: 'app' })]; }, undefined, ['spec.ephemeralContainers[0].name: Duplicate value: "app"']],
  ['name of an init container', (p) => { p.spec.ephemeralContainers = [debug({ name: 'init' })]; }, undefined, ['spec.ephemeralContainers[0].name: Duplicate value: "init"']],
  ['name of another ephemeral container', (p) => { p.spec.ephemeralContainers = [debug(), debug({ image: 'alpine' })]; }, undefined,
    ['spec.ephemeralContainers[1].name: Duplicate value: "debugger"']],
  ['target not in the pod', (p) => { p.spec.ephemeralContainers = [debug({ targetContainerName: 'db' })]; }, undefined,
    ['spec.ephemeralContainers[0].targetContainerName: Not found: "db"']],
  ['target an ephemeral container', (p) => { p.spec.ephemeralContainers = [debug(), debug({ name: 'second', targetContainerName: 'debugger' })]; }, undefined,
    ['spec.ephemeralContainers[1].targetContainerName: Not found: "debugger"']],
  ['ports', (p) => { p.spec.ephemeralContainers = [debug({ ports: [{ containerPort: 80 }] })]; }, undefined, [`spec.ephemeralContainers[0].ports: ${ephemeralOnly}`]],
  ['resources', (p) => { p.spec.ephemeralContainers = [debug({ resources: { limits: { cpu: '1' } } })]; }, undefined,
    [`spec.ephemeralContainers[0].resources: ${ephemeralOnly}`]],
  ['empty resources are no resources', (p) => { p.spec.ephemeralContainers = [debug({ resources: {} })]; }, undefined, []],
  ['resizePolicy', (p) => { p.spec.ephemeralContainers = [debug({ resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }] })]; }, undefined,
    [`spec.ephemeralContainers[0].resizePolicy: ${ephemeralOnly}`]],
  ['restartPolicy', (p) => { p.spec.ephemeralContainers = [debug({ restartPolicy: 'Always' })]; }, undefined, [`spec.ephemeralContainers[0].restartPolicy: ${ephemeralOnly}`]],
  ['probes and lifecycle, in upstream order', (p) => {
    const probe = { exec: { command: ['true'] } };
    p.spec.ephemeralContainers = [debug({ lifecycle: { preStop: { exec: { command: ['true'] } } }, startupProbe: probe, readinessProbe: probe, livenessProbe: probe })];
  }, undefined, ['livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle'].map((f) => `spec.ephemeralContainers[0].${f}: ${ephemeralOnly}`)],
  ['subPath and subPathExpr', (p) => {
    p.spec.ephemeralContainers = [debug({ volumeMounts: [{ name: 'data', mountPath: '/a', subPath: 'x' }, { name: 'data', mountPath: '/b', subPathExpr: '$(X)' }] })];
  }, undefined, [`spec.ephemeralContainers[0].volumeMounts[0].subPath: ${ephemeralOnly}`, `spec.ephemeralContainers[0].volumeMounts[1].subPathExpr: ${ephemeralOnly}`]],
  ['removing one', (p) => { p.spec.ephemeralContainers = []; }, withOne, ['spec.ephemeralContainers: Forbidden: existing ephemeral containers "debugger" may not be removed\n']],
  ['reordering two', (p) => { p.spec.ephemeralContainers.reverse(); }, (p) => { p.spec.ephemeralContainers = [debug(), debug({ name: 'second' })]; }, []],
  ['a static pod', withOne, (p) => { p.metadata.annotations = { 'kubernetes.io/config.mirror': 'h' }; }, ['[]: Forbidden: static pods do not support ephemeral containers']],
];

for (const [name, mutate, prepare, want] of cases) {
  test(`pods/ephemeralcontainers: ${name}`, () => assert.deepEqual(ephemeralUpdate(mutate, prepare), want));
}

test('pods/ephemeralcontainers: changing one is refused with a diff of what changed', () => {
  const errs = ephemeralUpdate((p) => { p.spec.ephemeralContainers[0].image = 'alpine'; }, withOne);
  assert.equal(errs.length, 1);
  assert.ok(errs[0].startsWith('spec.ephemeralContainers[debugger]: Forbidden: existing ephemeral containers "debugger" may not be changed\n'), errs[0]);
  assert.match(errs[0], /- \tImage: "busybox",\n\+ \tImage: "alpine",/);
});

test('a plain pod update may not add ephemeral containers (they are not among the updatable fields)', () => {
  const old = basePod();
  applyDefaults('v1/Pod', old);
  const next = structuredClone(old);
  withOne(next);
  applyDefaults('v1/Pod', next);
  const errs = validateUpdate('v1/Pod', next, old).map(fieldErrorMessage);
  assert.equal(errs.length, 1);
  assert.match(errs[0], /^spec: Forbidden: pod updates may not change fields other than /);
  assert.match(errs[0], /EphemeralContainers: nil,\n\+ \tEphemeralContainers: \[/);
});

test('dropNonEphemeralContainerUpdates keeps the stored pod but for spec.ephemeralContainers, placed after spec.containers', () => {
  const old = basePod();
  old.status = { phase: 'Running' };
  const next = structuredClone(old);
  next.metadata.labels = { added: 'x' };
  next.spec.containers[0].image = 'nginx:1.28';
  next.status = { phase: 'Failed' };
  withOne(next);
  dropNonEphemeralContainerUpdates(next, old);
  assert.deepEqual(next.metadata, old.metadata);
  assert.equal(next.spec.containers[0].image, 'nginx:1.27');
  assert.deepEqual(next.status, { phase: 'Running' });
  assert.deepEqual(Object.keys(next.spec), ['nodeName', 'initContainers', 'containers', 'ephemeralContainers', 'volumes']);
  assert.equal(old.spec.ephemeralContainers, undefined, 'the stored pod is not changed');
});
