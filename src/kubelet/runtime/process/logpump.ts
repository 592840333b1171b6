/**
 * The process runtime's log pump (what containerd's shim does for a
 * container): the bytes a process wrote to its stdout and stderr files
 * become lines of the instance's CRI log file
 * (<pod logs dir>/<ns>_<pod>_<uid>/<container>/<n>.log), read back by
 * logs/readCRILog for `kubectl logs [-f] [--previous]`.
 *
 *  1. Complete lines are written as full (F) lines with the time they were
 *     read; a line longer than 16 KiB is cut into partial (P) pieces, as
 *     containerd does. An unfinished last line waits for its newline, or
 *     for the end of the process (`flush`), when it is written as is.
 *  2. How far each file has been pumped is saved next to it, so an agent
 *     restarted while the process runs carries on where the last one
 *     stopped (a line pumped just before a crash may appear twice).
 *  3. The files are watched (inotify via fs.watch); the runtime also pumps
 *     every instance on each relist, in case an event is missed.
 */
import { appendFileSync, closeSync, fstatSync, openSync, readSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { formatCRILogLines, type LogStream } from '../../logs/index.js';
import { readPumped, writePumped } from './records.js';

const maxLineBytes = 16 * 1024;
const streams: LogStream[] = ['stdout', 'stderr'];

export class LogPump {
  private readonly offsets: Record<LogStream, number>;
  private readonly watchers: FSWatcher[] = [];
  private closed = false;

  constructor(private readonly dir: string, private readonly logPath: string) {
    this.offsets = readPumped(dir);
  }

  /** Starts watching the files; every change pumps. */
  watch(): void {
    for (const s of streams) {
      try {
        const w = watch(join(this.dir, s), { persistent: false }, () => this.pump());
        w.on('error', () => {});
        this.watchers.push(w);
      } catch { /* the relist pumps it */ }
    }
  }

  /** Moves what was written since the last pump into the CRI log; `flush` also writes an unfinished last line. */
  pump(flush = false): void {
    if (this.closed) return;
    let out = '';
    const now = new Date();
    for (const s of streams) {
      const chunk = this.read(s);
      if (!chunk.length) continue;
      let used = 0;
      for (;;) {
        const nl = chunk.indexOf(0x0a, used);
        const end = nl >= 0 && nl - used < maxLineBytes ? nl + 1 : chunk.length - used > maxLineBytes ? used + maxLineBytes : -1;
        if (end < 0) break;
        out += formatCRILogLines(now, s, chunk.subarray(used, end).toString('utf8'));
        used = end;
      }
      if (flush && used < chunk.length) {
        out += formatCRILogLines(now, s, `${chunk.subarray(used).toString('utf8')}\n`);
        used = chunk.length;
      }
      this.offsets[s] += used;
    }
    if (!out) return;
    appendFileSync(this.logPath, out, { mode: 0o640 });
    writePumped(this.dir, this.offsets);
  }

  close(): void {
    this.closed = true;
    for (const w of this.watchers) w.close();
    this.watchers.length = 0;
  }

  private read(s: LogStream): Buffer {
    let fd: number;
    try { fd = openSync(join(this.dir, s), 'r'); } catch { return Buffer.alloc(0); }
    try {
      const size = fstatSync(fd).size;
      const len = size - this.offsets[s];
      if (len <= 0) return Buffer.alloc(0);
      const buf = Buffer.alloc(len);
      const n = readSync(fd, buf, 0, len, this.offsets[s]);
      return buf.subarray(0, n);
    } finally {
      closeSync(fd);
    }
  }
}
