/**
 * The update handlers' change checks (controller-ref.ts sameLabels, sameControllerRef):
 * reflect.DeepEqual of label maps and controller refs, as upstream's updatePod compares them.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sameControllerRef, sameLabels } from '../../src/controllers/controller-ref.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';

describe('sameLabels', () => {
  const cases: [string, Record<string, string> | undefined, Record<string, string> | undefined, boolean][] = [
    ['both absent', undefined, undefined, true],
    ['absent and empty', undefined, {}, true],
    ['same object', { a: '1' }, { a: '1' }, true],
    ['another order', { a: '1', b: '2' }, { b: '2', a: '1' }, true],
    ['a value changed', { a: '1' }, { a: '2' }, false],
    ['a key added', { a: '1' }, { a: '1', b: '2' }, false],
    ['a key removed', { a: '1', b: '2' }, { a: '1' }, false],
    ['a key renamed', { a: '1' }, { b: '1' }, false],
    ['absent and one label', undefined, { a: '1' }, false],
    ['an empty value and none', { a: '' }, {}, false],
  ];
  for (const [name, a, b, want] of cases) {
    it(name, () => {
      assert.equal(sameLabels(a, b), want);
      assert.equal(sameLabels(b, a), want);
    });
  }
  it('an inherited name is not a label', () => {
    assert.equal(sameLabels({ toString: 'x' }, {}), false);
    assert.equal(sameLabels({ a: '1' }, Object.create({ a: '1' })), false);
  });
});

describe('sameControllerRef', () => {
  const ref: OwnerReference = { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'u1', controller: true, blockOwnerDeletion: true };
  const cases: [string, OwnerReference | undefined, OwnerReference | undefined, boolean][] = [
    ['both absent', undefined, undefined, true],
    ['one absent', ref, undefined, false],
    ['equal copies', ref, { ...ref }, true],
    ['another uid (the owner was replaced)', ref, { ...ref, uid: 'u2' }, false],
    ['another name', ref, { ...ref, name: 'other' }, false],
    ['another kind', ref, { ...ref, kind: 'ReplicaSet' }, false],
    ['another apiVersion', ref, { ...ref, apiVersion: 'extensions/v1beta1' }, false],
    ['blockOwnerDeletion dropped', ref, { ...ref, blockOwnerDeletion: undefined }, false],
    ['blockOwnerDeletion false and true', ref, { ...ref, blockOwnerDeletion: false }, false],
  ];
  for (const [name, a, b, want] of cases) {
    it(name, () => {
      assert.equal(sameControllerRef(a, b), want);
      assert.equal(sameControllerRef(b, a), want);
    });
  }
});
