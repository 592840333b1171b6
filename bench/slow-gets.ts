/**
 * What a bystander's slowest GETs wait behind while attack 4 of issue 19 runs (sixteen concurrent
 * server-side applies of disjoint keys to one ConfigMap, as bench/bystander.ts sends them), or on
 * an idle server (`--idle`). One server is started with V8's sampling profiler (`--cpu-prof`, every
 * 100 µs), the serving thread's GC log and its loop-stall log (bench/lib/gc-pauses.ts with
 * K8TS_BENCH_LOOP_STALLS=1: each time a 1 ms timer came back over 2 ms late, and how much of that
 * the thread spent on a CPU); the bystander GETs every 100 ms from its own thread
 * (bench/lib/bystander-thread.ts). Afterwards, for each of the slowest GETs (the top 2%, those that
 * set a row's p99; `--top N` for more), printed:
 *  - the profile's samples of the serving thread within the GET's time: how much was busy and
 *    idle (an idle loop while a GET waited means the wait was not the loop's: the machine's
 *    scheduling of this or the bystander's thread), what ran (self time) and in which task;
 *  - the GC pauses and loop stalls it overlapped (a stall's on-CPU part is the loop's own work).
 * Then the stalls of the whole attack in which the loop spent over 1 and over 2 ms on a CPU, by
 * what the profile ran in them (GC, the apply's handler, its merge in its key's turn, arrivals,
 * acknowledgements, ...): the loop's own long stretches, which set a quiet machine's p99. V8's
 * profiler samples wall time, so on a loaded machine a descheduled thread's time is charged to
 * whatever it was running; read the on-CPU figures of the stalls beside it.
 *
 *   node dist/bench/slow-gets.js [--seconds 20] [--idle] [--top N] [--server-cli PATH] [--keep DIR]
 * Prints to stdout; nothing is written to bench/RESULTS.md.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ApiClient, type Credentials } from './lib/client.js';
import { startServer } from './lib/server.js';
import { gcLogNodeArgs, readGcPauses } from './lib/gc-pauses.js';
import { fmtMs, percentile } from './lib/stats.js';
import { benchArgs } from './lib/args.js';

interface CallFrame { functionName: string; url: string; lineNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
interface CpuProfile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number }

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The profile's samples as (monotonic µs, ms it stands for, stack leaf first). */
function samplesOf(p: CpuProfile): { at: number; ms: number; stack: string[] }[] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (f: CallFrame) => `${f.functionName || '(anonymous)'} ${f.url ? `${f.url.split('/').pop()}:${f.lineNumber + 1}` : ''}`.trim();
  const stacks = new Map<number, string[]>();
  const stackOf = (id: number) => {
    let s = stacks.get(id);
    if (!s) {
      s = [];
      for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) s.push(name(byId.get(x)!.callFrame));
      stacks.set(id, s);
    }
    return s;
  };
  let at = p.startTime;
  return p.samples.map((id, i) => {
    at += p.timeDeltas[i] ?? 0;
    return { at, ms: (p.timeDeltas[i + 1] ?? 0) / 1000, stack: stackOf(id) };
  });
}

/** What kind of work a sample is, from its stack. */
const kinds: Array<[string, RegExp]> = [
  ['acknowledgement (group commit)', /group-commit/], ['apply merge in its key turn', /readModifyWrite|guaranteedUpdate/],
  ['apply handler', /handleApply|handlePatch/], ['arrival steps', /start server\.js|serve server\.js/], ['watch fan-out', /watch-hub|watch-flush/],
  ['a GET', /handleGet/], ['HTTP parsing', /_http_common|_http_server|_http_incoming/], ['the stall logger', /gc-pauses/],
];
function kindOf(stack: readonly string[]): string {
  if (stack[0]!.startsWith('(garbage collector)')) return 'GC';
  if (stack[0]!.startsWith('(idle)')) return 'idle';
  const s = stack.join('\n');
  return kinds.find(([, re]) => re.test(s))?.[0] ?? 'other';
}

const add = (m: Map<string, number>, k: string, ms: number) => m.set(k, (m.get(k) ?? 0) + ms);
const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${k} ${v.toFixed(1)}`).join('; ');

async function main(): Promise<void> {
  const { values } = benchArgs("What a bystander's slowest GETs wait behind during attack 4 (issue 19).", { options: {
    seconds: { type: 'string', default: '20', help: 'seconds of attack (or idle)' },
    idle: { type: 'boolean', default: false, help: 'no attack: the idle server' },
    top: { type: 'string', help: 'how many of the slowest GETs to show (default: the slowest 2%)' },
    'server-cli': { type: 'string', help: "another build's dist/src/cli/main.js" },
    keep: { type: 'string', help: 'keep the profile, logs and samples in this directory' },
  } });
  const seconds = Number(values.seconds);
  const work = values.keep ?? mkdtempSync(join(tmpdir(), 'k8ts-bench-slow-gets-'));
  const profDir = join(work, 'prof');
  const gcLog = join(work, 'gc.log');
  const server = await startServer({
    cliPath: values['server-cli'] ?? join(repoRoot, 'dist', 'src', 'cli', 'main.js'), dataDir: join(work, 'data'), serverArgs: ['--controllers', 'none'],
    nodeArgs: [...gcLogNodeArgs(), '--cpu-prof', `--cpu-prof-dir=${profDir}`, '--cpu-prof-interval=100'],
    env: { K8TS_BENCH_GC_LOG: gcLog, K8TS_BENCH_LOOP_STALLS: '1' },
  });
  let samples: number[] = [];
  let sentAt: number[] = [];
  const load = [loadavg()[0]!];
  let rounds = 0;
  const from = Date.now();
  try {
    const attacker = new ApiClient(server.creds, 64);
    await sleep(1000);
    const thread = new Worker(new URL('./lib/bystander-thread.js', import.meta.url), { workerData: server.creds satisfies Credentials });
    const message = () => new Promise<unknown>((resolve) => thread.once('message', resolve));
    await message();
    const until = performance.now() + seconds * 1000;
    while (performance.now() < until) {
      if (values.idle) { await sleep(100); continue; }
      await Promise.all(Array.from({ length: 16 }, (_, i) => attacker.request('PATCH', `/api/v1/namespaces/default/configmaps/ssa?fieldManager=m${i}`, {
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data: { [`k${i}`]: String(Date.now()) } }), contentType: 'application/apply-patch+yaml',
      })));
      rounds++;
    }
    thread.postMessage('stop');
    ({ samples, sentAt } = await message() as { samples: number[]; sentAt: number[] });
    await thread.terminate();
    attacker.close();
  } finally {
    await server.stop();
  }
  load.push(loadavg()[0]!);
  const to = Date.now();
  writeFileSync(join(work, 'samples.json'), JSON.stringify({ samples, sentAt }));
  // Epoch ms (the bystander's clock) to the monotonic µs of the profile.
  const offsetUs = Number(process.hrtime.bigint() / 1000n) - (performance.timeOrigin + performance.now()) * 1000;
  const profile = JSON.parse(readFileSync(join(profDir, readdirSync(profDir)[0]!), 'utf8')) as CpuProfile;
  const prof = samplesOf(profile);
  const logged = readGcPauses(gcLog, from, to);
  const n = values.top ? Number(values.top) : Math.max(2, Math.ceil(samples.length * 0.02));
  console.log(`${values.idle ? 'idle' : `attack 4: ${rounds} rounds of 16 applies`} for ${seconds} s; ${samples.length} GETs, p50 ${fmtMs(percentile(samples, 50))}, p99 ${fmtMs(percentile(samples, 99))}; load ${load.map((l) => l.toFixed(1)).join(' -> ')}`);
  console.log(`the ${n} slowest GETs: the serving thread's profile samples within each (ms), and the GC pauses and loop stalls it overlapped (a stall's on-CPU ms in brackets)`);
  const slow = samples.map((ms, i) => ({ ms, sent: sentAt[i]! })).sort((a, b) => b.ms - a.ms).slice(0, n);
  for (const g of slow) {
    const fromUs = g.sent * 1000 + offsetUs;
    const toUs = fromUs + g.ms * 1000;
    const self = new Map<string, number>();
    const byKind = new Map<string, number>();
    for (const s of prof) {
      if (s.at < fromUs || s.at > toUs) continue;
      add(byKind, kindOf(s.stack), s.ms);
      if (!s.stack[0]!.startsWith('(idle)')) add(self, s.stack[0]!, s.ms);
    }
    const overlapped = logged.filter((p) => p.at < g.sent + g.ms && p.at + p.ms > g.sent)
      .map((p) => `${p.kind} ${fmtMs(p.ms)}${p.cpuMs !== undefined ? ` [${fmtMs(p.cpuMs)}]` : ''}`);
    console.log(`- GET ${fmtMs(g.ms)}: by kind ${top(byKind, 6) || 'no samples'}; GC and stalls: ${overlapped.join(', ') || 'none'}`);
    if (self.size) console.log(`    self: ${top(self, 5)}`);
  }
  for (const minCpuMs of [1, 2]) {
    const stalls = logged.filter((p) => p.kind === 'stall' && (p.cpuMs ?? 0) > minCpuMs && p.at >= from + 2000);
    const byKind = new Map<string, number>();
    let busy = 0;
    for (const st of stalls) {
      const startUs = st.at * 1000 + offsetUs;
      for (const s of prof) {
        if (s.at < startUs || s.at > startUs + st.ms * 1000) continue;
        add(byKind, kindOf(s.stack), s.ms);
        busy += s.ms;
      }
    }
    const share = [...byKind].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${((100 * v) / (busy || 1)).toFixed(0)}%`).join(', ');
    console.log(`loop stalls with over ${minCpuMs} ms on a CPU (after the first 2 s): ${stalls.length}, on-CPU p50 ${fmtMs(percentile(stalls.map((s) => s.cpuMs!), 50))}, longest ${fmtMs(Math.max(0, ...stalls.map((s) => s.cpuMs!)))}; their profile samples by kind: ${share || 'none'}`);
  }
  const gcs = logged.filter((p) => p.kind === 'minor' || p.kind === 'major');
  for (const kind of ['minor', 'major'] as const) {
    const ms = gcs.filter((p) => p.kind === kind).map((p) => p.ms);
    console.log(`${kind === 'minor' ? 'scavenges' : 'full collections'}: ${ms.length}, p50 ${fmtMs(percentile(ms, 50))}, longest ${fmtMs(Math.max(0, ...ms))}`);
  }
  if (!values.keep) rmSync(work, { recursive: true, force: true });
  else console.log(`kept in ${work}`);
}

await main();
