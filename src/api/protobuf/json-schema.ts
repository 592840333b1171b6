/**
 * apiextensions.k8s.io/v1's schema types with their own JSON form
 * (apiextensions-apiserver pkg/apis/apiextensions/v1 marshal.go): a JSON
 * message is raw bytes holding JSON text (default, enum, example), and the
 * "or" messages are either of two JSON shapes — items a schema or a list of
 * schemas, additionalProperties/additionalItems a schema or a bool,
 * dependencies a schema or a list of property names.
 */
const pkg = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';
export const jsonValueType = `${pkg}.JSON`;
export const schemaPropsType = `${pkg}.JSONSchemaProps`;
const orArrayType = `${pkg}.JSONSchemaPropsOrArray`;
const orBoolType = `${pkg}.JSONSchemaPropsOrBool`;
const orStringArrayType = `${pkg}.JSONSchemaPropsOrStringArray`;

/** The "or" messages: their JSON is a JSONSchemaProps object, or a list (of schemas or names), or a bool. */
export const schemaUnionTypes = new Set([orArrayType, orBoolType, orStringArrayType]);

type ToJSON = (msg: any) => unknown;
type FromJSON = (json: unknown) => unknown;

/** The JSON form of a decoded "or" message, as its MarshalJSON writes it; `schema` converts a JSONSchemaProps. */
export function schemaUnionToJSON(type: string, msg: any, schema: ToJSON): unknown {
  switch (type) {
    case orArrayType:
      return msg.jSONSchemas?.length ? msg.jSONSchemas.map(schema) : msg.schema ? schema(msg.schema) : null;
    case orBoolType:
      return msg.schema ? schema(msg.schema) : !!msg.allows;
    default:
      return msg.property?.length ? [...msg.property] : msg.schema ? schema(msg.schema) : null;
  }
}

/** The message protobufjs encodes for an "or" type's JSON, as its UnmarshalJSON reads it (an object is a schema). */
export function schemaUnionFromJSON(type: string, json: unknown, schema: FromJSON): unknown {
  const isSchema = json !== null && typeof json === 'object' && !Array.isArray(json);
  switch (type) {
    case orArrayType:
      return isSchema ? { schema: schema(json) } : Array.isArray(json) ? { jSONSchemas: json.map(schema) } : {};
    case orBoolType:
      // A schema allows, as upstream's UnmarshalJSON sets Allows beside it.
      return isSchema ? { allows: true, schema: schema(json) } : { allows: json === true };
    default:
      return isSchema ? { schema: schema(json) } : Array.isArray(json) ? { property: json.map(String) } : {};
  }
}

/** The JSONSchemaProps inside an "or" type's JSON, for walks that descend into schemas (omitempty). */
export function schemasInUnion(json: unknown): unknown[] {
  if (Array.isArray(json)) return json;
  return json !== null && typeof json === 'object' ? [json] : [];
}
