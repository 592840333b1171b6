/**
 * Structural mutations of a JSON object, as data: each mutation names a
 * position by index (taken modulo the object's paths), so fast-check can
 * generate and shrink them and a seed replays the same body. Deep nesting
 * and duplicate keys cannot live in a JS object (the one would overflow
 * JSON.stringify, the other is not representable), so they are markers that
 * `serialize` expands in the text.
 */
import fc from 'fast-check';
import { stringify as toYAML } from 'yaml';
import { fieldName, jsonValue, numberValue, stringValue } from './values.js';

export type Mutation =
  | { op: 'drop'; at: number }
  | { op: 'retype'; at: number; value: unknown }
  | { op: 'unknown'; at: number; key: string; value: unknown }
  | { op: 'duplicateKey'; at: number; value: unknown }
  | { op: 'repeat'; at: number; times: number }
  | { op: 'number'; at: number; value: number }
  | { op: 'string'; at: number; value: string }
  | { op: 'nest'; at: number; depth: number; shape: 'array' | 'object' };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('drop' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('retype' as const), at: fc.nat(), value: jsonValue }),
  fc.record({ op: fc.constant('unknown' as const), at: fc.nat(), key: fieldName, value: jsonValue }),
  fc.record({ op: fc.constant('duplicateKey' as const), at: fc.nat(), value: jsonValue }),
  fc.record({ op: fc.constant('repeat' as const), at: fc.nat(), times: fc.integer({ min: 2, max: 40 }) }),
  fc.record({ op: fc.constant('number' as const), at: fc.nat(), value: numberValue }),
  fc.record({ op: fc.constant('string' as const), at: fc.nat(), value: stringValue }),
  fc.record({ op: fc.constant('nest' as const), at: fc.nat(), depth: fc.constantFrom(5, 64, 1000, 10_000, 100_000), shape: fc.constantFrom('array' as const, 'object' as const) }),
);

type Path = (string | number)[];
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every path in the value, root first, at most `max` of them. */
export function pathsOf(value: unknown, max = 400): Path[] {
  const out: Path[] = [];
  const walk = (v: unknown, p: Path) => {
    if (out.length >= max) return;
    out.push(p);
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...p, i]));
    else if (isObject(v)) for (const k of Object.keys(v)) walk(v[k], [...p, k]);
  };
  walk(value, []);
  return out;
}

function parentOf(root: unknown, path: Path): unknown {
  let v: any = root;
  for (const k of path.slice(0, -1)) v = v?.[k];
  return v;
}

function setAt(root: any, path: Path, value: unknown): any {
  if (path.length === 0) return value;
  const parent: any = parentOf(root, path);
  if (parent !== null && typeof parent === 'object') parent[path[path.length - 1]] = value;
  return root;
}

const nestMarker = (depth: number, shape: string) => `__fuzz_nest_${shape}_${depth}__`;
const dupPrefix = '__fuzz_dup__';

/** Applies the mutations in order to a copy of `obj`. */
export function applyMutations(obj: unknown, mutations: Mutation[]): unknown {
  let root: any = structuredClone(obj);
  for (const m of mutations) {
    const paths = pathsOf(root);
    const path = paths[m.at % paths.length];
    const last = path[path.length - 1];
    const parent: any = parentOf(root, path);
    switch (m.op) {
      case 'drop':
        if (Array.isArray(parent)) parent.splice(last as number, 1);
        else if (isObject(parent)) delete parent[last as string];
        break;
      case 'retype': root = setAt(root, path, structuredClone(m.value)); break;
      case 'number': root = setAt(root, path, m.value); break;
      case 'string': root = setAt(root, path, m.value); break;
      case 'nest': root = setAt(root, path, nestMarker(m.depth, m.shape)); break;
      case 'unknown': {
        const target: any = path.length === 0 ? root : parentOf(root, [...path, 0]);
        if (isObject(target)) target[m.key] = structuredClone(m.value);
        else if (Array.isArray(target)) target.push(structuredClone(m.value));
        break;
      }
      case 'duplicateKey':
        if (isObject(parent) && typeof last === 'string') parent[dupPrefix + last] = structuredClone(m.value);
        break;
      case 'repeat': {
        const v: any = path.length === 0 ? root : parentOf(root, [...path, 0]);
        if (Array.isArray(v) && v.length) v.push(...Array.from({ length: m.times }, () => structuredClone(v[0])));
        break;
      }
    }
  }
  return root;
}

export type Format = 'json' | 'json-pretty' | 'yaml';

/** The text of a mutated value: markers become deep nesting and duplicate keys. */
export function serialize(value: unknown, format: Format): string {
  let text = format === 'yaml' ? toYAML(value, { lineWidth: 0 }) : JSON.stringify(value, null, format === 'json-pretty' ? 2 : undefined) ?? 'null';
  text = text.replace(/"?__fuzz_nest_(array|object)_(\d+)__"?/g, (_m, shape: string, d: string) => {
    const depth = Number(d);
    return shape === 'array' ? '['.repeat(depth) + '1' + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  });
  return text.replace(/__fuzz_dup__/g, '');
}

/** Whole-body damage on top of the structure: the text cut short, trailing garbage, other top-level values. */
export type BodyDamage = 'none' | 'truncate' | 'trailing' | 'array' | 'scalar' | 'empty' | 'multidoc' | 'list' | 'bom' | 'yamlAlias';

export const bodyDamage: fc.Arbitrary<BodyDamage> = fc.oneof(
  { weight: 12, arbitrary: fc.constant('none' as const) },
  { weight: 1, arbitrary: fc.constantFrom('truncate', 'trailing', 'array', 'scalar', 'empty', 'multidoc', 'list', 'bom', 'yamlAlias') as fc.Arbitrary<BodyDamage> },
);

export function damage(text: string, value: unknown, how: BodyDamage, cut: number): string {
  switch (how) {
    case 'none': return text;
    case 'truncate': return text.slice(0, cut % Math.max(text.length, 1));
    case 'trailing': return `${text} }{]`;
    case 'array': return `[${text}]`;
    case 'scalar': return ['"x"', '1', 'null', 'true', '-'][cut % 5];
    case 'empty': return ['', ' ', '\n', '{}', '[]'][cut % 5];
    case 'multidoc': return `${text}\n---\n${text}`;
    case 'list': return JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [value] });
    case 'bom': return `\ufeff${text}`;
    case 'yamlAlias': return 'a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\nmetadata: {name: alias}\n';
  }
}

export { jsonValue, stringValue, numberValue };
