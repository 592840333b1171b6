/**
 * What the resource pages' load generators do, for the usage model
 * (usage-model.ts) and the OOM killer (oom-kill.ts). Nothing runs: the
 * container's command line is read and its hogs are modelled.
 *
 *  1. `stress` (polinux/stress, the Assign Memory Resources page: command
 *     `stress`, args `--vm 1 --vm-bytes 150M --vm-hang 1`), GNU stress 1.0's
 *     options: `--cpu N` workers spin on sqrt() (a core each); `--io N` spin
 *     on sync() and `--hdd N` write files (a core each, as near as this
 *     model goes); `--vm N` workers each malloc `--vm-bytes` (default 256M;
 *     suffixes b, k, m, g are powers of 1024, as stress's atoll_b), touch
 *     every page, then free it and start again: a core each and the bytes
 *     at their peak. `--vm-hang S` sleeps S seconds before the free (the
 *     worker is mostly asleep: its CPU is the touching's share of each
 *     round); `--vm-hang 0` sleeps for ever once touched; `--vm-keep` keeps
 *     the bytes and dirties them again (a core, the bytes held).
 *  2. vish/stress (the Assign CPU Resources page: args `-cpus 2`), Go flags
 *     (`-name value`, `-name=value`, one or two dashes): `-cpus N`
 *     goroutines spin (a core each); `-mem-total Q` is allocated
 *     `-mem-alloc-size Q` (default 4Ki) at a time, one allocation every
 *     `-mem-alloc-sleep D` (default 1ms), then held.
 *  3. Pages are touched at touchBytesPerMs (2 GiB/s, first-touch page faults
 *     on one core), so a vm worker's bytes arrive over bytes / that rate and
 *     a worker with --vm-hang 1 of 150M uses about 7% of a core.
 *  4. The process's own working set (the binary, its stack, the cgroup's
 *     page tables) is a fixed base: 5 MiB for stress (the memory page's
 *     `kubectl top` showed 162,856,960 bytes for its 150M), 2 MiB for
 *     vish/stress's Go binary.
 * Not modelled: --timeout (the run never ends), --backoff, stress's output
 * on failure, vish/stress's glog lines.
 */
import type { Container } from 'kubernetes-types/core/v1.js';
import { integerValue, parseQuantity } from '../../../api/quantity.js';
import { repoAndTag } from './image-contents.js';

const MiB = 1024 * 1024;
/** Rule 3. */
export const touchBytesPerMs = (2 * 1024 * MiB) / 1000;

export interface StressWorkload {
  /** Threads that always want a core (rule 1, 2). */
  busyThreads: number;
  /** The average CPU of workers that mostly sleep (vm-hang), in cores. */
  sleepyCores: number;
  /** Working set (bytes) this long after the start; it never falls in this model. */
  workingSetAt(ms: number): number;
  /** The first moment (ms after the start) the working set exceeds `bytes`; undefined when it never does. */
  exceedsAfter(bytes: number): number | undefined;
  /** What the program prints when it starts (stress's info line), if anything. */
  startLog?: string;
}

/** stress's atoll_b: a number with an optional b/k/m/g suffix, powers of 1024. */
function stressBytes(s: string | undefined): number | undefined {
  const m = /^(\d+)([bkmgBKMG]?)$/.exec(s ?? '');
  if (!m) return undefined;
  const power = { '': 0, b: 0, k: 1, m: 2, g: 3 }[m[2]!.toLowerCase() as '' | 'b' | 'k' | 'm' | 'g'];
  return Number(m[1]) * 1024 ** power;
}

/** Options as `--name value` or `--name=value` (Go's flags also take one dash); names given without a value are `true`. */
function options(args: string[], valued: Set<string>, aliases: Record<string, string> = {}): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('-')) continue;
    const body = a.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const raw = eq < 0 ? body : body.slice(0, eq);
    const name = aliases[raw] ?? raw;
    if (eq >= 0) out.set(name, body.slice(eq + 1));
    else if (valued.has(name) && i + 1 < args.length) out.set(name, args[++i]!);
    else out.set(name, 'true');
  }
  return out;
}

const count = (v: string | undefined) => { const n = Number(v ?? 0); return Number.isInteger(n) && n > 0 ? n : 0; };

/** A working set that starts at `base` and gains `bytes` at `rate` bytes/ms (rule 3). */
function ramp(base: number, bytes: number, rate: number): Pick<StressWorkload, 'workingSetAt' | 'exceedsAfter'> {
  return {
    workingSetAt: (ms) => base + Math.min(bytes, Math.max(0, ms) * rate),
    exceedsAfter: (limit) => (base + bytes <= limit ? undefined : Math.max(0, (limit - base) / rate)),
  };
}

/** Rule 1: GNU stress's command line. */
function gnuStress(args: string[]): StressWorkload {
  const o = options(args, new Set(['cpu', 'io', 'vm', 'vm-bytes', 'vm-stride', 'vm-hang', 'hdd', 'hdd-bytes', 'timeout', 'backoff']),
    { c: 'cpu', i: 'io', m: 'vm', d: 'hdd', t: 'timeout' });
  const [cpu, io, vm, hdd] = [count(o.get('cpu')), count(o.get('io')), count(o.get('vm')), count(o.get('hdd'))];
  const bytes = stressBytes(o.get('vm-bytes')) ?? 256 * MiB;
  const hang = o.get('vm-hang');
  const hangSeconds = hang === undefined ? undefined : Number(hang);
  const touchMs = bytes / touchBytesPerMs;
  // A vm worker that hangs is busy only while it touches; hang 0 (for ever) is idle once touched.
  const sleepy = vm > 0 && hangSeconds !== undefined && !o.has('vm-keep');
  const sleepyCores = !sleepy ? 0 : hangSeconds === 0 ? 0 : vm * (touchMs / (touchMs + hangSeconds! * 1000));
  return {
    busyThreads: cpu + io + hdd + (sleepy ? 0 : vm),
    sleepyCores,
    ...ramp(5 * MiB, vm * bytes, vm * touchBytesPerMs),
    startLog: `stress: info: [1] dispatching hogs: ${cpu} cpu, ${io} io, ${vm} vm, ${hdd} hdd\n`,
  };
}

/** Go's time.ParseDuration for the simple forms (`1s`, `10ms`, `1m`). */
function goMs(s: string | undefined, dflt: number): number {
  const m = /^(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)$/.exec(s ?? '');
  if (!m) return dflt;
  const unit = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ms'];
  return Number(m[1]) * unit;
}

const quantityBytes = (s: string | undefined, dflt: number) => { const q = parseQuantity(s); return q ? Number(integerValue(q)) : dflt; };

/** Rule 2: vish/stress's flags. */
function vishStress(args: string[]): StressWorkload {
  const o = options(args, new Set(['cpus', 'mem-total', 'mem-alloc-size', 'mem-alloc-sleep']));
  const total = quantityBytes(o.get('mem-total'), 0);
  const size = Math.max(1, quantityBytes(o.get('mem-alloc-size'), 4096));
  const sleepMs = Math.max(1e-3, goMs(o.get('mem-alloc-sleep'), 1));
  const base = 2 * MiB;
  // One allocation at the start and one after each sleep, until the total is reached.
  const allocated = (ms: number) => Math.min(total, size * (Math.floor(Math.max(0, ms) / sleepMs) + 1));
  return {
    busyThreads: count(o.get('cpus')),
    sleepyCores: 0,
    workingSetAt: (ms) => base + (total > 0 ? allocated(ms) : 0),
    exceedsAfter: (limit) => {
      if (base + total <= limit) return undefined;
      // The allocation that crosses the limit: the k-th (0-based) comes k sleeps after the start.
      const k = Math.max(0, Math.floor((limit - base) / size));
      return k * sleepMs;
    },
  };
}

/** The workload of a container running a stress program, or undefined for any other container. */
export function stressWorkload(c: Container): StressWorkload | undefined {
  const argv = [...(c.command ?? []), ...(c.args ?? [])];
  const program = (c.command?.[0] ?? '').split('/').pop();
  if (program === 'stress') return gnuStress(argv.slice(1));
  const { repo } = repoAndTag(String(c.image ?? ''));
  // vish/stress's entrypoint is its Go binary: the page gives only args.
  if (!c.command?.length && repo.endsWith('/vish/stress')) return vishStress(c.args ?? []);
  return undefined;
}
