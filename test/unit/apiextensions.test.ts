/**
 * Custom resource schemas: structural value validation, defaulting, pruning
 * and CEL rules, and CRD validation, in upstream's words.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { validateValue } from '../../src/api/apiextensions/value-validation.js';
import { applySchemaDefaults } from '../../src/api/apiextensions/defaulting.js';
import { pruneUnknown } from '../../src/api/apiextensions/pruning.js';
import { validateRules } from '../../src/api/apiextensions/cel.js';
import { validateCRDCreate } from '../../src/api/apiextensions/crd-validation.js';
import { fieldErrorMessage } from '../../src/api/field-errors.js';
import type { Schema } from '../../src/api/apiextensions/types.js';

const schema: Schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['cronSpec'],
      'x-kubernetes-validations': [
        { rule: 'self.minReplicas <= self.replicas', message: 'replicas should be greater than or equal to minReplicas.' },
        { rule: 'self.image == oldSelf.image', message: 'image is immutable' },
      ],
      properties: {
        cronSpec: { type: 'string', pattern: '^[0-9* /]+$', minLength: 1, maxLength: 20 },
        image: { type: 'string', default: 'nginx' },
        replicas: { type: 'integer', minimum: 0, maximum: 10, default: 1 },
        minReplicas: { type: 'integer', default: 0 },
        mode: { type: 'string', enum: ['a', 'b'] },
        port: { 'x-kubernetes-int-or-string': true },
        when: { type: 'string', format: 'date-time' },
        tags: { type: 'array', maxItems: 2, minItems: 1, items: { type: 'string' } },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        note: { type: 'string', nullable: true },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
  },
};

const messages = (errs: ReturnType<typeof validateValue>) => errs.map(fieldErrorMessage);

describe('custom resource value validation', () => {
  const cases: [string, unknown, string[]][] = [
    ['valid', { cronSpec: '* * * * */5', replicas: 3 }, []],
    ['wrong type', { cronSpec: '*', replicas: 'x' }, ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"']],
    ['maximum', { cronSpec: '*', replicas: 20 }, ['spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10']],
    ['minimum', { cronSpec: '*', replicas: -1 }, ['spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0']],
    ['pattern', { cronSpec: 'abc' }, [`spec.cronSpec: Invalid value: "abc": spec.cronSpec in body should match '^[0-9* /]+$'`]],
    ['minLength', { cronSpec: '' }, ['spec.cronSpec: Invalid value: "": spec.cronSpec in body should be at least 1 chars long', `spec.cronSpec: Invalid value: "": spec.cronSpec in body should match '^[0-9* /]+$'`]],
    ['maxLength', { cronSpec: '1'.repeat(21) }, ['spec.cronSpec: Too long: may not be more than 20 bytes']],
    ['enum', { cronSpec: '*', mode: 'c' }, ['spec.mode: Unsupported value: "c": supported values: "a", "b"']],
    ['required', {}, ['spec.cronSpec: Required value']],
    ['int-or-string', { cronSpec: '*', port: 'http' }, []],
    ['int-or-string refuses a bool', { cronSpec: '*', port: true }, ['spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"']],
    ['format', { cronSpec: '*', when: 'yesterday' }, ['spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"']],
    ['maxItems', { cronSpec: '*', tags: ['a', 'b', 'c'] }, ['spec.tags: Too many: 3: must have at most 2 items']],
    ['minItems', { cronSpec: '*', tags: [] }, ['spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items']],
    ['nullable', { cronSpec: '*', note: null }, []],
    ['not nullable', { cronSpec: null }, ['spec.cronSpec: Invalid value: "null": spec.cronSpec in body must be of type string: "null"']],
    ['embedded resources need apiVersion and kind', { cronSpec: '*', template: { kind: '' } }, ['spec.template.apiVersion: Required value', 'spec.template.kind: Invalid value: "": must not be empty']],
    ['map values', { cronSpec: '*', labels: { a: 1 } }, ['spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"']],
  ];
  for (const [name, spec, want] of cases) {
    it(name, () => assert.deepEqual(messages(validateValue(schema, { spec }, '')), want));
  }
});

describe('custom resource defaulting', () => {
  it('fills absent fields, keeps given ones', () => {
    const obj: any = { spec: { cronSpec: '*', replicas: 4 } };
    applySchemaDefaults(schema, obj);
    assert.deepEqual(obj.spec, { cronSpec: '*', replicas: 4, image: 'nginx', minReplicas: 0 });
  });
  it('defaults inside a defaulted object and list items', () => {
    const s: Schema = { type: 'object', properties: { a: { type: 'object', default: {}, properties: { b: { type: 'string', default: 'x' } } }, l: { type: 'array', items: { type: 'object', properties: { c: { type: 'integer', default: 3 } } } } } };
    const obj: any = { l: [{}, { c: 1 }] };
    applySchemaDefaults(s, obj);
    assert.deepEqual(obj, { a: { b: 'x' }, l: [{ c: 3 }, { c: 1 }] });
  });
});

describe('custom resource pruning', () => {
  it('drops unknown fields and reports their paths; keeps preserved, embedded and typeMeta', () => {
    const obj: any = {
      apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a', whatever: 1 },
      spec: { cronSpec: '*', foo: 1, extra: { any: { thing: true } }, template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} }, tags: ['a'] },
      status: { x: 1 },
    };
    assert.deepEqual(pruneUnknown(schema, obj), ['spec.foo', 'status']);
    assert.deepEqual(obj.spec.extra, { any: { thing: true } });
    assert.equal(obj.spec.template.kind, 'Pod');
    assert.deepEqual(obj.metadata, { name: 'a', whatever: 1 });
  });
});

describe('CEL validation rules', () => {
  it('passes and fails with the rule message, value "object"', () => {
    assert.deepEqual(validateRules(schema, { spec: { minReplicas: 1, replicas: 2, image: 'a' } }, undefined, ''), []);
    const errs = validateRules(schema, { spec: { minReplicas: 3, replicas: 2, image: 'a' } }, undefined, '');
    assert.deepEqual(errs.map(fieldErrorMessage), ['spec: Invalid value: "object": replicas should be greater than or equal to minReplicas.']);
  });
  it('transition rules see oldSelf on update only', () => {
    const old = { spec: { minReplicas: 0, replicas: 1, image: 'a' } };
    assert.deepEqual(validateRules(schema, { spec: { minReplicas: 0, replicas: 1, image: 'b' } }, undefined, ''), []);
    const errs = validateRules(schema, { spec: { minReplicas: 0, replicas: 1, image: 'b' } }, old, '');
    assert.deepEqual(errs.map(fieldErrorMessage), ['spec: Invalid value: "object": image is immutable']);
  });
  it('uses the default message, reasons and fieldPath', () => {
    const s: Schema = { type: 'object', properties: { spec: { type: 'object', properties: { n: { type: 'integer' } }, 'x-kubernetes-validations': [
      { rule: 'self.n > 1' },
      { rule: 'has(self.m)', reason: 'FieldValueRequired', fieldPath: '.m', message: 'm is required' },
    ] } } };
    assert.deepEqual(validateRules(s, { spec: { n: 1 } }, undefined, '').map(fieldErrorMessage), [
      'spec: Invalid value: "object": failed rule: self.n > 1',
      'spec.m: Required value: m is required',
    ]);
  });
  it('messageExpression', () => {
    const s: Schema = { type: 'object', properties: { spec: { type: 'object', properties: { n: { type: 'integer' } }, 'x-kubernetes-validations': [
      { rule: 'self.n < 3', messageExpression: "'n is ' + string(self.n) + ', at most 2 allowed'" },
    ] } } };
    assert.deepEqual(validateRules(s, { spec: { n: 5 } }, undefined, '').map(fieldErrorMessage), ['spec: Invalid value: "object": n is 5, at most 2 allowed']);
  });
  it('strings extension functions', () => {
    const s: Schema = { type: 'object', properties: { name: { type: 'string', 'x-kubernetes-validations': [{ rule: "self.lowerAscii().startsWith('a')" }] } } };
    assert.deepEqual(validateRules(s, { name: 'Abc' }, undefined, ''), []);
    assert.equal(validateRules(s, { name: 'bc' }, undefined, '').length, 1);
  });
});

describe('CustomResourceDefinition validation', () => {
  const base = (): any => ({
    metadata: { name: 'crontabs.stable.example.com' },
    spec: {
      group: 'stable.example.com', scope: 'Namespaced',
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
    },
  });
  const errorsOf = (crd: any) => validateCRDCreate(crd).map(fieldErrorMessage);
  it('accepts a valid CRD', () => assert.deepEqual(errorsOf(base()), []));
  it('name, group and scope', () => {
    const crd = base();
    crd.spec.group = 'example';
    crd.spec.scope = 'Spaced';
    assert.deepEqual(errorsOf(crd), [
      'metadata.name: Invalid value: "crontabs.stable.example.com": must be spec.names.plural+"."+spec.group',
      'spec.group: Invalid value: "example": should be a domain with at least one dot',
      'spec.scope: Unsupported value: "Spaced": supported values: "Cluster", "Namespaced"',
    ]);
  });
  it('exactly one storage version', () => {
    const crd = base();
    crd.spec.versions.push({ name: 'v2', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } });
    assert.match(errorsOf(crd).join('\n'), /spec.versions: Invalid value: .*must have exactly one version marked as storage version/);
  });
  it('structural schema', () => {
    const crd = base();
    crd.spec.versions[0].schema.openAPIV3Schema = { type: 'object', properties: { spec: { properties: { a: { type: 'array' } } } } };
    assert.deepEqual(errorsOf(crd), [
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[a].items: Required value: must be specified',
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
    ]);
  });
  it('names are DNS-1035 labels, kind differs from listKind', () => {
    const crd = base();
    crd.spec.names.shortNames = ['Bad_Name'];
    crd.spec.names.listKind = 'CronTab';
    const errs = errorsOf(crd);
    assert.ok(errs.some((e) => e.startsWith('spec.names.shortNames[0]: Invalid value: "Bad_Name": a DNS-1035 label must consist of lower case')), errs.join('\n'));
    assert.ok(errs.includes('spec.names.listKind: Invalid value: "CronTab": kind and listKind may not be the same'));
  });
  it('a CEL rule that does not compile', () => {
    const crd = base();
    crd.spec.versions[0].schema.openAPIV3Schema = { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.a >' }] };
    assert.match(errorsOf(crd)[0], /^spec.versions\[0\].schema.openAPIV3Schema.x-kubernetes-validations\[0\].rule: Invalid value: "self.a >": compilation failed: /);
  });
});
