/**
 * A simulated container's own stdio, for `kubectl attach` and `kubectl run
 * -i` / `-it` (which create the pod with stdin, stdinOnce and tty, wait for
 * Running and attach):
 *
 *  1. A container with `stdin: true` whose command is an interactive shell
 *     (`sh`, `bash`, `ash`, `dash`, alone or with -i/-l), or that has no
 *     command in an image whose CMD is a shell (busybox, busyboxplus, alpine: sh;
 *     debian and ubuntu: bash), runs the simulated interactive shell
 *     (exec.ts) on the container's stdin: that is what an attach talks to.
 *     So does a client whose command reads the terminal (`mysql -h mysql
 *     -ppassword` in the mysql image, `redis-cli` alone: extra-commands.ts).
 *  2. Whatever the container writes (its shell, or the command the
 *     simulated shell runs: program.ts) goes to every attach connected
 *     then, stdout and stderr apart (one stream with a tty).
 *  3. The first attach to a `stdinOnce` container (kubectl run -i attaches
 *     right after Running) also gets what the container wrote before it
 *     connected, up to 64 KiB: a short command (`nslookup X`) may finish
 *     in the simulation before kubectl's attach arrives, and its output
 *     must still be printed once. A later attach to a tty container gets
 *     the terminal's current line (the prompt and what is typed), as the
 *     shell redraws it when kubectl's resize message reaches it.
 *  4. stdin, as upstream's runtimes: with stdinOnce the container's stdin
 *     is closed when the first attach that took it detaches or closes its
 *     stdin (the shell reads EOF and exits); without, it stays open for
 *     the next attach.
 *  5. An attach ends (Success: an attach reports no exit code) when the
 *     container instance ends; a caller that goes away only detaches.
 */
import { PassThrough } from 'node:stream';
import type { Container } from 'kubernetes-types/core/v1.js';
import type { LocalStream, StreamRequest } from '../runtime.js';
import { parseExec } from './shell.js';
import { busyboxBased } from './ls-columns.js';
import { terminalClient } from './extra-commands.js';

/** The images whose default command (CMD) is a shell, and that shell. */
const shellImages: [RegExp, string][] = [
  [busyboxBased, 'sh'],
  [/(^|\/)(debian|ubuntu)(:|@|$)/, 'bash'],
];

/** The interactive shell a container runs on its stdin (rule 1), or undefined. */
export function shellSession(c: Container): string[] | undefined {
  if (!c.stdin) return undefined;
  const argv = [...(c.command ?? []), ...(c.args ?? [])];
  if (!argv.length) {
    const image = String(c.image ?? '').replace(/^docker\.io\//, '');
    const shell = shellImages.find(([re]) => re.test(image))?.[1];
    return shell ? [shell] : undefined;
  }
  return 'interactive' in parseExec(argv) || terminalClient(c.image, argv) ? argv : undefined;
}

/** What the first attach of a stdinOnce container is given of what came before it (rule 3). */
export const replayLimitBytes = 64 * 1024;

interface Attached {
  stdout: PassThrough;
  stderr?: PassThrough;
  resolve(code: number): void;
}

export interface ConsoleOptions {
  stdin: boolean;
  stdinOnce: boolean;
  tty: boolean;
}

export class ContainerConsole {
  /** The container's stdin: what its shell reads. */
  readonly stdin = new PassThrough();
  private readonly attached = new Set<Attached>();
  /** Output kept for the first attach (stdinOnce only), until it comes. */
  private before: { stream: 'stdout' | 'stderr'; text: string }[] | undefined;
  private beforeBytes = 0;
  /** The terminal's current line (tty only), redrawn for a later attach. */
  private line = '';
  private stdinTaken = false;
  private ended = false;
  /** The terminal size goes to the shell (ls lays out columns for it). */
  onResize: (cols: number, rows: number) => void = () => {};

  constructor(private readonly o: ConsoleOptions) {
    if (o.stdinOnce) this.before = [];
    if (!o.stdin) this.stdin.end();
  }

  /** The container wrote `text` (rule 2). */
  write(stream: 'stdout' | 'stderr', text: string): void {
    if (this.ended || !text) return;
    if (this.before) this.keep(stream, text);
    // The last 4 KiB of a line is plenty to redraw; a command that never ends its line (`wget -qO-` in a loop) would grow it for ever.
    if (this.o.tty) this.line = (this.line + text).slice((this.line + text).lastIndexOf('\n') + 1).slice(-4096);
    for (const a of this.attached) (stream === 'stderr' && a.stderr ? a.stderr : a.stdout).write(text);
  }

  /** The instance ended: every attach ends with it (rule 5). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.stdin.end();
    for (const a of [...this.attached]) this.detach(a, 0);
  }

  /** One attach (kubelet/server/local-exec.ts serves it). */
  attach(req: StreamRequest): LocalStream {
    const stdout = new PassThrough();
    const stderr = req.tty || this.o.tty ? undefined : new PassThrough();
    let resolve!: (code: number) => void;
    const done = new Promise<number>((r) => { resolve = r; });
    const a: Attached = { stdout, stderr, resolve };
    const stdin = req.stdin && this.o.stdin ? this.takeStdin() : undefined;
    if (this.ended) { this.detach(a, 0); return { stdout, stderr, done, close: () => {} }; }
    this.attached.add(a);
    const before = this.before;
    this.before = undefined;
    if (before) for (const b of before) (b.stream === 'stderr' && stderr ? stderr : stdout).write(b.text);
    else if (this.o.tty && this.line) stdout.write(this.line);
    return {
      stdin, stdout, stderr, done,
      resize: (cols, rows) => this.onResize(cols, rows),
      close: () => { stdin?.end(); this.detach(a, 0); },
    };
  }

  /** The attach's stdin feeds the container's; with stdinOnce its end is the container's (rule 4). */
  private takeStdin(): PassThrough {
    const s = new PassThrough();
    const once = this.o.stdinOnce && !this.stdinTaken;
    this.stdinTaken = true;
    s.on('data', (d: Buffer) => { if (!this.stdin.writableEnded) this.stdin.write(d); });
    s.on('end', () => { if (once) this.stdin.end(); });
    s.on('error', () => {});
    return s;
  }

  private keep(stream: 'stdout' | 'stderr', text: string): void {
    if (this.beforeBytes >= replayLimitBytes) return;
    const part = text.slice(0, replayLimitBytes - this.beforeBytes);
    this.before!.push({ stream, text: part });
    this.beforeBytes += part.length;
  }

  private detach(a: Attached, code: number): void {
    this.attached.delete(a);
    a.stdout.end();
    a.stderr?.end();
    a.resolve(code);
  }
}
