/**
 * Bystander benchmark (docs/threads.md, "How it is checked"): a client GETs
 * the `default` namespace every 100 ms on its own keep-alive connection and
 * records each answer's latency, first on an idle server, then while each
 * attack of the hardening issue runs in a loop:
 *   1. finding 1's CEL CRD (three nested all() over `l`) and a custom resource with 160 items
 *      (if the CRD is refused at create, that is the outcome recorded);
 *   2. a CRD pattern `^(a+)+$` and a custom resource with 'a'×27 + '!';
 *   3. the three large bodies of finding 3 (test/e2e/large-bodies.ts);
 *   4. sixteen concurrent server-side applies of disjoint keys to one ConfigMap, no resourceVersion;
 *   5. a flood of 64 concurrent ConfigMap creates by one user outside system:masters (impersonated),
 *      which the fair queue seats (src/apiserver/flowcontrol; the admin's requests are exempt, as upstream's).
 * Each attack runs for `--seconds` (30: some 300 GETs) between two idle rows, and the whole sequence
 * `--repeats` times (3). The table gives, per attack, the p99 of all its repeats' GETs pooled (900
 * with the defaults) beside the p99 of the idle rows adjacent to them pooled the same way, each with
 * its distribution-free 95% interval, the ratio with its interval and what that says against the
 * issue's 2x; each repeat's own p99 and ratio (their spread); and how much of each row the serving
 * thread spent on a CPU and waiting on a run queue (bench/lib/bystander-rows.ts). Why pooled: a
 * row's p99 of 100 GETs (10 s) is its slowest or second-slowest GET, and no 95% interval of a p99
 * from under about 400 samples has an upper bound (bench/lib/quantile-interval.ts); upstream's SLI
 * is a p99 over 5 minutes of calls.
 * With `--baseline-cli` a second server (another build's) runs the same sequence in the same run,
 * the two alternating by repeat, for A/B figures taken under the same load.
 * Then pod creates/s at 16 and 64 clients (bench/lib/load.ts, as bench/apiserver.ts).
 * Results go to bench/RESULTS.md (section `bystander`) with the command.
 *
 * The bystander runs on a thread of its own (bench/lib/bystander-thread.ts), so the attacker's
 * answers, handled on this thread's loop, do not delay its clock; at SCHED_FIFO (when root) and
 * with a client of its own (bench/lib/lean-get.ts), so its GETs measure the server rather than
 * the bystander's own CPU and waits on the run queue (bench/RESULTS.md, byst23).
 *
 *   node dist/bench/bystander.js [--seconds=30] [--repeats=3] [--attack-timeout=60] [--no-write]
 *     [--only=4,5,3c] (a subset of the attacks, no pod creates unless --creates; implies --no-write unless --write)
 *     [--baseline-cli=/tmp/base/dist/src/cli/main.js] (a baseline build's server beside this one, interleaved)
 *     [--server-cli=/tmp/base/dist/src/cli/main.js] (another build's server instead of this one; implies --no-write unless --write)
 *     [--server-node-args="--cpu-prof --cpu-prof-dir=DIR"] [--server-args="--max-mutating-requests-inflight 0"]
 *     [--baseline-node-args="--v8-pool-size=1"] (the baseline's node flags; alone: this build under those flags as the baseline)
 *     [--server-env="K=V K2=V2"] [--baseline-env="K=V"] (environment variables of this server and of the baseline's)
 *     [--section=bystander] (the section of bench/RESULTS.md written)
 *     [--perf-sched] (root, perf: per row, the serving thread's wake-up delays and which threads held its CPU meanwhile,
 *       bench/lib/wake-delays.ts: the server's heavy lane and V8 platform threads against other processes)
 *     [--gc-log] (the servers' GC pauses, bench/lib/gc-pauses.ts: per row, their rate and lengths, and
 *       how many of the slowest 2% of GETs, those that set the p99, were in flight during one)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ApiClient, type Credentials } from './lib/client.js';
import { createPods } from './lib/load.js';
import { readCpuMs, startServer } from './lib/server.js';
import { fmtMs, fmtRate, percentile } from './lib/stats.js';
import { loopSchedstat, slowest, threadClasses, summaryHeaders, summaryRows, type Row } from './lib/bystander-rows.js';
import { gcLogNodeArgs, readGcPauses } from './lib/gc-pauses.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { jsonConfigMap, protobufPod, yamlConfigMap, type LargeBody } from '../test/e2e/large-bodies.js';
import { benchArgs } from './lib/args.js';
import { describeWakeDelays, holdersOf, loopWakeDelays, recordScheduler } from './lib/wake-delays.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let fifoRefusedSaid = false;

/** The bystander on its own thread (bench/lib/bystander-thread.ts): GETs every 100 ms until stopped; latencies in ms. */
async function bystander(creds: Credentials): Promise<{ stop(): Promise<{ samples: number[]; sentAt: number[]; ownRunMs: number; ownWaitMs: number }> }> {
  const thread = new Worker(new URL('./lib/bystander-thread.js', import.meta.url), { workerData: creds });
  const failed = new Promise<never>((_, reject) => { thread.once('error', reject); });
  const message = () => Promise.race([failed, new Promise<unknown>((resolve) => thread.once('message', resolve))]);
  const ready = await message() as { fifo: boolean };
  if (!ready.fifo && !fifoRefusedSaid) {
    fifoRefusedSaid = true;
    log('  the bystander thread stays SCHED_OTHER (chrt -f refused: not root?): its own waits on a run queue are in its GETs');
  }
  return {
    stop: async () => {
      thread.postMessage('stop');
      const answer = await message() as { samples: number[]; sentAt: number[]; ownRunMs: number; ownWaitMs: number };
      await thread.terminate();
      return answer;
    },
  };
}

/** A server under the benchmark: `this` build's, or the baseline's (`--baseline-cli`). */
interface Target { label: string; pid: number; creds: Credentials; attacker: ApiClient; platformThreads: number; /** --gc-log: the server's GC log (bench/lib/gc-pauses.ts). */ gcLog?: string }

/** Runs `attack` in a loop for `seconds` (at least once, each capped at `timeoutMs`) with the bystander alongside. */
async function measure(t: Target, name: string, seconds: number, timeoutMs: number, attack: () => Promise<string>, perfSched?: string): Promise<Row> {
  log(`${t.label}: ${name}`);
  const recording = perfSched ? recordScheduler(perfSched) : undefined;
  if (recording) await sleep(500); // perf's own start-up, outside the row
  const cpuBefore = readCpuMs(t.pid);
  const b = await bystander(t.creds);
  const benchCpu0 = process.cpuUsage();
  const sched = loopSchedstat(t.pid);
  const threads = threadClasses(t.pid, t.platformThreads);
  const began = performance.now();
  const beganAt = Date.now();
  const until = began + seconds * 1000;
  let attacks = 0;
  let outcome = '';
  do {
    const started = performance.now();
    outcome = await Promise.race([attack(), sleep(timeoutMs).then(() => `no answer in ${timeoutMs / 1000} s`)]);
    outcome += ` (${fmtMs(performance.now() - started)})`;
    attacks++;
    if (outcome.startsWith('no answer')) break;
  } while (performance.now() < until);
  const after = loopSchedstat(t.pid);
  const threadsAfter = threadClasses(t.pid, t.platformThreads);
  const wallMs = performance.now() - began;
  const benchCpu = process.cpuUsage(benchCpu0);
  const { samples, sentAt, ownRunMs, ownWaitMs } = await b.stop();
  await recording?.stop();
  if (perfSched) log(`  ${describeWakeDelays(await loopWakeDelays(perfSched, t.pid, holdersOf(t.pid, t.platformThreads)))}`);
  const cpuMs = (readCpuMs(t.pid) - cpuBefore) / attacks;
  const gc = t.gcLog ? await loopGcPauses(t.gcLog, beganAt, samples, sentAt) : undefined;
  const row = { server: t.label, name, outcome, attacks, samples, cpuMs, wallMs, loopRunMs: after.runMs - sched.runMs, loopWaitMs: after.waitMs - sched.waitMs,
    heavyRunMs: threadsAfter.heavy.runMs - threads.heavy.runMs, platformRunMs: threadsAfter.platform.runMs - threads.platform.runMs, ...gc };
  log(`  ${outcome}; bystander p99 ${fmtMs(percentile(samples, 99))} of ${samples.length}; server CPU per attack ${fmtMs(cpuMs)}; loop on CPU ${Math.round(row.loopRunMs)} ms, on run queue ${Math.round(row.loopWaitMs)} ms of ${Math.round(wallMs)} ms; heavy lane ${Math.round(row.heavyRunMs)} ms, V8 platform ${Math.round(row.platformRunMs)} ms (run queue ${Math.round(threadsAfter.platform.waitMs - threads.platform.waitMs)} ms)`
    + `; the bench's own process ${Math.round((benchCpu.user + benchCpu.system) / 1000)} ms of CPU, its bystander thread ${Math.round(ownRunMs)} ms on a CPU and ${Math.round(ownWaitMs)} ms on a run queue`
    + (gc ? `; loop GC pauses ${gc.gcPauses.length} (p50 ${fmtMs(percentile(gc.gcPauses, 50))}, longest ${fmtMs(Math.max(0, ...gc.gcPauses))}); slowest 2% of GETs during one: ${gc.slowDuringGc.duringGc} of ${gc.slowDuringGc.slow}` : ''));
  return row;
}

/**
 * The serving thread's GC pauses since `from` (its log is flushed every 250 ms), and how many of the
 * row's slowest 2% of GETs were in flight while one ran: those are what set the row's p99.
 */
async function loopGcPauses(file: string, from: number, samples: readonly number[], sentAt: readonly number[]): Promise<Required<Pick<Row, 'gcPauses' | 'slowDuringGc'>>> {
  await sleep(300);
  const logged = readGcPauses(file, from);
  const pauses = logged.filter((p) => p.kind !== 'stall');
  const stalls = logged.filter((p) => p.kind === 'stall');
  const cut = slowest(samples);
  const slow = samples.flatMap((ms, i) => (ms >= cut ? [{ from: sentAt[i]!, to: sentAt[i]! + ms }] : []));
  const overlapping = (list: typeof logged) => slow.filter((g) => list.some((p) => p.at < g.to && p.at + p.ms > g.from)).length;
  const busy = stalls.filter((s) => (s.cpuMs ?? 0) > 2);
  const busyGc = busy.filter((s) => pauses.some((p) => p.at < s.at + s.ms && p.at + p.ms > s.at));
  // By kind: a scavenge's length is what it copied (the young objects still referenced), a full collection's what it marked.
  for (const kind of ['minor', 'major'] as const) {
    const ms = pauses.filter((p) => p.kind === kind).map((p) => p.ms);
    if (ms.length) log(`  ${kind === 'minor' ? 'scavenges' : 'full collections'}: ${ms.length}, ${fmtMs(ms.reduce((x, y) => x + y, 0))} in all, p50 ${fmtMs(percentile(ms, 50))}, longest ${fmtMs(Math.max(...ms))}`);
  }
  if (stalls.length) log(`  loop stalls over 2 ms: ${stalls.length}, p50 ${fmtMs(percentile(stalls.map((s) => s.ms), 50))}, longest ${fmtMs(Math.max(...stalls.map((s) => s.ms)))}; slowest 2% of GETs (${slow.map((g) => fmtMs(g.to - g.from)).join(', ')}) during a stall: ${overlapping(stalls)}`
    + `; of the stalls, ${busy.length} spent over 2 ms on a CPU (p50 ${fmtMs(percentile(busy.map((s) => s.cpuMs!), 50))}, p99 ${fmtMs(percentile(busy.map((s) => s.cpuMs!), 99))}, longest ${fmtMs(Math.max(0, ...busy.map((s) => s.cpuMs!)))}; ${busyGc.length} of them with a GC pause in them); slowest GETs during such a stall: ${overlapping(busy)}`);
  return { gcPauses: pauses.map((p) => p.ms), slowDuringGc: { slow: slow.length, duringGc: overlapping(pauses) } };
}

const said = (r: { status: number; body: Buffer }) => {
  let message = '';
  // A Status of millions of causes (3c: about 430 MB) is not parsed here: that would hold this
  // process, and with it the bystander's own clock. Its message starts within the first bytes.
  const head = r.body.length > 1 << 20 ? /"message":"((?:[^"\\]|\\.)*)/.exec(r.body.subarray(0, 4096).toString())?.[1] : undefined;
  if (head !== undefined) message = head.replace(/\\"/g, '"');
  else try { message = JSON.parse(r.body.toString()).message ?? ''; } catch { /* not JSON */ }
  return `${r.status}${message ? ` ${message.slice(0, 90)}` : ''}`;
};

function crd(plural: string, spec: Record<string, unknown>, rules?: object[]) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `${plural}.bench.example.com` },
    spec: {
      group: 'bench.example.com', scope: 'Namespaced', names: { plural, singular: plural.slice(0, -1), kind: plural[0].toUpperCase() + plural.slice(1, -1) },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec, 'x-kubernetes-validations': rules } } } } }],
    },
  };
}

async function customResourceAttack(client: ApiClient, plural: string, spec: Record<string, unknown>, rules: object[] | undefined, value: object): Promise<() => Promise<string>> {
  const def = crd(plural, spec, rules);
  const created = await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: JSON.stringify(def) });
  // Refused at create (the cost limits): the attack is then the create itself, sent again and again.
  const createCRD = () => client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: JSON.stringify(def) });
  if (created.status !== 201) return async () => `CRD refused: ${said(await createCRD())}`;
  await sleep(1500); // discovery and the new endpoint
  let n = 0;
  return async () => said(await client.request('POST', `/apis/bench.example.com/v1/namespaces/default/${plural}`, {
    body: JSON.stringify({ apiVersion: 'bench.example.com/v1', kind: def.spec.names.kind, metadata: { name: `x${n++}` }, spec: value }),
  }));
}

const largeBodyAttack = (client: ApiClient, make: () => LargeBody) => {
  const b = make();
  return async () => said(await client.request('POST', b.path, { body: b.body, contentType: b.contentType }));
};

/** Rounds of 64 concurrent creates by the user `flooder` (bound to cluster-admin, so only the fair queue limits it). */
async function flood(client: ApiClient): Promise<() => Promise<string>> {
  await client.expect(201, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { body: JSON.stringify({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'bench-flooder' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'flooder' }],
  }) });
  let n = 0;
  return async () => {
    const replies = await Promise.all(Array.from({ length: 64 }, () => client.request('POST', '/api/v1/namespaces/default/configmaps', {
      headers: { 'Impersonate-User': 'flooder' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `flood-${n++}` }, data: { k: 'v' } }),
    })));
    const codes = new Map<number, number>();
    for (const r of replies) codes.set(r.status, (codes.get(r.status) ?? 0) + 1);
    return [...codes].map(([c, k]) => `${k}×${c}`).join(', ');
  };
}

function applies(client: ApiClient): () => Promise<string> {
  return async () => {
    const replies = await Promise.all(Array.from({ length: 16 }, (_, i) => client.request('PATCH', `/api/v1/namespaces/default/configmaps/ssa?fieldManager=m${i}`, {
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data: { [`k${i}`]: String(Date.now()) } }),
      contentType: 'application/apply-patch+yaml',
    })));
    const codes = new Map<number, number>();
    for (const r of replies) codes.set(r.status, (codes.get(r.status) ?? 0) + 1);
    return [...codes].map(([c, n]) => `${n}×${c}`).join(', ');
  };
}

const attackNames = ['1. CEL rule, 160 items', "2. pattern ^(a+)+$, 'a'×27+'!'", '4. 16 concurrent applies, one ConfigMap', '5. 64 concurrent creates by one user',
  '3a. YAML ConfigMap, 200,000 keys', '3b. JSON ConfigMap, 250,000 keys', '3c. protobuf Pod, 1,000,000 containers'] as const;

/** Sets up each attack on one server (its CRD, the flooder's binding) and returns the attack. */
function attackOf(name: (typeof attackNames)[number], client: ApiClient): Promise<() => Promise<string>> {
  switch (name) {
    case '1. CEL rule, 160 items': return customResourceAttack(client, 'celtriples', { l: { type: 'array', items: { type: 'string' } } },
      [{ rule: 'self.l.all(a, self.l.all(b, self.l.all(c, a != b || b != c || c == a)))' }], { l: Array.from({ length: 160 }, (_, i) => `i${i}`) });
    case "2. pattern ^(a+)+$, 'a'×27+'!'": return customResourceAttack(client, 'patterns', { s: { type: 'string', pattern: '^(a+)+$' } }, undefined, { s: `${'a'.repeat(27)}!` });
    case '4. 16 concurrent applies, one ConfigMap': return Promise.resolve(applies(client));
    case '5. 64 concurrent creates by one user': return flood(client);
    case '3a. YAML ConfigMap, 200,000 keys': return Promise.resolve(largeBodyAttack(client, yamlConfigMap));
    case '3b. JSON ConfigMap, 250,000 keys': return Promise.resolve(largeBodyAttack(client, jsonConfigMap));
    case '3c. protobuf Pod, 1,000,000 containers': return Promise.resolve(largeBodyAttack(client, protobufPod));
  }
}

/** Node 20's delayed-task scheduler and its `--v8-pool-size` platform workers (4 unless set). */
function platformThreadsOf(nodeArgs: readonly string[]): number {
  const size = nodeArgs.map((a) => /^--v8-pool-size=(\d+)$/.exec(a)?.[1]).find((v) => v !== undefined);
  return 1 + (size === undefined ? 4 : Number(size));
}

async function main(): Promise<void> {
  const { values } = benchArgs("A bystander's GET latency while each attack of the hardening issue runs.", { options: { seconds: { type: 'string', default: '30' }, repeats: { type: 'string', default: '3' }, 'attack-timeout': { type: 'string', default: '60' },
    'no-write': { type: 'boolean', default: false }, write: { type: 'boolean', default: false }, creates: { type: 'boolean', default: false }, only: { type: 'string' }, 'server-cli': { type: 'string' }, 'baseline-cli': { type: 'string' },
    'server-node-args': { type: 'string', default: '' }, 'server-args': { type: 'string', default: '' }, 'baseline-node-args': { type: 'string' }, 'server-env': { type: 'string', default: '' }, 'baseline-env': { type: 'string' }, 'perf-sched': { type: 'boolean', default: false }, section: { type: 'string', default: 'bystander' }, 'gc-log': { type: 'boolean', default: false } } });
  const only = values.only?.split(',');
  const wanted = attackNames.filter((name) => !only || only.some((o) => name.startsWith(`${o}.`)));
  if ((only || values['server-cli']) && !values.write) values['no-write'] = true;
  const seconds = Number(values.seconds);
  const repeats = Number(values.repeats);
  const timeoutMs = Number(values['attack-timeout']) * 1000;
  const work = mkdtempSync(join(tmpdir(), 'k8ts-bench-bystander-'));
  // Another build's server (a baseline checkout's dist/src/cli/main.js) instead of this one, or beside it.
  // With --baseline-node-args alone, the baseline is this build under other node flags.
  const split = (args: string) => args.split(' ').filter(Boolean);
  const thisCli = values['server-cli'] ?? join(repoRoot, 'dist', 'src', 'cli', 'main.js');
  const env = (vars: string) => Object.fromEntries(split(vars).map((v) => [v.slice(0, v.indexOf('=')), v.slice(v.indexOf('=') + 1)]));
  const builds = [{ label: 'this', cliPath: thisCli, nodeArgs: split(values['server-node-args']), env: env(values['server-env']) },
    ...(values['baseline-cli'] || values['baseline-node-args'] !== undefined || values['baseline-env'] !== undefined
      ? [{ label: 'base', cliPath: values['baseline-cli'] ?? thisCli, nodeArgs: split(values['baseline-node-args'] ?? values['server-node-args']), env: env(values['baseline-env'] ?? '') }] : [])];
  const gcLog = (label: string) => (values['gc-log'] ? join(work, `${label}.gc`) : undefined);
  const servers = await Promise.all(builds.map((b) => startServer({ cliPath: b.cliPath, dataDir: join(work, b.label), serverArgs: ['--controllers', 'none', ...values['server-args'].split(' ').filter(Boolean)],
    nodeArgs: [...(values['gc-log'] ? gcLogNodeArgs() : []), ...b.nodeArgs], env: { ...b.env, ...(values['gc-log'] ? { K8TS_BENCH_GC_LOG: gcLog(b.label)! } : {}) } })));
  const load = loadavg().map((l) => l.toFixed(1)).join(' ');
  try {
    const targets: Target[] = servers.map((s, i) => ({ label: builds[i]!.label, pid: s.pid, creds: s.creds, attacker: new ApiClient(s.creds, 64), platformThreads: platformThreadsOf(builds[i]!.nodeArgs), gcLog: gcLog(builds[i]!.label) }));
    const attacks = new Map<Target, Map<string, () => Promise<string>>>();
    for (const t of targets) attacks.set(t, new Map(await Promise.all(wanted.map(async (name) => [name, await attackOf(name, t.attacker)] as const))));
    // Past the row's end: Node's timers run on the loop's millisecond clock and can fire a little before
    // performance.now() reaches the end, which started a second sleep (idle rows of twice the length).
    const idle = async () => { await sleep(seconds * 1000 + 5); return 'no attack'; };
    // Each repeat: idle, an attack, idle, the next attack, ..., idle; with a baseline, one server's
    // whole sequence and then the other's, the first server alternating between repeats.
    const rows: Row[] = [];
    const perfSched = values['perf-sched'] ? join(work, 'sched.data') : undefined;
    for (let r = 0; r < repeats; r++) {
      for (const t of r % 2 === 0 ? targets : [...targets].reverse()) {
        rows.push(await measure(t, 'idle', seconds, timeoutMs, idle, perfSched));
        for (const name of wanted) {
          rows.push(await measure(t, name, seconds, timeoutMs, attacks.get(t)!.get(name)!, perfSched));
          rows.push(await measure(t, 'idle', seconds, timeoutMs, idle, perfSched));
        }
      }
    }
    const creates = [];
    for (const concurrency of only && !values.creates ? [] : [16, 64]) {
      for (const t of targets) {
        log(`${t.label}: pod creates at ${concurrency} clients`);
        creates.push({ server: t.label, ...await createPods(t.attacker, () => readCpuMs(t.pid), { namespace: 'default', prefix: `c${concurrency}`, from: 0, count: 20 * concurrency, concurrency }) });
      }
    }
    const md = [
      ...sectionHead(repoRoot, '## Bystander: a GET every 100 ms while each attack runs (bench/bystander.ts)'),
      `- Load average when the run started: ${load} (other work on the machine inflates every figure).`,
      `- ${repeats} repeats of ${seconds} s per row, each attack between two idle rows. The p99 and p50 are of all the repeats' GETs pooled; the ratio is`
        + " to the p99 of the idle rows adjacent to the attack's, pooled the same way; [intervals] are distribution-free 95% intervals"
        + ' (bench/lib/quantile-interval.ts; the ratio\'s from each side\'s 97.5%); `against 2x` is within or over only when the whole interval is. CPU figures are medians over the repeats.',
      '',
      table(summaryHeaders, summaryRows(rows)),
      '',
      table(['server', 'pod creates', 'count', 'creates/s', 'server CPU per create', 'p50', 'p99'], creates.map((c) => [c.server, `${c.concurrency} clients`, String(c.count), fmtRate(c.perSec), `${Math.round(c.cpuUsPerOp)} µs`, fmtMs(c.p50), fmtMs(c.p99)])),
    ].join('\n');
    console.log(md);
    if (!values['no-write']) writeSection(join(repoRoot, 'bench', 'RESULTS.md'), values.section, md);
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
