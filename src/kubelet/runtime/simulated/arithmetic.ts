/**
 * The shell's arithmetic expansion `$((EXPR))` (POSIX 2.6.4, as dash, ash
 * and bash evaluate it): signed integers (decimal, 0x hex, 0 octal),
 * variables by name or as $NAME (unset or empty: 0), parentheses, unary
 * `+ - ! ~`, then by falling precedence `* / %`, `+ -`, `<< >>`,
 * `< <= > >=`, `== !=`, `&`, `^`, `|`, `&&`, `||`, `?:` and the
 * assignments `= *= /= %= += -= <<= >>= &= ^= |=`, which set the variable
 * (`i=$((i+1))` and `$((i+=1))` count alike). Division by zero and a
 * malformed expression are errors the caller reports in its shell's words.
 */

export class ArithmeticError extends Error {}

type Vars = { get(name: string): string | undefined; set(name: string, value: string): void };

const binary: Record<string, [number, (a: number, b: number) => number]> = {
  '||': [1, (a, b) => +(a !== 0 || b !== 0)], '&&': [2, (a, b) => +(a !== 0 && b !== 0)],
  '|': [3, (a, b) => a | b], '^': [4, (a, b) => a ^ b], '&': [5, (a, b) => a & b],
  '==': [6, (a, b) => +(a === b)], '!=': [6, (a, b) => +(a !== b)],
  '<': [7, (a, b) => +(a < b)], '<=': [7, (a, b) => +(a <= b)], '>': [7, (a, b) => +(a > b)], '>=': [7, (a, b) => +(a >= b)],
  '<<': [8, (a, b) => a << b], '>>': [8, (a, b) => a >> b],
  '+': [9, (a, b) => a + b], '-': [9, (a, b) => a - b],
  '*': [10, (a, b) => a * b], '/': [10, (a, b) => divide(a, b, Math.trunc)], '%': [10, (a, b) => divide(a, b, (q) => a - Math.trunc(q) * b)],
};
const assignments = ['<<=', '>>=', '*=', '/=', '%=', '+=', '-=', '&=', '^=', '|=', '='];
const tokenPattern = /\s*(0[xX][0-9a-fA-F]+|\d+|\$?[A-Za-z_][A-Za-z0-9_]*|<<=|>>=|\|\||&&|==|!=|<=|>=|<<|>>|[*/%+\-&^|]=|[-+*/%()<>!~&^|?:=])/y;

function divide(a: number, b: number, f: (q: number) => number): number {
  if (b === 0) throw new ArithmeticError('division by zero');
  return f(a / b);
}

function tokenize(expr: string): string[] {
  const tokens: string[] = [];
  tokenPattern.lastIndex = 0;
  while (tokenPattern.lastIndex < expr.length) {
    if (/^\s*$/.test(expr.slice(tokenPattern.lastIndex))) break;
    const m = tokenPattern.exec(expr);
    if (!m) throw new ArithmeticError('syntax error');
    tokens.push(m[1]!);
  }
  return tokens;
}

const isName = (t: string | undefined) => !!t && /^\$?[A-Za-z_]/.test(t);

/** EXPR's value; assignments in it set vars. */
export function evaluateArithmetic(expr: string, vars: Vars): number {
  const tokens = tokenize(expr);
  let pos = 0;
  const variable = (name: string): number => {
    const raw = (vars.get(name.replace(/^\$/, '')) ?? '').trim();
    if (raw === '') return 0;
    return evaluateArithmetic(raw, vars);
  };
  const primary = (): number => {
    const t = tokens[pos++];
    if (t === undefined) throw new ArithmeticError('syntax error');
    if (t === '(') {
      const v = expression();
      if (tokens[pos++] !== ')') throw new ArithmeticError('syntax error');
      return v;
    }
    if (t === '-' || t === '+' || t === '!' || t === '~') {
      const v = primary();
      return t === '-' ? -v : t === '+' ? v : t === '!' ? +(v === 0) : ~v;
    }
    if (/^0[xX]/.test(t)) return parseInt(t, 16);
    if (/^0\d/.test(t)) { if (/[89]/.test(t)) throw new ArithmeticError('syntax error'); return parseInt(t, 8); }
    if (/^\d/.test(t)) return parseInt(t, 10);
    if (isName(t)) return variable(t);
    throw new ArithmeticError('syntax error');
  };
  // Precedence climbing over the binary operators.
  const climb = (min: number): number => {
    let left = primary();
    for (;;) {
      const op = binary[tokens[pos] ?? ''];
      if (!op || op[0] < min) return left;
      pos++;
      // && and || still parse their right side when it does not count (no assignment side effects are skipped here).
      left = op[1](left, climb(op[0] + 1));
    }
  };
  const conditional = (): number => {
    const cond = climb(1);
    if (tokens[pos] !== '?') return cond;
    pos++;
    const yes = expression();
    if (tokens[pos++] !== ':') throw new ArithmeticError('syntax error');
    const no = conditional();
    return cond !== 0 ? yes : no;
  };
  const expression = (): number => {
    const name = tokens[pos];
    const op = tokens[pos + 1];
    if (isName(name) && !name!.startsWith('$') && op && assignments.includes(op)) {
      pos += 2;
      const right = expression();
      const value = op === '=' ? right : binary[op.slice(0, -1)]![1](variable(name!), right);
      vars.set(name!, String(value));
      return value;
    }
    return conditional();
  };
  const value = expression();
  if (pos !== tokens.length) throw new ArithmeticError('syntax error');
  return Math.trunc(value);
}
