/** jsonEqual: an update's no-op check, the same answer as comparing sorted-key JSON. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { jsonEqual, stableStringify } from '../../src/registry/meta.js';

describe('jsonEqual', () => {
  const cases: { name: string; a: unknown; b: unknown; want: boolean }[] = [
    { name: 'same object, keys in another order', a: { x: 1, y: { p: [1, 2], q: 'a' } }, b: { y: { q: 'a', p: [1, 2] }, x: 1 }, want: true },
    { name: 'an undefined field is an absent one', a: { x: 1, y: undefined }, b: { x: 1 }, want: true },
    { name: 'null is not absent', a: { x: null }, b: {}, want: false },
    { name: 'a list item changed', a: { c: [{ t: 'A' }, { t: 'B' }] }, b: { c: [{ t: 'A' }, { t: 'C' }] }, want: false },
    { name: 'list order counts', a: [1, 2], b: [2, 1], want: false },
    { name: 'a list is not an object with index keys', a: { v: ['a'] }, b: { v: { 0: 'a' } }, want: false },
    { name: 'an extra key on the right', a: { x: 1 }, b: { x: 1, y: 2 }, want: false },
    { name: 'undefined and null in a list encode alike', a: [undefined], b: [null], want: true },
    { name: 'a number and its string differ', a: { n: 1 }, b: { n: '1' }, want: false },
    { name: 'an empty object and an empty list differ', a: {}, b: [], want: false },
    { name: 'a pod whose binding set spec.nodeName', a: { spec: { containers: [{ name: 'c' }] } }, b: { spec: { containers: [{ name: 'c' }], nodeName: 'n1' } }, want: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(jsonEqual(c.a, c.b), c.want);
      assert.equal(jsonEqual(c.b, c.a), c.want);
      assert.equal(stableStringify(c.a) === stableStringify(c.b), c.want, 'stableStringify agrees');
    });
  }
});
