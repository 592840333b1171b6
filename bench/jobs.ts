/**
 * Job benchmark: 1,000 Jobs of one pod each, from create to Complete, on
 * simulated nodes (each pod runs its simulated 1 s and exits 0).
 *
 * One fresh `k8ts server --controllers all` (a child process: the Job
 * controller, the scheduler, the garbage collector ... run in it), a
 * NodeSimulator in this process with --nodes nodes, then --jobs Jobs created
 * by --concurrency clients at once. An informer in this process records when
 * each Job is first seen with Complete=True; latency = that minus the moment
 * its create was sent. Reports the time until all are Complete, throughput,
 * latency percentiles and the server's CPU and peak RSS.
 *
 * Results go to bench/RESULTS.md, section "jobs".
 *
 *   node dist/bench/jobs.js [--jobs 1000] [--nodes 10] [--concurrency 32] [--cutoff-s 600] [--no-write]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, readMemory, readCpuMs } from './lib/server.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { fmtMs, percentile } from './lib/stats.js';
import { Clientset, InformerFactory, loadKubeconfig } from '../src/client/index.js';
import { NodeSimulator } from '../src/kubelet/index.js';
import { silentLogger } from '../src/util/log.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cliPath = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');

const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const { values: args } = benchArgs('1,000 one-pod Jobs from create to Complete on simulated nodes.', {
  options: {
    jobs: { type: 'string', default: '1000' }, nodes: { type: 'string', default: '10' }, concurrency: { type: 'string', default: '32' },
    'cutoff-s': { type: 'string', default: '600' }, 'no-write': { type: 'boolean', default: false },
  },
});
const jobCount = Number(args.jobs);
const nodeCount = Number(args.nodes);
const concurrency = Number(args.concurrency);
const cutoffMs = Number(args['cutoff-s']) * 1000;

const jobManifest = (name: string) => ({
  apiVersion: 'batch/v1', kind: 'Job', metadata: { name },
  spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } } },
});

const isComplete = (job: any) => (job.status?.conditions ?? []).some((c: any) => c.type === 'Complete' && c.status === 'True');

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'k8ts-bench-jobs-'));
  const server = await startServer({ cliPath, dataDir: work, serverArgs: ['--controllers', 'all'] });
  const kubeconfig = join(work, 'admin.conf');
  const simClients = new Clientset(loadKubeconfig(kubeconfig), { qps: 0, userAgent: 'k8ts-node-simulator' });
  const clients = new Clientset(loadKubeconfig(kubeconfig), { qps: 0, userAgent: 'k8ts-bench' });
  const sim = new NodeSimulator(simClients, { count: nodeCount, namePrefix: 'node-', events: false, logger: silentLogger });
  const informers = new InformerFactory(clients);
  const sent = new Map<string, number>();
  const done = new Map<string, number>();
  const record = (job: any) => {
    const name = job.metadata.name;
    if (!done.has(name) && isComplete(job)) done.set(name, performance.now());
  };
  informers.informer('jobs').addEventHandler({ add: record, update: (_o, j) => record(j) });
  try {
    await sim.start();
    informers.start();
    await informers.waitForSync();
    log(`${nodeCount} nodes registered; creating ${jobCount} Jobs with ${concurrency} clients`);
    const cpu0 = readCpuMs(server.pid);
    const t0 = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < jobCount; i = next++) {
        const name = `job-${String(i).padStart(5, '0')}`;
        sent.set(name, performance.now());
        await clients.jobs.create('default', jobManifest(name));
      }
    }));
    const createdMs = performance.now() - t0;
    log(`created in ${(createdMs / 1000).toFixed(1)} s`);
    while (done.size < jobCount && performance.now() - t0 < cutoffMs) {
      await sleep(1000);
      log(`${done.size}/${jobCount} Complete`);
    }
    const totalMs = performance.now() - t0;
    const latencies = [...done].map(([name, at]) => at - sent.get(name)!);
    const cpuSec = (readCpuMs(server.pid) - cpu0) / 1000;
    const peakMB = readMemory(server.pid).hwmKB / 1024;
    const finished = done.size === jobCount;
    const summary = [
      String(jobCount), String(nodeCount), `${(createdMs / 1000).toFixed(1)} s`,
      finished ? `**${(totalMs / 1000).toFixed(1)} s**` : `> ${cutoffMs / 1000} s (cutoff, ${done.size} done)`,
      (done.size / (totalMs / 1000)).toFixed(1), fmtMs(percentile(latencies, 50)), fmtMs(percentile(latencies, 99)), cpuSec.toFixed(1), peakMB.toFixed(0),
    ];
    log(`all Complete: ${summary.join(' | ')}`);
    const md = [
      ...sectionHead(repoRoot, '## Jobs: 1,000 one-pod Jobs from create to Complete (bench/jobs.ts)'),
      `- Setup: one \`k8ts server --controllers all\` (SQLite, HTTPS) as a child process; ${nodeCount} simulated nodes in the benchmark process (each Job pod runs 1 s simulated and exits 0); ${concurrency} concurrent creators; completion seen by a Job informer in the benchmark. One run.`,
      '',
      table(['Jobs', 'Nodes', 'All created after', 'All Complete after', 'Jobs/s', 'create→Complete p50', 'p99', 'Server CPU (s)', 'Server peak RSS (MB)'], [summary]),
      '',
      'Each Job costs the Job controller two status writes and a finalizer patch besides the pod create (upstream does the same: uncountedTerminatedPods, then the finalizer, then the counters), plus the scheduler\'s bind and the simulated kubelet\'s status updates.',
    ].join('\n');
    if (!args['no-write']) writeSection(resultsFile, 'jobs', md);
    console.log(md);
  } finally {
    informers.stop();
    await sim.close().catch(() => undefined);
    simClients.close();
    clients.close();
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

void main().catch((e) => { console.error(e); process.exitCode = 1; });
