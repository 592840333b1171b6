/**
 * /openapi/v2 in protobuf: the Swagger 2.0 document as gnostic's
 * openapi.v2.Document message, the bytes kube-openapi's ToProtoBinary makes
 * (gnostic's ParseDocument, then proto.Marshal) and client-go's
 * OpenAPISchema() asks for. Gnostic's mapping: `$ref` is `_ref`, `type` a
 * TypeItem, `items` an ItemsItem, `additionalProperties` a schema-or-boolean,
 * maps are repeated Named* pairs in document order, a parameter is body or one
 * of four non-body sub-schemas by its `in`, and every free-form value
 * (`x-*` extensions, enum, default, example) is an Any holding its YAML text.
 * Proto3: zero scalars are left out, as Go's Marshal leaves them out.
 */
import { gnosticV2Root } from './gnostic-v2.js';
import { gnosticYAML } from './gnostic-yaml.js';

type Json = Record<string, any>;

/** camelCase JSON key to the proto field name (`operationId` → `operation_id`). */
const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A free-form value as gnostic's Any: its YAML text. */
const any = (v: unknown) => ({ yaml: gnosticYAML(v) });

/** The `x-*` keys of a JSON object as gnostic's vendor extensions. */
function extensions(o: Json): Json[] | undefined {
  const ext = Object.entries(o).filter(([k]) => k.startsWith('x-')).map(([name, v]) => ({ name, value: any(v) }));
  return ext.length ? ext : undefined;
}

/** The fields of `o` the message `type` has under their snake_case names, zero values left out; `special` converts the rest. */
function fields(type: string, o: Json, special: Record<string, (v: any) => unknown> = {}): Json {
  const known = gnosticV2Root().lookupType(`openapi.v2.${type}`).fields;
  const out: Json = {};
  for (const [k, v] of Object.entries(o)) {
    const name = k === '$ref' ? '_ref' : snake(k);
    if (special[k]) out[name] = special[k](v);
    else if (known[name] && v !== '' && v !== false && v !== null && !(Array.isArray(v) && !v.length)) out[name] = v;
  }
  const ext = extensions(o);
  if (ext && known.vendor_extension) out.vendor_extension = ext;
  return out;
}

function schema(s: Json): Json {
  return fields('Schema', s, {
    type: (t) => ({ value: Array.isArray(t) ? t : [t] }),
    items: (i) => ({ schema: (Array.isArray(i) ? i : [i]).map(schema) }),
    additionalProperties: (a) => (typeof a === 'boolean' ? { boolean: a } : { schema: schema(a) }),
    allOf: (l: Json[]) => l.map(schema),
    properties: (p: Json) => ({ additional_properties: Object.entries(p).map(([name, v]) => ({ name, value: schema(v) })) }),
    enum: (l: unknown[]) => l.map(any),
    default: any,
    example: any,
  });
}

const subSchemaOf: Record<string, string> = {
  header: 'header_parameter_sub_schema', formData: 'form_data_parameter_sub_schema',
  query: 'query_parameter_sub_schema', path: 'path_parameter_sub_schema',
};
const subSchemaType: Record<string, string> = { header: 'HeaderParameterSubSchema', formData: 'FormDataParameterSubSchema', query: 'QueryParameterSubSchema', path: 'PathParameterSubSchema' };

function parameter(p: Json): Json {
  if (p.$ref) return { json_reference: { _ref: p.$ref } };
  if (p.in === 'body') return { parameter: { body_parameter: fields('BodyParameter', p, { schema }) } };
  const sub = fields(subSchemaType[p.in], p, { enum: (l: unknown[]) => l.map(any), default: any });
  return { parameter: { non_body_parameter: { [subSchemaOf[p.in]]: sub } } };
}

function operation(op: Json): Json {
  return fields('Operation', op, {
    parameters: (l: Json[]) => l.map(parameter),
    responses: (r: Json) => ({
      response_code: Object.entries(r).filter(([code]) => !code.startsWith('x-')).map(([name, v]) => ({
        name,
        value: { response: fields('Response', v, { schema: (s) => ({ schema: schema(s) }) }) },
      })),
    }),
  });
}

function pathItem(item: Json): Json {
  const ops = Object.fromEntries(['get', 'put', 'post', 'delete', 'options', 'head', 'patch'].map((m) => [m, (o: Json) => operation(o)]));
  return fields('PathItem', item, { ...ops, parameters: (l: Json[]) => l.map(parameter) });
}

/** A Swagger 2.0 document (parsed JSON) as the openapi.v2.Document object protobufjs encodes. */
export function gnosticDocument(doc: Json): Json {
  return fields('Document', doc, {
    info: (i) => fields('Info', i),
    paths: (p: Json) => ({
      path: Object.entries(p).filter(([k]) => !k.startsWith('x-')).map(([name, v]) => ({ name, value: pathItem(v) })),
      ...(extensions(p) ? { vendor_extension: extensions(p) } : {}),
    }),
    definitions: (d: Json) => ({ additional_properties: Object.entries(d).map(([name, v]) => ({ name, value: schema(v) })) }),
    securityDefinitions: (d: Json) => ({
      additional_properties: Object.entries(d).map(([name, v]) => ({ name, value: { api_key_security: fields('ApiKeySecurity', v) } })),
    }),
    security: (l: Json[]) => l.map((req) => ({ additional_properties: Object.entries(req).map(([name, v]) => ({ name, value: { value: v } })) })),
  });
}

/** The protobuf bytes of a Swagger 2.0 document. */
export function encodeOpenAPIV2(doc: Json): Buffer {
  const type = gnosticV2Root().lookupType('openapi.v2.Document');
  return Buffer.from(type.encode(type.fromObject(gnosticDocument(doc))).finish());
}
