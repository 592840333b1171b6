/**
 * resource.Quantity as apimachinery implements it: parsing with upstream's
 * grammar and errors, exact arithmetic, and the canonical string form the
 * apiserver writes back ('1.5' -> '1500m', '1024Mi' -> '1Gi', '1000' -> '1k').
 *
 * A quantity is the exact number `unscaled × 10^scale` plus the format its
 * suffix chose (DecimalSI 'm'/'k'/'G'..., BinarySI 'Ki'/'Mi'..., DecimalExponent 'e3').
 * Like upstream, non-zero values finer than nano are rounded up (away from zero) to 1n.
 */

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  unscaled: bigint;
  scale: number;
  format: QuantityFormat;
}

export const quantityFormatError = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
export const quantitySuffixError = "unable to parse quantity's suffix";

const decimalSuffixes: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const binarySuffixes: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const decimalByExponent = new Map(Object.entries(decimalSuffixes).map(([s, e]) => [e, s]));
const binaryByPower = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const maxExponent = 10_000; // guards bigint work against '1e999999999'
const maxInt64 = (1n << 63n) - 1n;

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const pow10 = (n: number) => 10n ** BigInt(n);
const abs = (v: bigint) => (v < 0n ? -v : v);

interface Pieces { positive: boolean; num: string; denom: string; suffix: string }

/** parseQuantityString: sign, integer digits, fraction digits, then the suffix. */
function splitQuantity(str: string): Pieces | undefined {
  let pos = 0;
  let positive = true;
  if (str[0] === '-' || str[0] === '+') {
    positive = str[0] === '+';
    pos++;
  }
  while (str[pos] === '0') pos++;
  const numStart = pos;
  while (isDigit(str[pos])) pos++;
  const num = str.slice(numStart, pos) || '0';
  let denom = '';
  if (str[pos] === '.') {
    const denomStart = ++pos;
    while (isDigit(str[pos])) pos++;
    denom = str.slice(denomStart, pos);
  }
  const suffixStart = pos;
  while (pos < str.length && 'eEinumkKMGTP'.includes(str[pos])) pos++;
  if (str[pos] === '-' || str[pos] === '+') pos++;
  while (isDigit(str[pos])) pos++;
  if (pos !== str.length) return undefined;
  return { positive, num, denom, suffix: str.slice(suffixStart) };
}

interface Suffix { base: 2 | 10; exponent: number; format: QuantityFormat }

function interpretSuffix(suffix: string): Suffix | undefined {
  if (suffix in decimalSuffixes) return { base: 10, exponent: decimalSuffixes[suffix], format: 'DecimalSI' };
  if (suffix in binarySuffixes) return { base: 2, exponent: binarySuffixes[suffix], format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[-+]?[0-9]+$/.test(suffix.slice(1))) {
    const exponent = Number(suffix.slice(1));
    if (Math.abs(exponent) <= maxExponent) return { base: 10, exponent, format: 'DecimalExponent' };
  }
  return undefined;
}

/** Rounds the magnitude up to the given scale when the value is finer than it. */
function roundUpTo(q: Quantity, scale: number): Quantity {
  if (q.scale >= scale || q.unscaled === 0n) return q;
  const div = pow10(scale - q.scale);
  let m = abs(q.unscaled) / div;
  if (abs(q.unscaled) % div !== 0n) m += 1n;
  return { ...q, unscaled: q.unscaled < 0n ? -m : m, scale };
}

type Parsed = { readonly quantity?: Quantity; readonly error?: string };

/**
 * Parses of strings already seen, by the string. Why: a pod create parsed each of its requests and
 * limits three times (defaulting's canonical form, validation, the QoS class: ~12 parses and their
 * bigint work for a one-container pod), and a cluster's pods repeat a handful of strings ("100m",
 * "500Mi"), so nearly every parse was one done before. A parse depends on the string alone, and a
 * Quantity is never changed in place (every operation here makes a new one; the cached ones are
 * frozen to keep it so). Bounded: short strings only, and the map is emptied when full.
 */
const parsedStrings = new Map<string, Parsed>();
const maxParsedStrings = 1024;
const maxParsedChars = 64;

/** Parses like ParseQuantity; `error` carries upstream's message. Numbers are taken as their JSON text. */
export function parseQuantityDetailed(input: unknown): Parsed {
  if (typeof input !== 'string') return parseUncached(input);
  let parsed = parsedStrings.get(input);
  if (parsed === undefined) {
    parsed = parseUncached(input);
    if (input.length <= maxParsedChars) {
      if (parsedStrings.size >= maxParsedStrings) parsedStrings.clear();
      if (parsed.quantity) Object.freeze(parsed.quantity);
      parsedStrings.set(input, Object.freeze(parsed));
    }
  }
  return parsed;
}

function parseUncached(input: unknown): Parsed {
  if (typeof input !== 'string' && typeof input !== 'number') return { error: quantityFormatError };
  const str = (typeof input === 'number' ? String(input) : input).trim();
  if (str.length === 0) return { error: quantityFormatError };
  if (str === '0') return { quantity: { unscaled: 0n, scale: 0, format: 'DecimalSI' } };
  const pieces = splitQuantity(str);
  if (!pieces) return { error: quantityFormatError };
  const suffix = interpretSuffix(pieces.suffix);
  if (!suffix) return { error: quantitySuffixError };
  let unscaled = BigInt(pieces.num + pieces.denom);
  let scale = -pieces.denom.length;
  if (suffix.base === 10) scale += suffix.exponent;
  else unscaled *= 1n << BigInt(suffix.exponent);
  let q = roundUpTo({ unscaled, scale, format: suffix.format }, -9);
  if (q.format === 'BinarySI') {
    if (compareAbs(q, { unscaled: maxInt64, scale: 0, format: 'DecimalSI' }) > 0) q = { unscaled: maxInt64, scale: 0, format: 'BinarySI' };
    if (q.unscaled !== 0n && compareAbs(q, { unscaled: 1n, scale: 0, format: 'DecimalSI' }) < 0) q = { ...q, format: 'DecimalSI' };
  }
  if (!pieces.positive) q = { ...q, unscaled: -q.unscaled };
  return { quantity: q };
}

/** The quantity, or undefined when upstream would reject the string. */
export function parseQuantity(input: unknown): Quantity | undefined {
  return parseQuantityDetailed(input).quantity;
}

/** Upstream's parse error for a bad quantity, or undefined when it parses. */
export function quantityError(input: unknown): string | undefined {
  return parseQuantityDetailed(input).error;
}

function align(a: Quantity, b: Quantity): [bigint, bigint, number] {
  const scale = Math.min(a.scale, b.scale);
  return [a.unscaled * pow10(a.scale - scale), b.unscaled * pow10(b.scale - scale), scale];
}

function compareAbs(a: Quantity, b: Quantity): number {
  const [x, y] = align(a, b);
  const [ax, ay] = [abs(x), abs(y)];
  return ax < ay ? -1 : ax > ay ? 1 : 0;
}

/** Cmp: -1, 0 or 1. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** a + b, keeping a's format, or b's when a is zero (upstream's Add: `0 + 600Mi` is `600Mi`, as a quota's used shows). */
export function addQuantities(a: Quantity, b: Quantity): Quantity {
  const [x, y, scale] = align(a, b);
  return { unscaled: x + y, scale, format: a.unscaled === 0n ? b.format : a.format };
}

/** a - b, keeping a's format, or b's when a is zero (upstream's Sub). */
export function subtractQuantities(a: Quantity, b: Quantity): Quantity {
  const [x, y, scale] = align(a, b);
  return { unscaled: x - y, scale, format: a.unscaled === 0n ? b.format : a.format };
}

export const isZeroQuantity = (q: Quantity) => q.unscaled === 0n;
export const quantitySign = (q: Quantity) => (q.unscaled < 0n ? -1 : q.unscaled > 0n ? 1 : 0);

/** The value at the given decimal scale, rounded up (ScaledValue): scale -3 gives the milli value. */
export function scaledValue(q: Quantity, scale: number): bigint {
  const r = roundUpTo(q, scale);
  return r.unscaled * pow10(r.scale - scale);
}

export const milliValue = (q: Quantity) => scaledValue(q, -3);
export const integerValue = (q: Quantity) => scaledValue(q, 0);

/** RoundUp(scale): SetDefaults_ResourceList rounds every request and limit up to milli. */
export const roundUpQuantity = roundUpTo;

/** A quantity from an integer count (NewQuantity / NewMilliQuantity). */
export const quantityFromInt = (value: bigint | number, scale = 0, format: QuantityFormat = 'DecimalSI'): Quantity =>
  ({ unscaled: BigInt(value), scale, format });

function canonicalDecimal(q: Quantity): string {
  let m = abs(q.unscaled);
  let e = q.scale;
  while (m % 10n === 0n) {
    m /= 10n;
    e++;
  }
  const r = e % 3;
  if (r === 1 || r === -2) {
    m *= 10n;
    e -= 1;
  } else if (r === 2 || r === -1) {
    m *= 100n;
    e -= 2;
  }
  if (q.format === 'DecimalExponent') return e === 0 ? `${m}` : `${m}e${e}`;
  while (e > 18) {
    m *= 1000n;
    e -= 3;
  }
  return `${m}${decimalByExponent.get(e) ?? ''}`;
}

function canonicalBinary(q: Quantity): string {
  let m = q.scale >= 0 ? abs(q.unscaled) * pow10(q.scale) : abs(q.unscaled) / pow10(-q.scale);
  let power = 0;
  while (power < 6 && m % 1024n === 0n) {
    m /= 1024n;
    power++;
  }
  return `${m}${binaryByPower[power]}`;
}

/** The canonical strings of frozen quantities (the parses kept above): each is formatted once. */
const formatted = new WeakMap<Quantity, string>();

/** String(): the canonical form upstream serializes. */
export function formatQuantity(q: Quantity): string {
  if (!Object.isFrozen(q)) return formatUncached(q);
  let text = formatted.get(q);
  if (text === undefined) {
    text = formatUncached(q);
    formatted.set(q, text);
  }
  return text;
}

function formatUncached(q: Quantity): string {
  if (q.unscaled === 0n) return '0';
  let format = q.format;
  if (format === 'BinarySI') {
    const small = compareAbs(q, quantityFromInt(1024)) < 0;
    const fractional = q.scale < 0 && q.unscaled % pow10(-q.scale) !== 0n;
    if (small || fractional) format = 'DecimalSI';
  }
  const sign = q.unscaled < 0n ? '-' : '';
  return sign + (format === 'BinarySI' ? canonicalBinary(q) : canonicalDecimal({ ...q, format }));
}

/** The canonical string of a user-given quantity, or undefined when it does not parse. */
export function canonicalQuantity(input: unknown): string | undefined {
  const q = parseQuantity(input);
  return q ? formatQuantity(q) : undefined;
}
