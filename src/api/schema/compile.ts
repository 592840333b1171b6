/**
 * Compiles OpenAPI definitions into small decoder trees that the field
 * checks walk without looking at schema objects again: one tree node per
 * definition, shared by every kind that reaches it, built on first use.
 */
import { definitionNameFor, openapiDefinitions, refName, type OpenAPISchema } from './definitions.js';

/** What a JSON value decodes into, as upstream's Go types see it. */
export type DecodeNode =
  | StructNode
  | { kind: 'map'; goType: string; value: DecodeNode }
  | { kind: 'array'; goType: string; items: DecodeNode }
  | { kind: 'string' | 'integer' | 'number' | 'boolean'; goType: string }
  /** Custom JSON unmarshalers: metav1.Time, resource.Quantity, intstr.IntOrString. */
  | { kind: 'time' | 'quantity' | 'intOrString'; goType: string }
  /** Anything goes: RawExtension, FieldsV1, x-kubernetes-preserve-unknown-fields. */
  | { kind: 'any' };

export interface StructNode {
  kind: 'struct';
  /** The Go struct's name as errors print it: `PodSpec`. */
  name: string;
  /** `v1.PodSpec`. */
  goType: string;
  fields: Map<string, DecodeNode>;
}

const ANY: DecodeNode = { kind: 'any' };

const customUnmarshalers: Record<string, DecodeNode> = {
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': { kind: 'time', goType: 'string' },
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': { kind: 'time', goType: 'string' },
  'io.k8s.apimachinery.pkg.api.resource.Quantity': { kind: 'quantity', goType: 'resource.Quantity' },
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { kind: 'intOrString', goType: 'int32' },
};

const byName = new Map<string, DecodeNode>();

/** The decoder tree for a kind key (`apps/v1/DaemonSet`) or definition name; undefined if unknown. */
export function decodeTreeFor(key: string): DecodeNode | undefined {
  const name = definitionNameFor(key);
  return name === undefined ? undefined : named(name);
}

function named(name: string): DecodeNode {
  const cached = byName.get(name);
  if (cached) return cached;
  const custom = customUnmarshalers[name];
  if (custom) {
    byName.set(name, custom);
    return custom;
  }
  const schema = openapiDefinitions()[name];
  if (!schema) return ANY;
  if (!isStruct(schema)) {
    const node = compile(schema, name);
    byName.set(name, node);
    return node;
  }
  // Register before filling in the fields, so recursive types terminate.
  const node: StructNode = { kind: 'struct', name: shortName(name), goType: goTypeName(name), fields: new Map() };
  byName.set(name, node);
  for (const [field, sub] of Object.entries(schema.properties ?? {})) node.fields.set(field, compile(sub, `${name}.${field}`));
  return node;
}

/** An object with declared fields that rejects others (a Go struct). */
function isStruct(s: OpenAPISchema): boolean {
  return s.type === 'object' && !!s.properties && !s.additionalProperties && !s['x-kubernetes-preserve-unknown-fields'];
}

function compile(s: OpenAPISchema, where: string): DecodeNode {
  if (s.$ref) return named(refName(s.$ref));
  if (s.allOf?.length === 1 && !s.type) return compile(s.allOf[0], where);
  if (s['x-kubernetes-preserve-unknown-fields']) return ANY;
  switch (s.type) {
    case 'object': {
      if (s.additionalProperties) {
        const value = compile(s.additionalProperties, where);
        return { kind: 'map', goType: `map[string]${goTypeOf(value)}`, value };
      }
      if (!s.properties) return ANY;
      const node: StructNode = { kind: 'struct', name: shortName(where), goType: goTypeName(where), fields: new Map() };
      for (const [field, sub] of Object.entries(s.properties)) node.fields.set(field, compile(sub, `${where}.${field}`));
      return node;
    }
    case 'array': {
      const items = s.items ? compile(s.items, where) : ANY;
      return { kind: 'array', goType: `[]${goTypeOf(items)}`, items };
    }
    case 'string': return { kind: 'string', goType: 'string' };
    // Every served integer says int32 or int64 (scripts/gen-openapi.mjs); without one, take the wider
    // type, so definitions generated before formats existed never refuse a valid int64.
    case 'integer': return { kind: 'integer', goType: s.format === 'int32' ? 'int32' : 'int64' };
    case 'number': return { kind: 'number', goType: 'float64' };
    case 'boolean': return { kind: 'boolean', goType: 'bool' };
    default: return ANY;
  }
}

export function goTypeOf(node: DecodeNode): string {
  return node.kind === 'any' ? 'interface {}' : node.goType;
}

/** `io.k8s.api.core.v1.PodSpec` -> `PodSpec`. */
function shortName(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

/** `io.k8s.api.core.v1.PodSpec` -> `v1.PodSpec`, `io.k8s.apimachinery.pkg.runtime.RawExtension` -> `runtime.RawExtension`. */
function goTypeName(name: string): string {
  const parts = name.split('.');
  return parts.slice(-2).join('.');
}
