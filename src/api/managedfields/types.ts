/**
 * The schema shapes structured-merge-diff works with (sigs.k8s.io/structured-merge-diff
 * schema.Atom): scalars, structs and maps (granular or atomic), lists (atomic,
 * set, or map with keys), and "deduced" values for which no schema is known.
 */

/** What types.go markers and struct tags say about one field (see list-types.ts). */
export interface FieldListTags {
  listType?: string;
  listMapKeys?: string[];
  mapType?: string;
  patchStrategy?: string;
  patchMergeKey?: string;
}

export type TypeNode = ScalarType | StructType | MapType | ListType | DeducedType;

export interface ScalarType { kind: 'scalar' }

/** A struct: declared fields; `atomic` when the whole struct is one leaf (+structType=atomic). */
export interface StructType {
  kind: 'struct';
  atomic: boolean;
  /** Field types, resolved on first use (types are recursive: JSONSchemaProps). */
  field(name: string): TypeNode | undefined;
}

/** A map with arbitrary keys (labels, data): every key is a field of its own unless atomic. */
export interface MapType { kind: 'map'; atomic: boolean; value: TypeNode }

export interface ListType {
  kind: 'list';
  /** atomic: one leaf; set: items are values; map: items are identified by `keys`. */
  listType: 'atomic' | 'set' | 'map';
  keys: readonly string[];
  item: TypeNode;
}

/**
 * No schema: upstream's DeducedParseableType. Objects are granular maps of
 * deduced values, lists are atomic, everything else is a scalar.
 */
export interface DeducedType { kind: 'deduced' }

export const deduced: DeducedType = { kind: 'deduced' };
export const scalar: ScalarType = { kind: 'scalar' };
