/**
 * bash's brace expansion (not ash's or dash's, which keep the braces), for
 * the tutorials' `for i in {1..5}` and `echo file{1,2}`: a word of plain
 * text (no quotes, no expansions; not an assignment) with one `{A..B}`
 * sequence of integers or of single letters, or one `{x,y,...}` list,
 * becomes one word per item, each with the text around the braces, in
 * order (a descending sequence counts down). Anything else is left as it
 * is, as bash leaves `{1..}` or `{a}`.
 */
const plainWord = /^[^'"\\$`]*$/;
const sequence = /^(.*?)\{(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])\}(.*)$/;
const list = /^(.*?)\{([^{}]*,[^{}]*)\}(.*)$/;

function range(a: string, b: string): string[] | undefined {
  const numeric = /^-?\d+$/;
  if (numeric.test(a) && numeric.test(b)) {
    const [x, y] = [Number(a), Number(b)];
    if (Math.abs(y - x) > 100_000) return undefined;
    const step = x <= y ? 1 : -1;
    const out: string[] = [];
    for (let i = x; step > 0 ? i <= y : i >= y; i += step) out.push(String(i));
    return out;
  }
  if (numeric.test(a) || numeric.test(b)) return undefined;
  const [x, y] = [a.charCodeAt(0), b.charCodeAt(0)];
  const step = x <= y ? 1 : -1;
  const out: string[] = [];
  for (let i = x; step > 0 ? i <= y : i >= y; i += step) out.push(String.fromCharCode(i));
  return out;
}

/** The words `raw` expands to under bash's brace expansion, or undefined when it has none. */
export function braceExpand(raw: string): string[] | undefined {
  if (!plainWord.test(raw) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(raw)) return undefined;
  const s = sequence.exec(raw);
  if (s) return range(s[2]!, s[3]!)?.map((item) => `${s[1]}${item}${s[4]}`);
  const l = list.exec(raw);
  return l ? l[2]!.split(',').map((item) => `${l[1]}${item}${l[3]}`) : undefined;
}
