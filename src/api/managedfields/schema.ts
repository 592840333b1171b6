/**
 * The structured-merge-diff type of a kind, read from the served OpenAPI
 * definitions (generated/openapi-defs.json) and the list/map markers of the
 * upstream types (list-types.ts), the way kube-openapi's schemaconv turns
 * upstream's OpenAPI into SMD schemas:
 *  - x-kubernetes-list-type atomic|set|map (+listMapKeys) decides a list;
 *    without it, patchStrategy merge makes a set, or with a patchMergeKey a
 *    map keyed by it; any other list is atomic;
 *  - x-kubernetes-map-type (or +structType) atomic makes a map or struct one leaf;
 *  - Time, Quantity and IntOrString are scalars; RawExtension and
 *    x-kubernetes-preserve-unknown-fields are deduced.
 * `typeForKind` is the one lookup: kinds without a schema (custom resources
 * until their CRD schema is plugged in with `setSchemaSource`) get the
 * deduced type.
 */
import { definitionNameFor, openapiDefinitions, refName, type OpenAPISchema } from '../schema/definitions.js';
import { atomicDefinitions, fieldTags } from './list-types.js';
import { deduced, scalar, type FieldListTags, type TypeNode } from './types.js';

const scalarDefinitions = new Set([
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time',
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime',
  'io.k8s.apimachinery.pkg.api.resource.Quantity',
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
]);

const deducedDefinitions = new Set([
  'io.k8s.apimachinery.pkg.runtime.RawExtension',
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1',
]);

/** Another source of schemas (CRDs); returns undefined for kinds it does not know. */
export type SchemaSource = (kindKey: string) => TypeNode | undefined;

let extraSource: SchemaSource | undefined;

/** Plugs in schemas for kinds the built-in OpenAPI does not describe (custom resources). */
export function setSchemaSource(source: SchemaSource | undefined): void {
  extraSource = source;
}

const byDefinition = new Map<string, TypeNode>();

/** The SMD type of a kind key (`apps/v1/Deployment`, `v1/ConfigMap`); deduced when unknown. */
export function typeForKind(kindKey: string): TypeNode {
  const name = definitionNameFor(kindKey);
  if (name !== undefined) return named(name);
  return extraSource?.(kindKey) ?? deduced;
}

function named(name: string, atomicOverride = false): TypeNode {
  if (scalarDefinitions.has(name)) return scalar;
  if (deducedDefinitions.has(name)) return deduced;
  const key = atomicOverride ? `${name}#atomic` : name;
  const cached = byDefinition.get(key);
  if (cached) return cached;
  const schema = openapiDefinitions()[name];
  const node = schema ? fromSchema(schema, name, {}, atomicOverride) : deduced;
  byDefinition.set(key, node);
  return node;
}

/** The referenced definition of `{$ref}` or `{allOf: [{$ref}]}`. */
function refOf(schema: OpenAPISchema): string | undefined {
  if (schema.$ref) return refName(schema.$ref);
  const first = schema.allOf?.[0];
  return first?.$ref ? refName(first.$ref) : undefined;
}

function fromSchema(schema: OpenAPISchema, definition: string | undefined, tags: FieldListTags, atomic = false): TypeNode {
  const ref = refOf(schema);
  if (ref) return named(ref, atomic || tags.mapType === 'atomic');
  if (schema['x-kubernetes-preserve-unknown-fields'] || schema['x-kubernetes-int-or-string']) {
    return schema['x-kubernetes-int-or-string'] ? scalar : deduced;
  }
  if (schema.type === 'array') return listFrom(schema, tags);
  if (schema.properties) return structFrom(schema, definition, atomic || tags.mapType === 'atomic');
  if (schema.type === 'object' && schema.additionalProperties) {
    return { kind: 'map', atomic: atomic || tags.mapType === 'atomic', value: fromSchema(schema.additionalProperties, undefined, {}) };
  }
  if (schema.type === 'object') return deduced;
  return scalar;
}

function listFrom(schema: OpenAPISchema, tags: FieldListTags): TypeNode {
  const item = schema.items ? fromSchema(schema.items, undefined, {}) : deduced;
  const merge = tags.patchStrategy?.split(',').includes('merge');
  if (tags.listType === 'map') return { kind: 'list', listType: 'map', keys: tags.listMapKeys ?? [], item };
  if (tags.listType === 'set') return { kind: 'list', listType: 'set', keys: [], item };
  if (tags.listType === 'atomic' || !merge) return { kind: 'list', listType: 'atomic', keys: [], item };
  if (tags.patchMergeKey) return { kind: 'list', listType: 'map', keys: [tags.patchMergeKey], item };
  return { kind: 'list', listType: 'set', keys: [], item };
}

function structFrom(schema: OpenAPISchema, definition: string | undefined, atomic: boolean): TypeNode {
  const props = schema.properties ?? {};
  const tags = (definition && fieldTags[definition]) || {};
  const fields = new Map<string, TypeNode>();
  return {
    kind: 'struct',
    atomic: atomic || (definition !== undefined && atomicDefinitions.has(definition)),
    field(name: string): TypeNode | undefined {
      const known = fields.get(name);
      if (known) return known;
      if (!Object.hasOwn(props, name)) return undefined;
      const node = fromSchema(props[name], undefined, tags[name] ?? {});
      fields.set(name, node);
      return node;
    },
  };
}
