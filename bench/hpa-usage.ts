/**
 * What the simulated usage model (src/kubelet/runtime/simulated/usage*.ts)
 * costs, as CPU time:
 *
 *  1. An idle `k8ts up` (three simulated nodes, their kube-system pods and
 *     the HPA walkthrough's php-apache Deployment): the server process's CPU
 *     per second over a window, from /proc/PID/stat, for each `--cli` given
 *     (a baseline build of main and this one), rounds interleaved A B A B.
 *     The usage model adds each node's 10 s stats reading.
 *  2. The model alone, in this process: CPU per request served (one 30 ms
 *     hpa-example request to a 500m-limited container, a fake clock), and
 *     per container stats reading.
 * Usage: node dist/bench/hpa-usage.js --cli A/dist/bundle/main.js --cli B/dist/bundle/main.js [--rounds 2] [--window 60] [--write]
 */
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimulatedNodeUsage } from '../src/kubelet/runtime/simulated/usage-model.js';
import { SimulatedRuntimeUsage } from '../src/kubelet/runtime/simulated/usage.js';
import { FakeTimers } from '../src/kubelet/timers.js';
import { machineLine, writeSection } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const { values } = benchArgs('CPU time of the simulated usage model behind the HPA walkthrough.', { options: { cli: { type: 'string', multiple: true }, rounds: { type: 'string', default: '2' }, window: { type: 'string', default: '60' }, write: { type: 'boolean', default: false } } });
const root = join(import.meta.dirname, '..', '..');
const manifest = join(root, 'test', 'fixtures', 'hpa', 'php-apache.yaml');
const load = () => loadavg()[0]!.toFixed(1);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** utime + stime of a process, ms. */
function cpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) * 10;
}

async function idleRound(cli: string, windowS: number): Promise<{ cpuMsPerS: number; loadBefore: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-bench-hpa-'));
  const up = spawn(process.execPath, [cli, 'up', '--data-dir', join(dir, 'data'), '--port', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    let out = '';
    const kubeconfig = await new Promise<string>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('k8ts up printed no kubeconfig')), 120_000);
      up.stdout!.on('data', (d: Buffer) => { out += d; const m = /export KUBECONFIG=(\S+)/.exec(out); if (m) { clearTimeout(t); resolve(m[1]!); } });
    });
    execFileSync('kubectl', ['--kubeconfig', kubeconfig, 'apply', '-f', manifest]);
    execFileSync('kubectl', ['--kubeconfig', kubeconfig, 'rollout', 'status', 'deployment/php-apache', '--timeout=120s']);
    await sleep(15_000);
    const loadBefore = load();
    const before = cpuMs(up.pid!);
    await sleep(windowS * 1000);
    return { cpuMsPerS: (cpuMs(up.pid!) - before) / windowS, loadBefore };
  } finally {
    up.kill('SIGTERM');
    await new Promise((r) => up.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

async function modelRows(): Promise<string[]> {
  const timers = new FakeTimers();
  const model = new SimulatedNodeUsage({ cores: 4, memoryBytes: 8 * 2 ** 30, timers });
  model.ensure('php', { limitCores: 0.5, idleCores: 0.001, workingSetBytes: 11 * 2 ** 20 }, timers.nowMs());
  const n = 20_000;
  let done = 0;
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    void model.serve('php', 30).then(() => { done++; });
    timers.advance(80);
  }
  const serveUs = (process.cpuUsage(t0).user + process.cpuUsage(t0).system) / n;
  await new Promise((r) => setImmediate(r));
  if (done !== n) throw new Error(`${n - done} requests were not answered`);
  const usage = new SimulatedRuntimeUsage({}, timers);
  const running = Array.from({ length: 20 }, (_, i) => ({ podUID: `u${i}`, id: `sim://${i}`, spec: { name: 'c', image: 'registry.k8s.io/hpa-example' }, startedAt: timers.now() }));
  const reads = 5_000;
  const t1 = process.cpuUsage();
  for (let i = 0; i < reads; i++) { timers.advance(10_000); usage.stats(running); }
  const statsUs = (process.cpuUsage(t1).user + process.cpuUsage(t1).system) / reads;
  return [`| model: one 30 ms request to a 500m-limited container (${n.toLocaleString('en')} requests, fake clock) | ${serveUs.toFixed(1)} µs CPU |`,
    `| model: one stats reading of a node with 20 containers (${reads.toLocaleString('en')} readings) | ${statsUs.toFixed(1)} µs CPU |`];
}

async function main(): Promise<void> {
  const clis = values.cli ?? [];
  const rounds = Number(values.rounds);
  const windowS = Number(values.window);
  const rows: string[] = [];
  const loadStart = load();
  for (let r = 1; r <= rounds; r++) {
    for (const cli of clis) {
      const res = await idleRound(cli, windowS);
      rows.push(`| ${r} | \`${cli}\` | ${res.loadBefore} | ${res.cpuMsPerS.toFixed(1)} |`);
      console.log(rows.at(-1));
    }
  }
  const model = await modelRows();
  model.forEach((l) => console.log(l));
  const revision = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root }).toString().trim();
  const body = [
    '## Simulated resource usage (kubectl top, the HPA walkthrough on npm start)', '',
    `- Date: ${new Date().toISOString()}; load (1 min) ${loadStart} → ${load()}`, `- Machine: ${machineLine()}`, `- Revision: ${revision}`,
    `- Command: \`node dist/bench/hpa-usage.js ${clis.map((c) => `--cli ${c}`).join(' ')} --rounds ${rounds} --window ${windowS} --write\``,
    `- Idle \`k8ts up\` with php-apache applied: the server process's CPU (utime + stime) per second over ${windowS} s, rounds interleaved.`, '',
    '| Round | Build | Load before | Server CPU ms per s |', '| --- | --- | --- | --- |', ...rows, '',
    '| Operation | CPU |', '| --- | --- |', ...model,
  ].join('\n');
  if (values.write) writeSection(join(root, 'bench', 'RESULTS.md'), 'hpa-usage', body);
}

await main();
