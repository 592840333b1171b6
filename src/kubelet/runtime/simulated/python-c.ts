/**
 * `python3 -c SCRIPT` for the small scripts of the kubernetes.io Job pages
 * (the success-policy example exits 0 only for JOB_COMPLETION_INDEX 2), so
 * that a simulated Job pod ends with the code the page's reasoning needs.
 * The subset, one statement a line, blocks by indentation:
 *  - `import os, sys, time` (other modules: not run);
 *  - `print(...)`, `sys.exit(...)` (an int is the code; a string goes to
 *    stderr with code 1; none or None is 0), `time.sleep(N)`;
 *  - `if`/`elif`/`else`;
 *  - `name = expression` and names read back (the backoffLimitPerIndex
 *    page's `index = int(os.environ.get("JOB_COMPLETION_INDEX"))`);
 *  - expressions of string, int, None/True/False literals,
 *    `os.environ.get(K[, D])`, `os.getenv(K[, D])`, `os.environ[K]`,
 *    `int(...)`, `str(...)`, + - * // %, comparisons, `and`/`or`/`not`,
 *    parentheses.
 * Anything else makes the argv not a program the simulator runs (the pod
 * keeps its scripted lifecycle), rather than a guess at what Python prints.
 */

type Value = string | number | boolean | null;
type Expr =
  | { lit: Value }
  | { name: string }
  | { env: Expr; fallback?: Expr; strict?: true }
  | { call: 'int' | 'str'; arg: Expr }
  | { op: string; left: Expr; right: Expr }
  | { not: Expr };
export type PyStatement =
  | { print: Expr[] }
  | { exit?: Expr }
  | { sleep: Expr }
  | { assign: string; value: Expr }
  | { branches: { cond: Expr; body: PyStatement[] }[]; otherwise?: PyStatement[] };

class Unsupported extends Error {}
/** sys.exit's unwinding. */
class Exit { constructor(readonly code: number) {} }

const modules = new Set(['os', 'sys', 'time']);

/** The parsed script of `python3 -c SCRIPT` (python, python3, python3.N, any directory), or undefined. */
export function parsePythonArgv(argv: string[]): PyStatement[] | undefined {
  const base = argv[0]?.slice(argv[0].lastIndexOf('/') + 1) ?? '';
  if (!/^python(3(\.\d+)?)?$/.test(base) || argv.length !== 3 || argv[1] !== '-c') return undefined;
  try {
    const lines = argv[2]!.split('\n').map((l) => l.replace(/\s+#.*$|^\s*#.*$/, '')).filter((l) => l.trim());
    const at = { i: 0 };
    const body = block(lines, at, indentOf(lines[0] ?? ''));
    if (at.i < lines.length) throw new Unsupported('indentation');
    return body;
  } catch (e) {
    if (e instanceof Unsupported) return undefined;
    throw e;
  }
}

const indentOf = (line: string) => line.length - line.trimStart().length;

function block(lines: string[], at: { i: number }, indent: number): PyStatement[] {
  const out: PyStatement[] = [];
  while (at.i < lines.length && indentOf(lines[at.i]!) === indent) {
    const text = lines[at.i]!.trim();
    at.i++;
    if (/^import\s/.test(text)) {
      if (!text.slice(7).split(',').every((m) => modules.has(m.trim()))) throw new Unsupported('module');
      continue;
    }
    const head = /^if\s+(.+):$/.exec(text);
    if (!head) { out.push(statement(text)); continue; }
    const branches = [{ cond: expression(head[1]!), body: nested(lines, at, indent) }];
    let otherwise: PyStatement[] | undefined;
    for (;;) {
      const next = at.i < lines.length && indentOf(lines[at.i]!) === indent ? lines[at.i]!.trim() : '';
      const elif = /^elif\s+(.+):$/.exec(next);
      if (elif) { at.i++; branches.push({ cond: expression(elif[1]!), body: nested(lines, at, indent) }); continue; }
      if (/^else\s*:$/.test(next)) { at.i++; otherwise = nested(lines, at, indent); }
      break;
    }
    out.push({ branches, otherwise });
  }
  if (at.i < lines.length && indentOf(lines[at.i]!) > indent) throw new Unsupported('indentation');
  return out;
}

function nested(lines: string[], at: { i: number }, indent: number): PyStatement[] {
  const inner = at.i < lines.length ? indentOf(lines[at.i]!) : 0;
  if (inner <= indent) throw new Unsupported('expected an indented block');
  return block(lines, at, inner);
}

const keywords = new Set(['and', 'or', 'not', 'None', 'True', 'False', 'if', 'elif', 'else', 'import', 'int', 'str']);

function statement(text: string): PyStatement {
  const assign = /^([A-Za-z_]\w*)\s*=(?!=)\s*(.+)$/.exec(text);
  if (assign && !keywords.has(assign[1]!)) return { assign: assign[1]!, value: expression(assign[2]!) };
  const call = /^(print|sys\.exit|exit|time\.sleep)\s*\((.*)\)$/.exec(text);
  if (!call) throw new Unsupported(`statement ${text}`);
  const args = call[2]!.trim() ? splitArgs(call[2]!).map(expression) : [];
  if (call[1] === 'print') return { print: args };
  if (call[1] === 'time.sleep') { if (args.length !== 1) throw new Unsupported('sleep'); return { sleep: args[0]! }; }
  if (args.length > 1) throw new Unsupported('exit');
  return { exit: args[0] };
}

/** Top-level commas of an argument list. */
function splitArgs(src: string): string[] {
  const parts: string[] = [];
  let depth = 0; let quote = ''; let start = 0;
  for (let i = 0; i < src.length; i++) {
    const ch = src[i]!;
    if (quote) { if (ch === '\\') i++; else if (ch === quote) quote = ''; continue; }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '(' || ch === '[') depth++;
    else if (ch === ')' || ch === ']') depth--;
    else if (ch === ',' && depth === 0) { parts.push(src.slice(start, i)); start = i + 1; }
  }
  parts.push(src.slice(start));
  return parts;
}

const tokenRe = /\s*(?:("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(\d+)|(os\.environ\.get|os\.getenv|os\.environ|int|str|None|True|False|and|or|not)\b|(==|!=|<=|>=|\/\/|[<>+\-*%()[\],])|([A-Za-z_]\w*)(?![\w.]))/y;

function tokenize(src: string): string[] {
  const out: string[] = [];
  tokenRe.lastIndex = 0;
  while (tokenRe.lastIndex < src.length) {
    if (!src.slice(tokenRe.lastIndex).trim()) break;
    const m = tokenRe.exec(src);
    if (!m) throw new Unsupported(`expression ${src}`);
    out.push(m[1] ?? m[2] ?? m[3] ?? m[4] ?? `$${m[5]!}`);
  }
  return out;
}

const precedence: Record<string, number> = { or: 1, and: 2, '==': 4, '!=': 4, '<': 4, '>': 4, '<=': 4, '>=': 4, '+': 5, '-': 5, '*': 6, '//': 6, '%': 6 };

function expression(src: string): Expr {
  const tokens = tokenize(src);
  let pos = 0;
  const take = (t?: string) => {
    const got = tokens[pos++];
    if (got === undefined || (t !== undefined && got !== t)) throw new Unsupported(`expected ${t ?? 'a token'}`);
    return got;
  };
  const primary = (): Expr => {
    const t = take();
    if (t === 'not') return { not: binary(3) };
    if (t === '(') { const e = binary(0); take(')'); return e; }
    if (t === 'None' || t === 'True' || t === 'False') return { lit: t === 'None' ? null : t === 'True' };
    if (/^\d/.test(t)) return { lit: Number(t) };
    if (t[0] === '"' || t[0] === "'") return { lit: t.slice(1, -1).replace(/\\(.)/g, '$1') };
    if (t[0] === '$') return { name: t.slice(1) };
    if (t === 'os.environ') { take('['); const key = binary(0); take(']'); return { env: key, strict: true }; }
    take('(');
    if (t === 'int' || t === 'str') { const arg = binary(0); take(')'); return { call: t, arg }; }
    const key = binary(0);
    const fallback = tokens[pos] === ',' ? (take(','), binary(0)) : undefined;
    take(')');
    return { env: key, fallback };
  };
  const binary = (min: number): Expr => {
    let left = primary();
    for (let op = tokens[pos]; op !== undefined && (precedence[op] ?? 0) > min; op = tokens[pos]) {
      pos++;
      left = { op, left, right: binary(precedence[op]!) };
    }
    return left;
  };
  const e = binary(0);
  if (pos !== tokens.length) throw new Unsupported(`expression ${src}`);
  return e;
}

/** What the script may use: the container's environment, its output, and sleep (false once the container stopped). */
export interface PythonContext {
  env: Map<string, string>;
  write(stream: 'stdout' | 'stderr', text: string): void;
  sleep(ms: number): Promise<boolean>;
}

const show = (v: Value) => (v === null ? 'None' : v === true ? 'True' : v === false ? 'False' : String(v));
const truthy = (v: Value) => v !== null && v !== false && v !== 0 && v !== '';

/** A Python error: the traceback's last line, and exit code 1. */
class PyError { constructor(readonly line: string) {} }

/** What a script's expressions read: the container's environment and the script's own names. */
interface Scope { env: Map<string, string>; vars: Map<string, Value> }

function evaluate(e: Expr, scope: Scope): Value {
  if ('lit' in e) return e.lit;
  if ('name' in e) {
    if (!scope.vars.has(e.name)) throw new PyError(`NameError: name '${e.name}' is not defined`);
    return scope.vars.get(e.name)!;
  }
  if ('not' in e) return !truthy(evaluate(e.not, scope));
  if ('env' in e) {
    const key = show(evaluate(e.env, scope));
    const v = scope.env.get(key);
    if (v === undefined && e.strict) throw new PyError(`KeyError: '${key}'`);
    return v ?? (e.fallback ? evaluate(e.fallback, scope) : null);
  }
  if ('call' in e) {
    const v = evaluate(e.arg, scope);
    if (e.call === 'str') return show(v);
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*[-+]?\d+\s*$/.test(v) ? Number(v) : NaN;
    if (Number.isNaN(n)) throw new PyError(`ValueError: invalid literal for int() with base 10: ${JSON.stringify(show(v)).replace(/^"|"$/g, "'")}`);
    return n;
  }
  if (e.op === 'and') { const l = evaluate(e.left, scope); return truthy(l) ? evaluate(e.right, scope) : l; }
  if (e.op === 'or') { const l = evaluate(e.left, scope); return truthy(l) ? l : evaluate(e.right, scope); }
  return operate(e.op, evaluate(e.left, scope), evaluate(e.right, scope));
}

function operate(op: string, l: Value, r: Value): Value {
  if (op === '==') return l === r;
  if (op === '!=') return l !== r;
  if (op === '+' && typeof l === 'string' && typeof r === 'string') return l + r;
  if (typeof l !== 'number' || typeof r !== 'number') {
    if (['<', '>', '<=', '>='].includes(op) && typeof l === 'string' && typeof r === 'string') return op === '<' ? l < r : op === '>' ? l > r : op === '<=' ? l <= r : l >= r;
    throw new PyError(`TypeError: unsupported operand type(s) for ${op}`);
  }
  if ((op === '//' || op === '%') && r === 0) throw new PyError('ZeroDivisionError: integer division or modulo by zero');
  switch (op) {
    case '+': return l + r;
    case '-': return l - r;
    case '*': return l * r;
    case '//': return Math.floor(l / r);
    case '%': return ((l % r) + r) % r;
    case '<': return l < r;
    case '>': return l > r;
    case '<=': return l <= r;
    default: return l >= r;
  }
}

/** Runs the script; resolves to the process's exit code. */
export async function runPython(script: PyStatement[], ctx: PythonContext): Promise<number> {
  try {
    await runBlock(script, ctx, { env: ctx.env, vars: new Map() });
    return 0;
  } catch (e) {
    if (e instanceof Exit) return e.code;
    if (e instanceof PyError) { ctx.write('stderr', `Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n${e.line}\n`); return 1; }
    throw e;
  }
}

async function runBlock(body: PyStatement[], ctx: PythonContext, scope: Scope): Promise<void> {
  for (const s of body) {
    if ('print' in s) ctx.write('stdout', `${s.print.map((a) => show(evaluate(a, scope))).join(' ')}\n`);
    else if ('assign' in s) scope.vars.set(s.assign, evaluate(s.value, scope));
    else if ('sleep' in s) {
      const seconds = evaluate(s.sleep, scope);
      if (typeof seconds !== 'number') throw new PyError('TypeError: an integer is required');
      if (!(await ctx.sleep(seconds * 1000))) throw new Exit(143);
    } else if ('branches' in s) {
      const taken = s.branches.find((b) => truthy(evaluate(b.cond, scope)));
      await runBlock(taken ? taken.body : s.otherwise ?? [], ctx, scope);
    } else {
      const v = s.exit ? evaluate(s.exit, scope) : null;
      if (typeof v === 'string') { ctx.write('stderr', `${v}\n`); throw new Exit(1); }
      throw new Exit(v === null ? 0 : typeof v === 'number' ? v & 0xff : v ? 1 : 0);
    }
  }
}
