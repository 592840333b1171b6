/**
 * The mysql client of the official mysql image, as the Run a
 * Single-Instance Stateful Application page runs it (`kubectl run -it --rm
 * --image=mysql:5.6 --restart=Never mysql-client -- mysql -h mysql
 * -ppassword`): it connects through the pod's network to HOST:3306 and
 * reads the server's greeting (the simulated mysql of wordpress.ts), so
 * the page's check — a `mysql>` prompt means the database is up — holds.
 *
 * What is simulated: the password warning, the connection errors (`ERROR
 * 2005` for a name that does not resolve, `ERROR 2003` for a server that
 * does not answer), the monitor's banner with the server's version, the
 * prompt and its continuation (`    -> ` until `;` or `\g`), `exit`,
 * `quit` and `\q` (`Bye`). What is not: the password is not checked, and
 * the server runs no SQL: a statement answers `ERROR 1105 (HY000)` saying
 * so (in known-gaps.md).
 */
import type { Duplex } from 'node:stream';
import type { ShellContext } from './shell.js';
import { repoAndTag } from './image-contents.js';

type Out = (stream: 'stdout' | 'stderr', text: string) => void;

const noSQL = 'ERROR 1105 (HY000): the mysql server of a k8ts simulated node runs no SQL (it only greets)';

/** The server's greeting: its version and connection id (Protocol::HandshakeV10), or undefined when none came. */
function greeting(socket: Duplex): Promise<{ version: string; id: number } | undefined> {
  return new Promise((resolve) => {
    let buf = Buffer.alloc(0);
    const done = (g: { version: string; id: number } | undefined) => { socket.removeAllListeners('data'); resolve(g); };
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf(0, 5);
      if (end < 0 || buf.length < end + 5) return;
      done({ version: buf.subarray(5, end).toString('latin1'), id: buf.readUInt32LE(end + 1) });
    });
    socket.on('error', () => done(undefined));
    socket.on('close', () => done(undefined));
  });
}

function banner(version: string, id: number, clientMajor: number): string {
  const eight = clientMajor >= 8;
  return `Welcome to the MySQL monitor.  Commands end with ; or \\g.
Your MySQL connection id is ${id}
Server version: ${version} ${version.startsWith('8') ? 'MySQL Community Server - GPL' : 'MySQL Community Server (GPL)'}

Copyright (c) 2000, ${eight ? 2024 : 2021}, Oracle and/or its affiliates.${eight ? '' : ' All rights reserved.'}

Oracle is a registered trademark of Oracle Corporation and/or its
affiliates. Other names may be trademarks of their respective
owners.

Type 'help;' or '\\h' for help. Type '\\c' to clear the current input statement.

`;
}

export async function mysqlClient(_argv0: string, args: string[], ctx: ShellContext, out: Out): Promise<number> {
  let host = 'localhost';
  let port = 3306;
  let execute: string | undefined;
  let password = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const value = (short: string, long: string) => (a === short || a === long ? args[++i] : a.startsWith(short) && a.length > 2 ? a.slice(2) : a.startsWith(`${long}=`) ? a.slice(long.length + 1) : undefined);
    if (a.startsWith('-p') && a.length > 2) { password = true; continue; }
    if (a.startsWith('--password=')) { password = true; continue; }
    const h = value('-h', '--host');
    if (h !== undefined) { host = h; continue; }
    const P = value('-P', '--port');
    if (P !== undefined) { port = Number(P) || 3306; continue; }
    const e = value('-e', '--execute');
    if (e !== undefined) { execute = e; continue; }
    // -u USER, a database name and the other options change nothing here.
    if (a === '-u' || a === '-D') i++;
  }
  const clientMajor = Number(/^(\d+)/.exec(repoAndTag(String(ctx.image ?? '')).tag)?.[1] ?? 8);
  if (password) out('stderr', clientMajor >= 8 || /^5\.7/.test(repoAndTag(String(ctx.image ?? '')).tag) ? 'mysql: [Warning] Using a password on the command line interface can be insecure.\n' : 'Warning: Using a password on the command line interface can be insecure.\n');
  // localhost is the server's Unix socket, which no simulated container has.
  const socket = host === 'localhost' ? undefined : await ctx.connect?.(host, port).catch(() => undefined);
  const server = socket && await greeting(socket);
  socket?.destroy();
  if (!server) {
    if (host === 'localhost') out('stderr', "ERROR 2002 (HY000): Can't connect to local MySQL server through socket '/var/run/mysqld/mysqld.sock' (2)\n");
    else if (!socket && !/^[\d.]+$/.test(host)) out('stderr', `ERROR 2005 (HY000): Unknown MySQL server host '${host}' (-2)\n`);
    else out('stderr', `ERROR 2003 (HY000): Can't connect to MySQL server on '${host}' (111)\n`);
    return 1;
  }
  if (execute !== undefined) { out('stderr', `${noSQL}\n`); return 1; }
  const terminal = !!ctx.terminalColumns;
  const piped = ctx.readLine ? undefined : (await ctx.readStdin?.())?.toString('utf8').split('\n') ?? [];
  const next = () => (ctx.readLine ? ctx.readLine() : Promise.resolve(piped!.shift()));
  if (terminal) out('stdout', banner(server.version, server.id, clientMajor));
  let statement = '';
  let line = 0;
  for (;;) {
    if (terminal) out('stdout', statement ? '    -> ' : 'mysql> ');
    const text = await next();
    line++;
    if (text === undefined || text === '\x03') { if (terminal) out('stdout', 'Bye\n'); return 0; }
    if (!statement && /^\s*(exit|quit|\\q)\s*;?\s*$/i.test(text)) { if (terminal) out('stdout', 'Bye\n'); return 0; }
    statement += `${text}\n`;
    if (!/(;|\\g)\s*$/.test(text)) { if (!statement.trim()) statement = ''; continue; }
    statement = '';
    if (terminal) out('stdout', `${noSQL}\n`);
    else { out('stderr', `${noSQL.replace('(HY000):', `(HY000) at line ${line}:`)}\n`); return 1; }
  }
}
