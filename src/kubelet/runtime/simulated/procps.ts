/**
 * procps-ng's `ps` (Debian bookworm's 4.0.2, Ubuntu's), for the Get a Shell
 * to a Running Container page (`apt-get install -y procps`, then `ps aux`)
 * and the Debug Running Pods page (`ps x` in an ubuntu debug container that
 * shares the pod's process namespace). The processes are the made-up ones
 * busybox's ps lists (processes.ts), with the same PIDs, so `kill` and both
 * tables agree.
 *
 * Formats, as procps prints them: `aux` (BSD user format: USER, PID, %CPU,
 * %MEM, VSZ, RSS, TTY, STAT, START, TIME, COMMAND), `x`/`ax` (PID, TTY,
 * STAT, TIME, COMMAND), `-ef` (UID, PID, PPID, C, STIME, TTY, TIME, CMD) and
 * plain `ps` (PID, TTY, TIME, CMD: the processes of the caller's terminal).
 * Not measured: %CPU and %MEM are 0.0, VSZ and RSS are fixed per program,
 * TIME is 0:00, START is when the container started.
 */
import { withPids, type SimulatedProcess } from './processes.js';
import type { PidNamespace } from './pid-namespace.js';

export interface ProcpsContext {
  processes: SimulatedProcess[];
  /** The PID namespace ps runs in (pid-namespace.ts); absent: a new one. */
  pids?: PidNamespace;
  /** The pipe's other stages, started before and after ps (shell.ts ShellContext.pipePeers). */
  pipePeers?: { before: SimulatedProcess[]; after: SimulatedProcess[] };
  /** Whether the exec has a terminal (pts/0), and whether its interactive shell is the last of `processes`. */
  tty: boolean;
  interactiveShell: boolean;
  /** When the container started (START, STIME) and now (ps's own start). */
  startedAt: Date;
  now: Date;
  /** Who runs ps (the exec's user). */
  uid: number;
  /** A uid as the image's /etc/passwd names it. */
  userName(uid: number): string;
}

interface Row {
  pid: number; ppid: number; user: string; uid: number; vsz: number; rss: number;
  tty: string; stat: string; start: Date; args: string;
}

/** Sizes (KiB) of the programs the simulation shows, roughly as on a real node; others get a shell's. */
function sizes(args: string): [number, number] {
  if (args.startsWith('nginx: master')) return [11404, 7464];
  if (args.startsWith('nginx: worker')) return [11868, 2892];
  if (args === '/pause') return [972, 4];
  if (/^(\S*\/)?bash\b/.test(args)) return [4608, 3780];
  if (/^(\S*\/)?ps\b/.test(args)) return [8480, 4100];
  if (/^(\S*\/)?sleep\b/.test(args)) return [2312, 1024];
  return [2576, 1536];
}

function rows(c: ProcpsContext, argv: string[]): Row[] {
  const before = c.pipePeers?.before ?? [];
  const all = [...c.processes, ...before, { uid: c.uid, args: ['ps', ...argv].join(' ') }, ...(c.pipePeers?.after ?? [])];
  const execStart = c.processes.length - (c.interactiveShell ? 1 : 0);
  // ps and its pipe's other stages: the terminal's foreground job, children of the exec's shell (if it has one).
  const psAt = c.processes.length + before.length;
  const inJob = (i: number) => i >= c.processes.length;
  // PIDs are handed out in the order the processes started (ps's own, then the pipe's later stages), and listed by PID.
  const numbered = withPids(all.map((p, i) => ({ ...p, order: i })), c.pids).sort((a, b) => a.order - b.order);
  const shellPID = execStart < c.processes.length ? numbered[execStart]!.pid : 0;
  return numbered.map((p, i) => {
    const own = i >= execStart;
    const [vsz, rss] = sizes(p.args);
    const tty = own && c.tty ? 'pts/0' : '?';
    // Session leaders (s): each container's main process and the exec's first process; the foreground job's (+) on a terminal.
    const leads = i === execStart && !c.tty;
    const stat = !inJob(i) ? (p.args.startsWith('nginx: worker') ? 'S' : 'Ss') : `${i === psAt ? 'R' : 'S'}${leads ? 's' : ''}${c.tty ? '+' : ''}`;
    // A worker's parent is its master; what the exec runs is its shell's child; the rest are their namespace's first processes.
    const master = p.args.startsWith('nginx: worker') ? numbered.find((x) => x.container === p.container && x.args.startsWith('nginx: master')) : undefined;
    const ppid = master ? master.pid : own && inJob(i) ? shellPID : 0;
    return { pid: p.pid, ppid, user: c.userName(p.uid), uid: p.uid, vsz, rss, tty, stat, start: own ? c.now : c.startedAt, args: p.args };
  }).sort((a, b) => a.pid - b.pid);
}

const hhmm = (d: Date) => `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
/** procps truncates a user name longer than its column with `+`. */
const user8 = (u: string) => (u.length > 8 ? `${u.slice(0, 7)}+` : u.padEnd(8));

/** `ps ARGS` as procps prints it; undefined for options it is not simulated for. */
export function procpsPs(argv: string[], c: ProcpsContext): string | undefined {
  const opts = argv.join(' ').replace(/^-(?=[aux]+$)/, '');
  const r = rows(c, argv);
  if (/^(aux|axu|uax|xau|aux[w]+|auxf)$/.test(opts)) {
    const head = 'USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n';
    return head + r.map((x) => `${user8(x.user)} ${String(x.pid).padStart(7)}  0.0  0.0 ${String(x.vsz).padStart(6)} ${String(x.rss).padStart(5)} ${x.tty.padEnd(8)} ${x.stat.padEnd(4)} ${hhmm(x.start)}   0:00 ${x.args}\n`).join('');
  }
  if (/^(x|ax|xa|-e|-A)$/.test(opts)) {
    return '    PID TTY      STAT   TIME COMMAND\n' + r.map((x) => `${String(x.pid).padStart(7)} ${x.tty.padEnd(8)} ${x.stat.padEnd(4)}   0:00 ${x.args}\n`).join('');
  }
  if (/^(-ef|-eF|-aef)$/.test(opts)) {
    return 'UID          PID    PPID  C STIME TTY          TIME CMD\n' + r.map((x) => `${user8(x.user)} ${String(x.pid).padStart(7)} ${String(x.ppid).padStart(7)}  0 ${hhmm(x.start)} ${x.tty.padEnd(8)} 00:00:00 ${x.args}\n`).join('');
  }
  if (opts === '') {
    // Without options: the processes of the caller's terminal (without one, those with none).
    const mine = r.filter((x) => x.tty === (c.tty ? 'pts/0' : '?'));
    const cmd = (a: string) => a.split(' ')[0]!.replace(/^.*\//, '');
    return '    PID TTY          TIME CMD\n' + mine.map((x) => `${String(x.pid).padStart(7)} ${x.tty.padEnd(8)} 00:00:00 ${cmd(x.args)}\n`).join('');
  }
  return undefined;
}
