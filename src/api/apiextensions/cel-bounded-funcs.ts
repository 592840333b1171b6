/**
 * Overrides of @bufbuild/cel functions whose work or output is not bounded
 * by what the cost meter charged for their operands:
 * - `replace`: @bufbuild/cel rebuilds the whole string per occurrence
 *   (quadratic; seven chained replaces of a 10-character string wedged the
 *   server), and its output can be far larger than its input. This one is
 *   Go's strings.Replace (cel-go's ext/strings: n < 0 or absent replaces all,
 *   an empty `old` matches before every character and at the end), linear,
 *   and charges the bound of its output before building it.
 * - `join`: charges the size of its output before building it.
 * - list `+`: @bufbuild/cel nests a view per concatenation, so `map` and
 *   `filter` (whose step appends one element) build lists whose iteration
 *   costs the square of their length; this one copies, and charges the copy a
 *   tenth per element.
 */
import { celFunc, celList, celMethod, CelScalar, listType, type CelFunc, type CelList } from '@bufbuild/cel';
import { charge } from './cel-runtime-cost.js';

const { STRING, INT, DYN } = CelScalar;
const LIST = listType(DYN);

function replace(this: string, old: string, repl: string, n?: bigint): string {
  const limit = n === undefined || n < 0n ? Infinity : Number(n);
  if (limit === 0) return this;
  const chars = old === '' ? [...this] : undefined;
  const matches = chars ? chars.length + 1 : Math.floor(this.length / old.length);
  charge(Math.ceil((this.length + Math.min(limit, matches) * repl.length) * 0.1));
  if (chars) {
    // Go: an empty `old` matches at the start and after each UTF-8 sequence.
    const out: string[] = [];
    let done = 0;
    for (const c of chars) { if (done < limit) { out.push(repl); done++; } out.push(c); }
    if (done < limit) out.push(repl);
    return out.join('');
  }
  const parts: string[] = [];
  let from = 0;
  for (let done = 0; done < limit; done++) {
    const at = this.indexOf(old, from);
    if (at < 0) break;
    parts.push(this.slice(from, at), repl);
    from = at + old.length;
  }
  parts.push(this.slice(from));
  return parts.join('');
}

function join(this: CelList, sep = ''): string {
  let size = 0;
  for (const x of this) {
    if (typeof x !== 'string') throw new Error('join: list contains non-string value');
    size += x.length + sep.length;
  }
  charge(Math.ceil(size * 0.1));
  return [...this].join(sep);
}

/** A copy costs a tenth per element, as a string's characters do: far less per element than evaluating a node. */
function concat(a: CelList, b: CelList): CelList {
  charge(Math.ceil((a.size + b.size) * 0.1));
  return celList(elements(a).concat(elements(b)) as never);
}

/**
 * A list's elements as an array: @bufbuild/cel's ArrayList keeps its array
 * (raw values it converts on read), which Array.concat copies at memory
 * speed; any other list is read through its iterator.
 */
function elements(l: CelList): unknown[] {
  const raw = (l as unknown as { _array?: unknown })._array;
  return Array.isArray(raw) && raw.length === l.size ? raw : [...l];
}

export const boundedFuncs: CelFunc[] = [
  celMethod('replace', STRING, [STRING, STRING], STRING, replace),
  celMethod('replace', STRING, [STRING, STRING, INT], STRING, replace),
  celMethod('join', LIST, [], STRING, join),
  celMethod('join', LIST, [STRING], STRING, join),
  celFunc('_+_', [LIST, LIST], LIST, concat),
];
