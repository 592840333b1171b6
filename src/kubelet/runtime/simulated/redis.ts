/**
 * Redis as the guestbook tutorial uses it (docker.io/library/redis, the
 * leader; gb-redis-follower, a replica of `redis-leader`): the RESP
 * protocol on 6379 (arrays of bulk strings, and inline commands as
 * `redis-cli` or telnet send them) with the keys in the instance's memory,
 * so a restarted container starts empty as a redis without persistence
 * does. Commands: PING, ECHO, GET, SET, DEL, EXISTS, APPEND, KEYS *,
 * DBSIZE, SELECT 0, QUIT, COMMAND, CONFIG GET/SET (redis-config.ts: the
 * configuration the server started with), the list commands a work queue
 * uses (redis-lists.ts: RPUSH, LRANGE, LPOP ...); any other is redis's
 * unknown-command error. A replica refuses writes (`READONLY`) and reads its leader's keys
 * (it dials `redis-leader:6379` as its run.sh's `--replicaof` names it, so
 * a read sees what was written, as a replica in sync does; with the leader
 * unreachable it has no keys).
 */
import type { Duplex } from 'node:stream';
import type { Container } from 'kubernetes-types/core/v1.js';
import type { ImageListener, ListenerContext } from './listeners.js';
import { configCommand, hasConfigFile, readRedisConfig, redisServerArgs, type RedisConfig } from './redis-config.js';
import { repoAndTag } from './image-contents.js';
import { listCommand, listCommands, listWrites, wrongType, type RedisKeys } from './redis-lists.js';

export type RedisReply = { simple: string } | { error: string } | { integer: number } | { bulk: string | null } | { array: RedisReply[] };

export function encodeReply(r: RedisReply): string {
  if ('simple' in r) return `+${r.simple}\r\n`;
  if ('error' in r) return `-${r.error}\r\n`;
  if ('integer' in r) return `:${r.integer}\r\n`;
  if ('bulk' in r) return r.bulk === null ? '$-1\r\n' : `$${Buffer.byteLength(r.bulk)}\r\n${r.bulk}\r\n`;
  return `*${r.array.length}\r\n${r.array.map(encodeReply).join('')}`;
}

export const encodeCommand = (args: string[]) => `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;

/**
 * One request or reply at the start of `buf`: the value and the bytes it
 * took, or undefined while incomplete. A request is an array of bulk
 * strings or an inline line; a reply any RESP value.
 */
export function parseValue(buf: Buffer): { value: RedisReply; used: number } | undefined {
  const eol = buf.indexOf('\r\n');
  if (eol < 0) return undefined;
  const line = buf.subarray(1, eol).toString('utf8');
  switch (String.fromCharCode(buf[0]!)) {
    case '+': return { value: { simple: line }, used: eol + 2 };
    case '-': return { value: { error: line }, used: eol + 2 };
    case ':': return { value: { integer: Number(line) }, used: eol + 2 };
    case '$': {
      const n = Number(line);
      if (n < 0) return { value: { bulk: null }, used: eol + 2 };
      if (buf.length < eol + 2 + n + 2) return undefined;
      return { value: { bulk: buf.subarray(eol + 2, eol + 2 + n).toString('utf8') }, used: eol + 2 + n + 2 };
    }
    case '*': {
      const items: RedisReply[] = [];
      let used = eol + 2;
      for (let i = 0; i < Number(line); i++) {
        const next = parseValue(buf.subarray(used));
        if (!next) return undefined;
        items.push(next.value);
        used += next.used;
      }
      return { value: { array: items }, used };
    }
    default: {
      // An inline command: words separated by spaces.
      const words = buf.subarray(0, eol).toString('utf8').trim().split(/\s+/).filter(Boolean);
      return { value: { array: words.map((w) => ({ bulk: w })) }, used: eol + 2 };
    }
  }
}

const argsOf = (v: RedisReply): string[] => ('array' in v ? v.array.map((x) => ('bulk' in x ? x.bulk ?? '' : '')) : []);

/** Sends one command over a connection and reads its reply; undefined when the connection fails or closes first. */
export function redisCall(socket: Duplex, args: string[]): Promise<RedisReply | undefined> {
  return new Promise((resolve) => {
    let buf = Buffer.alloc(0);
    const done = (r: RedisReply | undefined) => { socket.removeAllListeners('data'); socket.destroy(); resolve(r); };
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const got = parseValue(buf);
      if (got) done(got.value);
    });
    socket.on('error', () => done(undefined));
    socket.on('close', () => done(undefined));
    socket.write(encodeCommand(args));
  });
}

type Keys = RedisKeys;

function keysOf(ctx: ListenerContext): Keys {
  const memory = ctx.memory ?? new Map<string, unknown>();
  let keys = memory.get('redis') as Keys | undefined;
  if (!keys) { keys = new Map(); memory.set('redis', keys); }
  return keys;
}

const writes = new Set(['set', 'del', 'append', ...listWrites]);
const wrongArgs = (name: string): RedisReply => ({ error: `ERR wrong number of arguments for '${name}' command` });

/** One command against the instance's keys (a leader's, or a replica's reads through `read`). */
async function execute(args: string[], keys: Keys, config: RedisConfig, replicaRead?: (args: string[]) => Promise<RedisReply | undefined>): Promise<RedisReply> {
  const [name = '', ...rest] = args;
  const cmd = name.toLowerCase();
  if (replicaRead && writes.has(cmd)) return { error: "READONLY You can't write against a read only replica." };
  if (replicaRead && ['get', 'exists', 'keys', 'dbsize', 'lrange', 'llen'].includes(cmd)) {
    return (await replicaRead(args)) ?? (cmd === 'get' ? { bulk: null } : cmd === 'keys' || cmd === 'lrange' ? { array: [] } : { integer: 0 });
  }
  if (listCommands.has(cmd)) return listCommand(cmd, rest, keys);
  const value = rest.length ? keys.get(rest[0]!) : undefined;
  switch (cmd) {
    case 'ping': return rest.length ? { bulk: rest[0]! } : { simple: 'PONG' };
    case 'echo': return rest.length === 1 ? { bulk: rest[0]! } : wrongArgs(cmd);
    case 'get': return rest.length !== 1 ? wrongArgs(cmd) : Array.isArray(value) ? wrongType : { bulk: value ?? null };
    case 'set': if (rest.length < 2) return wrongArgs(cmd); keys.set(rest[0]!, rest[1]!); return { simple: 'OK' };
    case 'append': {
      if (rest.length !== 2) return wrongArgs(cmd);
      if (Array.isArray(value)) return wrongType;
      const v = (value ?? '') + rest[1]!;
      keys.set(rest[0]!, v);
      return { integer: Buffer.byteLength(v) };
    }
    case 'del': return { integer: rest.filter((k) => keys.delete(k)).length };
    case 'exists': return { integer: rest.filter((k) => keys.has(k)).length };
    case 'keys': return rest[0] === '*' ? { array: [...keys.keys()].map((k) => ({ bulk: k })) } : { array: rest.filter((k) => keys.has(k)).map((k) => ({ bulk: k })) };
    case 'dbsize': return { integer: keys.size };
    case 'select': return rest[0] === '0' ? { simple: 'OK' } : { error: 'ERR DB index is out of range' };
    case 'command': return { array: [] };
    case 'config': return configCommand(rest, config);
    default: return { error: `ERR unknown command \`${name}\`, with args beginning with: ${rest.map((a) => `\`${a}\`, `).join('')}` };
  }
}

/** The configuration the instance started with (read by the listener's start); the defaults where it was not read. */
const configOf = (ctx: Pick<ListenerContext, 'memory'>): Promise<RedisConfig> =>
  (ctx.memory?.get('redis-config') as Promise<RedisConfig> | undefined) ?? Promise.resolve(readRedisConfig([], undefined));

function serveRedis(socket: Duplex, ctx: ListenerContext, replicaOf?: string): void {
  const keys = keysOf(ctx);
  const config = configOf(ctx);
  const replicaRead = replicaOf ? async (args: string[]) => {
    const leader = await ctx.connect?.(replicaOf, 6379).catch(() => undefined);
    return leader ? redisCall(leader, args) : undefined;
  } : undefined;
  let buf = Buffer.alloc(0);
  let queue = Promise.resolve();
  socket.on('data', (d: Buffer) => {
    buf = Buffer.concat([buf, d]);
    for (let got = parseValue(buf); got; got = parseValue(buf)) {
      buf = buf.subarray(got.used);
      const args = argsOf(got.value);
      if (!args.length) continue;
      // Replies go out in the order the commands came, as redis answers a pipeline.
      queue = queue.then(async () => {
        if (args[0]!.toLowerCase() === 'quit') { socket.end('+OK\r\n'); return; }
        const reply = await execute(args, keys, await config, replicaRead);
        if (!socket.destroyed) socket.write(encodeReply(reply));
      });
    }
  });
  socket.on('error', () => socket.destroy());
}

/**
 * The official image's redis-server, run by its entrypoint or named in the
 * container's command (redisServerArgs): its configuration is read from the
 * container's files when the instance starts; its log is redis-server's
 * start (for a tag that names a version).
 */
export function redisServerListener(spec: Container): ImageListener | undefined {
  const args = redisServerArgs(spec);
  if (!args) return undefined;
  const { tag } = repoAndTag(String(spec.image ?? ''));
  return {
    ports: () => [6379],
    serve: (socket, ctx) => serveRedis(socket, ctx),
    start: (ctx) => { ctx.memory?.set('redis-config', (async () => readRedisConfig(args, await ctx.files?.().catch(() => undefined)))()); },
    ...(/^\d+\.\d+\.\d+$/.test(tag) ? { startLog: (at: Date) => redisStartLog(tag, at, hasConfigFile(args)) } : {}),
  };
}

/** gb-redis-follower: a replica of redis-leader (its run.sh's `--replicaof redis-leader 6379`). */
export const redisFollowerListener: ImageListener = { ports: () => [6379], serve: (socket, ctx) => serveRedis(socket, ctx, 'redis-leader') };

/** redis-server's log time: `05 Dec 2026 05:20:00.123` (UTC, the container's zone). */
function redisLogTime(d: Date): string {
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const p2 = (n: number) => String(n).padStart(2, '0');
  return `${p2(d.getUTCDate())} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}.${String(d.getUTCMilliseconds()).padStart(3, '0')}`;
}

/**
 * What redis-server (pid 1, no config file, stdout not a terminal so no
 * logo) logs when it starts; the host-dependent warnings (somaxconn,
 * overcommit_memory, THP) are left out.
 */
export function redisStartLog(version: string, startedAt: Date, configFile = false): string {
  const t = redisLogTime(startedAt);
  return [
    `1:C ${t} # oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo`,
    `1:C ${t} # Redis version=${version}, bits=64, commit=00000000, modified=0, pid=1, just started`,
    configFile ? `1:C ${t} # Configuration loaded` : `1:C ${t} # Warning: no config file specified, using the default config. In order to specify a config file use redis-server /path/to/redis.conf`,
    `1:M ${t} * Running mode=standalone, port=6379.`,
    `1:M ${t} # Server initialized`,
    `1:M ${t} * Ready to accept connections`,
  ].join('\n') + '\n';
}
