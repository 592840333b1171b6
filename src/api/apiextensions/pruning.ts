/**
 * Pruning (upstream pkg/apiserver/schema/pruning): fields the structural
 * schema does not specify are dropped, except under
 * x-kubernetes-preserve-unknown-fields. apiVersion, kind and metadata of the
 * root and of embedded resources are kept (metadata is ObjectMeta, pruned as
 * such). Returns the dropped paths, as strict field validation reports them
 * (`spec.foo`, `spec.list[0].bar`).
 */
import { additionalSchema, isObject, type Schema } from './types.js';

const typeMeta = new Set(['apiVersion', 'kind', 'metadata']);

export function pruneUnknown(s: Schema, v: unknown, path = '', isRoot = true): string[] {
  const dropped: string[] = [];
  walk(s, v, path, isRoot, dropped);
  return dropped;
}

function walk(s: Schema, v: unknown, path: string, resource: boolean, dropped: string[]): void {
  if (Array.isArray(v)) {
    if (s.items) v.forEach((x, i) => walk(s.items!, x, `${path}[${i}]`, !!s.items!['x-kubernetes-embedded-resource'], dropped));
    return;
  }
  if (!isObject(v)) return;
  const extra = additionalSchema(s);
  for (const k of Object.keys(v)) {
    const at = path ? `${path}.${k}` : k;
    const sub = s.properties?.[k] ?? extra;
    if (resource && typeMeta.has(k)) continue;
    if (!sub) {
      if (s['x-kubernetes-preserve-unknown-fields'] || (s.additionalProperties === true)) continue;
      delete v[k];
      dropped.push(at);
      continue;
    }
    walk(sub, v[k], at, !!sub['x-kubernetes-embedded-resource'], dropped);
  }
}
