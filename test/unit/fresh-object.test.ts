/**
 * freshObject (util/fresh-object.ts): a copy with the same members in the same order, so the
 * same JSON text, holding the same children; objects it must not copy come back as they are.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshObject } from '../../src/util/fresh-object.js';

test('a copy has the same members in the same order and the same children', () => {
  const child = { x: [1, 2] };
  const o: Record<string, unknown> = JSON.parse('{"b":1,"a":"two","10":null,"2":true,"c":{"x":[1,2]},"d\\"q":"quote","e\\u2028":"ls"}');
  o.c = child;
  const copy = freshObject(o);
  assert.notEqual(copy, o);
  assert.equal(JSON.stringify(copy), JSON.stringify(o));
  assert.deepEqual(Object.keys(copy), Object.keys(o));
  assert.equal(copy.c, child, 'children are shared, not copied');
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
});

test('an object whose members were deleted and added back (a status write) copies in its own order', () => {
  const pod: Record<string, unknown> = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { nodeName: 'n' }, status: { phase: 'Running' } };
  const spec = pod.spec;
  delete pod.spec;
  pod.spec = spec;
  const copy = freshObject(pod);
  assert.equal(JSON.stringify(copy), JSON.stringify(pod));
  assert.deepEqual(Object.keys(copy), ['apiVersion', 'kind', 'metadata', 'status', 'spec']);
});

test('two objects of one shape get copies of one shape; an empty object copies too', () => {
  const a = freshObject({ p: 1, q: 'x' });
  const b = freshObject({ p: 2, q: 'y' });
  assert.deepEqual([a, b], [{ p: 1, q: 'x' }, { p: 2, q: 'y' }]);
  assert.deepEqual(freshObject({}), {});
});

test('objects with a __proto__ member or more than 32 members are answered unchanged', () => {
  const proto = JSON.parse('{"a":1,"__proto__":{"polluted":true}}') as Record<string, unknown>;
  assert.equal(freshObject(proto), proto);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  const big = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, i]));
  assert.equal(freshObject(big), big);
  const fits = Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`k${i}`, i]));
  assert.notEqual(freshObject(fits), fits);
  assert.deepEqual(freshObject(fits), fits);
});

test('keys that are not identifiers cannot break out of the compiled copier', () => {
  const evil = { '"]: 1}); globalThis.pwned = 1; ({"': 'v', 'a\nb': 1, '\\': 2, '${x}': 3, '`': 4 };
  const copy = freshObject(evil);
  assert.deepEqual(copy, evil);
  assert.equal((globalThis as Record<string, unknown>).pwned, undefined);
});
