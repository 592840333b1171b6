/**
 * Lease renewal cost: milliseconds of server CPU per heartbeat, the write a
 * 5,000-node cluster sends 500 times a second (each kubelet renews its Lease
 * every 10 s). Issue #20.
 *
 * A fresh `k8ts server --controllers none` (SQLite, HTTPS) per round, N Leases in
 * kube-node-lease created as a kubelet creates them, then renewal passes: every
 * Lease PUT back with a new spec.renewTime from the object the last write returned
 * (the kubelet's NodeLease: no GET per heartbeat), C in flight. Server CPU
 * (user + system, /proc) over the passes divided by the renewals; the main thread
 * (the serving loop) apart. With --cli-b, rounds alternate between two server
 * builds (e.g. main's and this branch's) in the same run, so machine load hits both alike.
 * --kubelet renews as the simulated kubelets of bench/daemonset.ts do (NodeLease.newLease: the
 * body without managedFields, through the client's undici pool) with one watch of all Leases
 * open, as the node lifecycle controller's informer is in that rollout; without it the body is
 * the whole Lease returned, managedFields and all, and no one watches.
 *
 *   node dist/bench/lease-renewal.js [--leases 2000] [--passes 3] [--concurrency 64] [--rounds 3]
 *     [--cli-b /path/to/other/dist/src/cli/main.js --label-b main] [--kubelet] [--write]
 *   (K8TS_BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" passes node flags to the server process)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, readCpuMs, readThreadCpuMs } from './lib/server.js';
import { machineLine, revisionLine, table, writeSection } from './lib/results.js';
import { median, msSince, percentile } from './lib/stats.js';
import { Clientset, loadKubeconfig } from '../src/client/index.js';
import { benchArgs } from './lib/args.js';
import { NodeLease } from '../src/kubelet/nodelease.js';
import type { Lease } from 'kubernetes-types/coordination/v1.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');
const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);
const microTime = (d: Date) => d.toISOString().replace(/Z$/, '000Z');

interface Round { label: string; round: number; renewals: number; cpuMsPer: number; mainCpuMsPer: number; perSec: number; p50: number; p99: number; load: number }

async function forEachLimit<T>(items: T[], limit: number, fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

async function runRound(work: string, cliPath: string, label: string, round: number, leases: number, passes: number, concurrency: number, kubelet: boolean): Promise<Round> {
  const dataDir = join(work, `${label}-${round}`);
  const server = await startServer({ cliPath, dataDir, serverArgs: ['--controllers', 'none'], nodeArgs: process.env.K8TS_BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) });
  const clients = new Clientset(loadKubeconfig(join(dataDir, 'admin.conf')), { qps: 0, userAgent: 'kubelet/v1.32.0 (linux/amd64) kubernetes' });
  try {
    const names = Array.from({ length: leases }, (_, i) => `node-${i}`);
    const latest = new Map<string, Lease>();
    // The node lifecycle controller's view: every renewal is one watch event to it.
    const watch = kubelet ? await clients.leases.watch('kube-node-lease', {}, () => {}, { skipManagedFields: true }) : undefined;
    const renewers = new Map(names.map((n) => [n, new NodeLease(clients, { nodeName: n, nodeUID: async () => undefined, light: true })]));
    await forEachLimit(names, concurrency, async (name) => {
      latest.set(name, await clients.leases.create('kube-node-lease', {
        apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: 'kube-node-lease' },
        spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: microTime(new Date()) },
      }));
    });
    const renewAll = () => forEachLimit(names, concurrency, async (name) => {
      const t = process.hrtime.bigint();
      if (kubelet) {
        latest.set(name, await clients.leases.update(renewers.get(name)!.newLease(latest.get(name), new Date()), undefined, { light: true }));
      } else {
        const lease = structuredClone(latest.get(name)!);
        lease.spec!.renewTime = microTime(new Date());
        latest.set(name, await clients.leases.update(lease));
      }
      latencies.push(msSince(t));
    });
    let latencies: number[] = [];
    await renewAll(); // warm-up pass
    latencies = [];
    const cpu0 = readCpuMs(server.pid);
    const main0 = readThreadCpuMs(server.pid);
    const t0 = process.hrtime.bigint();
    for (let p = 0; p < passes; p++) await renewAll();
    const wallMs = msSince(t0);
    const renewals = leases * passes;
    const r: Round = {
      label, round, renewals,
      cpuMsPer: (readCpuMs(server.pid) - cpu0) / renewals, mainCpuMsPer: (readThreadCpuMs(server.pid) - main0) / renewals,
      perSec: renewals / (wallMs / 1000), p50: percentile(latencies, 50), p99: percentile(latencies, 99), load: loadavg()[0],
    };
    log(`${label} round ${round}: ${r.cpuMsPer.toFixed(3)} ms CPU per renewal (main ${r.mainCpuMsPer.toFixed(3)}), ${r.perSec.toFixed(0)}/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, load ${r.load.toFixed(1)}`);
    watch?.close();
    return r;
  } finally {
    clients.close();
    await server.stop();
  }
}

async function main(): Promise<void> {
  const { values } = benchArgs('Server CPU per Lease renewal (a kubelet heartbeat).', {
    options: {
      leases: { type: 'string', default: '2000' },
      passes: { type: 'string', default: '3' },
      concurrency: { type: 'string', default: '64' },
      rounds: { type: 'string', default: '3' },
      'cli-b': { type: 'string' },
      'label-b': { type: 'string', default: 'other build' },
      kubelet: { type: 'boolean', default: false },
      write: { type: 'boolean', default: false },
    },
  });
  const leases = Number(values.leases);
  const passes = Number(values.passes);
  const concurrency = Number(values.concurrency);
  const rounds = Number(values.rounds);
  const builds = [{ label: 'this build', cli: join(repoRoot, 'dist', 'src', 'cli', 'main.js') }];
  if (values['cli-b']) builds.push({ label: values['label-b']!, cli: values['cli-b'] });
  const work = mkdtempSync(join(tmpdir(), 'k8ts-bench-lease-'));
  const command = `node ${relative(repoRoot, process.argv[1])} ${process.argv.slice(2).join(' ')}`.trim();
  const results: Round[] = [];
  try {
    for (let round = 1; round <= rounds; round++) {
      // Alternate which build goes first, so neither always runs on the warmer machine.
      const order = round % 2 ? builds : [...builds].reverse();
      for (const b of order) results.push(await runRound(work, b.cli, b.label, round, leases, passes, concurrency, !!values.kubelet));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const rows = builds.map((b) => {
    const rs = results.filter((r) => r.label === b.label);
    const med = (f: (r: Round) => number) => median(rs.map(f));
    return [b.label, String(rs.length), `**${med((r) => r.cpuMsPer).toFixed(3)}** (${rs.map((r) => r.cpuMsPer.toFixed(3)).join(', ')})`,
      med((r) => r.mainCpuMsPer).toFixed(3), med((r) => r.perSec).toFixed(0), `${med((r) => r.p50).toFixed(1)} ms`, `${med((r) => r.p99).toFixed(1)} ms`,
      rs.map((r) => r.load.toFixed(1)).join(', ')];
  });
  const md = [
    '## Lease renewal: server CPU per heartbeat (bench/lease-renewal.ts, issue #20)',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${machineLine()}`,
    `- Revision: ${revisionLine(repoRoot)}`,
    `- Command: \`${command}\``,
    `- Setup: per round a fresh \`k8ts server --controllers none\` (SQLite, HTTPS); ${leases} Leases in kube-node-lease; one warm-up pass, then ${passes} passes renewing every Lease `
      + `by PUT from the object the last write returned (as the kubelet's NodeLease does), ${concurrency} in flight, one keep-alive client`
      + (values.kubelet ? ' (--kubelet: bodies without managedFields through undici, as the simulated kubelets send them, and one watch of all Leases open). ' : '. ')
      + 'CPU = user + system of the server process over the passes / renewals; main = its main thread (the serving loop) alone. Builds alternate within each round.',
    '',
    table(['Server build', 'Rounds', 'Server CPU ms per renewal, median (rounds)', 'Main thread ms per renewal', 'Renewals/s', 'p50', 'p99', 'Load avg (1 min) per round'], rows),
  ].join('\n');
  console.log(`\n${md}`);
  if (values.write) writeSection(resultsFile, 'lease-renewal', md);
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
