/**
 * `kubectl exec` and `kubectl attach` on the process runtime, as local
 * streams the kubelet server carries (runtime.ts LocalStream):
 *
 *  - exec without a tty: the command in the container (exec.ts) with piped
 *    stdio.
 *  - exec with a tty: Node cannot allocate a pseudo-terminal without a
 *    native addon, so util-linux `script` does (already a dependency of
 *    this runtime with unshare and nsenter): `script -q -e -c CMD
 *    /dev/null` runs CMD on a new pty in its own session, relays our pipes
 *    to the pty and exits with CMD's code. A terminal size (channel 4) is
 *    set with `stty -F` on the pty's slave, which the kernel announces to
 *    the command with SIGWINCH; the slave is found as the stdin of script's
 *    child.
 *  - attach: the output files the container writes (stdout, stderr) are
 *    followed from their current end; stdin goes to the container's FIFO
 *    when it was started with `stdin: true`. Detaching leaves the
 *    container running; the end of the container ends the attach.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, constants, fstatSync, openSync, readFileSync, readlinkSync, readSync, statSync, watch, type FSWatcher } from 'node:fs';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { PassThrough, type Writable } from 'node:stream';
import type { LocalStream, StreamRequest } from '../runtime.js';
import { containerArgv, containerCwd, containerEnvironment, spawnInContainer } from './exec.js';
import { shellQuote, stdinFifo } from './launch.js';
import type { InstanceRecord } from './records.js';

const killGroup = (pid: number | undefined) => { if (pid !== undefined) try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ } };

/** The exit code of a child as a shell reports it (128+signal). */
function exitCode(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve(code ?? 128 + (signal ? 9 : 0)));
  });
}

export function execStream(rec: InstanceRecord, cmd: string[], tty: boolean): LocalStream {
  if (!tty) {
    const child = spawnInContainer(rec, cmd);
    return { stdin: child.stdin!, stdout: child.stdout!, stderr: child.stderr!, done: exitCode(child), close: () => killGroup(child.pid) };
  }
  const line = containerArgv(rec, cmd).map(shellQuote).join(' ');
  const child = spawn('script', ['-q', '-e', '-c', line, '/dev/null'], { env: containerEnvironment(rec), cwd: containerCwd(rec), stdio: 'pipe', detached: true });
  const terminal = new TerminalSize(child);
  return {
    stdin: child.stdin!, stdout: child.stdout!, stderr: child.stderr!, done: exitCode(child),
    resize: (cols, rows) => terminal.set(cols, rows),
    close: () => {
      // The command is in script's new session: end it, then script.
      killGroup(ptyChild(child.pid));
      killGroup(child.pid);
    },
  };
}

/** The pid of the command script runs on the pty. */
function ptyChild(scriptPid: number | undefined): number | undefined {
  if (scriptPid === undefined) return undefined;
  try {
    const first = readFileSync(`/proc/${scriptPid}/task/${scriptPid}/children`, 'utf8').trim().split(/\s+/)[0];
    return first ? Number(first) : undefined;
  } catch { return undefined; }
}

/** Applies the latest terminal size to script's pty once its slave exists. */
class TerminalSize {
  private wanted?: { cols: number; rows: number };
  private applying = false;

  constructor(private readonly script: ChildProcess) {}

  set(cols: number, rows: number): void {
    this.wanted = { cols, rows };
    if (!this.applying) void this.apply();
  }

  private async apply(): Promise<void> {
    this.applying = true;
    try {
      // The slave appears once script has forked; give up after about 5 s.
      for (let tries = 0; this.wanted && tries < 100 && this.script.exitCode === null; tries++) {
        const tty = this.slave();
        if (!tty) { await new Promise((r) => setTimeout(r, 50)); continue; }
        const { cols, rows } = this.wanted;
        this.wanted = undefined;
        await new Promise<void>((r) => execFile('stty', ['-F', tty, 'rows', String(rows), 'cols', String(cols)], () => r()));
      }
    } finally {
      this.applying = false;
    }
  }

  private slave(): string | undefined {
    const pid = ptyChild(this.script.pid);
    if (pid === undefined) return undefined;
    try {
      const t = readlinkSync(`/proc/${pid}/fd/0`);
      return t.startsWith('/dev/pts/') ? t : undefined;
    } catch { return undefined; }
  }
}

/** Follows a file from its current end: every change (and a periodic check, in case a watch event is missed) is read. */
class FileFollower {
  readonly out = new PassThrough();
  private offset: number;
  private readonly watcher?: FSWatcher;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(private readonly path: string) {
    this.offset = this.size();
    try { this.watcher = watch(path, { persistent: false }, () => this.read()); this.watcher.on('error', () => {}); } catch { /* the timer reads */ }
    this.timer = setInterval(() => this.read(), 250);
  }

  read(): void {
    let fd: number;
    try { fd = openSync(this.path, 'r'); } catch { return; }
    try {
      const len = fstatSync(fd).size - this.offset;
      if (len <= 0) return;
      const buf = Buffer.alloc(len);
      const n = readSync(fd, buf, 0, len, this.offset);
      this.offset += n;
      this.out.write(buf.subarray(0, n));
    } finally {
      closeSync(fd);
    }
  }

  stop(): void {
    this.watcher?.close();
    clearInterval(this.timer);
    this.out.end();
  }

  private size(): number {
    try { return statSync(this.path).size; } catch { return 0; }
  }
}

/** Attach to a running instance (its directory `dir`); `exited` settles when it ends. */
export function attachStream(dir: string, exited: Promise<void>, req: StreamRequest): LocalStream {
  const followers = [new FileFollower(join(dir, 'stdout')), new FileFollower(join(dir, 'stderr'))];
  let stdin: Writable | undefined;
  if (req.stdin) {
    try {
      // Non-blocking: the container holds the read end; without it (gone) this fails at once instead of waiting.
      const fd = openSync(stdinFifo(dir), constants.O_WRONLY | constants.O_NONBLOCK);
      stdin = new Socket({ fd, readable: false, writable: true });
      stdin.on('error', () => {});
    } catch { /* started without stdin: the caller's input is dropped */ }
  }
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    for (const f of followers) { f.read(); f.stop(); }
    stdin?.destroy();
  };
  const done = exited.then(() => { close(); return 0; });
  return { stdin, stdout: followers[0]!.out, stderr: followers[1]!.out, done, close };
}
