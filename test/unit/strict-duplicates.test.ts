/** Duplicate fields in request bodies, as upstream's strict JSON and YAML decoding reports them. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { findDuplicateFields, strictFieldErrors } from '../../src/api/schema/index.js';
import { yamlDuplicateKeysError } from '../../src/apiserver/yaml-duplicates.js';

const dups = (text: string) => findDuplicateFields(text, JSON.parse(text));

describe('duplicate fields in JSON', () => {
  const cases: { name: string; text: string; want: string[] }[] = [
    { name: 'none', text: '{"spec":{"replicas":1},"metadata":{"name":"a"}}', want: [] },
    { name: 'a repeated spec field', text: '{"spec":{"replicas":1,"replicas":2}}', want: ['spec.replicas'] },
    { name: 'a repeated top-level field', text: '{"kind":"Pod" , "kind" :"Pod"}', want: ['kind'] },
    { name: 'inside a list item', text: '{"spec":{"containers":[{"name":"a"},{"name":"b","image":"x","image":"y"}]}}', want: ['spec.containers[1].image'] },
    { name: 'a map key', text: '{"metadata":{"labels":{"a":"1","a":"2"}}}', want: ['metadata.labels.a'] },
    { name: 'string values that look like keys are not keys', text: '{"data":{"k":"\\"x\\": 1, \\"k\\":"}}', want: [] },
    { name: 'escaped keys compare decoded', text: '{"a\\u0062":1,"ab":2}', want: ['ab'] },
    { name: 'the same key in sibling objects is fine', text: '{"a":{"x":1},"b":{"x":1}}', want: [] },
    // managedFields keys hold escaped quotes followed by colons; a key ending in a backslash still counts.
    { name: 'escaped quotes inside keys, no duplicate', text: '{"f:status":{"k:{\\"type\\":\\"Ready\\"}":{}}}', want: [] },
    { name: 'escaped quotes inside keys, then a duplicate', text: '{"k:{\\"type\\":\\"Ready\\"}":{},"x":1,"x":2}', want: ['x'] },
    { name: 'a key ending in an escaped backslash, repeated', text: '{"a\\\\":1,"a\\\\":2}', want: ['a\\'] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(dups(c.text), c.want));

  it('orders unknown and duplicate fields as the document does', () => {
    const text = '{"spec":{"foo":1,"replicas":1,"replicas":2,"bar":3}}';
    assert.deepEqual(strictFieldErrors(text, JSON.parse(text), ['spec.foo', 'spec.bar']),
      ['unknown field "spec.foo"', 'duplicate field "spec.replicas"', 'unknown field "spec.bar"']);
  });

  it('without duplicates reports the unknown fields alone', () => {
    const text = '{"spec":{"foo":1}}';
    assert.deepEqual(strictFieldErrors(text, JSON.parse(text), ['spec.foo']), ['unknown field "spec.foo"']);
  });
});

describe('duplicate keys in YAML', () => {
  it('reports go-yaml\'s error with the line of the repeated value', () => {
    const text = 'apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: 1\n  replicas: 2\n';
    assert.equal(yamlDuplicateKeysError(text), 'yaml: unmarshal errors:\n  line 5: key "replicas" already set in map');
  });
  it('reports nested duplicates before their parent\'s', () => {
    const text = 'a:\n  b: 1\n  b: 2\na: 3\n';
    assert.equal(yamlDuplicateKeysError(text), 'yaml: unmarshal errors:\n  line 3: key "b" already set in map\n  line 4: key "a" already set in map');
  });
  it('is silent without duplicates', () => {
    assert.equal(yamlDuplicateKeysError('a: 1\nb:\n- c: 1\n- c: 2\n'), undefined);
  });
});
