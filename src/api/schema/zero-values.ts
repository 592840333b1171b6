/**
 * Go decodes a JSON null inside a list, or as a map value, into the element
 * type's zero value: `"tolerations": [null]` becomes `[{}]`, `"args": [null]`
 * becomes `[""]`. Upstream stores and serves those zero values (its decode
 * and encode round trip writes them); code that reads list items expects
 * objects and strings, never null. `fillNullItems` writes the same zero
 * values in place, after the type checks passed.
 */
import { decodeTreeFor, type DecodeNode } from './compile.js';

/** The JSON of a Go zero value; undefined where Go's is nil and encodes as null. */
function zeroValue(node: DecodeNode): unknown {
  switch (node.kind) {
    case 'struct': return {};
    case 'string': return '';
    case 'integer': case 'number': case 'intOrString': return 0;
    case 'boolean': return false;
    case 'quantity': return '0';
    default: return undefined;
  }
}

export function fillNullItems(key: string, obj: unknown): void {
  const root = decodeTreeFor(key);
  if (root) fill(root, obj);
}

function fill(node: DecodeNode, value: unknown): void {
  if (value === null || typeof value !== 'object') return;
  if (node.kind === 'struct' && !Array.isArray(value)) {
    // The object's own keys, not the type's fields: a body of 1,000,000 empty containers
    // would otherwise cost 1,000,000 times the Container's 25 fields.
    const obj = value as Record<string, unknown>;
    for (const k of Object.keys(obj)) {
      const field = node.fields.get(k);
      if (field) fill(field, obj[k]);
    }
  } else if (node.kind === 'map' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    for (const k of Object.keys(obj)) obj[k] = filled(node.value, obj[k]);
  } else if (node.kind === 'array' && Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = filled(node.items, value[i]);
  }
}

/** An element with its nulls filled in: a null element becomes its type's zero value. */
function filled(node: DecodeNode, item: unknown): unknown {
  if (item !== null) {
    fill(node, item);
    return item;
  }
  return zeroValue(node) ?? null;
}
