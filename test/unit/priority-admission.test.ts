/** Priority admission's arithmetic (upstream plugin/pkg/admission/priority) and PriorityClass validation. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { computePriority, defaultPriorityClass } from '../../src/apiserver/admission/priority.js';
import { validateCreate, validateUpdate } from '../../src/api/validation/index.js';
import { fieldErrorMessage } from '../../src/api/field-errors.js';

const pc = (name: string, value: number, o: { globalDefault?: boolean; preemptionPolicy?: string } = {}) => ({ metadata: { name }, value, ...o });
const key = 'scheduling.k8s.io/v1/PriorityClass';
const messages = (errs: any[]) => errs.map(fieldErrorMessage);

describe('computePriority', () => {
  const classes = [pc('high', 1000), pc('low-default', 10, { globalDefault: true, preemptionPolicy: 'Never' }), pc('lower-default', 5, { globalDefault: true })];
  it('the named class gives value and policy', () => assert.deepEqual(computePriority('high', classes), { className: 'high', priority: 1000, preemptionPolicy: 'PreemptLowerPriority' }));
  it('without a name, the lowest globalDefault class', () => assert.deepEqual(computePriority(undefined, classes), { className: 'lower-default', priority: 5, preemptionPolicy: 'PreemptLowerPriority' }));
  it('without a default, 0 and PreemptLowerPriority', () => assert.deepEqual(computePriority('', [pc('high', 1000)]), { className: '', priority: 0, preemptionPolicy: 'PreemptLowerPriority' }));
  it('an unknown class is undefined (refused)', () => assert.equal(computePriority('missing', classes), undefined));
  it('defaultPriorityClass picks the smallest value', () => assert.equal(defaultPriorityClass(classes).metadata.name, 'lower-default'));
});

describe('PriorityClass validation', () => {
  it('user classes are capped at 1000000000', () => {
    assert.deepEqual(messages(validateCreate(key, pc('big', 1_000_000_001, { preemptionPolicy: 'PreemptLowerPriority' }))), ['value: Forbidden: maximum allowed value of a user defined priority is 1000000000']);
  });
  it('system- names are reserved for the known classes with their values', () => {
    assert.deepEqual(validateCreate(key, pc('system-node-critical', 2_000_001_000, { preemptionPolicy: 'PreemptLowerPriority' })), []);
    assert.deepEqual(messages(validateCreate(key, pc('system-mine', 5))), [
      "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class",
    ]);
  });
  it('value and preemptionPolicy never change', () => {
    const old = { ...pc('x', 5, { preemptionPolicy: 'Never' }), metadata: { name: 'x', resourceVersion: '1' } };
    const next = { ...pc('x', 6, { preemptionPolicy: 'PreemptLowerPriority' }), metadata: { name: 'x', resourceVersion: '1' } };
    assert.deepEqual(messages(validateUpdate(key, next, old)), [
      'value: Forbidden: may not be changed in an update.', 'preemptionPolicy: Invalid value: "PreemptLowerPriority": field is immutable',
    ]);
  });
});
