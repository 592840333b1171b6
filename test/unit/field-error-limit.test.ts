/**
 * Validation stops once it made fieldErrorLimit errors (src/api/field-errors.ts):
 * a body under 3 MiB can hold millions of them (a Pod of 1,000,000 empty
 * containers has 2,999,999), and the 422 reports only the first 1,000.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorLimit, maxReportedFieldErrors, required, validateWithinLimit, type FieldError } from '../../src/api/field-errors.js';
import { validateCreate } from '../../src/api/validation/index.js';
import { applyDefaults } from '../../src/api/defaults/index.js';

test('a validation that makes more errors than the limit stops, and keeps the first ones made', () => {
  let made = 0;
  const errs = validateWithinLimit(() => {
    const out: FieldError[] = [];
    for (let i = 0; i < 1_000_000; i++) { out.push(required(`items[${i}]`)); made++; }
    return out;
  });
  assert.equal(made, fieldErrorLimit);
  assert.equal(errs.length, maxReportedFieldErrors + 1);
  assert.equal(errs[0].field, 'items[0]');
  assert.equal(errs.at(-1)?.field, `items[${maxReportedFieldErrors}]`);
});

test('errors made and dropped below the limit do not refuse anything; a nested validation counts on its own', () => {
  const errs = validateWithinLimit(() => {
    for (let i = 0; i < fieldErrorLimit - 1; i++) required('tried');
    const inner = validateWithinLimit(() => Array.from({ length: fieldErrorLimit - 1 }, () => required('inner')));
    assert.equal(inner.length, fieldErrorLimit - 1);
    return [required('kept')];
  });
  assert.deepEqual(errs.map((e) => e.field), ['kept']);
});

test('a Pod of 100,000 empty containers: validation stops early with the first errors in upstream\'s order', () => {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: Array.from({ length: 100_000 }, () => ({})) } };
  applyDefaults('v1/Pod', pod);
  const errs = validateCreate('v1/Pod', pod);
  assert.equal(errs.length, maxReportedFieldErrors + 1);
  assert.deepEqual(errs.slice(0, 5).map((e) => `${e.field} ${e.type}`), [
    'spec.containers[0].name FieldValueRequired', 'spec.containers[0].image FieldValueRequired',
    'spec.containers[1].name FieldValueRequired', 'spec.containers[1].image FieldValueRequired', 'spec.containers[1].name FieldValueDuplicate',
  ]);
});
