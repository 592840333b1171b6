/**
 * redis-cli of the official redis image, as the Configuring Redis using a
 * ConfigMap page runs it (`kubectl exec -it redis -- redis-cli`, then
 * `CONFIG GET maxmemory` at the `127.0.0.1:6379>` prompt): one connection
 * through the pod's network (the container's own port, or another pod or
 * Service by name) to the simulated redis (redis.ts).
 *
 *  - `redis-cli [-h HOST] [-p PORT] [-n DB] [--raw|--no-raw] CMD ARGS...`
 *    sends one command and prints its reply;
 *  - without a command it reads commands a line at a time (words split as
 *    redis-cli's sdssplitargs splits them), with the `HOST:PORT>` prompt
 *    when on a terminal, until `exit`, `quit` or the end of input.
 *
 * Replies print as redis-cli prints them: on a terminal its readable form
 * (`1) "maxmemory"`, `(integer) 1`, `(nil)`, `(error) ERR ...`; an empty
 * array `(empty list or set)` before redis 6, `(empty array)` after), else
 * raw (the values a line each). A server that cannot be reached ends it
 * with `Could not connect to Redis at HOST:PORT: ...`, exit 1 (the real
 * one's prompt would go on as `not connected>`). Authentication, TLS and
 * the other options are not simulated.
 */
import type { Duplex } from 'node:stream';
import type { ShellContext } from './shell.js';
import { encodeCommand, parseValue, type RedisReply } from './redis.js';
import { repoAndTag } from './image-contents.js';

type Out = (stream: 'stdout' | 'stderr', text: string) => void;

/** One connection: commands go out in order and each waits for its reply; undefined once the connection failed or closed. */
class Connection {
  private buf = Buffer.alloc(0);
  private waiting: ((r: RedisReply | undefined) => void)[] = [];
  private failed?: string;

  constructor(private readonly socket: Duplex) {
    socket.on('data', (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      for (let got = parseValue(this.buf); got && this.waiting.length; got = parseValue(this.buf)) {
        this.buf = this.buf.subarray(got.used);
        this.waiting.shift()!(got.value);
      }
    });
    const end = (why: string) => { this.failed ??= why; for (const w of this.waiting.splice(0)) w(undefined); };
    socket.on('error', (e: NodeJS.ErrnoException) => end(e.code === 'ECONNREFUSED' ? 'Connection refused' : e.message));
    socket.on('close', () => end('Connection reset by peer'));
  }

  /** The first reply, or why there is none (a refused port fails here, as redis-cli's connect does). */
  call(args: string[]): Promise<RedisReply | string> {
    if (this.failed) return Promise.resolve(this.failed);
    return new Promise((resolve) => {
      this.waiting.push((r) => resolve(r ?? this.failed ?? 'Connection reset by peer'));
      this.socket.write(encodeCommand(args));
    });
  }

  close(): void { this.socket.destroy(); }
}

/** sdscatrepr: a string in double quotes with C escapes, as redis-cli shows a bulk reply. */
function repr(s: string): string {
  let out = '"';
  for (const byte of Buffer.from(s)) {
    const c = String.fromCharCode(byte);
    if (c === '\\' || c === '"') out += `\\${c}`;
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\t') out += '\\t';
    else if (byte === 7) out += '\\a';
    else if (byte === 8) out += '\\b';
    else if (byte >= 32 && byte < 127) out += c;
    else out += `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return `${out}"`;
}

/** cliFormatReplyTTY: nested arrays indent under their index, numbered from 1 and padded to the widest index. */
export function formatReplyTTY(r: RedisReply, major: number, prefix = ''): string {
  if ('error' in r) return `(error) ${r.error}\n`;
  if ('simple' in r) return `${r.simple}\n`;
  if ('integer' in r) return `(integer) ${r.integer}\n`;
  if ('bulk' in r) return r.bulk === null ? '(nil)\n' : `${repr(r.bulk)}\n`;
  if (!r.array.length) return major < 6 ? '(empty list or set)\n' : '(empty array)\n';
  const width = String(r.array.length).length;
  const inner = prefix + ' '.repeat(width + 2);
  return r.array.map((e, i) => `${i === 0 ? '' : prefix}${String(i + 1).padStart(width)}) ${formatReplyTTY(e, major, inner)}`).join('');
}

/** cliFormatReplyRaw, and the newline redis-cli adds after it: values a line each, nil as nothing. */
export function formatReplyRaw(r: RedisReply): string {
  const raw = (x: RedisReply): string => ('error' in x ? `${x.error}\n` : 'simple' in x ? x.simple : 'integer' in x ? String(x.integer)
    : 'bulk' in x ? x.bulk ?? '' : x.array.map(raw).join('\n'));
  return `${raw(r)}\n`;
}

/** sdssplitargs: words split on blanks, "..." with escapes and '...' kept whole; undefined for unbalanced quotes. */
export function splitArgs(line: string): string[] | undefined {
  const words: string[] = [];
  let i = 0;
  while (i < line.length) {
    while (line[i] === ' ' || line[i] === '\t') i++;
    if (i >= line.length) break;
    let word = '';
    while (i < line.length && line[i] !== ' ' && line[i] !== '\t') {
      const q = line[i];
      if (q === '"' || q === "'") {
        const end = line.indexOf(q, i + 1);
        if (end < 0) return undefined;
        const body = line.slice(i + 1, end);
        word += q === '"' ? body.replace(/\\(x[0-9a-fA-F]{2}|.)/g, (_, e: string) => (e.length === 3 ? String.fromCharCode(parseInt(e.slice(1), 16)) : ({ n: '\n', r: '\r', t: '\t', b: '\b', a: '\x07' } as Record<string, string>)[e] ?? e)) : body;
        i = end + 1;
      } else word += line[i++];
    }
    words.push(word);
  }
  return words;
}

export async function redisCli(_argv0: string, args: string[], ctx: ShellContext, out: Out): Promise<number> {
  let host = '127.0.0.1';
  let port = 6379;
  let db = 0;
  let raw: boolean | undefined;
  let i = 0;
  for (; i < args.length && args[i]!.startsWith('-'); i++) {
    const a = args[i]!;
    if (a === '--raw') raw = true;
    else if (a === '--no-raw') raw = false;
    else if ((a === '-h' || a === '-p' || a === '-n') && args[i + 1] !== undefined) {
      const v = args[++i]!;
      if (a === '-h') host = v; else if (a === '-p') port = Number(v) || 0; else db = Number(v) || 0;
    } else {
      out('stderr', `Unrecognized option or bad number of args for: '${a}'\n`);
      return 1;
    }
  }
  const command = args.slice(i);
  const terminal = !!ctx.terminalColumns;
  const major = Number(/^(\d+)/.exec(repoAndTag(String(ctx.image ?? '')).tag)?.[1] ?? 7);
  const format = (r: RedisReply) => ((raw ?? !terminal) ? formatReplyRaw(r) : formatReplyTTY(r, major));
  const socket = await ctx.connect?.(host, port).catch(() => undefined);
  const cantConnect = (why: string) => { out('stderr', `Could not connect to Redis at ${host}:${port}: ${why}\n`); return 1; };
  if (!socket) return cantConnect(/^[\d.]+$/.test(host) ? 'Connection refused' : 'Name or service not known');
  const conn = new Connection(socket);
  try {
    if (db) {
      const selected = await conn.call(['SELECT', String(db)]);
      if (typeof selected === 'string') return cantConnect(selected);
    }
    if (command.length) {
      const reply = await conn.call(command);
      if (typeof reply === 'string') return cantConnect(reply);
      out('stdout', format(reply));
      return 0;
    }
    // Without a command: a line at a time, from the terminal (or the rest of stdin).
    const piped = ctx.readLine ? undefined : (await ctx.readStdin?.())?.toString('utf8').split('\n') ?? [];
    const next = () => (ctx.readLine ? ctx.readLine() : Promise.resolve(piped!.shift()));
    const prompt = `${host}:${port}${db ? `[${db}]` : ''}> `;
    for (;;) {
      if (terminal) out('stdout', prompt);
      const line = await next();
      if (line === undefined || line === '\x03') return 0;
      const words = splitArgs(line);
      if (words === undefined) { out('stdout', 'Invalid argument(s)\n'); continue; }
      if (!words.length) continue;
      const name = words[0]!.toLowerCase();
      if (name === 'exit' || name === 'quit') return 0;
      const reply = await conn.call(words);
      if (typeof reply === 'string') return cantConnect(reply);
      out('stdout', format(reply));
    }
  } finally {
    conn.close();
  }
}
