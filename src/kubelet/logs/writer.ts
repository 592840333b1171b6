/**
 * Turns CRI log lines into what `kubectl logs` prints (the kubelet's
 * logWriter), applying the options in upstream's order:
 *
 *  1. A line that is not in the CRI format is skipped (upstream logs and
 *     skips it).
 *  2. A line older than `since` is skipped.
 *  3. With `timestamps`, the first piece of every output line gets the
 *     timestamp and a space; the rest of a line split into partial pieces
 *     does not.
 *  4. Output stops after `limitBytes` bytes, cutting the last line short.
 */
import { fixedNanoTimestamp, parseCRILogLine } from './crilog.js';
import type { ContainerLogOptions } from './options.js';

export class LogWriter {
  private remain: number;
  private atLineStart = true;

  constructor(private readonly opts: ContainerLogOptions) {
    this.remain = opts.limitBytes ?? Infinity;
  }

  /** True once limitBytes is used up: nothing more will be written. */
  get done(): boolean { return this.remain <= 0; }

  /** The output for one log-file line (without or with its newline); empty when it writes nothing. */
  write(line: Buffer): Buffer {
    if (this.done) return Buffer.alloc(0);
    const msg = parseCRILogLine(line);
    if (!msg) return Buffer.alloc(0);
    if (this.opts.since && msg.time.getTime() < this.opts.since.getTime()) return Buffer.alloc(0);
    let out = msg.content;
    if (this.opts.timestamps && this.atLineStart) out = Buffer.concat([Buffer.from(`${fixedNanoTimestamp(msg.timestamp)} `), out]);
    this.atLineStart = !msg.partial;
    if (out.length > this.remain) out = out.subarray(0, this.remain);
    this.remain -= out.length;
    return out;
  }
}
