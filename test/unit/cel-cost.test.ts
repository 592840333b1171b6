/**
 * The CEL cost estimator (cel-go's model over @bufbuild/cel's AST), the CRD
 * cost checks in upstream's words, the runtime meter and the bounded string
 * functions, and RE2 patterns: table-driven.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { estimateRuleCost, costErrorMessage, shapeOf } from '../../src/api/apiextensions/cel-cost.js';
import { validateSchemaCost } from '../../src/api/apiextensions/cel-cost-check.js';
import { validateRules } from '../../src/api/apiextensions/cel.js';
import { validateCRDCreate, validateCRDUpdate } from '../../src/api/apiextensions/crd-validation.js';
import { patternError, patternMatches } from '../../src/api/apiextensions/re2.js';
import { fieldErrorMessage } from '../../src/api/field-errors.js';
import type { Schema } from '../../src/api/apiextensions/types.js';
import type { CustomResourceDefinition } from 'kubernetes-types/apiextensions/v1.js';

const strings = (maxItems?: number, maxLength?: number): Schema => ({ type: 'array', maxItems, items: { type: 'string', maxLength } });
const obj = (properties: Record<string, Schema>): Schema => ({ type: 'object', properties });

describe('CEL estimated cost', () => {
  // [rule, schema of self, expected cost or [min, max] bounds]
  const table: [string, Schema, number | [number, number]][] = [
    ['self.x > 0', obj({ x: { type: 'integer' } }), 3],
    ['self.name.startsWith("a")', obj({ name: { type: 'string' } }), 3],
    ['self.name == "abc"', obj({ name: { type: 'string', maxLength: 100 } }), 3],
    ['self.name.contains("ab")', obj({ name: { type: 'string', maxLength: 100 } }), 12],
    ['self.l.all(a, a.size() < 10)', obj({ l: strings(1000, 8) }), [5000, 7000]],
    // Without maxItems, a list of strings holds (3 MiB - 2) / 3 items.
    ['self.l.all(a, a.size() < 10)', obj({ l: strings(undefined, 8) }), [6_000_000, 7_000_000]],
    // Nesting multiplies: 1,000^3 iterations.
    ['self.l.all(a, self.l.all(b, self.l.all(c, a != b || b != c || c == a)))', obj({ l: strings(1000, 8) }), [1e10, 1e11]],
    // Each replace of 'a' by ten characters can multiply the size by ten: 10 -> 10^8 characters.
    [`self.s${".replace('a','aaaaaaaaaa')".repeat(7)}.size() > 0`, obj({ s: { type: 'string', maxLength: 10 } }), [1e7, 1e8]],
    ["self.s.matches('^[a-z]+$')", obj({ s: { type: 'string', maxLength: 100 } }), [20, 40]],
    ['self.l.map(x, x + "a").size() > 2', obj({ l: strings(100, 8) }), [1000, 30_000]],
  ];
  for (const [rule, schema, want] of table) {
    it(`${rule} on ${JSON.stringify(schema).slice(0, 80)}`, () => {
      const cost = estimateRuleCost(rule, schema);
      assert.ok(cost !== undefined);
      if (typeof want === 'number') assert.equal(cost, want);
      else assert.ok(cost >= want[0] && cost <= want[1], `cost ${cost} not in [${want}]`);
    });
  }

  it('sizes come from maxLength/maxItems/maxProperties, else from the 3 MiB request limit', () => {
    assert.equal(shapeOf({ type: 'string' }).max, 3 * 1024 * 1024 - 2);
    assert.equal(shapeOf({ type: 'string', maxLength: 5 }).max, 5);
    assert.equal(shapeOf({ type: 'string', enum: ['a', 'abc'] }).max, 3);
    assert.equal(shapeOf({ type: 'array', items: { type: 'integer' } }).max, Math.floor((3 * 1024 * 1024 - 2) / 2));
    assert.equal(shapeOf({ type: 'object', additionalProperties: { type: 'string' } }).max, Math.floor((3 * 1024 * 1024 - 2) / 8));
    assert.equal(shapeOf({ type: 'object', maxProperties: 7, additionalProperties: { type: 'string' } }).max, 7);
  });

  it('words the factor as upstream: %f below 1.5x, %.1f up to 100x, then more than 100x', () => {
    assert.match(costErrorMessage('estimated rule cost', 12_000_000, 10_000_000), /^estimated rule cost exceeds budget by factor of 1\.200000x \(try simplifying/);
    assert.match(costErrorMessage('estimated rule cost', 25_000_000, 10_000_000), /by factor of 2\.5x /);
    assert.match(costErrorMessage('estimated rule cost', 2e10, 10_000_000), /by factor of more than 100x /);
  });
});

describe('CRD cost checks', () => {
  const at = 'spec.versions[0].schema.openAPIV3Schema';
  const crd = (schema: Schema): CustomResourceDefinition => ({
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'things.example.com' },
    spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'things', singular: 'thing', kind: 'Thing', listKind: 'ThingList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema as never } }] },
  });

  it('multiplies a rule by the cardinality of its node (enclosing maxItems)', () => {
    const inner = (maxItems: number): Schema => ({ type: 'object', properties: { l: { type: 'array', maxItems, items: { type: 'object', properties: { s: { type: 'string', maxLength: 10 } }, 'x-kubernetes-validations': [{ rule: 'self.s.contains("x")' }] } } } });
    assert.deepEqual(validateSchemaCost(inner(10), at), []);
    const errs = validateSchemaCost(inner(10_000_000), at).map(fieldErrorMessage);
    assert.deepEqual(errs, [`${at}.properties[l].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of 3.0x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`]);
  });

  it('sums the rules and names the most expensive when the CRD total is over 100,000,000', () => {
    const rule = { rule: 'self.l.all(a, self.l.all(b, a != b))' };
    const props: Record<string, Schema> = {};
    for (let i = 0; i < 20; i++) props[`p${i}`] = { type: 'object', properties: { l: strings(1000, 8) }, 'x-kubernetes-validations': [rule] };
    const errs = validateSchemaCost(obj(props), at).map(fieldErrorMessage);
    assert.equal(errs.filter((e) => e.includes('contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema')).length, 4);
    assert.match(errs.at(-1)!, /^spec\.versions\[0\]\.schema\.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 1\.\d+x/);
    assert.ok(!errs.some((e) => e.includes('estimated rule cost exceeds')), 'each rule alone is within its limit');
  });

  it('checks messageExpression too', () => {
    const s = obj({ l: strings(undefined, undefined) });
    s['x-kubernetes-validations'] = [{ rule: 'true', messageExpression: 'self.l.map(x, x + x).join(",")' }];
    assert.match(validateSchemaCost(s, at).map(fieldErrorMessage)[0], /x-kubernetes-validations\[0\]\.messageExpression: Forbidden: estimated messageExpression cost exceeds budget/);
  });

  it('an update that leaves a version\'s schema unchanged skips the per-rule limit (upstream ratchets it); a changed one is checked', () => {
    const expensive = obj({ l: strings(1000, 8) });
    expensive['x-kubernetes-validations'] = [{ rule: 'self.l.all(a, self.l.all(b, a != b))' }, { rule: 'self.l.all(a, self.l.all(b, self.l.all(c, a == c)))' }];
    const old = crd(expensive);
    assert.ok(validateCRDCreate(old).some((e) => e.field.endsWith('x-kubernetes-validations[1].rule') && e.type === 'FieldValueForbidden'));
    const same = crd(structuredClone(expensive));
    same.metadata!.labels = { touched: 'yes' };
    assert.ok(!validateCRDUpdate(same, old).some((e) => e.field.endsWith('x-kubernetes-validations[1].rule') && e.detail?.startsWith('estimated rule cost')));
    const changed = structuredClone(expensive);
    changed['x-kubernetes-validations']![0].rule = 'self.l.size() > 0';
    assert.ok(validateCRDUpdate(crd(changed), old).some((e) => e.field.endsWith('x-kubernetes-validations[1].rule') && e.detail?.startsWith('estimated rule cost')));
  });
});

describe('CEL runtime cost', () => {
  const listRule = (rule: string): Schema => ({ type: 'object', properties: { l: strings() }, 'x-kubernetes-validations': [{ rule }] });

  it('a call past PerCallLimit is cancelled with upstream\'s words and stops further rules', () => {
    const s = listRule('self.l.all(a, self.l.all(b, a != b || a == b))');
    s['x-kubernetes-validations']!.push({ rule: 'false' });
    const l = Array.from({ length: 2000 }, (_, i) => `v${i}`);
    const errs = validateRules(s, { l }, undefined, '').map(fieldErrorMessage);
    assert.deepEqual(errs, [`: Invalid value: "object": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.l.all(a, self.l.all(b, a != b || a == b))`]);
  });

  it('a messageExpression past PerCallLimit stops validation with upstream\'s words', () => {
    const s: Schema = { type: 'object', properties: { l: strings() }, 'x-kubernetes-validations': [{ rule: 'false', messageExpression: "self.l.all(a, self.l.all(b, a != b || a == b)) ? 'x' : 'y'" }] };
    const l = Array.from({ length: 2000 }, (_, i) => `v${i}`);
    assert.deepEqual(validateRules(s, { l }, undefined, '').map(fieldErrorMessage), [': Invalid value: "object": messageExpression evaluation failed due to: operation cancelled: actual cost limit exceeded']);
  });

  it('chained replace() is metered before it builds its result', () => {
    const rule = `self.s${".replace('a','aaaaaaaaaa')".repeat(7)}.size() > 0`;
    const started = performance.now();
    const errs = validateRules({ type: 'object', properties: { s: { type: 'string' } }, 'x-kubernetes-validations': [{ rule }] }, { s: 'aaaaaaaaaa' }, undefined, '');
    assert.match(errs[0].detail!, /operation cancelled: actual cost limit exceeded/);
    assert.ok(performance.now() - started < 1000);
  });

  // [rule, value of self.s, true when it must hold]
  const semantics: [string, string][] = [
    ["self.s.replace('a', 'bb') == 'bbbbc'", 'aac'],
    ["self.s.replace('', '-') == '-a-a-c-'", 'aac'],
    ["self.s.replace('a', 'x', 1) == 'xac'", 'aac'],
    ["self.s.replace('a', 'x', 0) == 'aac'", 'aac'],
    ["self.s.replace('a', 'x', -1) == 'xxc'", 'aac'],
    ["['a', 'b'].join('-') == 'a-b' && ['a'].join() == 'a'", ''],
    ['([1] + [2, 3]).size() == 3 && ([1] + [2])[1] == 2', ''],
    ["['x', 'y', 'z'].map(v, v + '!').join('') == 'x!y!z!'", ''],
    ["self.s.matches('^a+c$') && !self.s.matches('(?i)^A+$')", 'aac'],
  ];
  for (const [rule, s] of semantics) {
    it(`keeps CEL's meaning: ${rule}`, () => {
      assert.deepEqual(validateRules({ type: 'object', properties: { s: { type: 'string' } }, 'x-kubernetes-validations': [{ rule }] }, { s }, undefined, ''), []);
    });
  }
});

describe('RE2 patterns', () => {
  it('refuses what Go regexp refuses, in its words', () => {
    assert.equal(patternError('^(?=a)b'), 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`');
    assert.equal(patternError('(a)\\1'), 'error parsing regexp: invalid escape sequence: `\\1`');
    assert.equal(patternError('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'), undefined);
  });
  it('matches unanchored, in linear time', () => {
    assert.equal(patternMatches('b+', 'abbc'), true);
    const started = performance.now();
    assert.equal(patternMatches('^(a+)+$', `${'a'.repeat(10_000)}!`), false);
    assert.ok(performance.now() - started < 1000);
  });
});
