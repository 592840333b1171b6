/**
 * The estimated worst-case cost of a CEL rule, as cel-go's checker/cost.go
 * estimates it for kube-apiserver at CRD create and update: idents and
 * selects cost 1, calls 1 plus what they traverse (a tenth per character,
 * cel-go's StringTraversalCostFactor), list and map literals 10 and 30,
 * comprehensions their range's maximum size times their loop's cost (so
 * nesting multiplies), and string functions by the sizes they can produce.
 * Sizes come from the schema: maxLength, maxItems and maxProperties, or when
 * absent upstream's bound from the 3 MiB request limit
 * (k8s.io/apiserver/pkg/cel/common/schemas.go: a list holds at most
 * (3 MiB - 2) / (its items' minimum serialized size + 1) items).
 * Only the functions of k8ts' CEL environment (the standard library and the
 * strings extension) are modelled; others cost 1 plus their operands' sizes.
 */
import { parse } from '@bufbuild/cel';
import { additionalSchema, type Schema } from './types.js';

/** k8s.io/apiserver/pkg/apis/cel/config.go and apiextensions validation. */
export const maxRequestSizeBytes = 3 * 1024 * 1024;
export const staticEstimatedCostLimit = 10_000_000;
export const staticEstimatedCRDCostLimit = 100_000_000;
const unboundedString = maxRequestSizeBytes - 2;

/** What the estimator knows of a value: its kind and the maximum size of strings, lists and maps. */
export interface CelShape {
  kind: 'string' | 'bytes' | 'list' | 'map' | 'object' | 'scalar' | 'dyn' | 'none';
  max: number;
  elem?: CelShape;
  schema?: Schema;
}

const scalar: CelShape = { kind: 'scalar', max: 0 };
const dyn: CelShape = { kind: 'dyn', max: unboundedString };
const none: CelShape = { kind: 'none', max: 0 };
const str = (max: number): CelShape => ({ kind: 'string', max });

/** The minimum JSON size of a value of the schema (upstream's DeclType MinSerializedSize). */
export function minSerializedSize(s: Schema | undefined): number {
  if (!s) return 1;
  if (s['x-kubernetes-int-or-string']) return 1;
  switch (s.type) {
    case 'string': return 2; // ""
    case 'boolean': return 4; // true
    case 'integer': case 'number': return 1;
    case 'array': case 'object': return 2; // [] or {}
    default: return 1;
  }
}

/** The largest string a schema admits: maxLength, the longest enum value, or what fits in a request. */
function maxStringLength(s: Schema): number {
  if (s.maxLength !== undefined) return Math.max(0, s.maxLength);
  if (s['x-kubernetes-int-or-string']) return unboundedString;
  if (s.enum?.length) return Math.max(...s.enum.map((e) => (typeof e === 'string' ? e.length : 0)));
  switch (s.format) {
    case 'duration': return 32;
    case 'date': return 10;
    case 'date-time': return 64;
    default: return unboundedString;
  }
}

/** The shape of values of a schema node, sized as upstream's SchemaDeclType sizes them. */
export function shapeOf(s: Schema | undefined): CelShape {
  if (!s) return dyn;
  if (s['x-kubernetes-int-or-string']) return str(unboundedString);
  switch (s.type) {
    case 'string': return str(maxStringLength(s));
    case 'array': {
      const max = s.maxItems ?? Math.floor((maxRequestSizeBytes - 2) / (minSerializedSize(s.items) + 1));
      return { kind: 'list', max: Math.max(0, max), elem: shapeOf(s.items) };
    }
    case 'object': {
      const values = additionalSchema(s);
      if (values) {
        const max = s.maxProperties ?? Math.floor((maxRequestSizeBytes - 2) / (minSerializedSize(values) + 6));
        return { kind: 'map', max: Math.max(0, max), elem: shapeOf(values) };
      }
      if (s.properties) return { kind: 'object', max: 0, schema: s };
      return dyn;
    }
    case 'integer': case 'number': case 'boolean': return scalar;
    default: return dyn;
  }
}

/** The larger of two shapes (a conditional's branches, a list's elements). */
function merge(a: CelShape, b: CelShape): CelShape {
  if (a.kind === 'none') return b;
  if (b.kind === 'none') return a;
  if (a.kind !== b.kind) return a.max >= b.max ? { ...a, kind: a.kind === 'scalar' ? b.kind : a.kind } : b;
  const elem = a.elem && b.elem ? merge(a.elem, b.elem) : a.elem ?? b.elem;
  return { kind: a.kind, max: Math.max(a.max, b.max), elem, schema: a.schema ?? b.schema };
}

/** The shape of a field of an object or a value of a map. */
function fieldShape(t: CelShape, field: string): CelShape {
  if (t.kind === 'object' && t.schema) return shapeOf(t.schema.properties?.[field]);
  if (t.kind === 'map') return t.elem ?? dyn;
  return dyn;
}

const traverse = (n: number) => Math.ceil(n * 0.1);
/** A size that can hold strings, lists and maps: lists and maps count elements, strings a tenth per character. */
const sizeCost = (t: CelShape) => (t.kind === 'string' || t.kind === 'bytes' ? traverse(t.max) : t.kind === 'list' || t.kind === 'map' ? t.max : t.kind === 'dyn' ? traverse(t.max) : 0);

type Expr = NonNullable<ReturnType<typeof parse>['expr']>;
interface Estimate { cost: number; shape: CelShape }
type Vars = Map<string, CelShape>;

function estimate(e: Expr | undefined, vars: Vars): Estimate {
  if (!e) return { cost: 0, shape: none };
  const k = e.exprKind;
  switch (k.case) {
    case 'constExpr': {
      const c = k.value.constantKind;
      if (c.case === 'stringValue') return { cost: 0, shape: str(c.value.length) };
      if (c.case === 'bytesValue') return { cost: 0, shape: { kind: 'bytes', max: c.value.length } };
      return { cost: 0, shape: scalar };
    }
    case 'identExpr': return { cost: 1, shape: vars.get(k.value.name) ?? dyn };
    case 'selectExpr': {
      const op = estimate(k.value.operand, vars);
      return { cost: op.cost + 1, shape: k.value.testOnly ? scalar : fieldShape(op.shape, k.value.field) };
    }
    case 'listExpr': {
      const elems = k.value.elements.map((x) => estimate(x, vars));
      return { cost: 10 + sum(elems), shape: { kind: 'list', max: elems.length, elem: elems.reduce((a, x) => merge(a, x.shape), none) } };
    }
    case 'structExpr': {
      let cost = 30;
      let elem = none;
      for (const entry of k.value.entries) {
        if (entry.keyKind.case === 'mapKey') cost += estimate(entry.keyKind.value, vars).cost;
        const v = estimate(entry.value, vars);
        cost += v.cost;
        elem = merge(elem, v.shape);
      }
      return { cost, shape: { kind: 'map', max: k.value.entries.length, elem } };
    }
    case 'comprehensionExpr': return estimateComprehension(k.value, vars);
    case 'callExpr': {
      const operands = [...(k.value.target ? [k.value.target] : []), ...k.value.args].map((x) => estimate(x, vars));
      return estimateCall(k.value.function, operands);
    }
    default: return { cost: 1, shape: dyn };
  }
}

const sum = (xs: Estimate[]) => xs.reduce((a, x) => a + x.cost, 0);

type Comprehension = Extract<Expr['exprKind'], { case: 'comprehensionExpr' }>['value'];

function estimateComprehension(c: Comprehension, vars: Vars): Estimate {
  const range = estimate(c.iterRange, vars);
  const n = range.shape.max;
  const iter = range.shape.kind === 'list' ? range.shape.elem ?? dyn : range.shape.kind === 'map' ? str(unboundedString) : dyn;
  const init = estimate(c.accuInit, vars);
  const inner = new Map(vars).set(c.iterVar, iter);
  // The accumulator of map and filter grows to the range's size: estimate the step once to learn its elements' shape.
  let accu = init.shape.kind === 'list' ? { kind: 'list' as const, max: n, elem: none } : init.shape;
  inner.set(c.accuVar, accu);
  const first = estimate(c.loopStep, inner);
  if (accu.kind === 'list') { accu = { kind: 'list', max: n, elem: first.shape.elem ?? none }; inner.set(c.accuVar, accu); }
  const cond = estimate(c.loopCondition, inner);
  const step = estimate(c.loopStep, inner);
  const result = estimate(c.result, new Map(vars).set(c.accuVar, accu));
  // The range itself is walked once (k8ts copies it before iterating).
  return { cost: range.cost + sizeCost(range.shape) + init.cost + n * (cond.cost + step.cost) + result.cost, shape: result.shape };
}

function estimateCall(fn: string, ops: Estimate[]): Estimate {
  const operandCost = sum(ops);
  const [a, b, c] = ops.map((o) => o.shape);
  const call = (cost: number, shape: CelShape = scalar): Estimate => ({ cost: operandCost + cost, shape });
  switch (fn) {
    case '_&&_': case '_||_': case '@not_strictly_false': case '__not_strictly_false__': return call(0);
    case '_?_:_': return { cost: ops[0].cost + Math.max(ops[1].cost, ops[2].cost), shape: merge(b, c) };
    case '_[_]': case '_[?_]': return call(1, a.kind === 'list' || a.kind === 'map' ? a.elem ?? dyn : a.kind === 'object' ? dyn : dyn);
    // Equality and ordering of strings walk the shorter one; other values cost 1.
    case '_==_': case '_!=_': case '_<_': case '_<=_': case '_>_': case '_>=_':
      return call(a.kind === 'string' || a.kind === 'bytes' ? traverse(Math.min(a.max, b.max)) : a.kind === 'list' || a.kind === 'map' ? 1 + Math.min(a.max, b.max) : 1);
    case '@in': return call(b.kind === 'list' ? b.max : 1);
    case '_+_':
      if (a.kind === 'string' || a.kind === 'bytes') return call(traverse(a.max + b.max), { kind: a.kind, max: a.max + b.max });
      // k8ts copies on list concatenation (cel-go appends to the accumulator in place): one per element.
      if (a.kind === 'list') return call(a.max + b.max, { kind: 'list', max: a.max + b.max, elem: merge(a.elem ?? none, b.elem ?? none) });
      return call(1);
    case 'size': case 'int': case 'uint': case 'double': case 'bool': case 'type': case 'dyn': case 'duration': case 'timestamp':
      return call(1);
    case 'string': return call(1 + sizeCost(a), a.kind === 'string' || a.kind === 'bytes' ? str(a.max) : str(32));
    case 'bytes': return call(1 + sizeCost(a), { kind: 'bytes', max: a.max });
    case 'matches': {
      // cel-go: (the string's length + 1) x 0.1 times the pattern's length x 0.25 (RegexStringLengthCostFactor).
      const target = ops.length === 2 ? a : b;
      const pattern = ops.length === 2 ? b : c;
      return call(traverse(target.max + 1) * Math.ceil((pattern?.max ?? 0) * 0.25));
    }
    // cel-go: contains is the product of both traversals, startsWith/endsWith the prefix's traversal.
    case 'contains': return call(traverse(a.max) * traverse(b.max));
    case 'startsWith': case 'endsWith': return call(traverse(b.max));
    case 'indexOf': case 'lastIndexOf': case 'charAt':
      return call(1 + traverse(a.max) + (b ? traverse(b.max) : 0), fn === 'charAt' ? str(1) : scalar);
    case 'lowerAscii': case 'upperAscii': case 'trim': case 'substring':
      return call(1 + traverse(a.max), str(a.max));
    case 'strings.quote': return call(1 + traverse(a.max), str(2 * a.max + 2));
    case 'replace': {
      // The longest result: every shortest match of `old` replaced by the longest `new` (an empty `old` matches len+1 times).
      const matches = b.max === 0 ? a.max + 1 : Math.floor(a.max / Math.max(1, b.max));
      const out = a.max + matches * c.max;
      return call(1 + traverse(a.max + out), str(out));
    }
    case 'split': return call(1 + traverse(a.max) + a.max + 1, { kind: 'list', max: a.max + 1, elem: str(a.max) });
    case 'join': {
      const out = a.max * ((a.elem?.max ?? unboundedString) + (b?.max ?? 0));
      return call(1 + a.max + traverse(out), str(out));
    }
    case 'format': {
      const out = a.max + (b?.max ?? 0) * ((b?.elem?.max ?? unboundedString) + 32);
      return call(1 + traverse(out), str(out));
    }
    default: return call(1 + ops.reduce((x, o) => x + sizeCost(o.shape), 0));
  }
}

/**
 * Parsed rules by their text, most recently used last. Parsing is four fifths
 * of a rule's estimate, and a client that sends the same refused CRD again and
 * again (or many CRDs with the same rules) would have it parsed at every create.
 * The estimate only reads the tree. Bounded in entries and in the text kept.
 */
const parsed = new Map<string, { expr: Expr | undefined }>();
const parsedEntries = 256;
const parsedTextChars = 4096;

/** The rule's tree (`expr` may be absent, as parse answers), or undefined when it does not parse. */
function parseRule(rule: string): { expr: Expr | undefined } | undefined {
  const hit = parsed.get(rule);
  if (hit) {
    parsed.delete(rule);
    parsed.set(rule, hit);
    return hit;
  }
  let tree: { expr: Expr | undefined };
  try { tree = { expr: parse(rule).expr }; } catch { return undefined; }
  if (rule.length <= parsedTextChars) {
    if (parsed.size >= parsedEntries) parsed.delete(parsed.keys().next().value as string);
    parsed.set(rule, tree);
  }
  return tree;
}

/** The estimated maximum cost of one evaluation of `rule` at a schema node, or undefined when it does not parse. */
export function estimateRuleCost(rule: string, schema: Schema): number | undefined {
  const tree = parseRule(rule);
  if (!tree) return undefined;
  const expr = tree.expr;
  const self = shapeOf(schema);
  return estimate(expr, new Map([['self', self], ['oldSelf', self]])).cost;
}

/**
 * How upstream words a cost over its limit (apiextensions validation.go
 * getCostErrorMessage): Go's %f below 1.5x, %.1f up to 100x, then "more than 100x".
 */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const shown = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${shown} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
