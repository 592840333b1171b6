/**
 * The heavy lane's encoded 422 (src/apiserver/heavy/invalid-status.ts) is
 * byte for byte what the loop writes for the same field errors: the Status
 * of invalidObject in its wire form, JSON.stringify'd with upstream's
 * newline. Repeated texts are dropped from the message (ToAggregate) while
 * every cause stays; core and grouped kinds; one error and many.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeInvalidStatus } from '../../src/apiserver/heavy/invalid-status.js';
import { invalidObject, statusWireForm } from '../../src/api/status.js';
import { decodeObject } from '../../src/api/protobuf/envelope.js';
import { duplicate, invalid, maxReportedFieldErrors, required, type FieldError } from '../../src/api/field-errors.js';

const loopForm = (kind: string, group: string, name: string, errs: FieldError[]) =>
  `${JSON.stringify(statusWireForm(invalidObject(kind, group, name, errs).status))}\n`;

const cases: Array<[string, string, string, FieldError[]]> = [
  ['Pod', '', 'one', [required('spec.containers[0].image')]],
  ['Pod', '', 'many', [required('spec.containers[0].name'), required('spec.containers[0].image'), duplicate('spec.containers[1].name', ''), required('spec.containers[1].image')]],
  ['Deployment', 'apps', 'dup', [invalid('spec.replicas', -1, 'must be greater than or equal to 0'), invalid('spec.replicas', -1, 'must be greater than or equal to 0'), required('spec.selector')]],
  ['ConfigMap', '', 'quo"te\u2028', [invalid('data[a b]', 'x"y', 'a valid config key must consist of alphanumeric characters, \'-\', \'_\' or \'.\'')]],
];

test('the encoded JSON Status equals the loop\'s, byte for byte', () => {
  for (const [kind, group, name, errs] of cases) {
    const enc = encodeInvalidStatus(kind, group, name, errs, false);
    assert.equal(enc.code, 422);
    assert.equal(enc.contentType, 'application/json');
    assert.equal(Buffer.concat(enc.body).toString('utf8'), loopForm(kind, group, name, errs), `${kind} ${name}`);
  }
});

test('the Status of 90,000 field errors: the first 1,000 causes and one saying there were more, memory of its own (transferable)', () => {
  const errs: FieldError[] = [];
  for (let i = 0; i < 30_000; i++) errs.push(required(`spec.containers[${i}].name`), duplicate(`spec.containers[${i}].name`, ''), required(`spec.containers[${i}].image`));
  const enc = encodeInvalidStatus('Pod', '', 'big', errs, false);
  for (const b of enc.body) assert.ok(b.byteOffset === 0 && b.buffer.byteLength === b.byteLength, 'a buffer shares its memory');
  assert.equal(Buffer.concat(enc.body).toString('utf8'), loopForm('Pod', '', 'big', errs));
  const status = JSON.parse(Buffer.concat(enc.body).toString('utf8'));
  assert.equal(status.details.causes.length, maxReportedFieldErrors + 1);
  assert.deepEqual(status.details.causes.at(-2), { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers[333].name' });
  assert.deepEqual(status.details.causes.at(-1), { reason: 'FieldValueTooMany', message: 'Too many: more than 1000 errors; only the first 1000 are reported', field: 'spec' });
  assert.ok(status.message.endsWith('spec.containers[333].name: Required value, spec: Too many: more than 1000 errors; only the first 1000 are reported]'));
});

test('exactly 1,000 field errors are all reported, with no extra cause', () => {
  const errs = Array.from({ length: maxReportedFieldErrors }, (_, i) => required(`data[k${i}]`));
  assert.equal(invalidObject('ConfigMap', '', 'x', errs).status.details?.causes?.length, maxReportedFieldErrors);
});

test('a client that prefers protobuf gets the Status in protobuf', () => {
  const [kind, group, name, errs] = cases[1];
  const enc = encodeInvalidStatus(kind, group, name, errs, true);
  assert.equal(enc.contentType, 'application/vnd.kubernetes.protobuf');
  const object = decodeObject(Buffer.concat(enc.body), { apiVersion: 'v1', kind: 'Status' }).object as { code: number; reason: string; message: string; details: { causes: unknown[] } };
  assert.equal(object.code, 422);
  assert.equal(object.reason, 'Invalid');
  assert.equal(object.details.causes.length, 4);
  assert.equal(object.message, invalidObject(kind, group, name, errs).status.message);
});
