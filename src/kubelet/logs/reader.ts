/**
 * Serves one container's CRI log file as a byte stream (the kubelet's
 * ReadLogs):
 *
 *  1. Start at the beginning, or at the last tailLines lines.
 *  2. Read line by line through a LogWriter (since, timestamps, limitBytes).
 *  3. At the end of the file: without follow, or when the container is no
 *     longer running, drain what was written meanwhile and end. With follow
 *     and a running container, wait for the file to change (inotify through
 *     fs.watch, and a recheck every `recheckMs` in case an event is missed
 *     or the container stops) and read on. An incomplete last line is held
 *     back while following, since the rest of it may still come.
 *  4. Destroying the stream (the client went away) stops it at once and
 *     closes the file.
 * A file that does not exist yet reads as empty.
 */
import { watch, type FSWatcher } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { ContainerLogOptions } from './options.js';
import { LogWriter } from './writer.js';
import { tailLineStart } from './tail.js';

export interface LiveContainer {
  /** Whether the container still runs (so a follower should wait for more). */
  isRunning(): boolean;
}

export interface ReadLogOptions {
  recheckMs?: number;
}

const NEWLINE = 0x0a;
const chunkSize = 64 * 1024;

export function readCRILog(path: string, opts: ContainerLogOptions, live: LiveContainer, ro: ReadLogOptions = {}): Readable {
  return pump((signal) => logLines(path, opts, live, signal, ro.recheckMs ?? 1000));
}

async function* logLines(path: string, opts: ContainerLogOptions, live: LiveContainer, signal: AbortSignal, recheckMs: number): AsyncGenerator<Buffer> {
  const fh = await openIfExists(path);
  if (!fh) return;
  const changes = opts.follow ? new FileChanges(path) : undefined;
  try {
    let pos = opts.tailLines !== undefined ? await tailLineStart(fh, opts.tailLines) : 0;
    const writer = new LogWriter(opts);
    const buf = Buffer.alloc(chunkSize);
    let pending = Buffer.alloc(0);
    let draining = !opts.follow;
    while (!signal.aborted && !writer.done) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead > 0) {
        pos += bytesRead;
        pending = pending.length ? Buffer.concat([pending, buf.subarray(0, bytesRead)]) : Buffer.from(buf.subarray(0, bytesRead));
        const out: Buffer[] = [];
        let nl: number;
        while ((nl = pending.indexOf(NEWLINE)) >= 0 && !writer.done) {
          out.push(writer.write(pending.subarray(0, nl + 1)));
          pending = pending.subarray(nl + 1);
        }
        const chunk = Buffer.concat(out);
        if (chunk.length) yield chunk;
        continue;
      }
      if (!draining && live.isRunning()) {
        await changes!.next(recheckMs, signal);
        continue;
      }
      // One more pass after the container stopped catches what it wrote last.
      if (!draining) { draining = true; continue; }
      break;
    }
    if (pending.length && !signal.aborted && !writer.done) {
      const last = writer.write(pending);
      if (last.length) yield last;
    }
  } finally {
    changes?.close();
    await fh.close();
  }
}

async function openIfExists(path: string): Promise<FileHandle | undefined> {
  try {
    return await open(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Wakes a follower when the file changes, when `ms` pass, or when it is aborted. */
class FileChanges {
  private watcher?: FSWatcher;
  private wake?: () => void;
  private changed = false;

  constructor(path: string) {
    try {
      this.watcher = watch(path, { persistent: false }, () => { this.changed = true; this.wake?.(); });
      this.watcher.on('error', () => this.close());
    } catch { /* no inotify: the recheck timer alone */ }
  }

  next(ms: number, signal: AbortSignal): Promise<void> {
    if (this.changed) { this.changed = false; return Promise.resolve(); }
    return new Promise<void>((resolve) => {
      const done = () => { clearTimeout(timer); signal.removeEventListener('abort', done); this.wake = undefined; this.changed = false; resolve(); };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done);
      this.wake = done;
    });
  }

  close(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }
}

/**
 * A Readable fed by an async generator that is told to stop (through the
 * signal) as soon as the stream is destroyed, even while it waits for data.
 */
export function pump(make: (signal: AbortSignal) => AsyncIterable<Buffer>): Readable {
  const ac = new AbortController();
  let resume: (() => void) | undefined;
  const out = new Readable({
    read() { resume?.(); resume = undefined; },
    destroy(err, cb) { ac.abort(); resume?.(); cb(err); },
  });
  void (async () => {
    try {
      for await (const chunk of make(ac.signal)) {
        if (ac.signal.aborted) break;
        if (!out.push(chunk)) await new Promise<void>((r) => { resume = r; });
      }
      if (!ac.signal.aborted) out.push(null);
    } catch (e) {
      out.destroy(e as Error);
    }
  })();
  return out;
}
