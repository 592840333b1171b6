/**
 * Structural defaulting (upstream apiextensions-apiserver pkg/apiserver/schema/defaulting):
 * a property with `default` that is absent from its object gets the default;
 * defaults apply inside the default too, and to items and map values.
 * `nullable: false` fields holding null are defaulted as if absent.
 */
import { additionalSchema, isObject, type Schema } from './types.js';

export function applySchemaDefaults(s: Schema, v: unknown): void {
  if (Array.isArray(v)) {
    if (s.items) for (const x of v) applySchemaDefaults(s.items, x);
    return;
  }
  if (!isObject(v)) return;
  for (const [k, sub] of Object.entries(s.properties ?? {})) {
    if (sub.default !== undefined && (!(k in v) || (v[k] === null && !sub.nullable))) v[k] = structuredClone(sub.default);
    if (k in v) applySchemaDefaults(sub, v[k]);
  }
  const extra = additionalSchema(s);
  if (extra) for (const x of Object.values(v)) applySchemaDefaults(extra, x);
}
