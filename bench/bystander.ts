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
 * Then pod creates/s at 16 and 64 clients (bench/lib/load.ts, as bench/apiserver.ts).
 * Results go to bench/RESULTS.md (section `bystander`) with the command.
 *
 * The bystander runs on a thread of its own (bench/lib/bystander-thread.ts), so the attacker's
 * answers, handled on this thread's loop, do not delay its clock.
 *
 *   node dist/bench/bystander.js [--seconds=8] [--attack-timeout=60] [--no-write]
 *     [--only=1,2,4] (a subset of the attacks, for profiling; implies --no-write)
 *     [--server-cli=/tmp/base/dist/src/cli/main.js] (another build's server, for A/B runs; implies --no-write)
 *     [--server-node-args="--cpu-prof --cpu-prof-dir=DIR"] [--server-args="--max-mutating-requests-inflight 0"]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { ApiClient, type Credentials } from './lib/client.js';
import { createPods } from './lib/load.js';
import { readCpuMs, startServer } from './lib/server.js';
import { fmtMs, fmtRate, percentile } from './lib/stats.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { jsonConfigMap, protobufPod, yamlConfigMap, type LargeBody } from '../test/e2e/large-bodies.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Row { name: string; outcome: string; attacks: number; samples: number[]; cpuMs: number }

/** The bystander on its own thread (bench/lib/bystander-thread.ts): GETs every 100 ms until stopped; latencies in ms. */
async function bystander(creds: Credentials): Promise<{ stop(): Promise<number[]> }> {
  const thread = new Worker(new URL('./lib/bystander-thread.js', import.meta.url), { workerData: creds });
  const failed = new Promise<never>((_, reject) => { thread.once('error', reject); });
  const message = () => Promise.race([failed, new Promise<unknown>((resolve) => thread.once('message', resolve))]);
  await message();
  return {
    stop: async () => {
      thread.postMessage('stop');
      const samples = await message() as number[];
      await thread.terminate();
      return samples;
    },
  };
}

/** Runs `attack` in a loop for `seconds` (at least once, each capped at `timeoutMs`) with the bystander alongside. */
async function measure(by: Credentials, name: string, seconds: number, timeoutMs: number, attack: () => Promise<string>, cpu: () => number): Promise<Row> {
  log(`attack: ${name}`);
  const cpuBefore = cpu();
  const b = await bystander(by);
  const until = performance.now() + seconds * 1000;
  let attacks = 0;
  let outcome = '';
  do {
    const started = performance.now();
    outcome = await Promise.race([attack(), sleep(timeoutMs).then(() => `no answer in ${timeoutMs / 1000} s`)]);
    outcome += ` (${fmtMs(performance.now() - started)})`;
    attacks++;
    if (outcome.startsWith('no answer')) break;
  } while (performance.now() < until);
  const samples = await b.stop();
  const cpuMs = (cpu() - cpuBefore) / attacks;
  log(`  ${outcome}; bystander p99 ${fmtMs(percentile(samples, 99))}; server CPU per attack ${fmtMs(cpuMs)}`);
  return { name, outcome, attacks, samples, cpuMs };
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

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: '8' }, 'attack-timeout': { type: 'string', default: '60' }, 'no-write': { type: 'boolean', default: false },
    only: { type: 'string' }, 'server-cli': { type: 'string' }, 'server-node-args': { type: 'string', default: '' }, 'server-args': { type: 'string', default: '' } } });
  const only = values.only?.split(',');
  const wanted = (name: string) => !only || only.some((o) => name.startsWith(`${o}.`));
  if (only || values['server-cli']) values['no-write'] = true;
  const seconds = Number(values.seconds);
  const timeoutMs = Number(values['attack-timeout']) * 1000;
  // Another build's server (a baseline checkout's dist/src/cli/main.js) under the same benchmark.
  const cliPath = values['server-cli'] ?? join(repoRoot, 'dist', 'src', 'cli', 'main.js');
  const work = mkdtempSync(join(tmpdir(), 'k8ts-bench-bystander-'));
  const server = await startServer({ cliPath, dataDir: join(work, 'data'), serverArgs: ['--controllers', 'none', ...values['server-args'].split(' ').filter(Boolean)],
    nodeArgs: values['server-node-args'].split(' ').filter(Boolean) });
  const load = loadavg()[0];
  try {
    const attacker = new ApiClient(server.creds, 64);
    const by = server.creds;
    const cpu = () => readCpuMs(server.pid);
    const rows: Row[] = [await measure(by, 'idle', seconds, timeoutMs, async () => { await sleep(seconds * 1000); return 'no attack'; }, cpu)];
    const run = async (name: string, attack: () => Promise<() => Promise<string>>) => {
      if (wanted(name)) rows.push(await measure(by, name, seconds, timeoutMs, await attack(), cpu));
    };
    await run('1. CEL rule, 160 items', () => customResourceAttack(attacker, 'celtriples', { l: { type: 'array', items: { type: 'string' } } },
      [{ rule: 'self.l.all(a, self.l.all(b, self.l.all(c, a != b || b != c || c == a)))' }], { l: Array.from({ length: 160 }, (_, i) => `i${i}`) }));
    await run("2. pattern ^(a+)+$, 'a'×27+'!'", () => customResourceAttack(attacker, 'patterns', { s: { type: 'string', pattern: '^(a+)+$' } }, undefined, { s: `${'a'.repeat(27)}!` }));
    await run('4. 16 concurrent applies, one ConfigMap', async () => applies(attacker));
    await run('5. 64 concurrent creates by one user', () => flood(attacker));
    await run('3a. YAML ConfigMap, 200,000 keys', async () => largeBodyAttack(attacker, yamlConfigMap));
    await run('3b. JSON ConfigMap, 250,000 keys', async () => largeBodyAttack(attacker, jsonConfigMap));
    const creates = [];
    for (const concurrency of only ? [] : [16, 64]) {
      log(`pod creates at ${concurrency} clients`);
      creates.push(await createPods(attacker, cpu, { namespace: 'default', prefix: `c${concurrency}`, from: 0, count: 20 * concurrency, concurrency }));
    }
    // Last: past its cap it may still be running on the server.
    await run('3c. protobuf Pod, 1,000,000 containers', async () => largeBodyAttack(attacker, protobufPod));
    const md = [
      ...sectionHead(repoRoot, '## Bystander: a GET every 100 ms while each attack runs (bench/bystander.ts)'),
      `- Load average when the run started: ${load.toFixed(1)} (other work on the machine inflates every figure).`,
      '',
      table(['attack', 'outcome of the last attack (its time)', 'attacks', 'server CPU per attack', 'bystander GETs', 'p50', 'p99', 'worst'], rows.map((r) => [
        r.name, r.outcome, String(r.attacks), fmtMs(r.cpuMs), String(r.samples.length), fmtMs(percentile(r.samples, 50)), fmtMs(percentile(r.samples, 99)), fmtMs(Math.max(...r.samples)),
      ])),
      '',
      table(['pod creates', 'count', 'creates/s', 'server CPU per create', 'p50', 'p99'], creates.map((c) => [`${c.concurrency} clients`, String(c.count), fmtRate(c.perSec), `${Math.round(c.cpuUsPerOp)} µs`, fmtMs(c.p50), fmtMs(c.p99)])),
    ].join('\n');
    console.log(md);
    if (!values['no-write']) writeSection(join(repoRoot, 'bench', 'RESULTS.md'), 'bystander', md);
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
