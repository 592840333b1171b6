/**
 * Commands of the images themselves, beyond the shells' builtins and
 * busybox's applets (shell.ts), that the shell and debug pages run:
 *
 *  - `apt-get` / `apt` in Debian-based images (apt.ts), and what it
 *    installs: procps's `ps` (procps.ts; Ubuntu's image has it already),
 *    `lsof`, `tcpdump`;
 *  - `nginx -s quit|stop|reload|reopen`, `-v`, `-t` in the official nginx
 *    image (the lifecycle page's preStop `nginx -s quit`): quit and stop
 *    signal the master (PID 1), as nginx -s does, which the runtime turns
 *    into the container's exit (kill.ts's rules for PID 1);
 *  - `redis-cli` in the official redis image (redis-cli.ts), to the
 *    simulated redis of its own pod or another; `mysql` in the official
 *    mysql image (mysql-client.ts), which connects and greets only.
 *
 * A command the image does not have (yet) answers undefined here, and the
 * shell says `not found` as before.
 */
import type { ShellContext } from './shell.js';
import { aptGet, hasCommand } from './apt.js';
import { procpsPs } from './procps.js';
import { lsFlavour } from './ls-columns.js';
import { nginxImageVersion } from './nginx-log.js';
import { withPids, type SimulatedProcess } from './processes.js';
import { reloadNginx } from './signal-process.js';
import { redisCli } from './redis-cli.js';
import { mysqlClient } from './mysql-client.js';

type Out = (stream: 'stdout' | 'stderr', text: string) => void;
type Handler = (argv0: string, args: string[], ctx: ShellContext, out: Out) => Promise<number> | number;

const imageName = (image: string | undefined) => String(image ?? '').replace(/^(docker\.io\/)?(library\/)?/, '').split(/[:@]/)[0]!;
const imageTag = (image: string | undefined) => /:([^/@]+)(@|$)/.exec(String(image ?? ''))?.[1] ?? 'latest';
const bytes = (ctx: ShellContext) => (p: string) => ctx.readBytes?.(p) ?? (ctx.readFile(p) === undefined ? undefined : Buffer.from(ctx.readFile(p)!));

const userName = (image: string | undefined) => (uid: number) =>
  uid === 0 ? 'root' : uid === 65534 ? 'nobody' : uid === 101 && imageName(image) === 'nginx' ? 'nginx' : String(uid);

function ps(_argv0: string, args: string[], ctx: ShellContext, out: Out): number {
  const now = ctx.now();
  const text = procpsPs(args, {
    processes: ctx.processes ?? [], pids: ctx.pids, pipePeers: ctx.pipePeers, tty: !!ctx.terminalColumns, interactiveShell: !!ctx.dialect?.interactive,
    startedAt: ctx.stat?.('/')?.mtime ?? now, now, uid: ctx.user?.uid ?? 0, userName: userName(ctx.image),
  });
  if (text === undefined) { out('stderr', `error: unsupported option (BSD syntax)\n\nUsage:\n ps [options]\n\n Try 'ps --help <simple|list|output|threads|misc|all>'\n  or 'ps --help <s|l|o|t|m|a>'\n for additional help text.\n\nFor more details see ps(1).\n`); return 1; }
  out('stdout', text);
  return 0;
}

/** lsof's table of what each process has open: its cwd, root and program (no sockets or libraries are simulated). */
function lsof(_argv0: string, _args: string[], ctx: ShellContext, out: Out): number {
  const procs = withPids<SimulatedProcess>([...(ctx.processes ?? []), { uid: ctx.user?.uid ?? 0, args: 'lsof' }], ctx.pids);
  const name = userName(ctx.image);
  const program = (a: string) => (a.startsWith('nginx:') ? '/usr/sbin/nginx' : a === '/pause' ? '/pause' : `/usr/bin/${a.split(' ')[0]!.replace(/^.*\//, '')}`);
  const rows = procs.flatMap((p) => {
    const cmd = (p.args.startsWith('nginx:') ? 'nginx' : p.args.split(' ')[0]!.replace(/^.*\//, '')).slice(0, 9);
    return [['cwd', 'DIR', '4096', '/'], ['rtd', 'DIR', '4096', '/'], ['txt', 'REG', '1265648', program(p.args)]]
      .map(([fd, type, size, path]) => [cmd, String(p.pid), name(p.uid), fd!, type!, '0,51', size!, path!]);
  });
  const table = [['COMMAND', 'PID', 'USER', 'FD', 'TYPE', 'DEVICE', 'SIZE/OFF', 'NAME'], ...rows];
  const widths = table[0]!.map((_, c) => Math.max(...table.map((r) => r[c]!.length)));
  const right = new Set([1, 6]);
  out('stdout', table.map((r) => r.map((v, c) => (c === r.length - 1 ? v : right.has(c) ? v.padStart(widths[c]!) : v.padEnd(widths[c]!))).join(' ')).join('\n') + '\n');
  return 0;
}

/** tcpdump listens until interrupted (Ctrl-C) or the container stops; no packet is seen, as none is simulated. */
async function tcpdump(_argv0: string, args: string[], ctx: ShellContext, out: Out): Promise<number> {
  const i = args.indexOf('-i');
  const iface = i >= 0 ? args[i + 1] ?? 'eth0' : 'eth0';
  out('stderr', `tcpdump: verbose output suppressed, use -v[v]... for full protocol decode\nlistening on ${iface}, link-type EN10MB (Ethernet), snapshot length 262144 bytes\n`);
  await ctx.sleep(Infinity);
  out('stderr', '\n0 packets captured\n0 packets received by filter\n0 packets dropped by kernel\n');
  return 0;
}

function nginx(_argv0: string, args: string[], ctx: ShellContext, out: Out): number {
  const version = nginxImageVersion(imageTag(ctx.image));
  if (args[0] === '-v' || args[0] === '-V') { out('stderr', `nginx version: nginx/${version}\n`); return 0; }
  if (args[0] === '-t') { out('stderr', 'nginx: the configuration file /etc/nginx/nginx.conf syntax is ok\nnginx: configuration file /etc/nginx/nginx.conf test is successful\n'); return 0; }
  if (args[0] === '-s') {
    const signals: Record<string, number> = { quit: 3, stop: 15, reload: 1, reopen: 10 };
    const sig = signals[args[1] ?? ''];
    if (sig === undefined) { out('stderr', `nginx: invalid option: "-s ${args[1] ?? ''}"\n`); return 1; }
    // The signal goes to the master (PID 1 in the container's own PID namespace); reload replaces its worker, reopen changes nothing.
    if (sig === 3 || sig === 15) ctx.signalMain?.(sig);
    const master = ctx.processes?.find((p) => p.args.startsWith('nginx: master') && p.container);
    if (sig === 1 && master) reloadNginx(master.container!.name, ctx);
    return 0;
  }
  // `nginx` alone would start a second master: the address is taken.
  out('stderr', 'nginx: [emerg] bind() to 0.0.0.0:80 failed (98: Address already in use)\n');
  return 1;
}

/**
 * Whether a container's command is one of the clients above that reads its
 * terminal (`kubectl run -it ... -- mysql -h mysql -ppassword`): the
 * runtime runs it on the container's stdin as it runs a shell (attach.ts).
 */
export function terminalClient(image: string | undefined, argv: string[]): boolean {
  const base = (argv[0] ?? '').replace(/^.*\//, '');
  if (base === 'mysql') return imageName(image) === 'mysql' && !argv.some((a) => a === '-e' || a.startsWith('--execute'));
  return base === 'redis-cli' && imageName(image) === 'redis' && argv.slice(1).every((a, i, rest) => a.startsWith('-') || ['-h', '-p', '-n'].includes(rest[i - 1] ?? ''));
}

/** The command `name` where the container's image has it, or has had it installed; undefined: not found. */
export function imageCommand(name: string, ctx: ShellContext): Handler | undefined {
  if (lsFlavour(ctx.image) === 'busybox') return undefined;
  const has = (pkg: string) => hasCommand(pkg, { readBytes: bytes(ctx) }, ctx.image);
  switch (name) {
    case 'apt-get': case 'apt': return (argv0, args, c, out) => aptGet(argv0, args, { readBytes: bytes(c), listDir: (p) => c.listDir(p), writeFile: c.writeFile }, c.image, out);
    case 'ps': return has('procps') ? ps : undefined;
    case 'lsof': return has('lsof') ? lsof : undefined;
    case 'tcpdump': return has('tcpdump') ? tcpdump : undefined;
    case 'nginx': return imageName(ctx.image) === 'nginx' ? nginx : undefined;
    case 'redis-cli': return imageName(ctx.image) === 'redis' ? redisCli : undefined;
    case 'mysql': return imageName(ctx.image) === 'mysql' ? mysqlClient : undefined;
    default: return undefined;
  }
}
