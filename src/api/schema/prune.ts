/**
 * Dropping unknown fields, as decoding into upstream's Go structs does under
 * fieldValidation Ignore and Warn: a member a struct does not declare is not
 * kept, so it is neither stored nor served back. Maps keep every key, and
 * RawExtension / preserve-unknown-fields subtrees (`any`) are kept whole.
 * The walk follows the compiled decode tree with an explicit stack, so no
 * nesting depth can exhaust the JS stack.
 */
import { decodeTreeFor, type DecodeNode } from './compile.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isContainer = (node: DecodeNode) => node.kind === 'struct' || node.kind === 'array' || node.kind === 'map';

/**
 * Deletes, in place, every member of `obj` that the kind's Go types do not
 * declare, and returns how many it deleted. An unknown kind is left alone.
 */
export function pruneUnknownFields(key: string, obj: unknown): number {
  const root = decodeTreeFor(key);
  if (!root) return 0;
  let pruned = 0;
  const stack: [DecodeNode, unknown][] = [[root, obj]];
  while (stack.length) {
    const [node, value] = stack.pop()!;
    switch (node.kind) {
      case 'struct':
        if (!isObject(value)) break;
        for (const k of Object.keys(value)) {
          const field = node.fields.get(k);
          if (!field) {
            delete value[k];
            pruned++;
          } else if (isContainer(field)) {
            stack.push([field, value[k]]);
          }
        }
        break;
      case 'map':
        if (isObject(value) && isContainer(node.value)) for (const v of Object.values(value)) stack.push([node.value, v]);
        break;
      case 'array':
        if (Array.isArray(value) && isContainer(node.items)) for (const v of value) stack.push([node.items, v]);
        break;
      default:
        break;
    }
  }
  return pruned;
}
