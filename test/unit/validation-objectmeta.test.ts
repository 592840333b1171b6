import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { fieldErrorMessage } from '../../src/api/field-errors.js';
import { nameIsDNSSubdomain } from '../../src/api/names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../src/api/validation/objectmeta.js';

const messages = (errs: Parameters<typeof fieldErrorMessage>[0][]) => errs.map(fieldErrorMessage);
const qname = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

const createCases: [string, any, string[]][] = [
  ['valid', { name: 'a', namespace: 'default', labels: { 'app.kubernetes.io/name': 'x' }, annotations: { 'Example.com/Note': 'anything goes' } }, []],
  ['name required', {}, ['metadata.name: Required value: name or generateName is required']],
  ['generateName format', { name: 'abcde', generateName: 'Web-' },
    ["metadata.generateName: Invalid value: \"Web-\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]],
  ['namespace format', { name: 'a', namespace: 'Team' },
    ["metadata.namespace: Invalid value: \"Team\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]],
  ['label key', { name: 'a', labels: { 'bad key': 'v' } }, [`metadata.labels: Invalid value: "bad key": name part ${qname}`]],
  ['label value too long', { name: 'a', labels: { k: 'v'.repeat(64) } }, [`metadata.labels: Invalid value: "${'v'.repeat(64)}": must be no more than 63 characters`]],
  ['annotation key', { name: 'a', annotations: { '-x': 'v' } }, [`metadata.annotations: Invalid value: "-x": name part ${qname}`]],
  ['annotations total size', { name: 'a', annotations: { big: 'x'.repeat(256 * 1024) } }, ['metadata.annotations: Too long: may not be more than 262144 bytes']],
  ['negative generation', { name: 'a', generation: -1 }, ['metadata.generation: Invalid value: -1: must be greater than or equal to 0']],
  ['owner reference fields', { name: 'a', ownerReferences: [{}] }, [
    'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
    'metadata.ownerReferences.kind: Invalid value: "": must not be empty',
    'metadata.ownerReferences.name: Invalid value: "": must not be empty',
    'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
  ]],
  ['one controller', { name: 'a', ownerReferences: [
    { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'x', uid: '1', controller: true },
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'y', uid: '2', controller: true }] },
  ['metadata.ownerReferences: Invalid value: [{"apiVersion":"apps/v1","kind":"DaemonSet","name":"x","uid":"1","controller":true},{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"y","uid":"2","controller":true}]: Only one reference can have Controller set to true. Found "true" in references for DaemonSet/x and ReplicaSet/y']],
  ['finalizer names', { name: 'a', finalizers: ['kubernetes', 'example.com/x', 'custom'] },
    ['metadata.finalizers[2]: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified']],
];
for (const [name, meta, want] of createCases) {
  test(`ObjectMeta create: ${name}`, () => assert.deepEqual(messages(validateObjectMeta(meta, true, nameIsDNSSubdomain)), want));
}

const old = { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '3', generation: 2, creationTimestamp: '2024-01-01T00:00:00Z' };
const updateCases: [string, any, any, string[]][] = [
  ['unchanged', {}, old, []],
  ['uid and timestamp may be left out', { uid: undefined, creationTimestamp: undefined }, old, []],
  ['name is immutable', { name: 'b' }, old, ['metadata.name: Invalid value: "b": field is immutable']],
  ['namespace is immutable', { namespace: 'x' }, old, ['metadata.namespace: Invalid value: "x": field is immutable']],
  ['uid is immutable', { uid: 'u2' }, old, ['metadata.uid: Invalid value: "u2": field is immutable']],
  ['creationTimestamp is immutable', { creationTimestamp: '2025-02-03T04:05:06Z' }, old,
    ['metadata.creationTimestamp: Invalid value: 2025-02-03 04:05:06 +0000 UTC: field is immutable']],
  ['generation may not decrease', { generation: 1 }, old, ['metadata.generation: Invalid value: 1: must not be decremented']],
  ['no new finalizers while deleting', { finalizers: ['example.com/x'] }, { ...old, deletionTimestamp: '2024-02-01T00:00:00Z' },
    ['metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/x"}']],
];
for (const [name, change, before, want] of updateCases) {
  test(`ObjectMeta update: ${name}`, () => assert.deepEqual(messages(validateObjectMetaUpdate({ ...before, ...change }, before)), want));
}
