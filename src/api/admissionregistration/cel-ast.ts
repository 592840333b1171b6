/**
 * A walk over a parsed CEL expression (@bufbuild/cel's cel.expr.Expr) with
 * the positions cel-go reports: the free identifiers an expression reads
 * (for upstream's `undeclared reference` compile error) and the
 * `ERROR: <input>:LINE:COL: message` text with its source snippet, as
 * cel-go's common.Errors.ToDisplayString writes it.
 */
import { parse } from '@bufbuild/cel';

/** The parts of @bufbuild/cel's Expr this walk reads. */
export interface CelExpr {
  id: bigint;
  exprKind:
    | { case: 'constExpr'; value: unknown }
    | { case: 'identExpr'; value: { name: string } }
    | { case: 'selectExpr'; value: { operand?: CelExpr; field: string; testOnly: boolean } }
    | { case: 'callExpr'; value: { target?: CelExpr; function: string; args: CelExpr[] } }
    | { case: 'listExpr'; value: { elements: CelExpr[] } }
    | { case: 'structExpr'; value: { entries: { value?: CelExpr; keyKind: { case: string; value?: unknown } }[] } }
    | { case: 'comprehensionExpr'; value: Comprehension }
    | { case: undefined; value?: undefined };
}

export interface Comprehension {
  iterVar: string; iterVar2?: string; accuVar: string;
  iterRange?: CelExpr; accuInit?: CelExpr; loopCondition?: CelExpr; loopStep?: CelExpr; result?: CelExpr;
}

export interface ParsedCel {
  expr: CelExpr;
  /** Offsets (in characters) of each node, by id. */
  positions: Map<bigint, number>;
  source: string;
}

/** Parses `source`; throws @bufbuild/cel's syntax error as it does. */
export function parseCel(source: string): ParsedCel {
  const parsed = parse(source) as unknown as { expr: CelExpr; sourceInfo?: { positions: Record<string, number> | Map<bigint, number> } };
  const positions = new Map<bigint, number>();
  const raw = parsed.sourceInfo?.positions;
  if (raw instanceof Map) for (const [k, v] of raw) positions.set(BigInt(k), v);
  else if (raw) for (const [k, v] of Object.entries(raw)) positions.set(BigInt(k), v);
  return { expr: parsed.expr, positions, source };
}

/** The children of a node, for walks that do not care about the node's kind. */
export function children(e: CelExpr): CelExpr[] {
  const k = e.exprKind;
  switch (k.case) {
    case 'selectExpr': return k.value.operand ? [k.value.operand] : [];
    case 'callExpr': return [...(k.value.target ? [k.value.target] : []), ...k.value.args];
    case 'listExpr': return k.value.elements;
    case 'structExpr': return k.value.entries.flatMap((en) => [...(en.keyKind.case === 'mapKey' ? [en.keyKind.value as CelExpr] : []), ...(en.value ? [en.value] : [])]);
    case 'comprehensionExpr': {
      const c = k.value;
      return [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result].filter((x): x is CelExpr => x !== undefined);
    }
    default: return [];
  }
}

/** Identifiers read but not bound by a comprehension, each with its node (first occurrence). */
export function freeIdentifiers(e: CelExpr, bound: ReadonlySet<string> = new Set()): Map<string, CelExpr> {
  const out = new Map<string, CelExpr>();
  const stack: { e: CelExpr; bound: ReadonlySet<string> }[] = [{ e, bound }];
  while (stack.length) {
    const { e: node, bound: b } = stack.pop()!;
    const k = node.exprKind;
    if (k.case === 'identExpr') {
      if (!b.has(k.value.name) && !out.has(k.value.name)) out.set(k.value.name, node);
      continue;
    }
    if (k.case === 'comprehensionExpr') {
      const c = k.value;
      const inner = new Set([...b, c.iterVar, ...(c.iterVar2 ? [c.iterVar2] : []), c.accuVar]);
      if (c.iterRange) stack.push({ e: c.iterRange, bound: b });
      if (c.accuInit) stack.push({ e: c.accuInit, bound: b });
      for (const x of [c.loopCondition, c.loopStep, c.result]) if (x) stack.push({ e: x, bound: inner });
      continue;
    }
    for (const c of children(node)) stack.push({ e: c, bound: b });
  }
  return out;
}

/** cel-go's error text: `ERROR: <input>:L:C: msg` and, with the source, the line and a `.....^` pointer. */
export function celIssue(parsed: ParsedCel, node: CelExpr, message: string): string {
  const offset = parsed.positions.get(node.id) ?? 0;
  const before = [...parsed.source].slice(0, offset);
  let line = 1;
  let lineStart = 0;
  before.forEach((ch, i) => { if (ch === '\n') { line++; lineStart = i + 1; } });
  const col = offset - lineStart;
  const text = [...parsed.source].join('').split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${col + 1}: ${message}\n | ${text}\n | ${'.'.repeat(col)}^`;
}
