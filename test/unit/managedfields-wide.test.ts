/**
 * Managed fields of wide objects (issue #19): the walk that puts an added or removed value's
 * members straight into its node, the shared subtrees of set operations and the one-parse sort of
 * keys must answer exactly as the straightforward walk, which this file keeps as the reference
 * (the comparison as it was before, path by path from the root, sorted by comparePathElements).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ConfigMap, Pod } from 'kubernetes-types/core/v1.js';
import { FieldSet, compare, typeForKind, updateManagedFields, type FieldsV1, type PathElement, type TypeNode } from '../../src/api/managedfields/index.js';
import { comparePathElements } from '../../src/api/managedfields/path.js';
import { childType, isGranularList, isGranularMap, isObject, jsonEqual, listItemElement, type JSONObject } from '../../src/api/managedfields/walk.js';
import type { ListType } from '../../src/api/managedfields/types.js';
import { withZeroValues, zeroObject } from '../../src/api/managedfields/zero.js';
import { strippedFields } from '../../src/api/managedfields/managers.js';

const now = new Date('2026-12-04T20:00:00Z');

// --- The reference: compare as the straightforward walk does it ---------------------------------

interface Comparison { added: FieldSet; modified: FieldSet; removed: FieldSet }

function referenceCompare(lhs: unknown, rhs: unknown, t: TypeNode): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  at(c, [], lhs, rhs, t);
  return c;
}

function isEmptyValue(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isObject(v) && Object.keys(v).length === 0;
}

function at(c: Comparison, path: PathElement[], lhs: unknown, rhs: unknown, t: TypeNode): void {
  if (lhs === undefined && rhs === undefined) return;
  const shape = rhs === undefined ? lhs : rhs;
  const bothEmpty = isEmptyValue(lhs) && isEmptyValue(rhs);
  if (!bothEmpty && isGranularMap(t, shape) && (lhs == null || isObject(lhs)) && (rhs == null || isObject(rhs))) {
    const l = (lhs ?? {}) as JSONObject;
    const r = (rhs ?? {}) as JSONObject;
    for (const key of new Set([...Object.keys(l), ...Object.keys(r)])) {
      path.push(`f:${key}`);
      at(c, path, Object.hasOwn(l, key) ? l[key] : undefined, Object.hasOwn(r, key) ? r[key] : undefined, childType(t, key).type);
      path.pop();
    }
  } else if (!bothEmpty && isGranularList(t) && (lhs == null || Array.isArray(lhs)) && (rhs == null || Array.isArray(rhs))) {
    referenceLists(c, path, (lhs ?? []) as unknown[], (rhs ?? []) as unknown[], t);
  } else {
    if (!path.length) return;
    if (lhs === undefined) c.added.insert(path);
    else if (rhs === undefined) c.removed.insert(path);
    else if (!jsonEqual(lhs, rhs)) c.modified.insert(path);
    return;
  }
  if (!path.length) return;
  if (lhs === undefined) c.added.insert(path);
  else if (rhs === undefined) c.removed.insert(path);
}

function referenceLists(c: Comparison, path: PathElement[], lhs: unknown[], rhs: unknown[], t: ListType): void {
  const index = (list: unknown[]) => {
    const out = new Map<PathElement, unknown[]>();
    for (const item of list) {
      const pe = listItemElement(t, item);
      out.set(pe, [...(out.get(pe) ?? []), item]);
    }
    return out;
  };
  const left = index(lhs);
  const right = index(rhs);
  for (const pe of new Set([...left.keys(), ...right.keys()])) {
    const l = left.get(pe) ?? [];
    const r = right.get(pe) ?? [];
    path.push(pe);
    if (l.length <= 1 && r.length <= 1) at(c, path, l[0], r[0], t.item);
    else if (l.length >= 2 && r.length >= 2) { if (!jsonEqual(l, r)) c.modified.insert(path); }
    else if (l.length >= 2) { if (r.length) at(c, path, undefined, r[0], t.item); c.removed.insert(path); }
    else { if (l.length) at(c, path, l[0], undefined, t.item); c.added.insert(path); }
    path.pop();
  }
}

/** FieldsV1 as the straightforward encoder writes it: fresh `{}` leaves, comparePathElements' order. */
function referenceFieldsV1(s: FieldSet, self = false): FieldsV1 {
  const out: FieldsV1 = {};
  if (self) out['.'] = {};
  for (const pe of [...new Set([...s.members, ...s.children.keys()])].sort((a, b) => comparePathElements(a, b))) {
    const child = s.children.get(pe);
    out[pe] = child ? referenceFieldsV1(child, s.members.has(pe)) : {};
  }
  return out;
}

const text = (c: Comparison, encode: (s: FieldSet) => FieldsV1) =>
  JSON.stringify({ added: encode(c.added), modified: encode(c.modified), removed: encode(c.removed) });

// --- Generators ------------------------------------------------------------------------------------

const keyArb = fc.constantFrom('a', 'b', 'c', 'constructor', 'toString', '__proto__', 'k1', 'k10', 'k2', '0', '10');
const scalarArb = fc.oneof(fc.constantFrom('', 'x', 'y'), fc.integer({ min: -2, max: 2 }), fc.boolean(), fc.constant(null));
const mapArb = fc.dictionary(keyArb, scalarArb, { maxKeys: 6 }).map((d) => JSON.parse(JSON.stringify(d)) as Record<string, unknown>);
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });

const containerArb = fc.record({
  name: fc.constantFrom('a', 'b', 'c'),
  image: maybe(fc.constantFrom('', 'busybox', 'nginx')),
  args: maybe(fc.array(fc.constantFrom('x', 'y'), { maxLength: 2 })),
  env: maybe(fc.array(fc.record({ name: fc.constantFrom('A', 'B', 'C'), value: maybe(fc.constantFrom('', '1', '2')) }, { requiredKeys: ['name'] }), { maxLength: 4 })),
  ports: maybe(fc.array(fc.record({ containerPort: fc.constantFrom(80, 443), protocol: maybe(fc.constantFrom('TCP', 'UDP')) }, { requiredKeys: ['containerPort'] }), { maxLength: 3 })),
  resources: maybe(fc.oneof(fc.constant({}), fc.record({ limits: maybe(fc.dictionary(fc.constantFrom('cpu', 'memory'), fc.constantFrom('1', '2'), { maxKeys: 2 })) }))),
}, { requiredKeys: ['name'] });

/** Pods (associative and set lists, duplicates, null, {} and [] against absent) and ConfigMap data maps. */
const podArb = fc.record({
  metadata: maybe(fc.record({ labels: maybe(fc.oneof(fc.constant(null), mapArb)), finalizers: maybe(fc.array(fc.constantFrom('x', 'y'), { maxLength: 3 })) })),
  spec: maybe(fc.oneof(fc.constant(null), fc.constant({}), fc.record({
    containers: maybe(fc.oneof(fc.constant(null), fc.array(containerArb, { maxLength: 3 }))),
    nodeSelector: maybe(fc.oneof(fc.constant(null), fc.constant({}), mapArb)),
    hostNetwork: maybe(fc.boolean()),
  }))),
}).map((p) => JSON.parse(JSON.stringify(p)) as JSONObject);

const configMapArb = fc.record({ data: maybe(fc.oneof(fc.constant(null), mapArb)), immutable: maybe(fc.boolean()) })
  .map((c) => JSON.parse(JSON.stringify(c)) as JSONObject);

// --- Tests -----------------------------------------------------------------------------------------

describe('wide managed fields: the same answers as the straightforward walk', () => {
  const cases: [string, TypeNode, fc.Arbitrary<JSONObject>][] = [
    ['Pod', typeForKind('v1/Pod'), podArb],
    ['ConfigMap', typeForKind('v1/ConfigMap'), configMapArb],
    ['a kind without a schema', typeForKind('example.com/v1/Widget'), fc.oneof(podArb, configMapArb)],
  ];
  for (const [name, type, arb] of cases) {
    it(`compare of two ${name}s, and from nothing and to nothing: the same sets, encoded byte for byte`, () => {
      fc.assert(fc.property(arb, arb, (lhs, rhs) => {
        const pairs: [unknown, unknown][] = [[lhs, rhs], [undefined, rhs], [lhs, undefined], [{}, rhs]];
        for (const [l, r] of pairs) {
          let expected: string;
          try { expected = text(referenceCompare(l, r, type), referenceFieldsV1); } catch (e) { expected = `throws ${(e as Error).message}`; }
          let actual: string;
          try { actual = text(compare(l, r, type), (s) => s.toFieldsV1()); } catch (e) { actual = `throws ${(e as Error).message}`; }
          assert.equal(actual, expected);
        }
      }), { numRuns: 400, seed: 19 });
    });
  }

  it('set operations that share subtrees answer as copies would, and leave their operands alone', () => {
    const setArb = fc.array(fc.array(fc.constantFrom('f:a', 'f:b', 'k:{"name":"x"}', 'v:"y"', 'i:0'), { minLength: 1, maxLength: 3 }), { maxLength: 8 })
      .map((paths) => FieldSet.of(...paths));
    fc.assert(fc.property(setArb, setArb, (a, b) => {
      const before = [JSON.stringify(referenceFieldsV1(a)), JSON.stringify(referenceFieldsV1(b))];
      const paths = (s: FieldSet) => new Set(s.paths().map((p) => JSON.stringify(p)));
      const pa = paths(a);
      const pb = paths(b);
      assert.deepEqual(paths(a.union(b)), new Set([...pa, ...pb]));
      assert.deepEqual(paths(a.difference(b)), new Set([...pa].filter((p) => !pb.has(p))));
      assert.deepEqual(paths(a.intersection(b)), new Set([...pa].filter((p) => pb.has(p))));
      // recursiveDifference also drops what lies below a member of b.
      const below = (p: string) => [...pb].some((q) => { const qa = JSON.parse(q) as string[]; const pp = JSON.parse(p) as string[]; return qa.length < pp.length && qa.every((e, i) => pp[i] === e); });
      assert.deepEqual(paths(a.recursiveDifference(b)), new Set([...pa].filter((p) => !pb.has(p) && !below(p))));
      assert.deepEqual([JSON.stringify(a.toFieldsV1()), JSON.stringify(b.toFieldsV1())], before);
    }), { numRuns: 400, seed: 19 });
  });

  it('a 50,000-key ConfigMap create owns every key, sorted as upstream (byte order), with one "."', () => {
    const data: Record<string, string> = {};
    for (let i = 0; i < 50_000; i++) data[`k${i}`] = 'v';
    const cm: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'wide', namespace: 'default' }, data };
    const got = updateManagedFields(undefined, cm, { kindKey: 'v1/ConfigMap', apiVersion: 'v1', manager: 'kubectl-create', now });
    const fields: FieldsV1 = { '.': {} };
    for (const k of Object.keys(data).sort((a, b) => (a < b ? -1 : 1))) fields[`f:${k}`] = {};
    const expected = [{ manager: 'kubectl-create', operation: 'Update', apiVersion: 'v1', time: '2026-12-04T20:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': fields } }];
    assert.equal(JSON.stringify(got), JSON.stringify(expected));
    // An update of one key: the creator keeps the rest, the editor owns that key.
    const live = { ...cm, metadata: { ...cm.metadata, managedFields: got } };
    const next = { ...cm, metadata: { ...cm.metadata, managedFields: got }, data: { ...data, k7: 'changed' } };
    const updated = updateManagedFields(live, next, { kindKey: 'v1/ConfigMap', apiVersion: 'v1', manager: 'kubectl-edit', now });
    const { 'f:k7': _k7, ...rest } = fields;
    assert.equal(JSON.stringify(updated), JSON.stringify([
      { ...expected[0], fieldsV1: { 'f:data': rest } },
      { manager: 'kubectl-edit', operation: 'Update', apiVersion: 'v1', time: '2026-12-04T20:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:k7': {} } } },
    ]));
  });

  it('a Pod with 2,000 env entries per container: the entry as the straightforward walk and encoder give it', () => {
    const env = Array.from({ length: 2_000 }, (_, i) => ({ name: `E${i}`, value: 'v' }));
    const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'wide', namespace: 'default' }, spec: { containers: [{ name: 'c0', image: 'busybox', env }, { name: 'c1', image: 'busybox', env }] } };
    const got = updateManagedFields(undefined, pod, { kindKey: 'v1/Pod', apiVersion: 'v1', manager: 'kubectl-create', now, ignoredFields: ['status'] });
    // As computeManagedFields sees a create: from the kind's zero object, metadata's own fields not tracked.
    const zero = zeroObject('v1/Pod');
    const { added, modified } = referenceCompare(withZeroValues({}, zero), withZeroValues({ ...pod, metadata: {} }, zero), typeForKind('v1/Pod'));
    assert.ok(modified.isEmpty());
    assert.equal(got?.length, 1);
    assert.equal(JSON.stringify(got![0].fieldsV1), JSON.stringify(referenceFieldsV1(added.difference(strippedFields))));
  });
});

describe('data keys named as Object.prototype members', () => {
  // Before: `rhs[key]` of a key only the old object had read Object.prototype's member, so the
  // removed key "constructor" counted as modified and its remover came to own it.
  it('removing the data key "constructor" takes it from its owner, and its remover owns nothing', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data: { constructor: 'x', a: 'y' } };
    const created = updateManagedFields(undefined, cm, { kindKey: 'v1/ConfigMap', apiVersion: 'v1', manager: 'a', now });
    const live = { ...cm, metadata: { ...cm.metadata, managedFields: created } };
    const next = { ...live, data: { a: 'y' } };
    const got = updateManagedFields(live, next, { kindKey: 'v1/ConfigMap', apiVersion: 'v1', manager: 'b', now: new Date('2026-12-04T20:01:00Z') });
    assert.deepEqual(got, [{ manager: 'a', operation: 'Update', apiVersion: 'v1', time: '2026-12-04T20:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } } }]);
  });
});
