/**
 * Simulated-node heartbeat benchmark: starts a fresh `k8ts server`, registers
 * N simulated nodes from this process (one NodeSimulator, one Clientset), then
 * measures the steady heartbeat load for a while:
 *   - registration time (Node + Lease per node),
 *   - heartbeat writes/s reaching the server, and their mean latency,
 *   - the server's CPU% and RSS, this process's CPU% and RSS,
 *   - Lease freshness at the end (the age of the oldest renewTime: the node
 *     lifecycle controller marks a node Unknown past 50 s).
 *
 *   node dist/bench/sim.js [--nodes 5000] [--seconds 60] [--renew 10s] [--write]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, readCpuMs, readMemory, RssSampler } from './lib/server.js';
import { machineLine, revisionLine, table, writeSection } from './lib/results.js';
import { fmtMB } from './lib/stats.js';
import { Clientset, loadKubeconfig } from '../src/client/index.js';
import { NodeSimulator, createKubeletMetrics, mustParseDuration, type KubeletMetrics } from '../src/kubelet/index.js';
import { silentLogger } from '../src/util/log.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cliPath = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');

async function counterTotal(m: KubeletMetrics['leaseRenewals'] | KubeletMetrics['nodeStatusUpdates']): Promise<number> {
  return (await m.get()).values.reduce((a, v) => a + v.value, 0);
}

async function latency(m: KubeletMetrics): Promise<{ sum: number; count: number }> {
  const v = (await m.leaseRenewLatency.get()).values;
  return { sum: v.find((x) => x.metricName?.endsWith('_sum'))?.value ?? 0, count: v.find((x) => x.metricName?.endsWith('_count'))?.value ?? 0 };
}

async function main(): Promise<void> {
  const { values } = benchArgs('Simulated-node heartbeat load: N simulated nodes against a fresh `k8ts server`.', {
    options: {
      nodes: { type: 'string', default: '5000' }, seconds: { type: 'string', default: '60' }, renew: { type: 'string', default: '10s' },
      write: { type: 'boolean' }, keep: { type: 'boolean' },
    },
  });
  const nodes = Number(values.nodes);
  const seconds = Number(values.seconds);
  const renewMs = mustParseDuration('renew', values.renew!);
  const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-bench-sim-'));
  const server = await startServer({ cliPath, dataDir });
  const clients = new Clientset(loadKubeconfig(join(dataDir, 'admin.conf')));
  const metrics = createKubeletMetrics({ defaultMetrics: false });
  const sim = new NodeSimulator(clients, { count: nodes, renewIntervalMs: renewMs, events: false, logger: silentLogger, metrics });
  const rss = new RssSampler(server.pid).start();
  try {
    console.error(`registering ${nodes} simulated nodes...`);
    const cpuReg0 = readCpuMs(server.pid);
    const t0 = Date.now();
    await sim.start();
    const registerMs = Date.now() - t0;
    const registerCpuMs = readCpuMs(server.pid) - cpuReg0;
    console.error(`registered in ${registerMs} ms; measuring ${seconds} s of heartbeats...`);

    // Let the first renewals spread out before measuring the steady state.
    await new Promise((r) => setTimeout(r, Math.min(renewMs, 10_000)));
    const before = {
      t: Date.now(), serverCpu: readCpuMs(server.pid), selfCpu: process.cpuUsage(),
      leases: await counterTotal(metrics.leaseRenewals), status: await counterTotal(metrics.nodeStatusUpdates), lat: await latency(metrics),
      hb: sim.heartbeatStats(),
    };
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const el = (Date.now() - before.t) / 1000;
    const leases = (await counterTotal(metrics.leaseRenewals)) - before.leases;
    const status = (await counterTotal(metrics.nodeStatusUpdates)) - before.status;
    const lat = await latency(metrics);
    const serverCpuPct = ((readCpuMs(server.pid) - before.serverCpu) / 1000 / el) * 100;
    const self = process.cpuUsage(before.selfCpu);
    const selfCpuPct = ((self.user + self.system) / 1e6 / el) * 100;
    const hb = sim.heartbeatStats();
    const now = Date.now();
    const ages = (await clients.leases.list('kube-node-lease')).items.map((l) => (now - Date.parse(l.spec.renewTime)) / 1000).sort((a, b) => a - b);
    const maxAge = ages.at(-1) ?? NaN;
    const p99Age = ages[Math.floor(ages.length * 0.99)] ?? NaN;
    const meanLatMs = ((lat.sum - before.lat.sum) / Math.max(1, lat.count - before.lat.count)) * 1000;
    const serverPeak = rss.stop();

    const rows = [
      ['simulated nodes', String(nodes)],
      ['registration (Node + Lease each)', `${(registerMs / 1000).toFixed(1)} s (${(nodes / (registerMs / 1000)).toFixed(0)} nodes/s), server CPU ${(registerCpuMs / 1000).toFixed(1)} s`],
      ['lease renew interval', `${renewMs / 1000} s (expected ${(nodes / (renewMs / 1000)).toFixed(0)} renewals/s)`],
      ['lease renewals/s measured', (leases / el).toFixed(0)],
      ['node status posts/s', (status / el).toFixed(1)],
      ['mean lease renew latency', `${meanLatMs.toFixed(1)} ms`],
      ['heartbeats skipped (previous still running)', String(hb.skipped - before.hb.skipped)],
      ['heartbeat failures', String(hb.failures - before.hb.failures)],
      ['server CPU (1 core = 100%)', `${serverCpuPct.toFixed(0)}%`],
      ['server RSS now / peak', `${fmtMB(readMemory(server.pid).rssKB)} / ${fmtMB(serverPeak)}`],
      ['simulator CPU / RSS', `${selfCpuPct.toFixed(0)}% / ${fmtMB(process.memoryUsage().rss / 1024)}`],
      ['oldest lease renewTime at the end (p99)', `${maxAge.toFixed(1)} s (${p99Age.toFixed(1)} s)`],
    ];
    const body = [
      '## Simulated nodes: heartbeat load (`bench/sim.ts`)', '',
      `\`node dist/bench/sim.js --nodes ${nodes} --seconds ${seconds} --renew ${values.renew}\` — ${machineLine()}; revision ${revisionLine(repoRoot)}.`,
      'Server and simulator on the same machine; events off; measured after the first renew interval.', '',
      table(['measure', 'value'], rows),
    ].join('\n');
    console.log(body);
    if (values.write) writeSection(resultsFile, 'sim', body);
  } finally {
    await sim.close();
    clients.close();
    await server.stop();
    if (!values.keep) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(e); process.exitCode = 1; });
