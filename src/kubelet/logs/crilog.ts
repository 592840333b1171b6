/**
 * The CRI container log format (kubelet's kuberuntime/logs, the CRI spec's
 * "container log" section), one line per write:
 *
 *   <RFC3339Nano timestamp> <stdout|stderr> <F|P> <content>\n
 *
 * P (partial) means the content continues in the next line of the same
 * stream: its newline is not part of the output. F (full) ends an output
 * line. containerd writes these files for CRI containers; the process and
 * simulated runtimes write them too, so one reader serves every runtime.
 */

export type LogStream = 'stdout' | 'stderr';

export interface CRILogMessage {
  /** The timestamp as written (RFC 3339 with up to nine fractional digits). */
  timestamp: string;
  /** The same, as a Date (millisecond precision), for `since`. */
  time: Date;
  stream: LogStream;
  partial: boolean;
  /** What the container wrote: a full line keeps its newline, a partial one has none. */
  content: Buffer;
}

const SPACE = 0x20;
const NEWLINE = 0x0a;

/** One log line (with or without its trailing newline), or undefined when it is not in the format. */
export function parseCRILogLine(line: Buffer): CRILogMessage | undefined {
  const a = line.indexOf(SPACE);
  if (a <= 0) return undefined;
  const timestamp = line.subarray(0, a).toString('latin1');
  const time = new Date(timestamp);
  if (Number.isNaN(time.getTime())) return undefined;
  const b = line.indexOf(SPACE, a + 1);
  if (b < 0) return undefined;
  const stream = line.subarray(a + 1, b).toString('latin1');
  if (stream !== 'stdout' && stream !== 'stderr') return undefined;
  // The tag field may carry more tags after a colon (P:...); the first decides.
  const c = line.indexOf(SPACE, b + 1);
  if (c < 0) return undefined;
  const tag = line.subarray(b + 1, c).toString('latin1').split(':')[0];
  if (tag !== 'F' && tag !== 'P') return undefined;
  let content = line.subarray(c + 1);
  const partial = tag === 'P';
  const endsWithNewline = content.length > 0 && content[content.length - 1] === NEWLINE;
  if (partial && endsWithNewline) content = content.subarray(0, content.length - 1);
  if (!partial && !endsWithNewline) content = Buffer.concat([content, Buffer.from('\n')]);
  return { timestamp, time, stream, partial, content };
}

/** RFC3339Nano in UTC, as containerd writes it (trailing zeros of the fraction dropped). */
export function rfc3339Nano(d: Date, extraNanos = 0): string {
  const iso = d.toISOString();
  const nanos = String(d.getUTCMilliseconds() * 1_000_000 + extraNanos).padStart(9, '0').replace(/0+$/, '');
  return `${iso.slice(0, 19)}${nanos ? `.${nanos}` : ''}Z`;
}

/**
 * The timestamp as the kubelet prints it with `timestamps`: RFC3339NanoFixed,
 * always nine fractional digits, in the zone it was written in.
 */
export function fixedNanoTimestamp(timestamp: string): string {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/i.exec(timestamp);
  if (!m) return timestamp;
  return `${m[1]}.${(m[2] ?? '').padEnd(9, '0').slice(0, 9)}${m[3]!.toUpperCase()}`;
}

/**
 * Lines for one write of `text` to a stream: one full line per line of text,
 * and a partial line for text that does not end with a newline.
 */
export function formatCRILogLines(time: Date, stream: LogStream, text: string): string {
  const ts = rfc3339Nano(time);
  const parts = text.split('\n');
  const last = parts.pop()!;
  let out = parts.map((p) => `${ts} ${stream} F ${p}\n`).join('');
  if (last !== '') out += `${ts} ${stream} P ${last}\n`;
  return out;
}
