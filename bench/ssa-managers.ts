/**
 * Server-side apply on one object with many managers (hardening issue,
 * finding 4): N field managers each apply their own key of one ConfigMap,
 * one after another (each apply adds a manager and a key, so the object and
 * its managedFields grow by one entry per apply). Reported: the time and the
 * server CPU per apply in windows of the run, so growth with the number of
 * managers shows; an apply whose cost is proportional to the object stays
 * roughly flat per entry, a quadratic one grows with the window.
 * Then the same N managers re-apply a changed value concurrently (16 clients):
 * every one must succeed (no 409 for unconditional writes).
 *
 *   node dist/bench/ssa-managers.js [--managers N] [--clients N] [--no-write]
 *     [--reapply N] (how many managers re-apply concurrently; all by default)
 *     [--server-cli=/tmp/base/dist/src/cli/main.js] (another build's server; implies --no-write)
 *     [--server-node-args="--cpu-prof --cpu-prof-dir=DIR"]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiClient } from './lib/client.js';
import { readCpuMs, startServer } from './lib/server.js';
import { fmtMs, percentile } from './lib/stats.js';
import { runConcurrent } from './lib/load.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cliPath = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');
const path = '/api/v1/namespaces/default/configmaps/many-managers';

interface Window { from: number; to: number; msPerApply: number; cpuMsPerApply: number; p99: number }

const applyBody = (i: number, value: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'many-managers' }, data: { [`key-${i}`]: value } });

async function apply(client: ApiClient, i: number, value: string): Promise<number> {
  const r = await client.request('PATCH', `${path}?fieldManager=manager-${i}`, { body: applyBody(i, value), contentType: 'application/apply-patch+yaml', discard: true });
  if (r.status !== 200 && r.status !== 201) throw new Error(`apply ${i}: HTTP ${r.status}`);
  return r.ms;
}

async function main() {
  const { values } = benchArgs('Server-side apply on one ConfigMap with many field managers.', { options: {
    managers: { type: 'string', default: '2000' }, clients: { type: 'string', default: '16' }, 'no-write': { type: 'boolean', default: false },
    reapply: { type: 'string' }, 'server-cli': { type: 'string' }, 'server-node-args': { type: 'string', default: '' },
  } });
  if (values['server-cli']) values['no-write'] = true;
  const managers = Number(values.managers);
  const clients = Number(values.clients);
  const reapply = Math.min(managers, Number(values.reapply ?? managers));
  const windowSize = Math.max(1, Math.floor(managers / 10));
  const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-bench-ssa-managers-'));
  const server = await startServer({ cliPath: values['server-cli'] ?? cliPath, dataDir, serverArgs: ['--controllers', 'none'],
    nodeArgs: values['server-node-args'].split(' ').filter(Boolean) });
  const windows: Window[] = [];
  let totalMs = 0;
  let concurrent: { wallMs: number; p50: number; p99: number; failed: number; cpuMsPerApply: number } | undefined;
  let finalBytes = 0;
  try {
    const client = new ApiClient(server.creds, clients);
    const started = performance.now();
    for (let from = 0; from < managers; from += windowSize) {
      const to = Math.min(managers, from + windowSize);
      const cpu0 = readCpuMs(server.pid);
      const t0 = performance.now();
      const latencies: number[] = [];
      for (let i = from; i < to; i++) latencies.push(await apply(client, i, 'v1'));
      const n = to - from;
      windows.push({ from, to, msPerApply: (performance.now() - t0) / n, cpuMsPerApply: (readCpuMs(server.pid) - cpu0) / n, p99: percentile(latencies, 99) });
      console.log(JSON.stringify(windows.at(-1)));
    }
    totalMs = performance.now() - started;
    let failed = 0;
    const cpu0 = readCpuMs(server.pid);
    const run = await runConcurrent(0, reapply, clients, async (i) => {
      try { return await apply(client, i, 'v2'); } catch { failed++; return 0; }
    });
    concurrent = { wallMs: run.wallMs, p50: percentile(run.latencies, 50), p99: percentile(run.latencies, 99), failed, cpuMsPerApply: (readCpuMs(server.pid) - cpu0) / reapply };
    const final = await client.expect(200, 'GET', path);
    finalBytes = final.body.length;
    const obj = JSON.parse(final.body.toString());
    const data = Object.entries<string>(obj.data ?? {});
    const wrong = data.filter(([k, v]) => v !== (Number(k.slice('key-'.length)) < reapply ? 'v2' : 'v1')).length + (managers - data.length);
    if (wrong) { console.error(`${wrong} keys do not hold the last applied value`); concurrent.failed += wrong; }
    client.close();
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const body = [
    ...sectionHead(repoRoot, '## Server-side apply with many managers on one object (bench/ssa-managers.ts)'),
    `- Setup: one \`k8ts server --controllers none\` (SQLite, HTTPS); ${managers} field managers apply one key each to one ConfigMap, one after another (each apply adds an entry to data and to managedFields; the final object is ${(finalBytes / 1024).toFixed(0)} KiB). Then ${reapply} of them re-apply a new value with ${clients} concurrent clients. One run.`,
    '',
    table(['managers on the object', 'ms per apply', 'server CPU ms per apply', 'p99'], windows.map((w) => [
      `${w.from}–${w.to}`, w.msPerApply.toFixed(2), w.cpuMsPerApply.toFixed(2), fmtMs(w.p99),
    ])),
    '',
    `- All ${managers} sequential applies: ${(totalMs / 1000).toFixed(1)} s. Concurrent re-apply by ${reapply} of them (${clients} clients): ${(concurrent!.wallMs / 1000).toFixed(1)} s, server CPU ${concurrent!.cpuMsPerApply.toFixed(2)} ms per apply, p50 ${fmtMs(concurrent!.p50)}, p99 ${fmtMs(concurrent!.p99)}, failed or lost ${concurrent!.failed}.`,
  ].join('\n');
  console.log(body);
  if (!values['no-write']) writeSection(resultsFile, 'ssa-managers', body);
  if (concurrent!.failed) process.exitCode = 1;
}

main().catch((e) => { console.error(e); process.exitCode = 1; });
