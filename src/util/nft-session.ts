/**
 * One long-lived `nft -i` for the small transactions of kube-proxy's partial
 * sync and of the NetworkPolicy agent's incremental one (here in util because
 * both layers use it). Those need no cache (src/proxy/statements.ts), so what a fresh `nft -f -` costs beyond
 * them is starting the process and libnftables: about 30 ms a transaction on
 * this loaded 2-core machine (docs/design-notes.md). In interactive mode each
 * input line is one transaction (one batch, all or nothing), so a script is
 * sent as one line; a `describe` after it marks its end on the output, and
 * anything printed before the mark is that transaction's error (stderr is
 * sent to the same pipe, so the order holds). Large scripts and scripts that
 * read the cache anyway still go through `nft -f -`. nft keeps each line in
 * its (libedit) history, so the session is replaced after `recycleBytes`
 * of input, and it is ended by a signal, never by end of input, which would
 * make it write that history to ~/.nft.history.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { NftRunner } from './nft.js';

const mark = 'describe ip saddr';
const markOutput = 'payload expression, datatype ipv4_addr';
/** Above this a script goes through `nft -f -`: its own process costs little next to it, and no line length is at stake. */
export const sessionScriptLimit = 64 * 1024;
const recycleBytes = 8 * 2 ** 20;

export class NftSession {
  private child?: ChildProcessWithoutNullStreams;
  private output = '';
  private pending?: { resolve(): void; reject(e: Error): void; timer: NodeJS.Timeout };
  private queue: Promise<void> = Promise.resolve();
  private written = 0;

  constructor(private readonly binary = 'nft', private readonly timeoutMs = 60_000) {}

  /** Runs one transaction; transactions run one at a time, in order. */
  readonly run: NftRunner = (script) => {
    const p = this.queue.then(() => this.runOne(script));
    this.queue = p.catch(() => undefined);
    return p;
  };

  close(): void {
    this.child?.kill();
    this.child = undefined;
  }

  private start(): ChildProcessWithoutNullStreams {
    if (this.child && this.written < recycleBytes) return this.child;
    this.close();
    this.written = 0;
    this.output = '';
    // `exec "$0"`: the binary's path is an argument, never shell text.
    const child = spawn('sh', ['-c', 'exec "$0" -i 2>&1', this.binary], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdout.on('data', (d: Buffer) => { if (this.child === child) this.onOutput(d.toString()); });
    child.stdin.on('error', () => { /* the exit handler reports it */ });
    child.once('error', (e) => this.fail(child, e));
    child.once('exit', (code) => this.fail(child, new Error(`nft -i exited (${code})`)));
    // The session never keeps the proxy's process alive on its own.
    child.unref();
    for (const s of [child.stdin, child.stdout, child.stderr] as unknown as { unref?: () => void }[]) s.unref?.();
    this.child = child;
    return child;
  }

  private runOne(script: string): Promise<void> {
    const line = script.trim().split('\n').join(' ; ');
    if (!line) return Promise.resolve();
    const child = this.start();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => { this.close(); this.settle(new Error(`nft -i: no answer in ${this.timeoutMs} ms`)); }, this.timeoutMs);
      this.pending = { resolve, reject, timer };
      this.written += line.length;
      child.stdin.write(`${line}\n${mark}\n`);
    });
  }

  private onOutput(text: string): void {
    this.output += text;
    const at = this.output.indexOf(markOutput);
    if (at < 0) return;
    const end = this.output.indexOf('\n', at);
    if (end < 0) return;
    const before = this.output.slice(0, at).trim();
    this.output = this.output.slice(end + 1);
    this.settle(before ? new Error(`nft -i failed: ${before.slice(0, 8192)}`) : undefined);
  }

  private fail(child: ChildProcessWithoutNullStreams, e: Error): void {
    if (this.child !== undefined && this.child !== child) return; // a replaced session ending
    this.child = undefined;
    this.output = '';
    this.settle(e);
  }

  private settle(err?: Error): void {
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    clearTimeout(p.timer);
    if (err) p.reject(err); else p.resolve();
  }
}
