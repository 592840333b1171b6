/**
 * The messages of gnostic's openapiv2/OpenAPIv2.proto (package openapi.v2)
 * that a Swagger 2.0 document as k8ts writes it needs: names, numbers and
 * types only, written by hand from that file (nothing of it is vendored).
 * Each field is `number type`, or `number repeated type`; a type that starts
 * with a capital is a message of this package. proto3, as the file declares.
 */
import type protobuf from 'protobufjs';
import { lazyRequire } from '../../util/lazy-require.js';

const protobufjs = lazyRequire<typeof protobuf>('protobufjs');

type FieldSpec = `${number} ${string}`;

/** Fields shared by the four non-body parameter sub-schemas, in their order after `name`. */
const subSchemaTail = ['type string', 'format string', 'items PrimitivesItems', 'collection_format string', 'default Any', 'maximum double',
  'exclusive_maximum bool', 'minimum double', 'exclusive_minimum bool', 'max_length int64', 'min_length int64', 'pattern string',
  'max_items int64', 'min_items int64', 'unique_items bool', 'enum repeated Any', 'multiple_of double', 'vendor_extension repeated NamedAny'];

/** A non-body parameter sub-schema: required, in, description, name, [allow_empty_value], then the shared tail. */
function subSchema(allowEmptyValue: boolean): Record<string, FieldSpec> {
  const names = ['required bool', 'in string', 'description string', 'name string', ...(allowEmptyValue ? ['allow_empty_value bool'] : []), ...subSchemaTail];
  return Object.fromEntries(names.map((n, i) => { const [name, ...type] = n.split(' '); return [name, `${i + 1} ${type.join(' ')}` as FieldSpec]; }));
}

const named = (value: string): Record<string, FieldSpec> => ({ name: '1 string', value: `2 ${value}` });

export const gnosticV2Messages: Record<string, Record<string, FieldSpec>> = {
  Document: {
    swagger: '1 string', info: '2 Info', host: '3 string', base_path: '4 string', schemes: '5 repeated string', consumes: '6 repeated string',
    produces: '7 repeated string', paths: '8 Paths', definitions: '9 Definitions', security: '12 repeated SecurityRequirement',
    security_definitions: '13 SecurityDefinitions', vendor_extension: '16 repeated NamedAny',
  },
  Info: { title: '1 string', version: '2 string', description: '3 string', vendor_extension: '7 repeated NamedAny' },
  Any: { yaml: '2 string' },
  NamedAny: named('Any'),
  Paths: { vendor_extension: '1 repeated NamedAny', path: '2 repeated NamedPathItem' },
  NamedPathItem: named('PathItem'),
  PathItem: {
    _ref: '1 string', get: '2 Operation', put: '3 Operation', post: '4 Operation', delete: '5 Operation', options: '6 Operation',
    head: '7 Operation', patch: '8 Operation', parameters: '9 repeated ParametersItem', vendor_extension: '10 repeated NamedAny',
  },
  Operation: {
    tags: '1 repeated string', summary: '2 string', description: '3 string', operation_id: '5 string', produces: '6 repeated string',
    consumes: '7 repeated string', parameters: '8 repeated ParametersItem', responses: '9 Responses', schemes: '10 repeated string',
    deprecated: '11 bool', vendor_extension: '13 repeated NamedAny',
  },
  ParametersItem: { parameter: '1 Parameter', json_reference: '2 JsonReference' },
  JsonReference: { _ref: '1 string', description: '2 string' },
  Parameter: { body_parameter: '1 BodyParameter', non_body_parameter: '2 NonBodyParameter' },
  BodyParameter: { description: '1 string', name: '2 string', in: '3 string', required: '4 bool', schema: '5 Schema', vendor_extension: '6 repeated NamedAny' },
  NonBodyParameter: {
    header_parameter_sub_schema: '1 HeaderParameterSubSchema', form_data_parameter_sub_schema: '2 FormDataParameterSubSchema',
    query_parameter_sub_schema: '3 QueryParameterSubSchema', path_parameter_sub_schema: '4 PathParameterSubSchema',
  },
  HeaderParameterSubSchema: subSchema(false),
  FormDataParameterSubSchema: subSchema(true),
  QueryParameterSubSchema: subSchema(true),
  PathParameterSubSchema: subSchema(false),
  PrimitivesItems: Object.fromEntries(subSchemaTail.map((n, i) => { const [name, ...type] = n.split(' '); return [name, `${i + 1} ${type.join(' ')}` as FieldSpec]; })),
  Responses: { response_code: '1 repeated NamedResponseValue', vendor_extension: '2 repeated NamedAny' },
  NamedResponseValue: named('ResponseValue'),
  ResponseValue: { response: '1 Response', json_reference: '2 JsonReference' },
  Response: { description: '1 string', schema: '2 SchemaItem', vendor_extension: '5 repeated NamedAny' },
  SchemaItem: { schema: '1 Schema' },
  Schema: {
    _ref: '1 string', format: '2 string', title: '3 string', description: '4 string', default: '5 Any', multiple_of: '6 double',
    maximum: '7 double', exclusive_maximum: '8 bool', minimum: '9 double', exclusive_minimum: '10 bool', max_length: '11 int64',
    min_length: '12 int64', pattern: '13 string', max_items: '14 int64', min_items: '15 int64', unique_items: '16 bool',
    max_properties: '17 int64', min_properties: '18 int64', required: '19 repeated string', enum: '20 repeated Any',
    additional_properties: '21 AdditionalPropertiesItem', type: '22 TypeItem', items: '23 ItemsItem', all_of: '24 repeated Schema',
    properties: '25 Properties', discriminator: '26 string', read_only: '27 bool', example: '30 Any', vendor_extension: '31 repeated NamedAny',
  },
  AdditionalPropertiesItem: { schema: '1 Schema', boolean: '2 bool' },
  TypeItem: { value: '1 repeated string' },
  ItemsItem: { schema: '1 repeated Schema' },
  Properties: { additional_properties: '1 repeated NamedSchema' },
  Definitions: { additional_properties: '1 repeated NamedSchema' },
  NamedSchema: named('Schema'),
  SecurityDefinitions: { additional_properties: '1 repeated NamedSecurityDefinitionsItem' },
  NamedSecurityDefinitionsItem: named('SecurityDefinitionsItem'),
  SecurityDefinitionsItem: { api_key_security: '2 ApiKeySecurity' },
  ApiKeySecurity: { type: '1 string', name: '2 string', in: '3 string', description: '4 string', vendor_extension: '5 repeated NamedAny' },
  SecurityRequirement: { additional_properties: '1 repeated NamedStringArray' },
  NamedStringArray: named('StringArray'),
  StringArray: { value: '1 repeated string' },
};

let root: protobuf.Root | undefined;

/** The protobufjs Root of the table, built once: `openapi.v2.Document` and the rest. */
export function gnosticV2Root(): protobuf.Root {
  if (root) return root;
  const nested: Record<string, protobuf.IType> = {};
  for (const [name, fields] of Object.entries(gnosticV2Messages)) {
    const out: Record<string, protobuf.IField> = {};
    for (const [fname, spec] of Object.entries(fields)) {
      const parts = spec.split(' ');
      const type = parts[parts.length - 1];
      out[fname] = { id: Number(parts[0]), type, ...(parts[1] === 'repeated' ? { rule: 'repeated' } : {}) };
    }
    nested[name] = { edition: 'proto3', fields: out };
  }
  root = protobufjs().Root.fromJSON({ nested: { openapi: { nested: { v2: { nested } } } } });
  root.resolveAll();
  return root;
}
