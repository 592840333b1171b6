/**
 * The few shell commands the Kubernetes tutorials' containers run, so that
 * `kubectl logs` on a simulated node shows what the pages show: `date; echo
 * Hello from the Kubernetes cluster` (CronJob), `env` and `cat
 * /etc/config/sport` (ConfigMaps), `echo "Hello World"` (`kubectl create job
 * ... -- echo`), `while true; do echo ...; sleep 10; done`.
 *
 * No process runs: this parses a container's argv (an `sh -c SCRIPT` or one
 * command) into a small program and runs it against the container's
 * environment and its ConfigMap/Secret/downward API files. Anything outside
 * the subset (`case`, functions, an unknown
 * command) makes `parseProgram` answer undefined, and the runtime logs the
 * container's simulated lifecycle instead, as before.
 *
 * The subset: `;`, `&&`, `||` and newlines between commands; pipes `a | b`
 * (each stage runs to its end, and its output is the next one's stdin: a
 * `while` loop is refused in a pipe, as it would never end); NAME=value;
 * `if LIST; then LIST; [elif ...;] [else LIST;] fi`; `while LIST; do
 * LIST; done` (`while true`, `while sleep 0.01`), `until LIST; do LIST; done` and `for NAME in WORDS` loops; words with '...', "..." and `\`; $VAR,
 * ${VAR}, $(COMMAND) and `COMMAND`; output redirections `>`, `>>`, `2>`,
 * `2>&1`, `>&2`, `>/dev/null` into the container's layer and volumes
 * (layer.ts) and `< FILE`; the commands echo [-n] [-e], printf (%s, %d, %%,
 * \n, \t), printenv, env, date, cat, ls (columns on a terminal:
 * ls-columns.ts), hostname, id (identity.ts), ps (processes.ts), sleep,
 * true, false, :, exit, cd (the shell's working directory: every relative
 * path after it starts there), the filters grep, head, tail, wc, sort, uniq, cut, tr (filters.ts),
 * the file commands touch, rm, mkdir, cp, mv, test, `[` and `[[` (file-commands.ts),
 * tar for `kubectl cp` (tar.ts), curl and wget to the pod's own ports
 * (http-commands.ts), busybox 1.28's nslookup (nslookup.ts), busybox's ping
 * (ping.ts); and the Job
 * example's `perl -Mbignum=bpi -wle 'print bpi(N)'` (perl-pi.ts); the Job
 * success-policy example's `python3 -c SCRIPT` (python-c.ts).
 */
import { readlink } from './readlink.js';
import type { Duplex } from 'node:stream';
import { perlPiDigits, piToDigits } from './perl-pi.js';
import { parsePythonArgv, runPython, type PyStatement } from './python-c.js';
import { setXtrace, traceAssignment, traceLine, xtraceOption } from './xtrace.js';
import { tar } from './tar.js';
import { curl, wget, type HttpOutcome, type HttpRequest } from './http-commands.js';
import { nslookup, type PodResolver } from './nslookup.js';
import { hasBusyboxPing, ping } from './ping.js';
import { filterNames, runFilter } from './filters.js';
import { fileCommandNames, runFileCommand } from './file-commands.js';
import { posix } from 'node:path';
import { lsFlavour } from './ls-columns.js';
import { ls } from './ls.js';
import type { FileStat } from './file-stat.js';
import { arithmeticFailed, cdFailed, shellDialect, type ShellDialect } from './shell-dialect.js';
import { ArithmeticError, evaluateArithmetic } from './arithmetic.js';
import { id, type ContainerUser } from './identity.js';
import { kill } from './kill.js';
import { busyboxPs, withPids, type SimulatedProcess } from './processes.js';
import type { PidNamespace } from './pid-namespace.js';
import { signalListed } from './signal-process.js';
import { parseTailFollow, tailFollow } from './tail-follow.js';
import { braceExpand } from './brace-expansion.js';
import { imageCommand } from './extra-commands.js';
import { ipCommand } from './ip-command.js';
import { hostnameCommand, hostsAddress } from './hostname.js';

type Part = { lit: string } | { var: string; quoted: boolean; index?: string } | { sub: Command[]; quoted: boolean } | { arith: string; quoted: boolean };
type Word = Part[];

/** `> FILE`, `>> FILE`, `2> FILE` (target), `2>&1`, `>&2` (dup), `< FILE` (fd 0): applied left to right, as the shell does. */
export type Redirect = { fd: 1 | 2; append: boolean; target: Word } | { fd: 1 | 2; dup: 1 | 2 } | { fd: 0; target: Word };

export type Command =
  | { kind: 'simple'; words: Word[]; op: Op; redirs?: Redirect[]; direct?: true }
  | { kind: 'assign'; name: string; value: Word; op: Op }
  | { kind: 'assign-array'; name: string; words: Word[]; op: Op }
  | { kind: 'while'; cond: Command[]; body: Command[]; op: Op; until?: true }
  | { kind: 'for'; name: string; words: Word[]; body: Command[]; op: Op }
  | { kind: 'pi'; digits: number; op: Op }
  | { kind: 'python'; script: PyStatement[]; op: Op }
  | { kind: 'pipe'; stages: Command[]; op: Op }
  | { kind: 'if'; clauses: { cond: Command[]; body: Command[] }[]; otherwise?: Command[]; op: Op };

/** What joins a command to the next: run it anyway, only on success, only on failure. */
type Op = ';' | '&&' | '||';

/** The commands the subset runs; others make the program not understood. */
const builtins = new Set<string>(['set', 'echo', 'printf', 'printenv', 'env', 'date', 'ls', 'hostname', 'pwd', 'cd', 'id', 'ps', 'sleep', 'true', 'false', ':', 'exit', 'tar', 'curl', 'wget', 'nslookup', 'ping', 'kill', 'readlink', 'ip', ...filterNames, ...fileCommandNames]);

/** Commands only a shell has (no image has a /bin/cd): run directly, they are not found. */
const shellOnly = new Set(['cd', 'exit', 'set']);

/** `tail -f` follows a file for ever: `tail -f /dev/null` sleeps, one file is followed (tail-follow.ts); other forms are not simulated. */
const tailFollows = (args: (string | undefined)[]) => args.some((a) => a !== undefined && /^-[^-]*[fF]/.test(a));
const tailFollowUnsupported = (args: (string | undefined)[]) => tailFollows(args) && args.join(' ') !== '-f /dev/null' && !parseTailFollow(args);
const shells = new Set(['sh', 'bash', 'ash', 'dash']);

class Unsupported extends Error {}

/** A token: a word, an operator (`;`, `&&`, `||`, newline as `;`) or a redirection (its target is the next word). */
type Token = { word: Word; raw: string } | { op: string } | { redir: { fd: 0 | 1 | 2; append: boolean; dup?: 1 | 2 } } | { array: string; words: Word[] };

/** `[n]>`, `[n]>>`, `[n]>&m` at a token's start (n, m: 1 or 2). */
const redirection = /^([12]?)(>>?)(?:&([12]))?/;

/**
 * `bash`: the script is bash's, whose indexed arrays (`items=(foo bar)`,
 * `${items[$i]}`: the Indexed Job page's input container) parse; dash and
 * ash have none (their `(` there is a syntax error: not simulated).
 */
function tokenize(src: string, lenient: boolean, bash = false): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i];
    if (ch === ' ' || ch === '\t') { i++; continue; }
    if (ch === '\\' && src[i + 1] === '\n') { i += 2; continue; }
    if (ch === '#') { while (i < src.length && src[i] !== '\n') i++; continue; }
    if (ch === '\n' || ch === ';') { out.push({ op: ';' }); i++; continue; }
    if (src.startsWith('&&', i) || src.startsWith('||', i)) { out.push({ op: src.slice(i, i + 2) }); i += 2; continue; }
    const r = redirection.exec(src.slice(i, i + 5));
    if (r && (r[1] === '' || src[i + 1] === '>')) {
      if (r[3] && r[2] === '>>') throw new Unsupported('operator >>&');
      out.push({ redir: { fd: r[1] === '2' ? 2 : 1, append: r[2] === '>>', dup: r[3] ? (Number(r[3]) as 1 | 2) : undefined } });
      i += r[0].length;
      continue;
    }
    if (ch === '|') { out.push({ op: '|' }); i++; continue; }
    if (ch === '<' && src[i + 1] !== '<' && src[i + 1] !== '&' && src[i + 1] !== '(') { out.push({ redir: { fd: 0, append: false } }); i++; continue; }
    const prev = out[out.length - 1];
    if (ch === '(' && bash && prev && 'raw' in prev && /^[A-Za-z_][A-Za-z0-9_]*=$/.test(prev.raw) && src[i - 1] === '=') {
      const end = closingParen(src, i);
      const inner = tokenize(src.slice(i + 1, end), lenient, bash).filter((t) => !('op' in t && t.op === ';'));
      if (!inner.every((t) => 'word' in t)) throw new Unsupported('an array of more than words');
      out[out.length - 1] = { array: prev.raw.slice(0, -1), words: inner.map((t) => (t as { word: Word }).word) };
      i = end + 1;
      continue;
    }
    if ('|&<>()'.includes(ch)) throw new Unsupported(`operator ${ch}`);
    const start = i;
    const word: Word = [];
    let lit = '';
    const flush = () => { if (lit) { word.push({ lit }); lit = ''; } };
    while (i < src.length && !' \t\n;&|<>()'.includes(src[i])) {
      const c = src[i];
      if (c === '\\') { lit += src[i + 1] ?? ''; i += 2; } else if (c === "'") {
        const end = src.indexOf("'", i + 1);
        if (end < 0) throw new Unsupported('unterminated quote');
        lit += src.slice(i + 1, end);
        i = end + 1;
      } else if (c === '"') {
        i++;
        while (i < src.length && src[i] !== '"') {
          if (src[i] === '\\' && '$`"\\\n'.includes(src[i + 1] ?? '')) { lit += src[i + 1]; i += 2; } else if (src[i] === '$' || src[i] === '`') {
            flush();
            i = expansion(src, i, word, true, lenient, bash);
          } else lit += src[i++];
        }
        if (src[i] !== '"') throw new Unsupported('unterminated quote');
        i++;
        if (!word.length && !lit) word.push({ lit: '' });
      } else if (c === '$' || c === '`') {
        flush();
        i = expansion(src, i, word, false, lenient, bash);
      } else lit += src[i++];
    }
    flush();
    const raw = src.slice(start, i);
    const braced = bash ? braceExpand(raw) : undefined;
    if (braced) out.push(...braced.map((w) => ({ word: [{ lit: w }], raw: w })));
    else out.push({ word, raw });
  }
  return out;
}

/** Where the `)` closing the `(` at src[i] is, quotes skipped. */
function closingParen(src: string, i: number): number {
  let depth = 0;
  for (let j = i; j < src.length; j++) {
    const c = src[j];
    if (c === "'" || c === '"') { const close = src.indexOf(c, j + 1); if (close < 0) break; j = close; continue; }
    if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return j;
  }
  throw new Unsupported('unterminated (');
}

/** One $VAR, ${VAR}, ${ARRAY[INDEX]} (bash), $(...) or `...` at src[i], added to word; returns where it ends. */
function expansion(src: string, i: number, word: Word, quoted: boolean, lenient: boolean, bash: boolean): number {
  if (src[i] === '`') {
    const end = src.indexOf('`', i + 1);
    if (end < 0) throw new Unsupported('unterminated backquote');
    word.push({ sub: parseScript(src.slice(i + 1, end), lenient, bash), quoted });
    return end + 1;
  }
  const next = src[i + 1] ?? '';
  if (next === '(' && src[i + 2] === '(') return arithmeticExpansion(src, i, word, quoted);
  if (next === '(') {
    let depth = 0;
    for (let j = i + 1; j < src.length; j++) {
      if (src[j] === '(') depth++;
      else if (src[j] === ')' && --depth === 0) { word.push({ sub: parseScript(src.slice(i + 2, j), lenient, bash), quoted }); return j + 1; }
    }
    throw new Unsupported('unterminated $(');
  }
  if (next === '{') {
    const end = src.indexOf('}', i);
    const name = src.slice(i + 2, end);
    // An element of a bash array; its subscript is arithmetic, evaluated when the word expands (`@` and `*` are not simulated).
    const element = bash ? /^([A-Za-z_][A-Za-z0-9_]*)\[([^\]@*]+)\]$/.exec(name) : null;
    if (end >= 0 && element) { word.push({ var: element[1]!, index: element[2]!, quoted }); return end + 1; }
    if (end < 0 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Unsupported('${...} beyond a name');
    word.push({ var: name, quoted });
    return end + 1;
  }
  const m = /^[A-Za-z_][A-Za-z0-9_]*|^[0-9?#$]/.exec(src.slice(i + 1));
  if (!m) { word.push({ lit: '$' }); return i + 1; }
  if (!/^[A-Za-z_?$]/.test(m[0])) throw new Unsupported(`special parameter $${m[0]}`);
  word.push({ var: m[0], quoted });
  return i + 1 + m[0].length;
}

/** `$((EXPR))` at src[i] (arithmetic.ts): EXPR runs to the `))` that closes it; evaluated when the word expands. */
function arithmeticExpansion(src: string, i: number, word: Word, quoted: boolean): number {
  let depth = 0;
  for (let j = i + 1; j < src.length; j++) {
    if (src[j] === '(') depth++;
    else if (src[j] === ')' && --depth === 0) {
      if (src[j - 1] !== ')') throw new Unsupported('$( ( ... ) ... )');
      word.push({ arith: src.slice(i + 3, j - 1), quoted });
      return j + 1;
    }
  }
  throw new Unsupported('unterminated $((');
}

/** The literal text of a word, or undefined when it has expansions (keywords and loop names must be literal). */
const plain = (w: Word | undefined): string | undefined => (w && w.every((p) => 'lit' in p) ? w.map((p) => (p as { lit: string }).lit).join('') : undefined);

/**
 * A script of the subset. `lenient` (an exec) takes any command name, to be
 * found or not when it runs (busybox's `sh: NAME: not found`, 127); else
 * (a container's own command) only the builtins parse.
 */
function parseScript(src: string, lenient = false, bash = false): Command[] {
  const tokens = tokenize(src, lenient, bash);
  let pos = 0;
  const isWord = (t: Token | undefined, text: string) => !!t && 'word' in t && t.raw === text;
  const skipSeparators = () => { while (pos < tokens.length && 'op' in tokens[pos] && (tokens[pos] as { op: string }).op === ';') pos++; };
  const list = (until: string[]): Command[] => {
    const cmds: Command[] = [];
    skipSeparators();
    while (pos < tokens.length && !until.some((u) => isWord(tokens[pos], u))) {
      const cmd = pipeline();
      const t = tokens[pos];
      if (t && 'op' in t) { cmd.op = t.op as Op; pos++; }
      cmds.push(cmd);
      skipSeparators();
    }
    return cmds;
  };
  const expect = (text: string) => {
    skipSeparators();
    if (!isWord(tokens[pos], text)) throw new Unsupported(`expected ${text}`);
    pos++;
  };
  const isPipe = (t: Token | undefined) => !!t && 'op' in t && t.op === '|';
  /** Commands joined by `|`: each stage's output is the next one's stdin. */
  const pipeline = (): Command => {
    const first = command();
    if (!isPipe(tokens[pos])) return first;
    const stages = [first];
    while (isPipe(tokens[pos])) {
      pos++;
      skipSeparators();
      stages.push(command());
    }
    // A stage runs to its end before the next starts: a loop would never hand its output on.
    if (stages.some((c) => c.kind === 'while')) throw new Unsupported('a while loop in a pipe');
    return { kind: 'pipe', stages, op: ';' };
  };
  const command = (): Command => {
    const first = tokens[pos];
    if (first && 'array' in first) { pos++; return { kind: 'assign-array', name: first.array, words: first.words, op: ';' }; }
    if (isWord(first, 'if')) {
      pos++;
      const clauses: { cond: Command[]; body: Command[] }[] = [];
      let otherwise: Command[] | undefined;
      for (;;) {
        const cond = list(['then']);
        expect('then');
        const body = list(['elif', 'else', 'fi']);
        if (!cond.length || !body.length) throw new Unsupported('empty if');
        clauses.push({ cond, body });
        if (isWord(tokens[pos], 'elif')) { pos++; continue; }
        if (isWord(tokens[pos], 'else')) {
          pos++;
          otherwise = list(['fi']);
          if (!otherwise.length) throw new Unsupported('empty else');
        }
        expect('fi');
        return { kind: 'if', clauses, ...(otherwise ? { otherwise } : {}), op: ';' };
      }
    }
    if (isWord(first, 'while') || isWord(first, 'until')) {
      const until = isWord(first, 'until');
      pos++;
      // `while LIST; do LIST; done`: `true`, or a command such as the HPA walkthrough's `sleep 0.01`;
      // `until` loops while its LIST fails (the Init Containers page's `until nslookup myservice...`).
      const cond = list(['do']);
      expect('do');
      const body = list(['done']);
      expect('done');
      if (!cond.length || !body.length) throw new Unsupported('empty loop');
      return { kind: 'while', cond, body, op: ';', ...(until ? { until: true as const } : {}) };
    }
    if (isWord(first, 'for')) {
      pos++;
      const name = plain((tokens[pos] as { word?: Word }).word);
      if (!name || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Unsupported('for without a name');
      pos++;
      if (!isWord(tokens[pos], 'in')) throw new Unsupported('for without in');
      pos++;
      const words: Word[] = [];
      while (pos < tokens.length && 'word' in tokens[pos]) words.push((tokens[pos++] as { word: Word }).word);
      expect('do');
      const body = list(['done']);
      expect('done');
      return { kind: 'for', name, words, body, op: ';' };
    }
    const words: Word[] = [];
    const redirs: Redirect[] = [];
    for (let t = tokens[pos]; t && ('word' in t || 'redir' in t); t = tokens[pos]) {
      pos++;
      if ('word' in t) { words.push(t.word); continue; }
      const { fd, append, dup } = t.redir;
      if (dup && fd !== 0) { redirs.push({ fd, dup }); continue; }
      const target = tokens[pos];
      if (!target || !('word' in target)) throw new Unsupported('redirection without a file');
      pos++;
      redirs.push(fd === 0 ? { fd, target: target.word } : { fd, append, target: target.word });
    }
    if (redirs.length && !words.length) throw new Unsupported('redirection alone');
    // NAME=value alone sets a shell variable (i=0; greeting="hello $NAME").
    const head = words[0]?.[0];
    const headLit = head && 'lit' in head ? head.lit : '';
    const assign = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(headLit);
    if (assign && words.length === 1 && !redirs.length) {
      return { kind: 'assign', name: assign[1], value: [{ lit: headLit.slice(assign[0].length) }, ...words[0].slice(1)], op: ';' };
    }
    const name = plain(words[0]);
    const simple = { kind: 'simple' as const, words, op: ';' as Op, ...(redirs.length ? { redirs } : {}) };
    if (lenient && words.length) return simple;
    if (name === undefined || !builtins.has(name)) throw new Unsupported(`command ${name ?? '(expanded)'}`);
    if (name === 'tail' && tailFollowUnsupported(words.slice(1).map(plain))) throw new Unsupported('tail -f');
    if (name === 'set' && xtraceOption(words.slice(1).map(plain)) === undefined) throw new Unsupported('set');
    return simple;
  };
  const cmds = list([]);
  if (pos < tokens.length) throw new Unsupported('trailing tokens');
  return cmds;
}

/** A shell's argv without a script: `sh`, `bash -l`, `sh -i`: it reads its commands from stdin. */
const interactiveShellArgs = (argv: string[]) => argv.length === 1 || (argv.length === 2 && ['-i', '-l', '-il', '--login'].includes(argv[1]!));

/**
 * The container's argv (command then args, $(VAR) already expanded as the
 * kubelet expands them) as a program of the subset, or undefined when it is
 * not one: `sh -c SCRIPT`, `/bin/sh -c SCRIPT` ..., or one builtin command
 * run directly (`/bin/echo ...`, `printenv HOSTNAME`, `sleep 3600`); a shell
 * alone is the empty program (stdin's EOF ends it).
 */
export function parseProgram(argv: string[]): Command[] | undefined {
  if (!argv.length) return undefined;
  const base = argv[0].slice(argv[0].lastIndexOf('/') + 1);
  const digits = perlPiDigits(argv);
  if (digits) return [{ kind: 'pi', digits, op: ';' }];
  const script = parsePythonArgv(argv);
  if (script) return [{ kind: 'python', script, op: ';' }];
  try {
    if (shells.has(base)) {
      // A shell alone reads its commands from stdin; a container's or a probe's without stdin reads /dev/null's EOF at
      // once and exits 0 (`kubectl debug --copy-to ... -- sh` without -i: upstream's pod completes, then crash-loops).
      if (interactiveShellArgs(argv)) return [];
      if (argv[1] !== '-c' || argv[2] === undefined) return undefined;
      return parseScript(argv[2], false, base === 'bash');
    }
    if (!builtins.has(base) || shellOnly.has(base)) return undefined;
    if (base === 'tail' && tailFollowUnsupported(argv.slice(1))) return undefined;
    return [{ kind: 'simple', words: [[{ lit: base }], ...argv.slice(1).map((a) => [{ lit: a }])], op: ';' }];
  } catch (e) {
    if (e instanceof Unsupported) return undefined;
    throw e;
  }
}

/** What an exec runs: a program, the interactive shell (`sh`, `bash` without -c), or a reason the simulated shell cannot run it. */
export type ExecProgram = { program: Command[] } | { interactive: string } | { unsupported: string };

/**
 * An exec's argv (`kubectl exec POD -- ARGV`): `sh -c SCRIPT` runs the
 * script; a shell alone is the interactive shell, reading commands from
 * stdin; anything else is one command, run whatever its name (an unknown
 * one answers as busybox's sh, `sh: NAME: not found`, exit 127).
 */
export function parseExec(argv: string[]): ExecProgram {
  const base = argv[0]!.slice(argv[0]!.lastIndexOf('/') + 1);
  const digits = perlPiDigits(argv);
  if (digits) return { program: [{ kind: 'pi', digits, op: ';' }] };
  const script = parsePythonArgv(argv);
  if (script) return { program: [{ kind: 'python', script, op: ';' }] };
  if (shells.has(base)) {
    if (interactiveShellArgs(argv)) return { interactive: base };
    if (argv[1] !== '-c' || argv[2] === undefined) return { unsupported: `${base} ${argv.slice(1).join(' ')}` };
    return parseExecLine(argv[2], base === 'bash');
  }
  return { program: [{ kind: 'simple', words: [[{ lit: argv[0]! }], ...argv.slice(1).map((a) => [{ lit: a }])], op: ';', direct: true }] };
}

/** One script of an exec (`sh -c SCRIPT`, or a line typed at the interactive shell). */
export function parseExecLine(src: string, bash = false): { program: Command[] } | { unsupported: string } {
  try {
    return { program: parseScript(src, true, bash) };
  } catch (e) {
    if (e instanceof Unsupported) return { unsupported: e.message };
    throw e;
  }
}

/** What a program may read and do: its environment, files, the clock; sleep resolves false once the container stopped. */
export interface ShellContext {
  env: Map<string, string>;
  hostname: string;
  /** The container's image (which ls, busybox's or coreutils', lays out columns: ls-columns.ts). */
  image?: string;
  /** Who the container runs as (identity.ts: securityContext's runAsUser, runAsGroup, fsGroup, supplementalGroups). */
  user?: ContainerUser;
  /** The processes ps lists before its own (processes.ts): the container's, or the pod's with shareProcessNamespace, and an exec's shell. */
  processes?: SimulatedProcess[];
  /** The PID namespace the command runs in (pid-namespace.ts); absent: a new one for each ps, as if nothing ran before. */
  pids?: PidNamespace;
  /** `$$`: the PID of the shell running the commands (a subshell's too, as in sh); absent: 1, a container's own command. */
  shellPid?(): number;
  /**
   * The other stages of the pipe this command is a stage of: they run beside
   * it, forked before it (`before`) or after it (`after`), so ps lists them
   * (`ps aux | grep nginx` shows the grep). Absent outside a pipe.
   */
  pipePeers?: { before: SimulatedProcess[]; after: SimulatedProcess[] };
  /** What the shell running the command says of one it does not find (shell-dialect.ts); absent: busybox's `sh: NAME: not found`. */
  notFound?(name: string): string;
  /** The width of the exec's terminal (kubectl's resize messages; 80 until one comes); absent without a tty. */
  terminalColumns?(): number;
  /** Where relative paths start (the container's workingDir; `/` by default) until a `cd`. */
  workingDir?: string;
  /** The shell running the commands, for what it says itself (`cd`'s errors: shell-dialect.ts); absent: the image's `sh` under -c. */
  dialect?: { name: ShellDialect; argv0: string; interactive: boolean; line(): number };
  /** A path's metadata for `ls -l` (file-stat.ts); absent: root's, 0755 or 0644, the time now. */
  stat?(path: string): FileStat | undefined;
  /** Entries a directory holds that listDir leaves out: the kubelet's `..data` and data directory in a ConfigMap, Secret or downward API volume. */
  hiddenEntries?(path: string): string[];
  /** The mode the kubelet gave a projected volume's file (its item's mode, else defaultMode, else 0644). */
  projectedMode?(path: string): number | undefined;
  /** A file's text (ConfigMap, Secret and downward API volumes), or undefined. */
  readFile(path: string): string | undefined;
  /** A directory's entries, or undefined when it is not one. */
  listDir(path: string): string[] | undefined;
  now(): Date;
  sleep(ms: number): Promise<boolean>;
  write(stream: 'stdout' | 'stderr', text: string): void;
  /** A file's bytes, where files may hold more than text (the writable layer); else readFile's text is taken as UTF-8. */
  readBytes?(path: string): Buffer | undefined;
  /** Binary output to stdout (an exec's tar archive); absent where only text goes out (a container's log). */
  writeBytes?(data: Buffer): void;
  /** All of stdin, once it ends (an exec with stdin); absent where there is none. */
  readStdin?(): Promise<Buffer>;
  /** Writes a file (or, with no data, a directory) into the container's writable layer; an error text when it cannot. */
  writeFile?(path: string, data: Buffer | undefined): string | undefined;
  /** Removes a file (or, recursive, a directory and what it holds) from the layer or a writable volume; an error text when it cannot. */
  removeFile?(path: string, recursive: boolean): string | undefined;
  /** An HTTP request from the container (curl, wget): only its own pod answers (http-commands.ts). */
  http?(req: HttpRequest): Promise<HttpOutcome>;
  /** A signal to the container's main process from `kill` (kill.ts): the runtime decides what it does; absent: nothing. */
  signalMain?(signal: number): void;
  /** A signal to another container's main process, seen in the pod's shared PID namespace (kill.ts); absent: nothing. */
  signalContainer?(name: string, signal: number): void;
  /** A TCP connection from the container (redis-cli: container-files.ts); undefined: the name does not resolve or nothing simulated holds the address. */
  connect?(host: string, port: number): Promise<Duplex | undefined>;
  /**
   * The next line an interactive program (redis-cli without a command) reads
   * from the exec's stdin, through the terminal's line discipline with a tty;
   * undefined at its end. Absent where there is no such stdin.
   */
  readLine?(): Promise<string | undefined>;
  /** The pod's resolver over the cluster's records (nslookup.ts), made when asked; absent: nothing resolves but /etc/hosts. */
  dns?(): Promise<PodResolver>;
}

class Exit {
  constructor(readonly code: number) {}
}

/** Runs the program; resolves with its exit code, or undefined when the container stopped first. */
export async function runProgram(cmds: Command[], ctx: ShellContext): Promise<number | undefined> {
  try {
    return await runList(cmds, ctx, (s, t) => ctx.write(s, t));
  } catch (e) {
    if (e instanceof Exit) return e.code;
    if (e instanceof Stopped) return undefined;
    throw e;
  }
}

/**
 * Runs one line of the interactive shell: its exit code and whether it ran
 * `exit`; undefined when the container stopped (or the line was interrupted) first.
 */
export async function runLine(cmds: Command[], ctx: ShellContext): Promise<{ code: number; exit: boolean } | undefined> {
  try {
    return { code: await runList(cmds, ctx, (s, t) => ctx.write(s, t)), exit: false };
  } catch (e) {
    if (e instanceof Exit) return { code: e.code, exit: true };
    if (e instanceof Stopped) return undefined;
    throw e;
  }
}

class Stopped extends Error {}

type Out = (stream: 'stdout' | 'stderr', text: string) => void;

/** `$?`: the last command's exit code, per shell (its environment stands for it). */
const lastStatus = new WeakMap<Map<string, string>, number>();

/** bash's indexed arrays, per shell as `$?`; `$NAME` is element 0, which the environment map holds. */
const arrays = new WeakMap<Map<string, string>, Map<string, string[]>>();

/** The shell's working directory and the one before it (`cd -`), per shell as `$?`. */
const directories = new WeakMap<Map<string, string>, { cwd: string; old?: string }>();

/** Where the shell is (`pwd`, the prompt): the last `cd`'s directory, else the container's workingDir. */
export function currentDirectory(ctx: Pick<ShellContext, 'env' | 'workingDir'>): string {
  return directories.get(ctx.env)?.cwd ?? ctx.workingDir ?? '/';
}

/**
 * The context with relative paths taken from the shell's directory: the
 * container's files resolve them from the container's workingDir, which a
 * `cd` leaves behind. Paths stay as typed in what commands print.
 */
function inWorkingDirectory(ctx: ShellContext): ShellContext {
  const cwd = currentDirectory(ctx);
  if (cwd === (ctx.workingDir ?? '/')) return ctx;
  const at = (p: string) => (p.startsWith('/') ? p : posix.join(cwd, p));
  const c: ShellContext = { ...ctx, workingDir: cwd, readFile: (p) => ctx.readFile(at(p)), listDir: (p) => ctx.listDir(at(p)) };
  if (ctx.readBytes) c.readBytes = (p) => ctx.readBytes!(at(p));
  if (ctx.writeFile) c.writeFile = (p, data) => ctx.writeFile!(at(p), data);
  if (ctx.removeFile) c.removeFile = (p, recursive) => ctx.removeFile!(at(p), recursive);
  if (ctx.stat) c.stat = (p) => ctx.stat!(at(p));
  if (ctx.hiddenEntries) c.hiddenEntries = (p) => ctx.hiddenEntries!(at(p));
  return c;
}

/** A subshell (a pipe's stage, `$(...)`): a copy of the variables and the directory, so what it changes stays in it. */
function subshell(ctx: ShellContext): ShellContext {
  const env = new Map(ctx.env);
  const dirs = directories.get(ctx.env);
  if (dirs) directories.set(env, { ...dirs });
  const status = lastStatus.get(ctx.env);
  if (status !== undefined) lastStatus.set(env, status);
  const own = arrays.get(ctx.env);
  if (own) arrays.set(env, new Map(own));
  return { ...ctx, env };
}

/**
 * `cd [-L|-P] [DIR|-]`: to DIR (relative to where the shell is), $HOME
 * without one, $OLDPWD with `-` (printing it); PWD and OLDPWD follow. A
 * directory that is not one fails in the shell's words (shell-dialect.ts).
 */
function cd(args: string[], ctx: ShellContext, out: Out): number {
  const d = ctx.dialect ?? { name: shellDialect('sh', ctx.image), argv0: 'sh', interactive: false, line: () => 1 };
  const operands = args.filter((a) => !/^-[LP]+$/.test(a));
  const state = directories.get(ctx.env) ?? { cwd: currentDirectory(ctx) };
  const fail = (dir: string, reason: string) => { const f = cdFailed(d, dir, reason); out('stderr', f.text); return f.code; };
  if (operands.length > 1 && d.name === 'bash') return fail('', 'too many arguments');
  const arg = operands[0];
  const old = state.old ?? ctx.env.get('OLDPWD');
  if (arg === '-' && old === undefined && d.name === 'bash') return fail('', 'OLDPWD not set');
  // ash and dash take a `cd -` without OLDPWD as a cd to where they are.
  const dir = arg === undefined ? ctx.env.get('HOME') ?? '/' : arg === '-' ? old ?? state.cwd : arg;
  const target = posix.normalize(dir.startsWith('/') ? dir : posix.join(state.cwd, dir)).replace(/(.)\/$/, '$1');
  if (ctx.listDir(target) === undefined) {
    const isFile = (ctx.readBytes?.(target) ?? ctx.readFile(target)) !== undefined;
    return fail(dir, isFile ? 'Not a directory' : 'No such file or directory');
  }
  // A user other than root needs the directory's x bit for it: its owner's, its group's, or the others'.
  const s = ctx.stat?.(target);
  const user = ctx.user;
  if (s && user && user.uid !== 0) {
    const bit = user.uid === s.uid ? 0o100 : user.gid === s.gid || user.groups.includes(s.gid) ? 0o010 : 0o001;
    if (!(s.mode & bit)) return fail(dir, 'Permission denied');
  }
  directories.set(ctx.env, { cwd: target, old: state.cwd });
  ctx.env.set('OLDPWD', state.cwd);
  ctx.env.set('PWD', target);
  if (arg === '-') out('stdout', `${target}\n`);
  return 0;
}

async function runList(cmds: Command[], ctx: ShellContext, out: Out): Promise<number> {
  let status = 0;
  let op: Op = ';';
  for (const cmd of cmds) {
    if ((op === '&&' && status !== 0) || (op === '||' && status === 0)) { op = cmd.op; continue; }
    status = await runCommand(cmd, ctx, out);
    lastStatus.set(ctx.env, status);
    op = cmd.op;
  }
  return status;
}

async function runCommand(cmd: Command, ctx: ShellContext, out: Out): Promise<number> {
  if (cmd.kind === 'while') {
    // The loop's status: its body's last, 0 when the body never ran (POSIX).
    let status = 0;
    for (;;) {
      const before = ctx.now().getTime();
      if ((await runList(cmd.cond, ctx, out) === 0) === !!cmd.until) return status;
      status = await runList(cmd.body, ctx, out);
      // A loop that never sleeps would spin for ever: it waits a second a round instead.
      if (ctx.now().getTime() === before && !(await ctx.sleep(1000))) throw new Stopped();
    }
  }
  if (cmd.kind === 'for') {
    let status = 0;
    for (const w of await fields(cmd.words, ctx)) {
      ctx.env.set(cmd.name, w);
      status = await runList(cmd.body, ctx, out);
    }
    return status;
  }
  if (cmd.kind === 'pi') { out('stdout', `${piToDigits(cmd.digits)}\n`); return 0; }
  if (cmd.kind === 'python') return runPython(cmd.script, { env: ctx.env, write: out, sleep: (ms) => ctx.sleep(ms) });
  if (cmd.kind === 'pipe') return runPipe(cmd.stages, ctx, out);
  if (cmd.kind === 'if') {
    for (const c of cmd.clauses) if (await runList(c.cond, ctx, out) === 0) return runList(c.body, ctx, out);
    return cmd.otherwise ? runList(cmd.otherwise, ctx, out) : 0;
  }
  if (cmd.kind === 'assign-array') {
    // The elements are expanded and split as a command's words are.
    const values = await fields(cmd.words, ctx);
    if (!arrays.has(ctx.env)) arrays.set(ctx.env, new Map());
    arrays.get(ctx.env)!.set(cmd.name, values);
    ctx.env.set(cmd.name, values[0] ?? '');
    return 0;
  }
  if (cmd.kind === 'assign') {
    // No field splitting in an assignment: the value's parts join as written.
    const value = (await fields([cmd.value.map((p) => ('lit' in p ? p : { ...p, quoted: true }))], ctx))[0] ?? '';
    const trace = traceAssignment(ctx.env, cmd.name, value);
    if (trace) out('stderr', trace);
    ctx.env.set(cmd.name, value);
    return 0;
  }
  ctx = inWorkingDirectory(ctx);
  if (cmd.redirs) {
    const to = await redirect(cmd.redirs, ctx, out);
    if (typeof to === 'number') return to;
    out = to.out;
    // stdout into a file is no terminal (`ls > list` writes a name a line).
    if (to.stdoutRedirected) ctx = { ...ctx, terminalColumns: undefined };
    if (to.stdin) { const input = to.stdin; ctx = { ...ctx, readStdin: () => Promise.resolve(input) }; }
  }
  const [name, ...args] = await fields(cmd.words, ctx);
  if (name === undefined) return 0;
  const trace = traceLine(ctx.env, [name, ...args]);
  if (trace) out('stderr', trace);
  const base = name.includes('/') ? name.slice(name.lastIndexOf('/') + 1) : name;
  // The image's own programs (apt-get, what it installs, nginx): extra-commands.ts.
  const own = imageCommand(base, ctx);
  if (own) return own(base, args, ctx, out);
  // An exec names any command: those the subset does not have are not found, as busybox's sh says.
  if (!builtins.has(base) || (cmd.direct && shellOnly.has(base))) { out('stderr', ctx.notFound?.(name) ?? `sh: ${name}: not found\n`); return 127; }
  return builtin(base, args, ctx, out);
}

/**
 * The command's output streams after its redirections, applied left to
 * right: a file is created (or emptied; `>>` keeps it) before the command
 * runs and takes what the stream writes; `/dev/null` drops it; `2>&1` sends
 * fd 2 where fd 1 goes now. A file that cannot be created fails the command
 * as busybox's sh does: `sh: can't create PATH: REASON`, exit 1, the
 * command not run.
 */
async function redirect(redirs: Redirect[], ctx: ShellContext, out: Out): Promise<{ out: Out; stdin?: Buffer; stdoutRedirected: boolean } | number> {
  const sinks: Record<1 | 2, (text: string) => void> = { 1: (t) => out('stdout', t), 2: (t) => out('stderr', t) };
  let stdin: Buffer | undefined;
  for (const r of redirs) {
    if ('dup' in r) { sinks[r.fd] = sinks[r.dup]; continue; }
    const path = (await fields([r.target], ctx)).join(' ');
    if (r.fd === 0) {
      stdin = path === '/dev/null' ? Buffer.alloc(0) : ctx.readBytes?.(path) ?? (ctx.readFile(path) === undefined ? undefined : Buffer.from(ctx.readFile(path)!));
      if (!stdin) { out('stderr', `sh: can't open ${path}: no such file\n`); return 1; }
      continue;
    }
    if (path === '/dev/null') { sinks[r.fd] = () => {}; continue; }
    if (path === '/dev/stdout' || path === '/dev/stderr') { sinks[r.fd] = sinks[path === '/dev/stdout' ? 1 : 2]; continue; }
    let content = r.append ? (ctx.readBytes?.(path) ?? Buffer.from(ctx.readFile(path) ?? '')) : Buffer.alloc(0);
    const parent = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) || '/' : '.';
    const error = !ctx.writeFile ? 'Read-only file system' : ctx.listDir(parent) === undefined ? 'nonexistent directory' : ctx.writeFile(path, content);
    if (error) { out('stderr', `sh: can't create ${path}: ${error}\n`); return 1; }
    sinks[r.fd] = (text) => { content = Buffer.concat([content, Buffer.from(text)]); ctx.writeFile!(path, content); };
  }
  return { out: (stream, text) => sinks[stream === 'stdout' ? 1 : 2](text), stdin, stdoutRedirected: redirs.some((r) => r.fd === 1) };
}

/**
 * `a | b | c`: each stage runs to its end with the previous one's output as
 * its stdin (the first reads the shell's own), its stderr going straight
 * out; the pipe's status is the last stage's. Each stage is a subshell: an
 * `exit` ends only its stage.
 */
async function runPipe(stages: Command[], ctx: ShellContext, out: Out): Promise<number> {
  let input: Buffer | undefined;
  let status = 0;
  for (let i = 0; i < stages.length; i++) {
    const last = i === stages.length - 1;
    const chunks: Buffer[] = [];
    const fed = input;
    const stageCtx: ShellContext = { ...subshell(ctx), ...(i > 0 ? { readStdin: () => Promise.resolve(fed ?? Buffer.alloc(0)) } : {}), pipePeers: pipePeers(stages, i, ctx) };
    // tar's archive goes down the pipe too.
    if (!last) { stageCtx.writeBytes = (data) => { chunks.push(data); }; delete stageCtx.terminalColumns; }
    const stageOut: Out = last ? out : (s, t) => { if (s === 'stdout') chunks.push(Buffer.from(t)); else out(s, t); };
    try {
      status = await runCommand(stages[i]!, stageCtx, stageOut);
    } catch (e) {
      if (!(e instanceof Exit)) throw e;
      status = e.code;
    }
    input = Buffer.concat(chunks);
  }
  return status;
}

/**
 * `$((EXPR))`'s value; EXPR's own $VAR and $(...) are not expanded first
 * (arithmetic.ts reads $NAME itself). An error ends the script after the
 * shell's message (status 2; bash's 1), as a non-interactive shell does.
 */
function arithmetic(expr: string, ctx: ShellContext): string {
  try {
    return String(evaluateArithmetic(expr, ctx.env));
  } catch (e) {
    if (!(e instanceof ArithmeticError)) throw e;
    const failed = arithmeticFailed(ctx.dialect ?? { name: shellDialect('sh', ctx.image), argv0: 'sh', interactive: false, line: () => 1 }, expr, e.message);
    ctx.write('stderr', failed.text);
    throw new Exit(failed.code);
  }
}

/**
 * The processes a pipe's other stages are while stage i runs: each simple
 * command as its words read (variables expanded, a command substitution
 * left out: it would run again), as the exec's user.
 */
function pipePeers(stages: Command[], i: number, ctx: ShellContext): { before: SimulatedProcess[]; after: SimulatedProcess[] } {
  const uid = ctx.user?.uid ?? 0;
  const text = (w: Word) => w.map((p) => ('lit' in p ? p.lit : 'var' in p ? ctx.env.get(p.var) ?? '' : '')).join('');
  const proc = (c: Command): SimulatedProcess[] => (c.kind === 'simple' && c.words.length ? [{ uid, args: c.words.map(text).join(' ') }] : []);
  return { before: stages.slice(0, i).flatMap(proc), after: stages.slice(i + 1).flatMap(proc) };
}

/** `${NAME[INDEX]}`: INDEX is arithmetic; a negative one counts from the end; a plain variable is an array of one; unset elements are empty. */
function element(name: string, index: string, ctx: ShellContext): string {
  const values = arrays.get(ctx.env)?.get(name) ?? (ctx.env.has(name) ? [ctx.env.get(name)!] : []);
  const n = Number(arithmetic(index, ctx));
  return values[n < 0 ? values.length + n : n] ?? '';
}

/** Words after expansion; an unquoted expansion splits on blanks, as the shell's field splitting. */
async function fields(words: Word[], ctx: ShellContext): Promise<string[]> {
  const result: string[] = [];
  for (const w of words) {
    let cur: string | undefined;
    for (const p of w) {
      let text: string;
      let quoted = true;
      if ('lit' in p) text = p.lit;
      else if ('var' in p) { text = p.index !== undefined ? element(p.var, p.index, ctx) : p.var === '?' ? String(lastStatus.get(ctx.env) ?? 0) : p.var === '$' ? String(ctx.shellPid?.() ?? 1) : ctx.env.get(p.var) ?? ''; quoted = p.quoted; } else if ('arith' in p) {
        text = arithmetic(p.arith, ctx);
        quoted = p.quoted;
      } else {
        let captured = '';
        await runList(p.sub, { ...subshell(ctx), terminalColumns: undefined }, (s, t) => { if (s === 'stdout') captured += t; else ctx.write(s, t); });
        text = captured.replace(/\n+$/, '');
        quoted = p.quoted;
      }
      if (quoted) { cur = (cur ?? '') + text; continue; }
      const pieces = text.split(/[ \t\n]+/);
      for (let i = 0; i < pieces.length; i++) {
        if (i > 0) { if (cur) result.push(cur); cur = undefined; }
        if (pieces[i]) cur = (cur ?? '') + pieces[i];
      }
    }
    if (cur !== undefined) result.push(cur);
  }
  return result;
}

const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => String(n).padStart(2, '0');

/** `date` in a container (TZ unset, so UTC): "Thu Dec  3 21:04:00 UTC 2026", as busybox and coreutils print it. */
export function containerDate(d: Date): string {
  return `${days[d.getUTCDay()]} ${months[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} UTC ${d.getUTCFullYear()}`;
}

/** echo -e's escapes (busybox and bash). */
const unescape = (s: string) => s.replace(/\\([nt\\])/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : '\\'));

/** printf FORMAT ARGS: the format is reused while arguments remain, as the shell's printf does. */
function printf(format: string, values: string[]): string {
  let out = '';
  let i = 0;
  do {
    out += unescape(format).replace(/%([%sd])/g, (_, f: string) => (f === '%' ? '%' : f === 'd' ? String(Number.parseInt(values[i++] ?? '0', 10) || 0) : (values[i++] ?? '')));
  } while (i < values.length && /%[sd]/.test(format));
  return out;
}

/** A Go-free duration for sleep: "10", "0.5", "1m", "infinity". */
function sleepMs(arg: string | undefined): number | undefined {
  if (arg === 'infinity') return Infinity;
  const m = /^(\d+(?:\.\d+)?)([smhd]?)$/.exec(arg ?? '');
  if (!m) return undefined;
  return Number(m[1]) * ({ '': 1000, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as Record<string, number>)[m[2]];
}

async function builtin(name: string, args: string[], ctx: ShellContext, out: Out): Promise<number> {
  switch (name) {
    case 'set': setXtrace(ctx.env, xtraceOption(args) ?? false); return 0;
    case 'echo': {
      let newline = true;
      // dash's echo (Debian's sh) always interprets backslash escapes and knows only -n: the Secrets page's
      // `echo "username: $username\npassword: $password\n"` prints two lines. bash's and busybox's need -e.
      const dash = ctx.dialect?.name === 'dash';
      let escapes = dash;
      while ((dash ? /^-n$/ : /^-[neE]+$/).test(args[0] ?? '')) {
        const flag = args.shift()!;
        if (flag.includes('n')) newline = false;
        if (flag.includes('e')) escapes = true;
      }
      const text = args.join(' ');
      out('stdout', (escapes ? unescape(text) : text) + (newline ? '\n' : ''));
      return 0;
    }
    case 'printf': {
      const [format = '', ...values] = args;
      out('stdout', printf(format, values));
      return 0;
    }
    case 'env':
      out('stdout', [...ctx.env].map(([k, v]) => `${k}=${v}\n`).join(''));
      return 0;
    case 'printenv': {
      if (!args.length) { out('stdout', [...ctx.env].map(([k, v]) => `${k}=${v}\n`).join('')); return 0; }
      let status = 0;
      for (const a of args) {
        const v = ctx.env.get(a);
        if (v === undefined) status = 1; else out('stdout', `${v}\n`);
      }
      return status;
    }
    case 'date': out('stdout', `${containerDate(ctx.now())}\n`); return 0;
    case 'hostname': return hostnameCommand(args, ctx.hostname, ctx.readFile('/etc/hosts'), (t) => out('stdout', t));
    case 'pwd': out('stdout', `${currentDirectory(ctx)}\n`); return 0;
    case 'cd': return cd(args, ctx, out);
    case 'kill': {
      const listed = withPids(ctx.processes ?? [], ctx.pids);
      return kill(args, {
        dialect: ctx.dialect, pids: listed.map((p) => p.pid), mainIsPid1: ctx.processes?.[0]?.args !== '/pause',
        // PID 1's program decides (the runtime); nginx's master also reloads on HUP (signal-process.ts).
        signalMain: (signal) => { ctx.signalMain?.(signal); if (listed[0]?.args.startsWith('nginx: master')) signalListed(listed[0], signal, ctx); },
        signalOther: (pid, signal) => signalListed(listed.find((p) => p.pid === pid)!, signal, ctx),
      }, out);
    }
    case 'ps':
      // Only busybox's images have ps; Debian's (nginx, debian) do not ship procps.
      if (lsFlavour(ctx.image) !== 'busybox') { out('stderr', ctx.notFound?.(name) ?? `sh: ${name}: not found\n`); return 127; }
      out('stdout', busyboxPs(withPids([...(ctx.processes ?? []), ...(ctx.pipePeers?.before ?? []), { uid: ctx.user?.uid ?? 0, args: ['ps', ...args].join(' ') }, ...(ctx.pipePeers?.after ?? [])], ctx.pids)));
      return 0;
    case 'ip': {
      // busybox's applet; Debian's images (nginx, debian) have no iproute2.
      if (lsFlavour(ctx.image) !== 'busybox') { out('stderr', ctx.notFound?.(name) ?? `sh: ${name}: not found\n`); return 127; }
      const text = ipCommand(args, hostsAddress(ctx.readFile('/etc/hosts') ?? '', ctx.hostname));
      if (text === undefined) { out('stderr', `ip: ${args.join(' ')}: not simulated\n`); return 1; }
      out('stdout', text);
      return 0;
    }
    case 'id': return id(args, ctx.user ?? { uid: 0, gid: 0, groups: [0] }, ctx.image, out);
    case 'ls': return ls(args, ctx, out);
    case 'sleep': {
      const ms = sleepMs(args[0]);
      if (ms === undefined) { out('stderr', `sleep: invalid number '${args[0] ?? ''}'\n`); return 1; }
      if (!(await ctx.sleep(ms))) throw new Stopped();
      return 0;
    }
    case 'tail':
      if (!tailFollows(args)) return filter(name, args, ctx, out);
      if (args.join(' ') === '-f /dev/null') {
        if (!(await ctx.sleep(Infinity))) throw new Stopped();
        return 0;
      } else {
        const follow = parseTailFollow(args);
        if (!follow) { out('stderr', 'tail: only `tail -f FILE` of one file is simulated\n'); return 1; }
        const code = await tailFollow(follow, ctx, out);
        if (code === 'stopped') throw new Stopped();
        return code;
      }
    case 'grep': case 'head': case 'wc': case 'sort': case 'uniq': case 'cut': case 'tr': case 'cat': case 'rev':
      return filter(name, args, ctx, out);
    case 'touch': case 'rm': case 'mkdir': case 'cp': case 'mv': case 'test': case '[': case '[[':
      return runFileCommand(name, args, {
        readBytes: (p) => ctx.readBytes?.(p) ?? (ctx.readFile(p) === undefined ? undefined : Buffer.from(ctx.readFile(p)!)),
        listDir: (p) => ctx.listDir(p), writeFile: ctx.writeFile, removeFile: ctx.removeFile, out,
      });
    case 'tar': return tar(args, ctx, out);
    case 'curl': return curl(args, ctx, out);
    case 'wget': return wget(args, ctx, out);
    case 'nslookup': return nslookup(args, ctx, out);
    case 'ping':
      // busybox's applet (ping.ts); Debian's images (nginx, debian) have no iputils-ping.
      if (!hasBusyboxPing(ctx.image, lsFlavour(ctx.image) === 'busybox')) { out('stderr', ctx.notFound?.(name) ?? `sh: ${name}: not found\n`); return 127; }
      return ping(args, ctx, out);
    case 'readlink': return readlink(args, { cwd: currentDirectory(ctx), stat: (p) => ctx.stat?.(p), out });
    case 'exit': throw new Exit(Number(args[0] ?? 0) || 0);
    case 'false': return 1;
    default: return 0;
  }
}

/** A filter (filters.ts) over the container's files and the command's stdin (a pipe's, an exec's or `< FILE`; none: empty). */
function filter(name: string, args: string[], ctx: ShellContext, out: Out): Promise<number> {
  let stdin: Promise<string> | undefined;
  return runFilter(name, args, {
    readFile: (p) => ctx.readFile(p),
    stdin: () => (stdin ??= ctx.readStdin ? ctx.readStdin().then((b) => b.toString('utf8')) : Promise.resolve('')),
    out,
  });
}
