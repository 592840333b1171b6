/**
 * An object's JSON as upstream would write it after decoding it into the Go
 * types: fields tagged omitempty are left out when they hold their zero value
 * (0, "", false for non-pointer scalars; an empty slice or map), so
 * DaemonSet status.numberUnavailable: 0 or StatefulSet readyReplicas: 0 is not
 * served, while fields without the tag (replicas, numberReady) stay. The
 * omitempty facts come from the protobuf schema table, which records the Go
 * struct tags; kinds without a schema are left as they are.
 */
import { jsonFields, type Field } from './codec.js';
import { messageTypeFor } from './envelope.js';
import { schemaPropsType, schemasInUnion, schemaUnionTypes } from './json-schema.js';

export function dropOmittedZeros(obj: any): void {
  const type = messageTypeFor(obj?.apiVersion, obj?.kind);
  if (type) dropIn(type, obj, 0);
}

const maxDepth = 100;

/**
 * A message's fields by JSON name, inline structs' fields merged in as Go's encoder merges them
 * (the outer field wins a name both have). The walk looks up the keys an object has instead of
 * trying every field of its type: a created pod has 4-8 of PodSpec's 40 fields, of Container's 25
 * and of Volume's 30 (VolumeSource's, inline), and that loop was most of this step's time on the
 * create path (bench/omitempty-cpu.ts).
 */
const byJSONName = new Map<string, ReadonlyMap<string, Field> | null>();

function fieldsByJSONName(type: string): ReadonlyMap<string, Field> | null {
  let m = byJSONName.get(type);
  if (m === undefined) {
    const fields = jsonFields(type);
    m = fields ? mergeFields(new Map(), fields, 0) : null;
    byJSONName.set(type, m);
  }
  return m;
}

function mergeFields(into: Map<string, Field>, fields: readonly Field[], depth: number): Map<string, Field> {
  const inline: Field[] = [];
  for (const f of fields) {
    if (f.inline) inline.push(f);
    else if (!into.has(f.json)) into.set(f.json, f);
  }
  for (const f of inline) {
    const nested = depth < maxDepth ? jsonFields(f.type) : null;
    if (nested) mergeFields(into, nested, depth + 1);
  }
  return into;
}

function dropIn(type: string, json: any, depth: number): void {
  // A CRD schema's items or additionalProperties: the schemas among its shapes.
  if (schemaUnionTypes.has(type)) {
    for (const s of schemasInUnion(json)) dropIn(schemaPropsType, s, depth + 1);
    return;
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json) || depth > maxDepth) return;
  const fields = fieldsByJSONName(type);
  if (!fields) return;
  for (const key of Object.keys(json)) {
    const f = fields.get(key);
    if (f === undefined) continue;
    const v = json[key];
    if (v == null) continue;
    if (f.omitZero && (v === 0 || v === '' || v === false)) delete json[key];
    else if (f.map && typeof v === 'object') {
      if (f.omitEmpty && !Array.isArray(v) && Object.keys(v).length === 0) delete json[key];
      else if (!f.scalar) for (const k of Object.keys(v)) dropIn(f.type, v[k], depth + 1);
    } else if (f.repeated && Array.isArray(v)) {
      if (f.omitEmpty && v.length === 0) delete json[key];
      else if (!f.scalar) for (const x of v) dropIn(f.type, x, depth + 1);
    } else if (!f.scalar) dropIn(f.type, v, depth + 1);
  }
}
