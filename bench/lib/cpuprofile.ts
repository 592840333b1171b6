/**
 * Summarises a V8 .cpuprofile (node --cpu-prof) by function: self time and
 * total (inclusive) time, so the hot path of a benchmark's server can be read
 * without a browser. Recursion is counted once per stack for total time.
 *
 *   node dist/bench/lib/cpuprofile.js FILE.cpuprofile [--top 40] [--filter text] [--under functionName] [--from-us T0 --to-us T1] [--by-samples]
 *     [--stalls GC_LOG [--min-cpu-ms 2] [--from-epoch-ms E0 --to-epoch-ms E1]]
 *
 * --from-us/--to-us keep only the samples taken in that window of the
 * monotonic clock in microseconds (a profile's startTime is on the clock of
 * process.hrtime, in any process of the machine): a benchmark logs
 * `process.hrtime.bigint() / 1000n` around a phase to read that phase alone.
 *
 * --by-samples counts samples instead of the time between them: on a loaded host V8's sampler
 * runs late (gaps of several ms), and weighting by the gap charges whichever frame ran after a stall.
 *
 * --stalls keeps only the samples inside the loop stalls of a server's K8TS_BENCH_LOOP_STALLS log
 * (bench/lib/gc-pauses.ts) in which the loop spent over --min-cpu-ms on a CPU, optionally those
 * that began between two epoch times: what the loop ran while a GET waited for it.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';

interface CallFrame { functionName: string; url: string; lineNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
interface CpuProfile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

export interface Window { fromUs: number; toUs: number }

export interface FunctionCost { name: string; selfMs: number; totalMs: number }

const frameName = (f: CallFrame) => `${f.functionName || '(anonymous)'} ${f.url ? `${basename(f.url)}:${f.lineNumber + 1}` : ''}`.trim();

/** Self and total milliseconds per function (name, file and line), largest total first. */
export function summarise(profile: CpuProfile, under?: string, window?: Window | readonly Window[], bySamples = false): FunctionCost[] {
  const windows = window === undefined ? undefined : 'fromUs' in window ? [window] : window;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    const ms = bySamples ? 1 : (profile.timeDeltas[i + 1] ?? 0) / 1000;
    if (windows && !windows.some((w) => at >= w.fromUs && at <= w.toUs)) continue;
    const stack: string[] = [];
    for (let id: number | undefined = profile.samples[i]!; id !== undefined; id = parent.get(id)) stack.push(frameName(byId.get(id)!.callFrame));
    // --under NAME: only the frames called (directly or not) by the first function whose name contains NAME.
    const cut = under === undefined ? stack.length : stack.findIndex((n) => n.includes(under)) + 1;
    if (cut === 0) continue;
    self.set(stack[0]!, (self.get(stack[0]!) ?? 0) + ms);
    for (const name of new Set(stack.slice(0, cut))) total.set(name, (total.get(name) ?? 0) + ms);
  }
  return [...total.entries()].map(([name, totalMs]) => ({ name, selfMs: self.get(name) ?? 0, totalMs })).sort((a, b) => b.totalMs - a.totalMs);
}

function main(): void {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: {
    top: { type: 'string', default: '40' }, filter: { type: 'string' }, under: { type: 'string' }, 'from-us': { type: 'string' }, 'to-us': { type: 'string' },
    stalls: { type: 'string' }, 'min-cpu-ms': { type: 'string', default: '2' }, 'from-epoch-ms': { type: 'string' }, 'to-epoch-ms': { type: 'string' },
    'by-samples': { type: 'boolean', default: false },
  } });
  const profile = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as CpuProfile;
  const window = values.stalls
    ? stallWindows(values.stalls, Number(values['min-cpu-ms']), Number(values['from-epoch-ms'] ?? -Infinity), Number(values['to-epoch-ms'] ?? Infinity))
    : values['from-us'] || values['to-us'] ? { fromUs: Number(values['from-us'] ?? 0), toUs: Number(values['to-us'] ?? Infinity) } : undefined;
  if (Array.isArray(window)) console.log(`${window.length} stalls with over ${values['min-cpu-ms']} ms on a CPU`);
  const bySamples = values['by-samples']!;
  const whole = summarise(profile, undefined, window, bySamples);
  const rows = values.under === undefined ? whole : summarise(profile, values.under, window, bySamples);
  const all = whole.find((r) => r.name === '(root)')?.totalMs ?? 1;
  const idle = whole.find((r) => r.name === '(idle)')?.selfMs ?? 0;
  const busy = all - idle;
  const top = Number(values.top);
  const show = (r: FunctionCost) => `${r.selfMs.toFixed(0).padStart(7)} ${((100 * r.selfMs) / busy).toFixed(1).padStart(5)}% ${r.totalMs.toFixed(0).padStart(7)} ${((100 * r.totalMs) / busy).toFixed(1).padStart(5)}%  ${r.name}`;
  const filtered = values.filter ? rows.filter((r) => r.name.includes(values.filter!)) : rows;
  const unit = bySamples ? 'samples' : 'ms';
  console.log(`busy ${busy.toFixed(0)} ${unit} of ${all.toFixed(0)} ${unit} (percentages of busy)\n   self     %    total     %`);
  console.log('-- by self time');
  for (const r of [...filtered].sort((a, b) => b.selfMs - a.selfMs).slice(0, top)) console.log(show(r));
  console.log('-- by total time');
  for (const r of filtered.slice(0, top)) console.log(show(r));
}

/** The stalls of a K8TS_BENCH_LOOP_STALLS log (`<epoch ms> stall <ms> <ms on a CPU> <monotonic µs>`) as profile windows. */
function stallWindows(file: string, minCpuMs: number, fromEpochMs: number, toEpochMs: number): Window[] {
  return readFileSync(file, 'utf8').split('\n').map((l) => l.split(' ')).filter((f) => f[1] === 'stall' && f[4] !== undefined
    && Number(f[3]) > minCpuMs && Number(f[0]) >= fromEpochMs && Number(f[0]) < toEpochMs)
    .map((f) => ({ fromUs: Number(f[4]), toUs: Number(f[4]) + Number(f[2]) * 1000 }));
}

if (process.argv[1] && import.meta.url.endsWith(basename(process.argv[1]))) main();
