/**
 * /openapi/v2: one Swagger 2.0 document for every served group-version, as
 * kube-apiserver 1.32 serves it, built from the same paths and definitions
 * as the /openapi/v3 documents and converted to v2's shapes: body
 * parameters instead of requestBody, `consumes`/`produces` instead of
 * content maps, `#/definitions/` references, a description beside a `$ref`
 * instead of a one-element allOf, IntOrString and Quantity as strings
 * (IntOrString with `format: int-or-string`). Built once, on first request.
 *
 * The same document is also served in protobuf (gnostic's message, see
 * v2-protobuf.ts), encoded from the JSON text on first request for it, under
 * the JSON form's ETag as kube-openapi does (the response varies by Accept).
 */
import { createHash } from 'node:crypto';
import { openapiDefinitions, reachableDefinitions, REF_PREFIX, type OpenAPISchema } from '../../api/schema/index.js';
import { buildPaths, documentedResources, type PathItem } from './paths.js';
import { openapiGroupVersions } from './index.js';
import { encodeOpenAPIV2 } from './v2-protobuf.js';
import { atomicDefinitions, fieldTags } from '../../api/managedfields/list-types.js';

const V2_PREFIX = '#/definitions/';
const KUBERNETES_VERSION = 'v1.32.0';
const objectTypes = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
const watchTypes = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch'];
const patchTypes = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'];

let cached: { body: string; etag: string } | undefined;
let cachedProtobuf: Buffer | undefined;

/** /openapi/v2 as gnostic's openapi.v2.Document, and the JSON form's ETag. */
export function openapiV2Protobuf(): { body: Buffer; etag: string } {
  const json = openapiV2Document();
  cachedProtobuf ??= encodeOpenAPIV2(JSON.parse(json.body));
  return { body: cachedProtobuf, etag: json.etag };
}

/** The JSON text of /openapi/v2 and its ETag. */
export function openapiV2Document(): { body: string; etag: string } {
  if (!cached) {
    const paths: Record<string, unknown> = {};
    const refs = new Set<string>();
    for (const gv of openapiGroupVersions()) {
      const built = buildPaths(gv, documentedResources);
      for (const r of built.refs) refs.add(r);
      for (const [path, item] of Object.entries(built.paths)) paths[path] = pathItem(item);
    }
    const defs = openapiDefinitions();
    const definitions: Record<string, unknown> = {};
    for (const name of reachableDefinitions(refs)) definitions[name] = withListTags(name, schema(defs[name]));
    const doc = {
      swagger: '2.0',
      info: { title: 'Kubernetes', version: KUBERNETES_VERSION },
      paths: Object.fromEntries(Object.keys(paths).sort().map((p) => [p, paths[p]])),
      definitions,
      securityDefinitions: { BearerToken: { description: 'Bearer Token authentication', type: 'apiKey', name: 'authorization', in: 'header' } },
      security: [{ BearerToken: [] }],
    };
    const body = JSON.stringify(doc);
    cached = { body, etag: `"${createHash('sha512').update(body).digest('hex').toUpperCase()}"` };
  }
  return cached;
}

function pathItem(item: PathItem): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const method of ['get', 'put', 'post', 'patch', 'delete'] as const) {
    const op = item[method] as Record<string, any> | undefined;
    if (op) out[method] = operation(method, op);
  }
  out.parameters = item.parameters.map(parameter);
  return out;
}

function operation(method: string, op: Record<string, any>): Record<string, unknown> {
  const { requestBody, responses, parameters, ...rest } = op;
  const params = (parameters ?? []).map(parameter);
  if (requestBody) params.unshift({ name: 'body', in: 'body', required: true, schema: ref(requestBody.content['*/*'].schema) });
  const watch = op['x-kubernetes-action'] === 'list';
  const out: Record<string, unknown> = {
    description: rest.description,
    consumes: method === 'patch' ? patchTypes : ['*/*'],
    produces: watch ? watchTypes : objectTypes,
    schemes: ['https'],
    tags: rest.tags,
    operationId: rest.operationId,
  };
  if (params.length) out.parameters = params;
  const res: Record<string, unknown> = {};
  for (const [code, r] of Object.entries<any>(responses)) {
    const schemaOf = r.content?.['application/json']?.schema;
    res[code] = schemaOf ? { description: r.description, schema: ref(schemaOf) } : { description: r.description };
  }
  out.responses = res;
  for (const [k, v] of Object.entries(rest)) if (k.startsWith('x-')) out[k] = v;
  return out;
}

/** A v3 parameter (`schema: {type, uniqueItems}`) as v2 writes it (type beside the name). */
function parameter(p: { name: string; in: string; description: string; required?: boolean; schema: { type: string; uniqueItems: boolean } }): Record<string, unknown> {
  return { uniqueItems: p.schema.uniqueItems, type: p.schema.type, description: p.description, name: p.name, in: p.in, ...(p.required ? { required: true } : {}) };
}

const ref = (s: { $ref: string }) => ({ $ref: V2_PREFIX + s.$ref.slice(REF_PREFIX.length) });

/** A definition in v2's words. */
function schema(s: OpenAPISchema): any {
  if (s['x-kubernetes-int-or-string']) return { description: s.description, type: 'string', format: 'int-or-string' };
  // Quantity is a number or a string in v3 (oneOf); v2 says string, as upstream's swagger.json does.
  if (s.oneOf) { const { oneOf: _oneOf, ...rest } = s; return { ...rest, type: 'string' }; }
  const out: Record<string, any> = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === '$ref') out.$ref = V2_PREFIX + String(v).slice(REF_PREFIX.length);
    else if (k === 'allOf' && Array.isArray(v) && v.length === 1 && v[0].$ref) out.$ref = V2_PREFIX + v[0].$ref.slice(REF_PREFIX.length);
    else if (k === 'properties') out.properties = Object.fromEntries(Object.entries(v as Record<string, OpenAPISchema>).map(([n, p]) => [n, schema(p)]));
    else if (k === 'items' || k === 'additionalProperties') out[k] = typeof v === 'object' ? schema(v as OpenAPISchema) : v;
    else out[k] = v;
  }
  return out;
}

/**
 * Upstream's list, map and patch markers on a definition's properties, as
 * swagger.json carries them: kubectl's client-side apply reads
 * x-kubernetes-patch-strategy / -patch-merge-key from this document to merge
 * lists such as containers by name instead of replacing them.
 */
function withListTags(name: string, def: Record<string, any>): Record<string, any> {
  if (atomicDefinitions.has(name)) def['x-kubernetes-map-type'] = 'atomic';
  const tags = fieldTags[name];
  if (!tags || !def.properties) return def;
  for (const [field, t] of Object.entries(tags)) {
    const prop = def.properties[field];
    if (!prop) continue;
    if (t.listMapKeys) prop['x-kubernetes-list-map-keys'] = t.listMapKeys;
    if (t.listType) prop['x-kubernetes-list-type'] = t.listType;
    if (t.mapType) prop['x-kubernetes-map-type'] = t.mapType;
    if (t.patchMergeKey) prop['x-kubernetes-patch-merge-key'] = t.patchMergeKey;
    if (t.patchStrategy) prop['x-kubernetes-patch-strategy'] = t.patchStrategy;
  }
  return def;
}
