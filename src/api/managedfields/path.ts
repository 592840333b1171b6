/**
 * Path elements in FieldsV1 form (structured-merge-diff fieldpath): `f:<name>`
 * for a field, `k:<json object of the key fields>` for an item of an
 * associative list, `v:<json value>` for an item of a set, `i:<index>` for a
 * position. Elements are kept as these strings; `comparePathElements` gives
 * upstream's order (fields, then keys, then values, then indexes) and
 * `pathToString` upstream's text for messages (`.spec.containers[name="x"].image`).
 */

export type PathElement = string;
export type Path = readonly PathElement[];

export const fieldElement = (name: string): PathElement => `f:${name}`;
export const valueElement = (v: unknown): PathElement => `v:${JSON.stringify(v)}`;
export const indexElement = (i: number): PathElement => `i:${i}`;

/** `k:{...}` with the key fields sorted by name, as upstream serializes a FieldList. */
export function keyElement(fields: Record<string, unknown>): PathElement {
  const sorted: Record<string, unknown> = {};
  for (const name of Object.keys(fields).sort()) sorted[name] = fields[name];
  return `k:${JSON.stringify(sorted)}`;
}

const kindRank: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

/** Go's value.Compare order across JSON types: float < int < string < bool < list < map < null. */
function valueRank(v: unknown): number {
  if (typeof v === 'number') return Number.isInteger(v) ? 1 : 0;
  if (typeof v === 'string') return 2;
  if (typeof v === 'boolean') return 3;
  if (Array.isArray(v)) return 4;
  if (v !== null && typeof v === 'object') return 5;
  return 6;
}

const compareStrings = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  const ra = valueRank(a);
  const rb = valueRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if (typeof a === 'string') return compareStrings(a, b as string);
  if (typeof a === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (Array.isArray(a)) return compareLists(a, b as unknown[]);
  if (ra === 5) return compareFieldLists(a as Record<string, unknown>, b as Record<string, unknown>);
  return 0;
}

function compareLists(a: unknown[], b: unknown[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareValues(a[i], b[i]);
    if (c) return c;
  }
  return a.length - b.length < 0 ? -1 : a.length > b.length ? 1 : 0;
}

/** Key field lists compare field by field (sorted by name), then by length. */
function compareFieldLists(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
    const c = compareStrings(ka[i], kb[i]) || compareValues(a[ka[i]], b[kb[i]]);
    if (c) return c;
  }
  return ka.length < kb.length ? -1 : ka.length > kb.length ? 1 : 0;
}

const parseText = (pe: PathElement): unknown => JSON.parse(pe.slice(2));

export function comparePathElements(a: PathElement, b: PathElement, valueOf: (pe: PathElement) => unknown = parseText): number {
  if (a === b) return 0;
  // Two fields (every key of a wide map) share the `f:` prefix: they order as the whole strings do.
  if (a[0] === 'f' && b[0] === 'f') return a < b ? -1 : 1;
  const ra = kindRank[a[0]] ?? 4;
  const rb = kindRank[b[0]] ?? 4;
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (a[0]) {
    case 'f': return compareStrings(a.slice(2), b.slice(2));
    case 'i': {
      const ia = Number(a.slice(2));
      const ib = Number(b.slice(2));
      return ia < ib ? -1 : ia > ib ? 1 : 0;
    }
    default: return compareValues(valueOf(a), valueOf(b));
  }
}

/**
 * `pes` sorted in place in upstream's order. Fields alone (a wide map's keys) sort as plain
 * strings; otherwise each key's and value's JSON is parsed once, not once per comparison (a
 * container's 2,000 env entries cost 44,000 parses, issue #19).
 */
export function sortPathElements(pes: PathElement[]): PathElement[] {
  let fieldsOnly = true;
  for (const pe of pes) if (pe[0] !== 'f') { fieldsOnly = false; break; }
  // The default order is by UTF-16 code units, as compareStrings' `<` is.
  if (fieldsOnly) return pes.sort();
  const parsed = new Map<PathElement, unknown>();
  const valueOf = (pe: PathElement): unknown => {
    if (parsed.has(pe)) return parsed.get(pe);
    const v = parseText(pe);
    parsed.set(pe, v);
    return v;
  };
  return pes.sort((a, b) => comparePathElements(a, b, valueOf));
}

/** One element as upstream's PathElement.String(): `.name`, `[k="v",k2=1]`, `[="v"]`, `[3]`. */
export function elementToString(pe: PathElement): string {
  const text = pe.slice(2);
  switch (pe[0]) {
    case 'f': return `.${text}`;
    case 'k': {
      const fields = JSON.parse(text) as Record<string, unknown>;
      return `[${Object.keys(fields).map((k) => `${k}=${JSON.stringify(fields[k])}`).join(',')}]`;
    }
    case 'v': return `[=${JSON.stringify(JSON.parse(text))}]`;
    case 'i': return `[${text}]`;
    default: return '{{invalid path element}}';
  }
}

export const pathToString = (path: Path): string => path.map(elementToString).join('');

/** Checks a FieldsV1 key: one of the four forms, with valid JSON where JSON is expected. */
export function isValidPathElement(pe: string): boolean {
  if (pe.length < 2 || pe[1] !== ':') return false;
  if (pe[0] === 'f') return true;
  const text = pe.slice(2);
  switch (pe[0]) {
    case 'f': return true;
    case 'i': return /^\d+$/.test(text);
    case 'k': case 'v':
      try {
        const v = JSON.parse(text);
        return pe[0] === 'v' || (v !== null && typeof v === 'object' && !Array.isArray(v));
      } catch { return false; }
    default: return false;
  }
}
