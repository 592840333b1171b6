/**
 * Validation of an object a body makes huge answers field errors, never
 * "Maximum call stack size exceeded": the hardening issue's Pod with
 * 1,000,000 empty containers overflowed the stack where a validator appended
 * a list with push(...list) (one stack slot per element). 200,000 containers
 * are past where that overflowed (about 120,000) and quick to validate.
 * The kinds' validators are called directly here: through validateCreate,
 * validation stops after fieldErrorLimit errors (the 422 reports the first
 * 1,000), which would not reach the lengths that overflowed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { validateCreate } from '../../src/api/validation/index.js';
import { validatePodCreate } from '../../src/api/validation/pod.js';
import { validateConfigMapCreate } from '../../src/api/validation/configdata.js';
import { maxReportedFieldErrors } from '../../src/api/field-errors.js';
import { obj } from '../../src/api/validation/util.js';

test('a Pod with 200,000 empty containers: field errors naming each container, no internal error', () => {
  const count = 200_000;
  const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: Array.from({ length: count }, () => ({ name: '' })) } };
  const errs = validatePodCreate(obj(pod));
  assert.equal(errs.filter((e) => e.type === 'InternalError').length, 0, JSON.stringify(errs.find((e) => e.type === 'InternalError')));
  const fields = new Set(errs.map((e) => e.field));
  assert.ok(fields.has('spec.containers[0].name'));
  assert.ok(fields.has(`spec.containers[${count - 1}].name`));
  assert.ok(fields.has(`spec.containers[${count - 1}].image`));
  // As upstream's validateContainers: the empty name is Required once and a Duplicate after.
  assert.deepEqual(errs.filter((e) => e.field === `spec.containers[${count - 1}].name`).map((e) => e.type).sort(), ['FieldValueDuplicate', 'FieldValueRequired']);
  // Through validateCreate it stops early: the first errors, one more than are reported.
  assert.equal(validateCreate('v1/Pod', pod).length, maxReportedFieldErrors + 1);
});

test('a ConfigMap with 250,000 keys validates (appending its key errors cannot overflow)', () => {
  const data: Record<string, string> = {};
  for (let i = 0; i < 250_000; i++) data[`bad key ${i}`] = 'v';
  const errs = validateConfigMapCreate({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data });
  assert.equal(errs.filter((e) => e.type === 'InternalError').length, 0);
  assert.equal(errs.filter((e) => e.field.startsWith('data[')).length, 250_000);
});
