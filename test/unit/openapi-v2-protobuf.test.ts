/**
 * /openapi/v2 in gnostic's protobuf form: a tiny document against bytes
 * derived by hand from OpenAPIv2.proto's field numbers, gnostic's mapping
 * quirks (TypeItem, ItemsItem, AdditionalPropertiesItem, `_ref`, Any as YAML,
 * body and non-body parameters), and kube-openapi's Accept negotiation.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { encodeOpenAPIV2, gnosticDocument } from '../../src/apiserver/openapi/v2-protobuf.js';
import { gnosticV2Root } from '../../src/apiserver/openapi/gnostic-v2.js';
import { negotiateOpenAPIV2 } from '../../src/apiserver/negotiate.js';
import { gnosticYAML } from '../../src/apiserver/openapi/gnostic-yaml.js';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

describe('gnostic openapi.v2.Document encoding', () => {
  it('encodes a tiny document as derived by hand from the field numbers', () => {
    const doc = {
      swagger: '2.0',
      info: { title: 'T', version: 'v' },
      paths: { '/a': { get: { operationId: 'o', responses: { 200: { description: 'OK' } } } } },
      definitions: { X: { type: 'object', properties: { n: { type: 'string' } }, 'x-k': 'v' } },
    };
    const expected = hex(`
      0a 03 322e30
      12 06 0a0154 120176
      42 1e 12 1c 0a02 2f61 12 16 12 14 2a 01 6f 4a 0f 0a 0d 0a03 323030 12 06 0a 04 0a 02 4f4b
      4a 35 0a 33 0a01 58 12 2e
        b201 08 0a06 6f626a656374
        ca01 12 0a 10 0a01 6e 12 0b b201 08 0a06 737472696e67
        fa01 0b 0a03 782d6b 12 04 12 02 760a`);
    assert.equal(encodeOpenAPIV2(doc).toString('hex'), expected.toString('hex'));
  });

  it('follows gnostic\'s mapping for schemas and parameters', () => {
    const doc = {
      swagger: '2.0',
      paths: {
        '/p/{name}': {
          parameters: [{ name: 'name', in: 'path', required: true, type: 'string', uniqueItems: true, description: 'd' }],
          put: {
            parameters: [
              { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/S' } },
              { name: 'dryRun', in: 'query', type: 'string', uniqueItems: false },
            ],
            responses: { 200: { description: 'OK', schema: { $ref: '#/definitions/S' } } },
            'x-kubernetes-group-version-kind': { group: 'apps', version: 'v1', kind: 'Deployment' },
          },
        },
      },
      definitions: {
        S: {
          required: ['a'],
          properties: {
            a: { type: 'array', items: { type: 'integer', format: 'int32' } },
            m: { type: 'object', additionalProperties: { type: 'string' } },
            f: { type: 'object', additionalProperties: false },
            e: { type: 'string', enum: ['One', 'Two'], default: 'One' },
          },
        },
      },
    };
    const Document = gnosticV2Root().lookupType('openapi.v2.Document');
    const msg = Document.toObject(Document.decode(encodeOpenAPIV2(doc))) as any;
    const item = msg.paths.path[0].value;
    assert.deepEqual(item.parameters[0].parameter.non_body_parameter.path_parameter_sub_schema,
      { required: true, in: 'path', description: 'd', name: 'name', type: 'string', unique_items: true });
    const [body, query] = item.put.parameters.map((p: any) => p.parameter);
    assert.deepEqual(body.body_parameter, { name: 'body', in: 'body', required: true, schema: { _ref: '#/definitions/S' } });
    assert.deepEqual(query.non_body_parameter.query_parameter_sub_schema, { name: 'dryRun', in: 'query', type: 'string' });
    assert.deepEqual(item.put.responses.response_code[0], { name: '200', value: { response: { description: 'OK', schema: { schema: { _ref: '#/definitions/S' } } } } });
    assert.equal(item.put.vendor_extension[0].name, 'x-kubernetes-group-version-kind');
    assert.deepEqual(parse(item.put.vendor_extension[0].value.yaml), { group: 'apps', version: 'v1', kind: 'Deployment' });
    const s = msg.definitions.additional_properties[0].value;
    assert.deepEqual(s.required, ['a']);
    const props = Object.fromEntries(s.properties.additional_properties.map((p: any) => [p.name, p.value]));
    assert.deepEqual(props.a.items, { schema: [{ type: { value: ['integer'] }, format: 'int32' }] });
    assert.deepEqual(props.m.additional_properties, { schema: { type: { value: ['string'] } } });
    // A false boolean is its oneof case, still set (gnostic writes it).
    assert.deepEqual(gnosticDocument({ definitions: { F: { additionalProperties: false } } }).definitions.additional_properties[0].value.additional_properties, { boolean: false });
    assert.deepEqual(props.e.enum.map((a: any) => parse(a.yaml)), ['One', 'Two']);
    assert.equal(parse(props.e.default.yaml), 'One');
  });
});

describe('the YAML of gnostic\'s Any', () => {
  it('lays values out as yaml.v3 marshals them', () => {
    assert.equal(gnosticYAML('v'), 'v\n');
    assert.equal(gnosticYAML('true'), '"true"\n');
    assert.equal(gnosticYAML(3), '3\n');
    assert.equal(gnosticYAML({ group: '', version: 'v1', kind: 'Pod' }), 'group: ""\nversion: v1\nkind: Pod\n');
    assert.equal(gnosticYAML([{ group: 'apps', kind: 'Deployment' }]), '-   group: apps\n    kind: Deployment\n');
    assert.equal(gnosticYAML({ a: ['x', { b: 1, c: [2] }], d: {}, e: [] }), 'a:\n    - x\n    -   b: 1\n        c:\n            - 2\nd: {}\ne: []\n');
    const nested = { a: ['x', { b: 1, c: [2, 'two\nlines'] }], d: {}, e: [], 'k: v': 'a: b' };
    assert.deepEqual(parse(gnosticYAML(nested)), nested);
  });
});

describe('/openapi/v2 Accept negotiation', () => {
  const cases: [string | undefined, string | undefined][] = [
    [undefined, 'json'],
    ['', 'json'],
    ['*/*', 'json'],
    ['application/*', 'json'],
    ['application/json', 'json'],
    ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'protobuf'],
    ['application/com.github.proto-openapi.spec.v2.v1.0+protobuf', 'protobuf'],
    ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf, application/json', 'protobuf'],
    ['application/json;q=0.9, application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'protobuf'],
    ['*/*, application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'protobuf'],
    ['application/xml', undefined],
    ['application/com.github.proto-openapi.spec.v3@v1.0+protobuf', undefined],
    ['application/json;q=0', undefined],
  ];
  for (const [accept, want] of cases) it(`${accept ?? '(none)'} → ${want ?? '406'}`, () => assert.equal(negotiateOpenAPIV2(accept), want));
});
