/**
 * redis-server's configuration as the Configuring Redis using a ConfigMap
 * page reads it: the file named on the command line (`redis-server
 * /redis-master/redis.conf`, or the official image's entrypoint given a
 * `.conf` argument) and `--name value` options, read once when the server
 * starts, so `CONFIG GET maxmemory` shows a changed ConfigMap only after
 * the pod is recreated, as on the page. A directive is taken as its words
 * without redis's own checks (an unknown one does not stop the server
 * here); memory sizes read as redis's memtoull reads them (`2mb` is
 * 2097152). Parameters not set keep the defaults below, those of redis's
 * redis.conf for the parameters listed.
 */
import type { Container } from 'kubernetes-types/core/v1.js';
import type { ListenerFiles } from './listeners.js';
import type { RedisReply } from './redis.js';

export type RedisConfig = Map<string, string>;

const defaults: [string, string][] = [
  ['maxmemory', '0'], ['maxmemory-policy', 'noeviction'], ['maxmemory-samples', '5'],
  ['port', '6379'], ['databases', '16'], ['timeout', '0'], ['loglevel', 'notice'], ['appendonly', 'no'],
];

/** The parameters whose values are memory sizes. */
const sizes = new Set(['maxmemory']);

/** redis's memtoull: a number with an optional unit, k/m/g powers of 1000 and kb/mb/gb powers of 1024, any case. */
export function memoryBytes(text: string): string | undefined {
  const m = /^(\d+)(k|kb|m|mb|g|gb|b)?$/i.exec(text.trim());
  if (!m) return undefined;
  const units: Record<string, number> = { '': 1, b: 1, k: 1e3, kb: 1024, m: 1e6, mb: 1024 ** 2, g: 1e9, gb: 1024 ** 3 };
  return String(Number(m[1]) * units[(m[2] ?? '').toLowerCase()]!);
}

/**
 * redis-server's arguments when the container runs it: the image's
 * entrypoint with nothing else, or with args that are a `.conf` file or
 * options (docker-entrypoint.sh puts `redis-server` before them), or
 * `redis-server ...` as command or args. undefined: something else runs.
 */
export function redisServerArgs(spec: Container): string[] | undefined {
  const command = spec.command ?? [];
  const args = spec.args ?? [];
  const isServer = (a: string | undefined) => !!a && /(^|\/)redis-server$/.test(a);
  if (command.length) return isServer(command[0]) ? [...command.slice(1), ...args] : undefined;
  if (!args.length) return [];
  if (isServer(args[0])) return args.slice(1);
  return args[0]!.startsWith('-') || args[0]!.endsWith('.conf') ? args : undefined;
}

/** The configuration a server with these arguments starts with, reading its file from the container's files. */
export function readRedisConfig(args: string[], files: Pick<ListenerFiles, 'readBytes'> | undefined): RedisConfig {
  const config: RedisConfig = new Map(defaults);
  const set = (name: string, words: string[]) => {
    const key = name.toLowerCase();
    const value = words.join(' ');
    config.set(key, sizes.has(key) ? memoryBytes(value) ?? value : value);
  };
  const rest = [...args];
  if (rest[0] && !rest[0].startsWith('-')) {
    const text = files?.readBytes(rest.shift()!)?.toString('utf8') ?? '';
    for (const line of text.split('\n')) {
      const words = line.trim().split(/\s+/).filter(Boolean);
      if (!words.length || words[0]!.startsWith('#')) continue;
      set(words[0]!, words.slice(1).map((w) => w.replace(/^"(.*)"$/, '$1')));
    }
  }
  for (let i = 0; i < rest.length; i++) {
    if (!rest[i]!.startsWith('--')) continue;
    const words: string[] = [];
    while (rest[i + 1] !== undefined && !rest[i + 1]!.startsWith('--')) words.push(rest[++i]!);
    set(rest[i - words.length]!.slice(2), words);
  }
  return config;
}

/** Whether the configuration came from a file (redis-server logs `Configuration loaded` instead of its warning). */
export const hasConfigFile = (args: string[]) => !!args[0] && !args[0].startsWith('-');

const glob = (pattern: string) => new RegExp(`^${pattern.toLowerCase().replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);

/** `CONFIG GET pattern` and `CONFIG SET name value` against the running server's configuration. */
export function configCommand(args: string[], config: RedisConfig): RedisReply {
  const [sub = '', ...rest] = args;
  switch (sub.toLowerCase()) {
    case 'get': {
      if (rest.length !== 1) return { error: "ERR wrong number of arguments for 'config|get' command" };
      const re = glob(rest[0]!);
      return { array: [...config].filter(([k]) => re.test(k)).flatMap(([k, v]) => [{ bulk: k }, { bulk: v }]) };
    }
    case 'set': {
      if (rest.length !== 2) return { error: "ERR wrong number of arguments for 'config|set' command" };
      const key = rest[0]!.toLowerCase();
      if (!config.has(key)) return { error: `ERR Unknown option or number of arguments for CONFIG SET - '${rest[0]}'` };
      const value = sizes.has(key) ? memoryBytes(rest[1]!) : rest[1]!;
      if (value === undefined) return { error: `ERR Invalid argument '${rest[1]}' for CONFIG SET '${rest[0]}' - argument couldn't be parsed into an integer` };
      config.set(key, value);
      return { simple: 'OK' };
    }
    default: return { error: `ERR unknown subcommand '${sub}'. Try CONFIG HELP.` };
  }
}
