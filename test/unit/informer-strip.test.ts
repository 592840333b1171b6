/**
 * stripManagedFields, the informers' transform in the controller manager and
 * the scheduler (upstream's TransformStripManagedFields): the object reads and
 * serializes as if it had no managedFields, and its metadata stays a fast
 * (hidden-class) object, which a `delete` of a middle property would turn into
 * a dictionary that every read of name, namespace and resourceVersion pays for.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { stripManagedFields } from '../../src/client/informer.js';

const pod = (): Pod => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: {
    name: 'p', namespace: 'default', uid: 'u1', creationTimestamp: '2026-12-04T00:00:00Z',
    managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': {} } }],
    resourceVersion: '7',
  },
  spec: { containers: [{ name: 'c', image: 'pause' }] },
});

describe('stripManagedFields', () => {
  it('leaves an object that reads and serializes as the same object without managedFields', () => {
    const stripped = stripManagedFields(pod()) as Pod;
    assert.equal(stripped.metadata?.managedFields, undefined);
    const { managedFields: _, ...rest } = pod().metadata!;
    assert.equal(JSON.stringify(stripped), JSON.stringify({ ...pod(), metadata: rest }));
    assert.deepEqual(JSON.parse(JSON.stringify(stripped)), { ...pod(), metadata: rest });
  });

  it('leaves objects without managedFields as they are', () => {
    const noFields = { metadata: { name: 'x' } };
    assert.deepEqual(Object.keys(stripManagedFields(noFields).metadata), ['name']);
    assert.equal(stripManagedFields(undefined), undefined);
  });

  it('keeps the metadata a fast-properties object (V8), as parsed JSON is', () => {
    const informerModule = fileURLToPath(new URL('../../src/client/informer.js', import.meta.url));
    const script = `
      const { stripManagedFields } = await import(${JSON.stringify(informerModule)});
      const obj = JSON.parse(${JSON.stringify(JSON.stringify(pod()))});
      const before = %HasFastProperties(obj.metadata);
      stripManagedFields(obj);
      console.log(JSON.stringify([before, %HasFastProperties(obj.metadata)]));`;
    const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(out), [true, true]);
  });
});
