/**
 * util/with-members.ts: `{ ...base, ...members }` in value and member order, and the per-pod
 * builders of a DaemonSet rollout (the kubelet's container and pod status, a pod's selectable
 * fields, the binding's copy) giving their results one shared hidden class, not one a call.
 * The hidden classes are compared with V8's %HaveSameMap in a child process run with
 * --allow-natives-syntax (the test process has no such flag), after a warm-up. Written with a
 * member after a spread, the fields and the binding's copies fail it; the two statuses kept one
 * map even so (their cost, ~10 µs a call, was the literal's slow path: bench/spread-maps.ts).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { withMembers } from '../../src/util/with-members.js';

const srcDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');
const href = (p: string) => JSON.stringify(pathToFileURL(join(srcDir, p)).href);

describe('withMembers', () => {
  it('is { ...base, ...members }: members of base first, new ones after, base left alone', () => {
    const base = { a: 1, b: 2, c: 3 };
    const out = withMembers(base, { b: 20, d: 4 });
    assert.deepEqual(out, { ...base, ...{ b: 20, d: 4 } });
    assert.deepEqual(Object.keys(out), ['a', 'b', 'c', 'd']);
    assert.deepEqual(base, { a: 1, b: 2, c: 3 });
  });

  it('takes an undefined base as empty', () => {
    assert.deepEqual(withMembers(undefined as { a?: number } | undefined, { conditions: [] }), { conditions: [] });
  });
});

describe('per-pod builders share one hidden class per shape', () => {
  it('containerStatus, generatePodStatus, fieldsForObject(v1/Pod) and the binding copy', () => {
    const script = `
      const { containerStatus, generatePodStatus } = await import(${href('kubelet/status/generate.js')});
      const { fieldsForObject } = await import(${href('api/fields.js')});
      const { setPodNodeNameAndMetadata } = await import(${href('registry/pod-binding.js')});
      const pod = () => JSON.parse(JSON.stringify({
        apiVersion: 'v1', kind: 'Pod',
        metadata: { name: 'p', namespace: 'default', uid: 'u', resourceVersion: '5' },
        spec: { containers: [{ name: 'c', image: 'nginx' }], restartPolicy: 'Always' },
        status: { phase: 'Pending', qosClass: 'BestEffort' },
      }));
      const now = new Date();
      const rc = { id: 'containerd://1', image: 'nginx', imageID: 'sha', restartCount: 0, state: 'running', startedAt: now, createdAt: now };
      const rs = { sandbox: { ready: true, ip: '10.244.0.2' }, containers: [{ ...rc, name: 'c' }] };
      // Warmed first: the first calls take V8's generic path, which does find the shared maps.
      const same = (f) => { for (let i = 0; i < 5000; i++) f(); const a = f(); const b = f(); return %HaveSameMap(a, b); };
      const bind = () => setPodNodeNameAndMetadata(pod(), 'node-1', undefined, '2026-12-06T00:00:00Z');
      console.log(JSON.stringify({
        containerStatus: same(() => containerStatus({ name: 'c', image: 'nginx' }, rc, 'ContainerCreating')),
        podStatus: same(() => generatePodStatus(pod(), rs, { hostIP: '172.16.0.1', now })),
        podFields: same(() => fieldsForObject('v1/Pod', pod())),
        eventFields: same(() => fieldsForObject('v1/Event', { metadata: { name: 'e' }, involvedObject: { kind: 'Pod' } })),
        boundSpec: same(() => bind().spec),
        boundMetadata: same(() => bind().metadata),
        boundStatus: same(() => bind().status),
      }));
    `;
    const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(out), {
      containerStatus: true, podStatus: true, podFields: true, eventFields: true, boundSpec: true, boundMetadata: true, boundStatus: true,
    });
  });
});
