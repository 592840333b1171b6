/**
 * util/shared-trees.ts: intern keeps a tree equal to what it was (same JSON text, key order
 * and all), shares equal subtrees across trees as frozen copies, leaves what is not plain JSON
 * (and its ancestors) unshared, stops at maxDepth, and forgets subtrees that
 * stop repeating after two generations.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TreePool } from '../../src/util/shared-trees.js';
import { StringPool } from '../../src/util/intern.js';

/** A pod's kubelet field set with its IP in a key, as on every running pod. */
const fieldSet = (ip: string) => ({
  'f:status': {
    'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:status': {}, 'f:type': {} } },
    'f:phase': {},
    'f:podIPs': { '.': {}, [`k:{"ip":"${ip}"}`]: { '.': {}, 'f:ip': {} } },
  },
});

test('intern keeps the tree equal and shares equal subtrees between trees, frozen', () => {
  const pool = new TreePool();
  const a = pool.intern(fieldSet('10.0.0.1'));
  const b = pool.intern(fieldSet('10.0.0.2'));
  assert.equal(JSON.stringify(a), JSON.stringify(fieldSet('10.0.0.1')));
  assert.equal(JSON.stringify(b), JSON.stringify(fieldSet('10.0.0.2')));
  assert.equal(a['f:status']['f:conditions'], b['f:status']['f:conditions']);
  assert.equal(a['f:status']['f:phase'], b['f:status']['f:podIPs']['.']);
  assert.notEqual(a['f:status']['f:podIPs'], b['f:status']['f:podIPs']);
  assert.ok(Object.isFrozen(a['f:status']['f:conditions']));
  assert.throws(() => { (a['f:status']['f:conditions'] as any).x = {}; }, TypeError);
  const again = pool.intern(fieldSet('10.0.0.1'));
  assert.equal(again, a, 'a whole equal tree is the shared one');
});

test('key order, arrays and values are part of equality', () => {
  const pool = new TreePool();
  const ab = pool.intern({ x: { a: 1, b: 'two' } });
  const ba = pool.intern({ x: { b: 'two', a: 1 } });
  assert.notEqual(ab.x, ba.x);
  assert.equal(JSON.stringify(ba), '{"x":{"b":"two","a":1}}');
  const l1 = pool.intern({ l: [1, { k: null }, [true]] });
  const l2 = pool.intern({ l: [1, { k: null }, [true]] });
  const l3 = pool.intern({ l: [1, { k: false }, [true]] });
  assert.equal(l1, l2);
  assert.notEqual(l1.l, l3.l);
  assert.equal(l1.l[2], l3.l[2]);
  assert.notEqual(pool.intern({ v: '1' }), pool.intern({ v: 1 }));
  assert.notEqual(pool.intern({ v: [] }).v, pool.intern({ v: {} }).v);
});

test('what is not plain JSON is left alone, and so are its ancestors', () => {
  const pool = new TreePool();
  const bytes = new Uint8Array([1, 2]);
  const withBytes = () => ({ meta: { b: bytes, same: { x: {} } } });
  const t1 = pool.intern(withBytes());
  const t2 = pool.intern(withBytes());
  assert.notEqual(t1.meta, t2.meta);
  assert.equal(t1.meta.b, bytes);
  assert.ok(!Object.isFrozen(t1.meta));
  assert.equal(t1.meta.same, t2.meta.same, 'its plain siblings are still shared');
  const u = pool.intern({ u: undefined, k: {} });
  assert.ok(!Object.isFrozen(u) && 'u' in u);
  assert.equal(pool.intern('plain'), 'plain');
  assert.equal(pool.intern(null), null);
});

test('a frozen tree from elsewhere (the create cache\'s, shared already) is left as it is, and taken when its children are shared', () => {
  const pool = new TreePool();
  const frozen = Object.freeze({ 'f:a': Object.freeze({ x: 1 }), 'f:b': Object.freeze({ '.': Object.freeze({}) }) });
  assert.equal(pool.intern(frozen), frozen);
  assert.ok((pool as any).leftAlone.has(frozen), 'not walked again');
  assert.equal(pool.intern(frozen), frozen);
  const t = pool.intern({ outer: frozen, other: { y: {} } });
  assert.equal(t.outer, frozen);
  assert.equal(JSON.stringify(t), '{"outer":{"f:a":{"x":1},"f:b":{".":{}}},"other":{"y":{}}}');
  const leaf = pool.intern({ x: 1 });
  const parent = Object.freeze({ a: leaf });
  assert.equal(pool.intern(parent), parent);
  assert.equal(pool.intern({ a: { x: 1 } }), parent);
});

test('a tree deeper than maxDepth is left as it is (no recursion past it), and so are its ancestors', () => {
  const pool = new TreePool(32_768, 64);
  const make = () => { let deep: any = { leaf: {} }; for (let i = 0; i < 200_000; i++) deep = { d: deep }; return deep; };
  const t1 = pool.intern(make());
  const t2 = pool.intern(make());
  assert.notEqual(t1, t2);
  let n = 0;
  for (let o = t1; o.d; o = o.d) n++;
  assert.equal(n, 200_000);
  const shallow = () => ({ a: { b: { c: {} } } });
  assert.equal(pool.intern(shallow()), pool.intern(shallow()));
});

test('the pool keeps repeated subtrees across generations and forgets the others', () => {
  const pool = new TreePool(4);
  const kept = pool.intern({ repeated: { x: 1 } });
  for (let i = 0; i < 100; i++) {
    pool.intern({ [`unique-${i}`]: { y: i } });
    assert.equal(pool.intern({ repeated: { x: 1 } }), kept);
  }
  const size = ((pool as any).young.size as number) + ((pool as any).old.size as number);
  assert.ok(size <= 8, `at most two generations: ${size}`);
});

test('StringPool.internAll leaves frozen (shared) subtrees alone', () => {
  const strings = new StringPool();
  const shared = Object.freeze({ s: 'x'.repeat(3) });
  const obj = { a: shared, b: 'y' };
  assert.equal(strings.internAll(obj), obj);
  assert.equal(obj.a, shared);
});

test('internLike answers the previous shared tree when it is equal, key order included', () => {
  const pool = new TreePool();
  const prev = pool.intern(fieldSet('10.0.0.1'));
  assert.equal(pool.internLike(fieldSet('10.0.0.1'), prev), prev);
  const other = pool.internLike(fieldSet('10.0.0.2'), prev);
  assert.equal(JSON.stringify(other), JSON.stringify(fieldSet('10.0.0.2')));
  assert.equal(other['f:status']['f:conditions'], prev['f:status']['f:conditions']);
  const reordered = pool.internLike({ b: {}, a: {} }, pool.intern({ a: {}, b: {} }));
  assert.equal(JSON.stringify(reordered), '{"b":{},"a":{}}');
  const unshared = { a: {} };
  assert.notEqual(pool.internLike({ a: {} }, unshared), unshared, 'only a shared tree is taken');
});

test('two contents with one hash: the second stays unshared, equal to itself', () => {
  const pool = new TreePool();
  const a = pool.intern({ x: 1 });
  const [h] = [...(pool as any).young.keys()] as number[];
  const b = { x: 2 };
  assert.equal((pool as any).share(b, h), b);
  assert.equal((pool as any).lastHash, 0);
  assert.ok(!Object.isFrozen(b));
  assert.equal(pool.intern({ x: 1 }), a);
});

test('a node met once is pooled but not remembered as shared; met again, it is', () => {
  const pool = new TreePool();
  const hashes = (pool as any).hashes as WeakMap<object, number>;
  const first = pool.intern({ ip: { v: '10.0.0.1' }, same: { k: 'x' } });
  assert.ok(Object.isFrozen(first.ip), 'pooled, so the next equal one can share it');
  assert.ok(!hashes.has(first.ip) && !hashes.has(first.same), 'no entry for what was met once');
  const second = pool.intern({ ip: { v: '10.0.0.2' }, same: { k: 'x' } });
  assert.equal(second.same, first.same);
  assert.ok(hashes.has(first.same), 'remembered once shared');
  assert.ok(!hashes.has(second.ip));
});

test('a frozen tree handed in again as the same object (the create cache\'s) is remembered, not walked every time', () => {
  const pool = new TreePool();
  const hashes = (pool as any).hashes as WeakMap<object, number>;
  const set = Object.freeze({ 'f:spec': Object.freeze({ 'f:x': Object.freeze({ v: 1 }) }) });
  assert.equal(pool.intern(set), set);
  assert.ok(!hashes.has(set), 'met once');
  assert.equal(pool.intern(set), set);
  assert.ok(hashes.has(set), 'met again: known by its identity from now on');
});

test('freshNodes: a new object node is pooled as an equal frozen copy, the caller keeps the copy; arrays and later equal nodes are shared as before', () => {
  const pool = new TreePool(32_768, 64, { freshNodes: true });
  const mount = { name: 'kube-api-access-abcde', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' };
  // A spread-made node, as the service-account admission adds it to every container.
  const container = { name: 'c', volumeMounts: [{ ...mount }] };
  const text = JSON.stringify(container);
  const original = container.volumeMounts[0];
  const shared = pool.intern(container);
  assert.equal(JSON.stringify(shared), text, 'the same JSON, key order included');
  assert.notEqual(shared, container, 'the root is a copy');
  assert.equal(shared.volumeMounts, container.volumeMounts, 'an array is pooled itself');
  assert.notEqual(shared.volumeMounts[0], original, 'its object child was replaced by the copy');
  assert.ok(Object.isFrozen(shared) && Object.isFrozen(shared.volumeMounts[0]));
  assert.ok(!Object.isFrozen(original), 'the node it copied is left as it was');
  const again = pool.intern({ name: 'c', volumeMounts: [{ ...mount }] });
  assert.equal(again, shared, 'an equal tree is the pooled copy');
  assert.equal(new TreePool().intern(container), container, 'without freshNodes the node itself is pooled');
});

test('internString: the string values of each node pooled for the first time go through it, nodes met again do not', () => {
  const seen: string[] = [];
  const pool = new TreePool(32_768, 64, { freshNodes: true, internString: (s) => { seen.push(s); return s; } });
  const status = () => ({ name: 'c', image: 'nginx:1.27', ready: true, args: ['--x'], state: { running: { startedAt: '2026-12-06T01:00:00Z' } } });
  const a = pool.intern(status());
  assert.deepEqual(seen.sort(), ['--x', '2026-12-06T01:00:00Z', 'c', 'nginx:1.27']);
  assert.equal(JSON.stringify(a), JSON.stringify(status()));
  seen.length = 0;
  assert.equal(pool.intern(status()), a);
  assert.deepEqual(seen, [], 'an equal tree is found, not pooled again');
});

/** A pod's only container as the service-account admission leaves it: one leaf (the token volume's name) differs from pod to pod. */
const container = (volume: string) => ({
  name: 'pause', image: 'registry.k8s.io/pause:3.10', ports: [{ containerPort: 80, protocol: 'TCP' }],
  resources: { requests: { cpu: '100m', memory: '500Mi' }, limits: { cpu: '100m', memory: '500Mi' } },
  volumeMounts: [{ name: volume, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
});

test('internLike of a tree that differs from the previous one in a leaf: the same JSON, the previous tree\'s equal subtrees, the nodes intern finds', () => {
  const pool = new TreePool(32_768, 64, { freshNodes: true });
  const prev = pool.intern([container('kube-api-access-aaaaa')]);
  pool.intern([container('kube-api-access-aaaaa')]);
  const next = pool.internLike([container('kube-api-access-bbbbb')], prev);
  assert.equal(JSON.stringify(next), JSON.stringify([container('kube-api-access-bbbbb')]));
  assert.notEqual(next, prev);
  assert.equal(next[0].ports, prev[0].ports, 'an equal subtree is the previous tree\'s');
  assert.equal(next[0].resources, prev[0].resources);
  assert.notEqual(next[0].volumeMounts[0], prev[0].volumeMounts[0]);
  assert.ok(Object.isFrozen(next) && Object.isFrozen(next[0]) && Object.isFrozen(next[0].volumeMounts[0]), 'the nodes that differ are pooled');
  assert.equal(pool.intern([container('kube-api-access-bbbbb')]), next, 'intern finds what internLike pooled: the same hash');
  assert.equal(pool.internLike([container('kube-api-access-bbbbb')], prev), next, 'and internLike what it pooled itself');
  assert.equal(pool.internLike([container('kube-api-access-aaaaa')], next), prev, 'beside another tree, an equal one is still found');
});

test('internLike beside a tree of another shape, or with what is not JSON inside, keeps the tree equal and unshared where intern would', () => {
  const pool = new TreePool();
  const prev = pool.intern({ a: { x: [1, 2] }, b: { y: 'z' } });
  const longer = pool.internLike({ a: { x: [1, 2, 3] }, b: { y: 'z' }, c: {} }, prev);
  assert.equal(JSON.stringify(longer), '{"a":{"x":[1,2,3]},"b":{"y":"z"},"c":{}}');
  assert.equal(longer.b, prev.b);
  const swapped = pool.internLike({ b: { y: 'z' }, a: { x: [1, 2] } }, prev);
  assert.notEqual(swapped, prev, 'key order is part of equality');
  assert.equal(swapped.a, prev.a);
  const bytes = new Uint8Array([1]);
  const odd = pool.internLike({ a: { x: [1, 2] }, b: { y: 'z', bytes } }, prev);
  assert.equal(odd.b.bytes, bytes);
  assert.ok(!Object.isFrozen(odd) && !Object.isFrozen(odd.b), 'a node holding bytes and its ancestors stay the object\'s own');
  assert.equal(odd.a, prev.a, 'its equal siblings are still shared');
  const arrayBeside = pool.internLike([{ y: 'z' }], prev);
  assert.equal(arrayBeside[0], prev.b, 'an array beside an object is interned as intern does');
});
