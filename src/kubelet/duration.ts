/**
 * Go duration strings (`time.ParseDuration`) as kubelet flags and the
 * simulator's annotations take them: a sequence of decimal numbers with units
 * ns, us (µs), ms, s, m, h — "300ms", "1.5s", "2m30s". "0" alone is zero.
 * Returns milliseconds, or undefined for anything else (negative values too).
 */
const unitMs: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const term = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

export function parseDuration(input: string | undefined): number | undefined {
  if (input === undefined) return undefined;
  const s = input.trim();
  if (s === '0') return 0;
  if (!s) return undefined;
  let total = 0;
  term.lastIndex = 0;
  while (term.lastIndex < s.length) {
    const at = term.lastIndex;
    const m = term.exec(s);
    if (!m || m.index !== at) return undefined;
    total += Number(m[1]) * unitMs[m[2]];
  }
  return total;
}

/** Like parseDuration, but throws a flag-style error. */
export function mustParseDuration(flag: string, input: string): number {
  const ms = parseDuration(input);
  if (ms === undefined) throw new Error(`invalid argument "${input}" for "--${flag}" flag: time: invalid duration "${input}"`);
  return ms;
}
