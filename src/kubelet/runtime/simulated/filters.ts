/**
 * The text filters the tutorials pipe into (`env | grep SPECIAL`, `ls |
 * wc -l`, `sort | uniq -c`): busybox 1.35's grep, head, tail, wc, sort,
 * uniq, cut, tr and rev over files or stdin, in the options the docs use. An
 * option beyond those answers as busybox answers an unknown one: `NAME:
 * invalid option -- 'X'` and the usage line (exit 2 for grep, 1 for the
 * rest). Output is byte for byte busybox's for what is supported.
 */

/** What a filter reads and writes (shell.ts gives it the container's files and the pipe's stdin). */
export interface FilterIO {
  readFile(path: string): string | undefined;
  /** stdin: the pipe's input, an exec's stdin, or nothing. */
  stdin(): Promise<string>;
  out(stream: 'stdout' | 'stderr', text: string): void;
}

/** The first lines of busybox's usage text, before a command's usage line (the filters' and file commands'). */
export const banner = 'BusyBox v1.35.0 (Debian 1:1.35.0-4+deb12u1+b1) multi-call binary.\n\n';
const usages: Record<string, string> = {
  grep: 'Usage: grep [-HhnlLoqvsrRiwFEz] [-m N] [-A|B|C N] { PATTERN | -e PATTERN... | -f FILE... } [FILE]...',
  head: 'Usage: head [OPTIONS] [FILE]...',
  tail: 'Usage: tail [OPTIONS] [FILE]...',
  wc: 'Usage: wc [-cmlwL] [FILE]...',
  sort: 'Usage: sort [-nrugMcszbdfiokt] [-o FILE] [-k START[.OFS][OPTS][,END[.OFS][OPTS]] [-t CHAR] [FILE]...',
  uniq: 'Usage: uniq [-cduiz] [-f,s,w N] [FILE [OUTFILE]]',
  cut: 'Usage: cut [OPTIONS] [FILE]...',
  tr: 'Usage: tr [-cds] STRING1 [STRING2]',
};

class UsageError extends Error {}
class NotSimulated extends Error {}

/** busybox's answer to an option it does not take (the usage text shortened to its first line). */
function usage(name: string, io: FilterIO, why: string): number {
  io.out('stderr', `${name}: ${why}\n${banner}${usages[name]}\n`);
  return name === 'grep' ? 2 : 1;
}

interface Parsed { flags: Set<string>; values: Map<string, string>; operands: string[] }

/**
 * getopt as busybox uses it: `-abc` bundles flags, an option taking a value
 * takes the rest of the word or the next one, `--` ends options; `-N` (a
 * number) is kept as the flag `#` with that value where `numeric` allows it.
 */
function getopt(args: string[], flags: string, withValue: string, numeric = false, notSimulated = ''): Parsed {
  const out: Parsed = { flags: new Set(), values: new Map(), operands: [] };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') { out.operands.push(...args.slice(i + 1)); break; }
    if (!a.startsWith('-') || a === '-') { out.operands.push(a); continue; }
    if (numeric && /^-\d+$/.test(a)) { out.values.set('#', a.slice(1)); continue; }
    if (a.startsWith('--')) throw new UsageError(`unrecognized option '${a}'`);
    for (let j = 1; j < a.length; j++) {
      const f = a[j]!;
      // An option busybox has but the simulation does not: said plainly rather than ignored.
      if (notSimulated.includes(f)) throw new NotSimulated(f);
      if (withValue.includes(f)) {
        const v = j + 1 < a.length ? a.slice(j + 1) : args[++i];
        if (v === undefined) throw new UsageError(`option requires an argument -- '${f}'`);
        out.values.set(f, v);
        break;
      }
      if (!flags.includes(f)) throw new UsageError(`invalid option -- '${f}'`);
      out.flags.add(f);
    }
  }
  return out;
}

/** The inputs: each named file (`-` is stdin), or stdin alone; a missing file is reported as busybox does. */
async function inputs(name: string, files: string[], io: FilterIO): Promise<{ name: string; text?: string }[]> {
  if (!files.length) return [{ name: '', text: await io.stdin() }];
  const result: { name: string; text?: string }[] = [];
  for (const f of files) {
    const text = f === '-' ? await io.stdin() : io.readFile(f);
    if (text === undefined) io.out('stderr', name === 'cat' ? `cat: can't open '${f}': No such file or directory\n` : `${name}: ${f}: No such file or directory\n`);
    result.push({ name: f, text });
  }
  return result;
}

/** A text's lines without their newlines (a last line without one counts). */
const lines = (text: string) => { const l = text.split('\n'); if (l[l.length - 1] === '') l.pop(); return l; };
const joined = (l: string[]) => l.map((x) => `${x}\n`).join('');

/** A basic (BRE) or extended pattern as a JavaScript RegExp: in a BRE `\|`, `\(`, `\)`, `\{`, `\}`, `\+`, `\?` are the operators and the bare ones literal. */
function grepRegExp(pattern: string, extended: boolean, fixed: boolean, ignoreCase: boolean): RegExp {
  let src: string;
  if (fixed) src = pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  else if (extended) src = pattern;
  else {
    src = '';
    for (let i = 0; i < pattern.length; i++) {
      const c = pattern[i]!;
      if (c === '\\' && i + 1 < pattern.length) {
        const n = pattern[++i]!;
        src += '|(){}+?'.includes(n) ? n : `\\${n}`;
      } else if ('|(){}+?'.includes(c)) src += `\\${c}`;
      else if (c === '[') {
        // A bracket expression is copied whole (its `]` first is literal).
        const end = pattern.indexOf(']', i + (pattern[i + 1] === ']' ? 2 : pattern[i + 1] === '^' && pattern[i + 2] === ']' ? 3 : 1));
        if (end < 0) { src += '\\['; continue; }
        src += pattern.slice(i, end + 1);
        i = end;
      } else src += c;
    }
  }
  return new RegExp(src, ignoreCase ? 'i' : '');
}

async function grep(args: string[], io: FilterIO): Promise<number> {
  const o = getopt(args, 'HhnlqviwFEcx', 'e', false, 'LosrRzmABCf');
  const pattern = o.values.get('e') ?? o.operands.shift();
  if (pattern === undefined) { io.out('stderr', `${banner}${usages.grep}\n`); return 2; }
  let re: RegExp;
  try { re = grepRegExp(pattern, o.flags.has('E'), o.flags.has('F'), o.flags.has('i')); } catch { io.out('stderr', `grep: bad regex '${pattern}'\n`); return 2; }
  const match = (line: string) => {
    const m = re.exec(line);
    if (!m) return false;
    if (o.flags.has('x')) return new RegExp(`^(?:${re.source})$`, re.flags).test(line);
    if (o.flags.has('w')) return new RegExp(`(?:^|\\W)(?:${re.source})(?:\\W|$)`, re.flags).test(line);
    return true;
  };
  const files = await inputs('grep', o.operands, io);
  const prefix = o.flags.has('H') || (files.length > 1 && !o.flags.has('h'));
  let found = false;
  let error = false;
  for (const f of files) {
    if (f.text === undefined) { error = true; continue; }
    let count = 0;
    lines(f.text).forEach((line, i) => {
      if (match(line) === o.flags.has('v')) return;
      count++;
      found = true;
      if (o.flags.has('q') || o.flags.has('c') || o.flags.has('l')) return;
      io.out('stdout', `${prefix ? `${f.name}:` : ''}${o.flags.has('n') ? `${i + 1}:` : ''}${line}\n`);
    });
    if (o.flags.has('q')) { if (found) return 0; continue; }
    if (o.flags.has('c')) io.out('stdout', `${prefix ? `${f.name}:` : ''}${count}\n`);
    if (o.flags.has('l') && count) io.out('stdout', `${f.name || '(standard input)'}\n`);
  }
  if (error && !(o.flags.has('q') && found)) return 2;
  return found ? 0 : 1;
}

/** head and tail: -n N, -N; with more than one file, `==> NAME <==` headers as busybox writes them. */
async function headTail(name: 'head' | 'tail', args: string[], io: FilterIO): Promise<number> {
  const o = getopt(args, 'qv', 'n', true, name === 'tail' ? 'cfFs' : 'c');
  const raw = o.values.get('n') ?? o.values.get('#') ?? '10';
  const fromStart = name === 'tail' && raw.startsWith('+');
  const n = Number.parseInt(raw.replace(/^[+-]/, ''), 10);
  if (!Number.isFinite(n)) { io.out('stderr', `${name}: invalid number '${raw}'\n`); return 1; }
  const files = await inputs(name, o.operands, io);
  const headers = o.flags.has('v') || (files.length > 1 && !o.flags.has('q'));
  let status = 0;
  let first = true;
  for (const f of files) {
    if (f.text === undefined) { status = 1; continue; }
    if (headers) io.out('stdout', `${first ? '' : '\n'}==> ${f.name} <==\n`);
    first = false;
    const l = lines(f.text);
    const picked = name === 'head' ? (raw.startsWith('-') ? l.slice(0, Math.max(0, l.length - n)) : l.slice(0, n))
      : fromStart ? l.slice(Math.max(0, n - 1)) : l.slice(Math.max(0, l.length - n));
    io.out('stdout', joined(picked));
  }
  return status;
}

async function wc(args: string[], io: FilterIO): Promise<number> {
  const o = getopt(args, 'clw', '', false, 'mL');
  const want = ['l', 'w', 'c'].filter((f) => o.flags.has(f));
  const columns = want.length ? want : ['l', 'w', 'c'];
  const files = await inputs('wc', o.operands, io);
  const totals = [0, 0, 0];
  let status = 0;
  const row = (counts: number[], label: string) => {
    // One column of one input prints bare; otherwise each count is right-aligned in 9 places, as busybox prints them.
    const cells = columns.map((c) => counts[['l', 'w', 'c'].indexOf(c)]!);
    const text = cells.length === 1 && files.length === 1 ? String(cells[0]) : cells.map((x) => String(x).padStart(9)).join(' ');
    io.out('stdout', `${text}${label ? ` ${label}` : ''}\n`);
  };
  for (const f of files) {
    if (f.text === undefined) { status = 1; continue; }
    const counts = [(f.text.match(/\n/g) ?? []).length, f.text.split(/\s+/).filter(Boolean).length, Buffer.byteLength(f.text)];
    counts.forEach((c, i) => { totals[i] += c; });
    row(counts, f.name);
  }
  if (files.length > 1) row(totals, 'total');
  return status;
}

async function sort(args: string[], io: FilterIO): Promise<number> {
  const o = getopt(args, 'nruf', '', false, 'gMcszbdiVkot');
  const files = await inputs('sort', o.operands, io);
  if (files.some((f) => f.text === undefined)) return 2;
  const all = files.flatMap((f) => lines(f.text!));
  const key = (s: string) => (o.flags.has('f') ? s.toUpperCase() : s);
  const num = (s: string) => { const m = /^\s*-?\d*\.?\d+/.exec(s); return m ? Number(m[0]) : 0; };
  const byText = (a: string, b: string) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
  // -n compares the leading numbers, and lines with the same number by their whole text (busybox's last resort).
  const cmp = (a: string, b: string) => (o.flags.has('n') ? (num(a) - num(b)) || byText(a, b) : byText(a, b));
  let sorted = all.sort((a, b) => (o.flags.has('r') ? -cmp(a, b) : cmp(a, b)));
  if (o.flags.has('u')) sorted = sorted.filter((l, i) => i === 0 || cmp(sorted[i - 1]!, l) !== 0);
  io.out('stdout', joined(sorted));
  return 0;
}

async function uniq(args: string[], io: FilterIO): Promise<number> {
  const o = getopt(args, 'cdui', '', false, 'zfsw');
  const files = await inputs('uniq', o.operands.slice(0, 1), io);
  if (files[0]!.text === undefined) return 1;
  const same = (a: string, b: string) => (o.flags.has('i') ? a.toLowerCase() === b.toLowerCase() : a === b);
  const groups: { line: string; n: number }[] = [];
  for (const line of lines(files[0]!.text!)) {
    const last = groups[groups.length - 1];
    if (last && same(last.line, line)) last.n++; else groups.push({ line, n: 1 });
  }
  const kept = groups.filter((g) => (o.flags.has('d') ? g.n > 1 : o.flags.has('u') ? g.n === 1 : true));
  io.out('stdout', kept.map((g) => `${o.flags.has('c') ? `${String(g.n).padStart(7)} ` : ''}${g.line}\n`).join(''));
  return 0;
}

/** A cut LIST (`2`, `1,3`, `2-`, `-3`, `1-2`) as a test of 1-based positions. */
function cutList(list: string): ((i: number) => boolean) | undefined {
  const ranges: [number, number][] = [];
  for (const part of list.split(',')) {
    const m = /^(\d*)(-?)(\d*)$/.exec(part);
    if (!m || (!m[1] && !m[3])) return undefined;
    const from = m[1] ? Number(m[1]) : 1;
    const to = m[2] ? (m[3] ? Number(m[3]) : Infinity) : from;
    ranges.push([from, to]);
  }
  return (i) => ranges.some(([a, b]) => i >= a && i <= b);
}

async function cut(args: string[], io: FilterIO): Promise<number> {
  const o = getopt(args, 'sn', 'dfcb', false, 'FOD');
  const list = o.values.get('f') ?? o.values.get('c') ?? o.values.get('b');
  if (list === undefined) { io.out('stderr', 'cut: expected a list of bytes, characters, or fields\n'); return 1; }
  const pick = cutList(list);
  if (!pick) { io.out('stderr', `cut: invalid byte or character range\n`); return 1; }
  const delim = o.values.get('d') ?? '\t';
  const files = await inputs('cut', o.operands, io);
  let status = 0;
  for (const f of files) {
    if (f.text === undefined) { status = 1; continue; }
    const out = lines(f.text).flatMap((line) => {
      if (!o.values.has('f')) return [[...line].filter((_, i) => pick(i + 1)).join('')];
      // A line without the delimiter is printed whole, unless -s.
      if (!line.includes(delim)) return o.flags.has('s') ? [] : [line];
      return [line.split(delim).filter((_, i) => pick(i + 1)).join(delim)];
    });
    io.out('stdout', joined(out));
  }
  return status;
}

/** A tr set: ranges `a-z`, escapes `\n` `\t` `\\`, classes `[:upper:]` `[:lower:]` `[:digit:]` `[:space:]`. */
function trSet(s: string): string[] {
  const classes: Record<string, string> = {
    '[:upper:]': 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', '[:lower:]': 'abcdefghijklmnopqrstuvwxyz', '[:digit:]': '0123456789', '[:space:]': ' \t\n\r\f\v',
    '[:alpha:]': 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', '[:alnum:]': '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz',
  };
  const chars: string[] = [];
  const text = s.replace(/\\(.)/g, (_, c: string) => ({ n: '\n', t: '\t', r: '\r', '\\': '\\' } as Record<string, string>)[c] ?? c);
  for (let i = 0; i < text.length; i++) {
    const cls = Object.keys(classes).find((k) => text.startsWith(k, i));
    if (cls) { chars.push(...classes[cls]!); i += cls.length - 1; continue; }
    if (text[i + 1] === '-' && i + 2 < text.length) {
      for (let c = text.charCodeAt(i); c <= text.charCodeAt(i + 2); c++) chars.push(String.fromCharCode(c));
      i += 2;
      continue;
    }
    chars.push(text[i]!);
  }
  return chars;
}

async function tr(args: string[], io: FilterIO): Promise<number> {
  const o = getopt(args, 'ds', '', false, 'c');
  const [a, b] = o.operands;
  if (a === undefined || (!o.flags.has('d') && !o.flags.has('s') && b === undefined)) { io.out('stderr', `${banner}${usages.tr}\n`); return 1; }
  const from = trSet(a);
  const to = b === undefined ? [] : trSet(b);
  const input = await io.stdin();
  let out = '';
  for (const ch of input) {
    const i = from.indexOf(ch);
    if (o.flags.has('d')) { if (i < 0) out += ch; continue; }
    const mapped = i < 0 || !to.length ? ch : to[Math.min(i, to.length - 1)]!;
    // -s squeezes runs of a character of the last set into one.
    const squeezeSet = to.length ? to : from;
    if (o.flags.has('s') && out.endsWith(mapped) && squeezeSet.includes(mapped)) continue;
    out += mapped;
  }
  io.out('stdout', out);
  return 0;
}

/** `cat` of files and of stdin (no operand, or `-`). */
async function cat(args: string[], io: FilterIO): Promise<number> {
  const files = await inputs('cat', args.filter((a) => a === '-' || !a.startsWith('-')), io);
  let status = 0;
  for (const f of files) { if (f.text === undefined) status = 1; else io.out('stdout', f.text); }
  return status;
}

/**
 * `rev`: each line's characters reversed, its newline kept where it was (a
 * last line without one stays without: the Indexed Job page's downward API
 * file `3`). Code points, not bytes, as busybox's rev with a UTF-8 locale.
 */
async function rev(args: string[], io: FilterIO): Promise<number> {
  const files = await inputs('rev', args.filter((a) => a === '-' || !a.startsWith('-')), io);
  let status = 0;
  for (const f of files) {
    if (f.text === undefined) { status = 1; continue; }
    io.out('stdout', f.text.split('\n').map((line) => [...line].reverse().join('')).join('\n'));
  }
  return status;
}

export const filterNames = ['grep', 'head', 'tail', 'wc', 'sort', 'uniq', 'cut', 'tr', 'cat', 'rev'] as const;

/** Runs one filter; its exit code. */
export async function runFilter(name: string, args: string[], io: FilterIO): Promise<number> {
  try {
    switch (name) {
      case 'grep': return await grep(args, io);
      case 'head': case 'tail': return await headTail(name, args, io);
      case 'wc': return await wc(args, io);
      case 'sort': return await sort(args, io);
      case 'uniq': return await uniq(args, io);
      case 'cut': return await cut(args, io);
      case 'tr': return await tr(args, io);
      case 'rev': return await rev(args, io);
      default: return await cat(args, io);
    }
  } catch (e) {
    if (e instanceof UsageError) return usage(name, io, e.message);
    if (e instanceof NotSimulated) { io.out('stderr', `${name}: option -${e.message} is not simulated by k8ts's simulated shell\n`); return name === 'grep' ? 2 : 1; }
    throw e;
  }
}
