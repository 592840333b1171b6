/**
 * `kubectl exec` in a simulated container (the KWOK idea: exec answered by
 * the simulator): no process runs, so the command is run by the simulated
 * shell (shell.ts) against the container's environment and files, and its
 * output goes back over the kubelet's own exec streams (LocalStream,
 * served by kubelet/server/local-exec.ts):
 *
 *  1. `sh -c SCRIPT` runs the script; one command runs directly; a command
 *     the subset does not have answers as the image's sh does under -c
 *     (shell-dialect.ts; on stderr, exit code 127), and run directly
 *     as containerd does (the exec fails: `OCI runtime exec failed ...
 *     executable file not found in $PATH`, exec-errors.ts); a script beyond the subset (`while`
 *     with a condition, `case`, a function) says so on stderr and exits 2.
 *     A pipe's first stage reads the exec's stdin (`-i`), whole.
 *  2. A shell alone (`sh`, `bash`, `exec -it POD -- sh`) is interactive: it
 *     reads lines from stdin and runs each; `exit [N]` or the end of stdin
 *     (Ctrl-D on an empty line) ends it. With a tty it prints a prompt and
 *     does what the terminal's line discipline would: echo, backspace,
 *     Ctrl-C (interrupts a sleep or a loop, exit code 130), CR LF for LF.
 *  3. The session ends early (exit 137, as a killed process) when the
 *     container stops, and at once when the caller goes away.
 */
import { PassThrough } from 'node:stream';
import type { LocalStream, StreamRequest } from '../runtime.js';
import { currentDirectory, parseExec, parseExecLine, runLine, runProgram, type Command, type ShellContext } from './shell.js';
import type { ContainerView } from './program.js';
import { commandNotFound, shellDialect, shellPrompt } from './shell-dialect.js';
import { execNotFoundError } from './exec-errors.js';
import type { TimerHandle, Timers } from '../../timers.js';
import { PidNamespace } from './pid-namespace.js';
import { pidOfProcess } from './processes.js';

/** setTimeout's limit (2^31 - 1 ms): a longer sleep wakes up then and sleeps on. */
const maxTimerMs = 2 ** 31 - 1;

export interface SimulatedExecDeps {
  /** The container's environment and files (program.ts containerView), read when the session opens. */
  view(): Promise<ContainerView>;
  /** The runtime's clock and timers (a sleep in the session is one of its timers). */
  timers: Timers;
  /** The container still runs. */
  running(): boolean;
  /** Calls `changed` whenever the container's state may have changed (it stopped), until the returned function is called. */
  watch(changed: () => void): () => void;
  /** The node's name, for what the simulated shell cannot do. */
  nodeName: string;
  /** `kill` of the container's main process (kill.ts). */
  signalMain?(signal: number): void;
  /** `kill` of another container's main process in the pod's shared PID namespace (signal-process.ts). */
  signalContainer?(name: string, signal: number): void;
  /** The session is the container's own main process (its interactive shell on stdin), which ps lists already. */
  mainShell?: boolean;
}

/** What the simulated shell says about a script beyond its subset. */
export const unsupportedMessage = (nodeName: string, what: string) =>
  `sh: not supported by k8ts's simulated shell (${what}): node "${nodeName}" is simulated and runs no processes\n`;

/** Exec sessions opened so far: each one's shell is a process of its own (pid-namespace.ts). */
let execSessions = 0;

export function openSimulatedExec(argv: string[], req: StreamRequest, deps: SimulatedExecDeps): LocalStream {
  const stdout = new PassThrough();
  const stderr = req.tty ? undefined : new PassThrough();
  const stdin = new PassThrough();
  let closed = false;
  let interrupted = false;
  const cancelled = () => closed || interrupted || !deps.running();
  const write = (stream: 'stdout' | 'stderr', text: string) => {
    if (closed) return;
    const out = stream === 'stderr' && stderr ? stderr : stdout;
    // A terminal's output processing (onlcr) turns LF into CR LF.
    out.write(req.tty ? text.replace(/\r?\n/g, '\r\n') : text);
  };
  // The interactive shell reads stdin as lines; a program (tar of `kubectl cp`) reads it whole, as bytes.
  let input: LineInput | undefined;
  let endOfInput = () => {};
  // Read once: a second reader (`cat; cat`) gets the same bytes rather than waiting for an end that came.
  let stdinRead: Promise<Buffer> | undefined;
  const readStdin = () => (stdinRead ??= new Promise<Buffer>((resolve) => {
    if (!req.stdin || closed) { resolve(Buffer.alloc(0)); return; }
    const chunks: Buffer[] = [];
    const finish = () => { endOfInput = () => {}; resolve(Buffer.concat(chunks)); };
    endOfInput = finish;
    stdin.on('data', (d: Buffer) => chunks.push(d));
    stdin.once('end', finish);
  }));
  let wake = () => {};
  // The terminal's width, as kubectl's resize messages tell it (ls lays out columns for it).
  let columns = 80;
  const unwatch = deps.watch(() => wake());
  // A sleep ends after ms, or early (false) once the container stopped, the caller went away or Ctrl-C came.
  const sleep = (ms: number) => new Promise<boolean>((resolve) => {
    if (cancelled()) { resolve(false); return; }
    let timer: TimerHandle | undefined;
    const settle = (v: boolean) => { if (timer) deps.timers.clearTimeout(timer); wake = () => {}; resolve(v); };
    wake = () => { if (cancelled()) settle(false); };
    const arm = (left: number) => {
      if (left === Infinity) return;
      timer = deps.timers.setTimeout(() => (left > maxTimerMs ? arm(left - maxTimerMs) : settle(!cancelled())), Math.min(left, maxTimerMs));
    };
    arm(ms);
  });
  const done = (async () => {
    const parsed = parseExec(argv);
    const view = await deps.view();
    if (req.tty) view.env.set('TERM', 'xterm');
    const writeBytes = (data: Buffer) => { if (!closed) stdout.write(data); };
    // A program that reads stdin line by line (redis-cli's prompt) reads it through the same line discipline as the interactive shell.
    const readLine = () => {
      input ??= new LineInput(stdin, req.tty, (text) => { if (!closed) stdout.write(text); }, () => { interrupted = true; wake(); });
      if (closed) input.close();
      return input.next();
    };
    const ctx: ShellContext = {
      ...view, now: () => deps.timers.now(), sleep, write, writeBytes, readStdin, signalMain: deps.signalMain, signalContainer: deps.signalContainer,
      ...(req.stdin ? { readLine } : {}), ...(req.tty ? { terminalColumns: () => columns } : {}),
    };
    if ('unsupported' in parsed) { write('stderr', unsupportedMessage(deps.nodeName, parsed.unsupported)); return 2; }
    if ('program' in parsed) {
      // `sh -c` / `bash -c`: the shell names itself by $0; a command run directly keeps busybox's words.
      const shell = /(^|\/)(sh|ash|dash|bash)$/.test(argv[0]!) && argv[1] === '-c' ? argv[0]! : undefined;
      // A program run directly that the image does not have is never started: containerd's error, no shell's words (exec-errors.ts).
      const notFound = shell ? (name: string) => commandNotFound(shellDialect(shell, view.image), shell, name, 1) : (name: string): string => { throw execNotFoundError(name); };
      const dialect = shell ? { name: shellDialect(shell, view.image), argv0: shell, interactive: false, line: () => 1 } : undefined;
      // `sh -c`'s shell is a process of its own ($$); a command run directly has no shell to ask.
      const shellPid = shell ? execShellPid(ctx, `exec/${++execSessions}`) : undefined;
      return (await runProgram(parsed.program, { ...ctx, notFound, ...(dialect ? { dialect } : {}), ...(shellPid ? { shellPid } : {}) })) ?? 137;
    }
    input ??= new LineInput(stdin, req.tty, (text) => { if (!closed) stdout.write(text); }, () => { interrupted = true; wake(); });
    if (closed) input.close();
    // The interactive shell is a process of the container too (ps lists it).
    const key = `exec/${++execSessions}`;
    const processes = deps.mainShell ? ctx.processes ?? [] : [...(ctx.processes ?? []), { uid: ctx.user?.uid ?? 0, args: argv.join(' '), key }];
    // The container's own shell (an attach) is its main process, whose PID the view says.
    const shellPid = deps.mainShell ? ctx.shellPid : execShellPid({ ...ctx, processes }, key);
    // An interactive bash (a tty, or -i) says `exit` as it leaves, a login one (-l) `logout`.
    const flag = argv[1] ?? '';
    const bashInteractive = /(^|\/)bash$/.test(argv[0]!) && (req.tty || flag === '-i' || flag === '-il');
    const leaving = bashInteractive ? (['-l', '-il', '--login'].includes(flag) ? 'logout' : 'exit') : undefined;
    return interactive(argv[0]!, { ...ctx, readStdin: undefined, processes, ...(shellPid ? { shellPid } : {}) }, input, {
      tty: req.tty, nodeName: deps.nodeName, running: () => deps.running() && !closed, leaving,
      resetInterrupt: () => { interrupted = false; },
    });
  })().finally(() => {
    unwatch();
    stdout.end();
    stderr?.end();
  });
  return {
    stdin, stdout, stderr, done,
    resize: (cols) => { if (cols > 0) columns = cols; },
    close: () => {
      closed = true;
      input?.close();
      endOfInput();
      wake();
    },
  };
}

/** `$$` of an exec's shell, long-lived process `key`: numbered once asked, after the container's processes (a fresh namespace when the view keeps none). */
function execShellPid(ctx: ShellContext, key: string): () => number {
  const ns = ctx.pids ?? new PidNamespace();
  return () => pidOfProcess(ctx.processes ?? [], key, ns);
}

interface InteractiveOptions {
  tty: boolean;
  /** What the shell prints on stderr as it ends (`exit`, by `exit` or the end of input): bash's when interactive. */
  leaving?: string;
  nodeName: string;
  running(): boolean;
  resetInterrupt(): void;
}

/** The interactive shell: a prompt (with a tty), a line, its commands; until `exit`, the end of input or the container's end. */
async function interactive(argv0: string, ctx: ShellContext, input: LineInput, o: InteractiveOptions): Promise<number> {
  // The prompt and the not-found message of the image's shell (shell-dialect.ts).
  const dialect = shellDialect(argv0, ctx.image);
  // The prompt shows where the shell is, after each `cd`.
  const prompt = () => shellPrompt(dialect, { root: (ctx.user?.uid ?? 0) === 0, hostname: ctx.hostname, cwd: currentDirectory(ctx), home: ctx.env.get('HOME') });
  let status = 0;
  let lineNumber = 0;
  ctx = {
    ...ctx, notFound: (name) => commandNotFound(dialect, argv0, name, dialect === 'bash' ? undefined : lineNumber),
    dialect: { name: dialect, argv0, interactive: true, line: () => lineNumber },
  };
  const leave = (code: number) => { if (o.leaving) ctx.write('stderr', `${o.leaving}\n`); return code; };
  for (;;) {
    if (!o.running()) return 137;
    if (o.tty) ctx.write('stdout', prompt());
    o.resetInterrupt();
    const line = await input.next();
    if (line === undefined) return o.running() ? leave(status) : 137;
    lineNumber++;
    if (line === '\x03') { status = 130; continue; }
    const parsed = parseExecLine(line, dialect === 'bash');
    if ('unsupported' in parsed) { ctx.write('stderr', unsupportedMessage(o.nodeName, parsed.unsupported)); status = 2; continue; }
    const r = await runLine(parsed.program as Command[], ctx);
    if (!r) {
      if (!o.running()) return 137;
      // Interrupted (Ctrl-C): the shell goes on, as after a SIGINT to its child.
      status = 130;
      continue;
    }
    status = r.code;
    if (r.exit) return leave(r.code);
  }
}

/**
 * Lines from the caller's stdin. Without a tty, each LF ends a line and the
 * end of stdin ends the input. With a tty (raw, as kubectl -t sets the local
 * terminal), what the line discipline does: CR or LF ends a line, input is
 * echoed, DEL/BS erase, Ctrl-C drops the line (and interrupts what runs),
 * Ctrl-D on an empty line is the end; escape sequences (arrow keys) are ignored.
 */
class LineInput {
  private readonly lines: string[] = [];
  private waiter?: (line: string | undefined) => void;
  private partial = '';
  private ended = false;
  private lastCR = false;
  private escape = 0;

  constructor(stdin: PassThrough, private readonly tty: boolean, private readonly echo: (text: string) => void, private readonly interrupt: () => void) {
    stdin.setEncoding('utf8');
    stdin.on('data', (d: string) => this.push(d));
    stdin.on('end', () => this.end());
  }

  next(): Promise<string | undefined> {
    if (this.lines.length) return Promise.resolve(this.lines.shift());
    if (this.ended) return Promise.resolve(undefined);
    return new Promise((resolve) => { this.waiter = resolve; });
  }

  close(): void { this.end(); }

  private deliver(line: string | undefined): void {
    const w = this.waiter;
    if (w) { this.waiter = undefined; w(line); return; }
    if (line !== undefined) this.lines.push(line);
  }

  private end(): void {
    if (this.ended) return;
    if (this.partial && !this.tty) this.deliver(this.partial);
    this.partial = '';
    this.ended = true;
    this.deliver(undefined);
  }

  private push(text: string): void {
    for (const ch of text) {
      if (this.ended) return;
      if (!this.tty) {
        if (ch === '\n') { this.deliver(this.partial); this.partial = ''; } else this.partial += ch;
        continue;
      }
      this.pushTTY(ch);
    }
  }

  private pushTTY(ch: string): void {
    const wasCR = this.lastCR;
    this.lastCR = ch === '\r';
    if (this.escape) {
      // ESC [ ... final byte (0x40-0x7e): a cursor key or the like.
      if (this.escape === 1 && ch !== '[' && ch !== 'O') this.escape = 0;
      else if (this.escape === 2 && ch >= '@' && ch <= '~') this.escape = 0;
      else this.escape = 2;
      return;
    }
    if (ch === '\x1b') { this.escape = 1; return; }
    if (ch === '\n' && wasCR) return;
    if (ch === '\r' || ch === '\n') { this.echo('\r\n'); this.deliver(this.partial); this.partial = ''; return; }
    if (ch === '\x7f' || ch === '\b') {
      if (this.partial) { this.partial = [...this.partial].slice(0, -1).join(''); this.echo('\b \b'); }
      return;
    }
    if (ch === '\x03') {
      this.echo('^C\r\n');
      this.partial = '';
      this.interrupt();
      // A Ctrl-C at the prompt shows a new prompt; one during a command only interrupts it.
      if (this.waiter) this.deliver('\x03');
      return;
    }
    if (ch === '\x04') { if (!this.partial) this.end(); return; }
    if (ch < ' ' && ch !== '\t') return;
    this.partial += ch;
    this.echo(ch);
  }
}
