/**
 * An object's JSON as upstream would write it after decoding it into the Go
 * types: fields tagged omitempty are left out when they hold their zero value
 * (0, "", false for non-pointer scalars; an empty slice or map), so
 * DaemonSet status.numberUnavailable: 0 or StatefulSet readyReplicas: 0 is not
 * served, while fields without the tag (replicas, numberReady) stay. The
 * omitempty facts come from the protobuf schema table, which records the Go
 * struct tags; kinds without a schema are left as they are.
 */
import { jsonFields } from './codec.js';
import { messageTypeFor } from './envelope.js';
import { schemaPropsType, schemasInUnion, schemaUnionTypes } from './json-schema.js';

export function dropOmittedZeros(obj: any): void {
  const type = messageTypeFor(obj?.apiVersion, obj?.kind);
  if (type) dropIn(type, obj, 0);
}

const maxDepth = 100;

function dropIn(type: string, json: any, depth: number): void {
  // A CRD schema's items or additionalProperties: the schemas among its shapes.
  if (schemaUnionTypes.has(type)) {
    for (const s of schemasInUnion(json)) dropIn(schemaPropsType, s, depth + 1);
    return;
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json) || depth > maxDepth) return;
  const fields = jsonFields(type);
  if (!fields) return;
  for (const f of fields) {
    if (f.inline) { dropIn(f.type, json, depth + 1); continue; }
    const v = json[f.json];
    if (v == null) continue;
    if (f.omitZero && (v === 0 || v === '' || v === false)) delete json[f.json];
    else if (f.map && typeof v === 'object') {
      if (f.omitEmpty && !Array.isArray(v) && Object.keys(v).length === 0) delete json[f.json];
      else if (!f.scalar) for (const k of Object.keys(v)) dropIn(f.type, v[k], depth + 1);
    } else if (f.repeated && Array.isArray(v)) {
      if (f.omitEmpty && v.length === 0) delete json[f.json];
      else if (!f.scalar) for (const x of v) dropIn(f.type, x, depth + 1);
    } else if (!f.scalar) dropIn(f.type, v, depth + 1);
  }
}
