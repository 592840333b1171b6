/**
 * A fresh copy of a plain object's own members, in the same order (so JSON.stringify gives the
 * same text), built the way V8 keeps small objects cheapest: every member in the object itself
 * (no separate property array), in fast mode, on a hidden class shared with every other copy of
 * the same keys in the same order.
 *
 * Why a cache wants it (bench/RESULTS.md, `mem`): objects that stay in memory for long can end up
 * expensive for reasons that say nothing about their content. At 5,000 nodes and 10,000 pods,
 * heap snapshots of the watch cache showed each cached pod in dictionary mode (a status write
 * deletes and adds back `spec`: a property dictionary of about 360 bytes where a fast object
 * holds its 5 members in 56) and each pod's spec and managedFields entries on a hidden class of
 * its own (a map and descriptor array of about 450 bytes, unshared).
 *
 * How: one copier per list of keys, an object literal compiled once (`{"a": o["a"], ...}`):
 * a literal's objects are allocated at their final size with their members inside, which a
 * copy made by adding members one by one to `{}` is not (four inside, the rest in an array that
 * grows by steps). The keys are written into the literal as JSON string literals, so any key
 * is code-safe. At most `maxShapes` copiers are kept; objects of other shapes, of more than
 * `maxKeys` members (a large map, such as a ConfigMap's data, costs more to copy than its shape
 * costs), or with a member named `__proto__` (a literal would set the prototype with it) are
 * answered unchanged. Values are not copied: the copy holds the very same children.
 */
type Copier = (o: Record<string, unknown>) => Record<string, unknown>;

interface Shape { readonly keys: readonly string[]; readonly copy: Copier }

/** Copiers by their shape's first key ('' for the empty one): a few shapes each, told apart by their keys. */
const shapes = new Map<string, Shape[]>();
let shapeCount = 0;
const maxShapes = 1024;
const maxKeys = 32;
/** The keys of the object being copied, read into the same array every time (no string built per copy). */
const keys: string[] = [];

export function freshObject<T extends object>(o: T): T {
  const src = o as Record<string, unknown>;
  let n = 0;
  for (const k in src) {
    if (n === maxKeys || k === '__proto__') return o;
    keys[n++] = k;
  }
  const first = n === 0 ? '' : keys[0]!;
  let list = shapes.get(first);
  if (list !== undefined) {
    for (const s of list) if (sameKeys(s.keys, n)) return s.copy(src) as T;
  }
  if (shapeCount >= maxShapes) return o;
  const shape: Shape = { keys: keys.slice(0, n), copy: compileCopier(keys.slice(0, n)) };
  if (list === undefined) shapes.set(first, list = []);
  list.push(shape);
  shapeCount++;
  return shape.copy(src) as T;
}

/** Whether a shape's keys are the first n of `keys` (property names are internalized: === compares pointers). */
function sameKeys(shape: readonly string[], n: number): boolean {
  if (shape.length !== n) return false;
  for (let i = 0; i < n; i++) if (shape[i] !== keys[i]) return false;
  return true;
}

function compileCopier(names: readonly string[]): Copier {
  const members = names.map((k) => { const q = JSON.stringify(k); return `${q}: o[${q}]`; });
  return new Function('o', `return {${members.join(', ')}};`) as Copier;
}
