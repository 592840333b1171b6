/**
 * The database clients of the task pages on simulated nodes. Configuring
 * Redis using a ConfigMap: which
 * containers run redis-server and with what arguments, the configuration
 * it reads when it starts (redis-config.ts), CONFIG GET/SET over the
 * protocol, and redis-cli's reply formats (redis-cli.ts) against a
 * simulated redis over in-memory connections. Run a Single-Instance
 * Stateful Application: the mysql client's greeting, banner and errors
 * (mysql-client.ts) against the simulated mysql (wordpress.ts).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Container } from 'kubernetes-types/core/v1.js';
import { containerListener } from '../../src/kubelet/runtime/simulated/app-servers.js';
import { connectListener, type ListenerContext } from '../../src/kubelet/runtime/simulated/listeners.js';
import { memoryBytes, readRedisConfig, redisServerArgs } from '../../src/kubelet/runtime/simulated/redis-config.js';
import { formatReplyRaw, formatReplyTTY, redisCli, splitArgs } from '../../src/kubelet/runtime/simulated/redis-cli.js';
import type { ShellContext } from '../../src/kubelet/runtime/simulated/shell.js';
import { mysqlClient } from '../../src/kubelet/runtime/simulated/mysql-client.js';
import { terminalClient } from '../../src/kubelet/runtime/simulated/extra-commands.js';

const page: Container = {
  name: 'redis', image: 'redis:5.0.4', command: ['redis-server', '/redis-master/redis.conf'],
  volumeMounts: [{ mountPath: '/redis-master-data', name: 'data' }, { mountPath: '/redis-master', name: 'config' }],
};
const files = (conf: string) => ({ readBytes: (p: string) => (p === '/redis-master/redis.conf' ? Buffer.from(conf) : undefined), listDir: () => undefined, mountPaths: [] });

/** A redis instance started with `conf` as its file; redis-cli in a container of the same pod reaches it on localhost. */
function started(spec: Container, conf: string): ListenerContext {
  const memory = new Map<string, unknown>();
  const listener = containerListener(spec)!;
  listener.start!({ files: async () => files(conf), memory });
  return { hostname: 'redis', env: new Map(), remoteAddress: '127.0.0.1', memory };
}

async function cli(args: string[], server: ListenerContext, opts: { tty?: boolean; lines?: string[]; image?: string } = {}) {
  let out = '';
  const lines = [...(opts.lines ?? [])];
  const ctx = {
    env: new Map(), hostname: 'redis', image: opts.image ?? 'redis:5.0.4', readFile: () => undefined, listDir: () => undefined,
    now: () => new Date(), sleep: async () => true, write: () => {},
    connect: async (host: string, port: number) => (host === '127.0.0.1' && port === 6379 ? connectListener(containerListener(page)!, server) : undefined),
    ...(opts.lines ? { readLine: async () => lines.shift() } : {}),
    ...(opts.tty ? { terminalColumns: () => 80 } : {}),
  } satisfies ShellContext;
  const code = await redisCli('redis-cli', args, ctx, (s, t) => { out += s === 'stderr' ? `ERR:${t}` : t; });
  return { out, code };
}

describe('Configuring Redis using a ConfigMap: redis-server\'s config file and redis-cli', () => {
  it('redis-server runs from the entrypoint, a .conf or option argument, or a command naming it; not for another command', () => {
    assert.deepEqual(redisServerArgs({ name: 'r', image: 'redis' }), []);
    assert.deepEqual(redisServerArgs(page), ['/redis-master/redis.conf']);
    assert.deepEqual(redisServerArgs({ name: 'r', image: 'redis:5', args: ['/usr/local/etc/redis/redis.conf'] }), ['/usr/local/etc/redis/redis.conf']);
    assert.deepEqual(redisServerArgs({ name: 'r', image: 'redis', args: ['--maxmemory', '1mb'] }), ['--maxmemory', '1mb']);
    assert.equal(redisServerArgs({ name: 'r', image: 'redis', command: ['sh', '-c', 'sleep 1'] }), undefined);
    assert.equal(containerListener({ name: 'r', image: 'redis', command: ['sleep', '3600'] }), undefined);
  });

  it('memory sizes as memtoull reads them; the file\'s directives, then --options, over the defaults', () => {
    assert.deepEqual(['2mb', '2m', '1gb', '1G', '100', '3kb', 'lots'].map(memoryBytes), ['2097152', '2000000', '1073741824', '1000000000', '100', '3072', undefined]);
    const config = readRedisConfig(['/redis-master/redis.conf', '--maxmemory-samples', '7'], files('# a comment\nmaxmemory 2mb\n  maxmemory-policy allkeys-lru  \n\n'));
    assert.equal(config.get('maxmemory'), '2097152');
    assert.equal(config.get('maxmemory-policy'), 'allkeys-lru');
    assert.equal(config.get('maxmemory-samples'), '7');
    assert.equal(readRedisConfig([], undefined).get('maxmemory'), '0');
  });

  it('the page\'s empty config: CONFIG GET maxmemory 0 and noeviction; after the ConfigMap change and a new pod, 2097152 and allkeys-lru', async () => {
    const before = started(page, '');
    assert.deepEqual(await cli(['CONFIG', 'GET', 'maxmemory'], before), { out: 'maxmemory\n0\n', code: 0 });
    assert.deepEqual(await cli(['CONFIG', 'GET', 'maxmemory-policy'], before, { tty: true }), { out: '1) "maxmemory-policy"\n2) "noeviction"\n', code: 0 });
    const after = started(page, 'maxmemory 2mb\nmaxmemory-policy allkeys-lru\n');
    assert.deepEqual(await cli(['CONFIG', 'GET', 'maxmemory'], after, { tty: true }), { out: '1) "maxmemory"\n2) "2097152"\n', code: 0 });
    assert.equal((await cli(['config', 'get', 'maxmemory*'], after)).out, 'maxmemory\n2097152\nmaxmemory-policy\nallkeys-lru\nmaxmemory-samples\n5\n');
    assert.equal((await cli(['config', 'set', 'maxmemory', '1mb'], after)).out, 'OK\n');
    assert.equal((await cli(['config', 'get', 'maxmemory'], after)).out, 'maxmemory\n1048576\n');
    assert.equal((await cli(['config', 'get', 'nosuch'], after, { tty: true })).out, '(empty list or set)\n');
    assert.equal((await cli(['config', 'get', 'nosuch'], after, { tty: true, image: 'redis:7.2' })).out, '(empty array)\n');
  });

  it('without a command: the prompt, a line at a time, until exit; replies as redis-cli shows them', async () => {
    const server = started(page, '');
    const r = await cli([], server, { tty: true, lines: ['CONFIG GET maxmemory', '', 'set "a key" "x\\ty"', 'get "a key"', 'get nope', 'nosuchcmd', 'exit', 'get a'] });
    assert.equal(r.out, [
      '127.0.0.1:6379> 1) "maxmemory"\n2) "0"\n', '127.0.0.1:6379> ', '127.0.0.1:6379> OK\n', '127.0.0.1:6379> "x\\ty"\n', '127.0.0.1:6379> (nil)\n',
      "127.0.0.1:6379> (error) ERR unknown command `nosuchcmd`, with args beginning with: \n", '127.0.0.1:6379> ',
    ].join(''));
    assert.equal(r.code, 0);
    // Piped, no prompt and raw replies.
    assert.equal((await cli([], server, { lines: ['get "a key"', 'dbsize'] })).out, 'x\ty\n1\n');
  });

  it('a server not reached: could not connect, exit 1; an unknown option', async () => {
    const server = started(page, '');
    assert.deepEqual(await cli(['-h', 'nosuch', 'ping'], server), { out: 'ERR:Could not connect to Redis at nosuch:6379: Name or service not known\n', code: 1 });
    assert.deepEqual(await cli(['-z'], server), { out: "ERR:Unrecognized option or bad number of args for: '-z'\n", code: 1 });
  });

  it('formats: nested arrays indent, indexes pad to the widest; raw joins values a line each', () => {
    const nested = { array: [{ bulk: 'a' }, { array: [{ integer: 1 }, { bulk: null }] }] };
    assert.equal(formatReplyTTY(nested, 7), '1) "a"\n2) 1) (integer) 1\n   2) (nil)\n');
    const ten = { array: Array.from({ length: 10 }, (_, i) => ({ bulk: String(i) })) };
    assert.match(formatReplyTTY(ten, 7), /^ 1\) "0"\n 2\) "1"\n[\s\S]*\n10\) "9"\n$/);
    assert.equal(formatReplyRaw(nested), 'a\n1\n\n');
    assert.deepEqual(splitArgs(`set 'a b' "c\\nd" e`), ['set', 'a b', 'c\nd', 'e']);
    assert.equal(splitArgs('get "open'), undefined);
  });
});

describe('Run a Single-Instance Stateful Application: mysql -h mysql -ppassword', () => {
  const server: Container = { name: 'mysql', image: 'mysql:5.6' };
  async function mysql(args: string[], opts: { tty?: boolean; lines?: string[]; reach?: boolean } = {}) {
    let out = '';
    const lines = [...(opts.lines ?? [])];
    const ctx = {
      env: new Map(), hostname: 'mysql-client', image: 'mysql:5.6', readFile: () => undefined, listDir: () => undefined,
      now: () => new Date(), sleep: async () => true, write: () => {},
      connect: async (host: string) => (host === 'mysql' ? connectListener(containerListener(server)!, { hostname: 'mysql', env: new Map(), remoteAddress: '10.244.1.2' }) : undefined),
      readLine: async () => lines.shift(),
      ...(opts.tty ? { terminalColumns: () => 80 } : {}),
    } satisfies ShellContext;
    const code = await mysqlClient('mysql', args, ctx, (s, t) => { out += s === 'stderr' ? `ERR:${t}` : t; });
    return { out, code };
  }

  it('on a terminal: the warning, the banner with the server\'s version, the prompt; a statement is not run; exit says Bye', async () => {
    const r = await mysql(['-h', 'mysql', '-ppassword'], { tty: true, lines: ['show', 'databases;', 'exit'] });
    assert.equal(r.code, 0);
    assert.match(r.out, /^ERR:Warning: Using a password on the command line interface can be insecure\.\nWelcome to the MySQL monitor\.  Commands end with ; or \\g\.\nYour MySQL connection id is \d+\nServer version: 5\.6\.51 MySQL Community Server \(GPL\)\n/);
    assert.match(r.out, /\n\nmysql> {5}-> ERROR 1105 \(HY000\): the mysql server of a k8ts simulated node runs no SQL \(it only greets\)\nmysql> Bye\n$/);
  });

  it('connection errors as the client words them; piped statements fail with the line', async () => {
    assert.deepEqual(await mysql(['-h', 'nosuch']), { out: "ERR:ERROR 2005 (HY000): Unknown MySQL server host 'nosuch' (-2)\n", code: 1 });
    assert.deepEqual(await mysql([]), { out: "ERR:ERROR 2002 (HY000): Can't connect to local MySQL server through socket '/var/run/mysqld/mysqld.sock' (2)\n", code: 1 });
    assert.deepEqual(await mysql(['-hmysql'], { lines: ['', 'select 1;'] }), { out: 'ERR:ERROR 1105 (HY000) at line 2: the mysql server of a k8ts simulated node runs no SQL (it only greets)\n', code: 1 });
  });

  it('which container commands read the terminal as a shell does', () => {
    assert.equal(terminalClient('mysql:5.6', ['mysql', '-h', 'mysql', '-ppassword']), true);
    assert.equal(terminalClient('mysql:5.6', ['mysql', '-e', 'select 1']), false);
    assert.equal(terminalClient('busybox', ['mysql']), false);
    assert.equal(terminalClient('redis', ['redis-cli', '-h', 'redis']), true);
    assert.equal(terminalClient('redis', ['redis-cli', 'ping']), false);
  });
});
