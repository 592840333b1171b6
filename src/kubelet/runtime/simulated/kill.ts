/**
 * `kill` in the simulated shell (a builtin of ash, dash and bash alike), as
 * the Configure a Pod to Use a Volume for Storage page uses it: `kill 1`
 * from an exec into the redis container stops redis, the container exits
 * and the kubelet restarts it, while the pod's emptyDir stays.
 *
 * The PIDs are those ps shows (processes.ts: the container's main process
 * is PID 1 without shareProcessNamespace, the others made up after it).
 * What a signal does to PID 1 is what the kernel lets it do to a PID
 * namespace's init: only a signal its program handles is delivered at all
 * (SIGKILL and SIGSTOP from inside the namespace never are), so the
 * container exits only when its image's server handles the signal
 * (`mainHandles`); any other signal, or a command run as PID 1 (sleep, a
 * shell script), changes nothing and kill succeeds silently, as it does
 * on a real container. A signal to another listed process is not
 * init's, so it is delivered (signal-process.ts: nginx's master reloads on
 * HUP, another container's server exits on its stop signals; the rest
 * change nothing, none of them simulated beyond ps's line); a PID
 * nobody holds fails in the shell's words, checked against the machine's
 * busybox 1.35, dash and bash.
 */
import type { Container } from 'kubernetes-types/core/v1.js';
import { repoAndTag } from './image-contents.js';
import type { ShellDialect } from './shell-dialect.js';

const signals: Record<string, number> = {
  HUP: 1, INT: 2, QUIT: 3, ILL: 4, TRAP: 5, ABRT: 6, BUS: 7, FPE: 8, KILL: 9, USR1: 10, SEGV: 11, USR2: 12, PIPE: 13, ALRM: 14, TERM: 15,
  CHLD: 17, CONT: 18, STOP: 19, TSTP: 20, TTIN: 21, TTOU: 22, URG: 23, XCPU: 24, XFSZ: 25, VTALRM: 26, PROF: 27, WINCH: 28, IO: 29, PWR: 30, SYS: 31,
};

/** A signal's number from its name (`TERM`, `SIGTERM`, case-insensitive) or number, or undefined. */
export function signalNumber(spec: string): number | undefined {
  if (/^\d+$/.test(spec)) { const n = Number(spec); return n >= 0 && n <= 64 ? n : undefined; }
  return signals[spec.toUpperCase().replace(/^SIG/, '')];
}

/**
 * The exit code of a container's main process on `signal`, when its image's
 * entrypoint handles it and exits: redis-server saves and exits 0 on
 * SIGTERM and SIGINT; nginx's master stops on TERM and INT (fast) and
 * QUIT (graceful), exit 0; pause exits 0 on TERM and INT. undefined: the signal is not delivered or
 * changes nothing (a command set in the pod, another image).
 */
export function mainExitOnSignal(spec: Container, signal: number): number | undefined {
  if (spec.command?.length || spec.args?.length) return undefined;
  const { repo } = repoAndTag(String(spec.image ?? ''));
  if (repo === 'docker.io/library/redis') return signal === 15 || signal === 2 ? 0 : undefined;
  if (repo === 'docker.io/library/nginx') return signal === 15 || signal === 2 || signal === 3 ? 0 : undefined;
  // The pause container's sigdown handler exits 0 on TERM and INT (build/pause/linux/pause.c).
  if (/\/pause$/.test(repo)) return signal === 15 || signal === 2 ? 0 : undefined;
  return undefined;
}

export interface KillShell {
  dialect?: { name: ShellDialect; argv0: string; interactive: boolean; line(): number };
  /** The PIDs ps lists (processes.ts's numbering); 1 is the container's main process unless the pod shares its PID namespace. */
  pids: number[];
  /** Whether PID 1 is the container's own main process (no shareProcessNamespace: there it is /pause). */
  mainIsPid1: boolean;
  /** Delivers `signal` to the container's main process (the runtime decides what it does). */
  signalMain?(signal: number): void;
  /** Delivers `signal` to another listed process (signal-process.ts decides what it does). */
  signalOther?(pid: number, signal: number): void;
}

type Out = (stream: 'stdout' | 'stderr', text: string) => void;

function prefix(sh: KillShell): { name: ShellDialect; lead: string } {
  const d = sh.dialect ?? { name: 'ash' as const, argv0: 'sh', interactive: false, line: () => 1 };
  if (d.name === 'bash') return { name: 'bash', lead: `${d.argv0}: ${d.interactive ? '' : `line ${d.line()}: `}kill: ` };
  if (d.name === 'dash') return { name: 'dash', lead: `${d.argv0}: ${d.line()}: kill: ` };
  return { name: 'ash', lead: `${d.argv0}: ` };
}

/** kill [-s SIG | -SIG | -N] PID...: the exit status, 0 when every PID was signalled. */
export function kill(args: string[], sh: KillShell, out: Out): number {
  const p = prefix(sh);
  let signal = 15;
  let i = 0;
  const badSignal = (s: string) => {
    out('stderr', p.name === 'bash' ? `${p.lead}${s}: invalid signal specification\n` : p.name === 'dash' ? `${p.lead}invalid signal number or name: ${s}\n` : `${p.lead}bad signal name '${s}'\n`);
    return p.name === 'dash' ? 2 : 1;
  };
  if (args[0] === '-s' || args[0] === '-n') {
    const s = args[1] ?? '';
    const n = signalNumber(s);
    if (n === undefined) return badSignal(s);
    signal = n;
    i = 2;
  } else if (args[0] && /^-[^-]/.test(args[0]) && !/^-\d+$/.test(args[0]) || args[0] && /^-\d+$/.test(args[0]) && args.length > 1) {
    const s = args[0].slice(1);
    const n = signalNumber(s);
    // dash takes `-NAME` only for a name it knows without SIG; anything else is read as options.
    if (p.name === 'dash' && (n === undefined || /^sig/i.test(s))) { out('stderr', `${p.lead}Illegal option -${s[0]}\n`); return 2; }
    if (n === undefined) return badSignal(s);
    signal = n;
    i = 1;
  } else if (args[0] === '--') i = 1;
  const pids = args.slice(i);
  if (!pids.length) {
    out('stderr', p.name === 'bash' ? 'kill: usage: kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]\n'
      : p.name === 'dash' ? `${p.lead}Usage: kill [-s sigspec | -signum | -sigspec] [pid | job]... or\nkill -l [exitstatus]\n` : `${p.lead}you need to specify whom to kill\n`);
    return p.name === 'ash' ? 1 : 2;
  }
  let status = 0;
  for (const arg of pids) {
    if (!/^\d+$/.test(arg)) {
      out('stderr', p.name === 'bash' ? `${p.lead}${arg}: arguments must be process or job IDs\n` : p.name === 'dash' ? `${p.lead}Illegal number: ${arg}\n` : `${p.lead}invalid number '${arg}'\n`);
      status = p.name === 'dash' ? 2 : 1;
      continue;
    }
    const pid = Number(arg);
    if (!sh.pids.includes(pid)) {
      out('stderr', p.name === 'bash' ? `${p.lead}(${pid}) - No such process\n` : p.name === 'dash' ? `${p.lead}No such process\n\n` : `${p.lead}can't kill pid ${pid}: No such process\n`);
      status = 1;
      continue;
    }
    if (signal === 0) continue;
    if (pid === 1 && sh.mainIsPid1) sh.signalMain?.(signal);
    else sh.signalOther?.(pid, signal);
  }
  return status;
}
