/**
 * util/intern.ts: internAll leaves an object equal to what it was (every string value, at any
 * depth, in objects and arrays; byte arrays and long strings untouched; deep nesting without
 * recursion), and the pool forgets strings that stop repeating after two generations.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StringPool } from '../../src/util/intern.js';

test('internAll keeps the object equal, at any depth, and returns it', () => {
  const pool = new StringPool();
  const make = () => ({ metadata: { name: 'a', labels: { app: 'web' } }, spec: { containers: [{ image: 'registry.k8s.io/pause:3.10', args: ['x', 'y'] }], n: 3, ok: true, none: null }, bytes: new Uint8Array([1, 2]), long: 'z'.repeat(500) });
  const obj = make();
  assert.equal(pool.internAll(obj), obj);
  assert.deepEqual(obj, make());
  assert.equal(pool.internAll('plain'), 'plain');
  assert.equal(pool.internAll(null), null);
});

test('a deeply nested object is walked without recursion', () => {
  const pool = new StringPool();
  let deep: any = { leaf: 'end' };
  for (let i = 0; i < 200_000; i++) deep = { d: deep, s: 'v' };
  pool.internAll(deep);
  let n = 0;
  for (let o = deep; o.d; o = o.d) n++;
  assert.equal(n, 200_000);
});

test('the pool keeps repeated strings across generations and forgets the others', () => {
  const pool = new StringPool(4);
  const kept = pool.intern('repeated');
  for (let i = 0; i < 100; i++) {
    assert.equal(pool.intern(`unique-${i}`), `unique-${i}`);
    assert.equal(pool.intern('repeated'), kept);
  }
  const size = (p: StringPool) => ((p as any).young.size as number) + ((p as any).old.size as number);
  assert.ok(size(pool) <= 8, `at most two generations: ${size(pool)}`);
});
