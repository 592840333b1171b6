/**
 * Deployment benchmark: a 1,000-replica Deployment on 100 simulated nodes,
 * from create to all replicas Available, then a rolling update (maxSurge and
 * maxUnavailable 25%) from `spec.template` change to all replicas updated and
 * Available (target: the rollout within 30 s), with the API writes per pod
 * of each phase read from the server's apiserver_request_total.
 *
 * A fresh `k8ts server --controllers all` (the ReplicaSet and Deployment
 * controllers and the scheduler run in it), a NodeSimulator in this process
 * with 100 nodes; the Deployment's status is polled every 250 ms.
 *
 * Results go to bench/RESULTS.md, section "deployment".
 *
 *   node dist/bench/deployment.js [--nodes 100] [--replicas 1000] [--cutoff-s 300] [--no-write]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, readMemory, readCpuMs } from './lib/server.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { msSince } from './lib/stats.js';
import { Clientset, loadKubeconfig } from '../src/client/index.js';
import { NodeSimulator } from '../src/kubelet/index.js';
import { silentLogger } from '../src/util/log.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cliPath = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');
const targetSec = 30;
const pollMs = 250;

const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const isReady = (n: any) => (n.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');

/** Mutating requests by resource[/subresource], from the server's /metrics. */
async function writeCounts(clients: Clientset): Promise<Map<string, number>> {
  const res = await clients.rest.raw('GET', '/metrics');
  let text = '';
  for await (const c of res) text += c;
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^apiserver_request_total\{(.*)\} (\d+)/.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...m[1].matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (!['POST', 'PUT', 'PATCH', 'DELETE'].includes(labels.verb)) continue;
    const key = labels.subresource ? `${labels.resource}/${labels.subresource}` : labels.resource;
    out.set(key, (out.get(key) ?? 0) + Number(m[2]));
  }
  return out;
}

function diff(a: Map<string, number>, b: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of b) if (v - (a.get(k) ?? 0) > 0) out.set(k, v - (a.get(k) ?? 0));
  return out;
}

const total = (m: Map<string, number>) => [...m.values()].reduce((x, y) => x + y, 0);
const breakdown = (m: Map<string, number>, pods: number) =>
  [...m].filter(([k]) => !k.startsWith('leases') && !k.startsWith('nodes') && !k.startsWith('events')).sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${(v / pods).toFixed(2)}`).join(', ');

function deployment(replicas: number): any {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas, selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.26' }] } },
    },
  };
}

/** Polls until the Deployment is fully rolled out; seconds, or NaN at the cutoff. */
async function waitRolledOut(clients: Clientset, replicas: number, cutoffMs: number, what: string): Promise<{ sec: number; status: any }> {
  const t0 = process.hrtime.bigint();
  const deadline = Date.now() + cutoffMs;
  let lastLog = Date.now();
  let d: any;
  while (Date.now() < deadline) {
    d = await clients.resource('deployments').get('default', 'web');
    const s = d.status ?? {};
    if ((s.observedGeneration ?? 0) >= d.metadata.generation && s.updatedReplicas === replicas && s.replicas === replicas && s.availableReplicas === replicas) {
      return { sec: msSince(t0) / 1000, status: s };
    }
    if (Date.now() - lastLog > 5000) {
      lastLog = Date.now();
      log(`  ${what} ${(msSince(t0) / 1000).toFixed(1)} s: replicas ${s.replicas ?? 0}, updated ${s.updatedReplicas ?? 0}, available ${s.availableReplicas ?? 0}`);
    }
    await sleep(pollMs);
  }
  return { sec: NaN, status: d?.status ?? {} };
}

async function main(): Promise<void> {
  const { values } = benchArgs('A 1,000-replica Deployment on simulated nodes: create to Available, then a rolling update.', { options: {
    nodes: { type: 'string', default: '100' }, replicas: { type: 'string', default: '1000' }, 'cutoff-s': { type: 'string', default: '300' },
    'no-write': { type: 'boolean', default: false },
  } });
  const nodes = Number(values.nodes);
  const replicas = Number(values.replicas);
  const cutoffMs = Number(values['cutoff-s']) * 1000;
  const work = mkdtempSync(join(tmpdir(), 'k8ts-bench-deploy-'));
  const dataDir = join(work, 'data');
  const server = await startServer({ cliPath, dataDir, serverArgs: ['--controllers', 'all'] });
  const kubeconfig = join(dataDir, 'admin.conf');
  const simClients = new Clientset(loadKubeconfig(kubeconfig), { qps: 0, userAgent: 'k8ts-node-simulator' });
  const clients = new Clientset(loadKubeconfig(kubeconfig), { qps: 0, userAgent: 'k8ts-bench' });
  const sim = new NodeSimulator(simClients, { count: nodes, namePrefix: 'node-', renewIntervalMs: 20_000, events: false, logger: silentLogger });
  try {
    await sim.start();
    while ((await clients.nodes.list()).items.filter(isReady).length < nodes) await sleep(500);
    log(`${nodes} nodes Ready; creating a ${replicas}-replica Deployment`);
    const w0 = await writeCounts(clients);
    const cpu0 = readCpuMs(server.pid);
    await clients.resource('deployments').create('default', deployment(replicas));
    const created = await waitRolledOut(clients, replicas, cutoffMs, 'create');
    const w1 = await writeCounts(clients);
    const cpu1 = readCpuMs(server.pid);
    log(`create → ${replicas} Available: ${created.sec.toFixed(1)} s; rolling update`);
    await clients.resource('deployments').patch('default', 'web', { spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } } } }, 'strategic');
    const rolled = await waitRolledOut(clients, replicas, cutoffMs, 'rollout');
    const w2 = await writeCounts(clients);
    const cpu2 = readCpuMs(server.pid);
    log(`rollout → ${replicas} updated and Available: ${rolled.sec.toFixed(1)} s`);
    const createWrites = diff(w0, w1);
    const rolloutWrites = diff(w1, w2);
    const row = (phase: string, r: { sec: number; status: any }, w: Map<string, number>, cpuMs: number) => [
      phase, Number.isNaN(r.sec) ? `not done at ${cutoffMs / 1000} s` : r.sec.toFixed(1), `${r.status.updatedReplicas ?? 0}/${r.status.availableReplicas ?? 0}`,
      String(total(w)), (total(w) / replicas).toFixed(2), breakdown(w, replicas), (cpuMs / 1000).toFixed(1),
    ];
    const body = [
      ...sectionHead(repoRoot, '## deployment'),
      `- Setup: a fresh \`k8ts server --controllers all\` (ReplicaSet and Deployment controllers, scheduler, the rest), a NodeSimulator in the benchmark process with ${nodes} nodes (\`renewIntervalMs: 20000\`, \`events: false\`); a ${replicas}-replica Deployment (maxSurge 25%, maxUnavailable 25%), its status polled every ${pollMs} ms; writes are the server's \`apiserver_request_total\` for POST/PUT/PATCH/DELETE over the phase (all clients: controllers, scheduler, simulated kubelets), per pod = / ${replicas}; the per-resource split leaves out leases, nodes and events. Target: rollout within ${targetSec} s.`,
      `- Server peak RSS: ${(readMemory(server.pid).hwmKB / 1024).toFixed(0)} MB`,
      '',
      table(['Phase', 'Seconds', 'Updated/available at end', 'API writes', 'Writes per pod', 'Per pod by resource', 'Server CPU (s)'], [
        row('create → all Available', created, createWrites, cpu1 - cpu0),
        row('rolling update (image change) → all updated and Available', rolled, rolloutWrites, cpu2 - cpu1),
      ]),
      '',
      `Rollout ${Number.isNaN(rolled.sec) ? 'did not finish' : rolled.sec <= targetSec ? `met the ${targetSec} s target` : `missed the ${targetSec} s target`}.`,
    ].join('\n');
    console.log(body);
    if (!values['no-write']) writeSection(resultsFile, 'deployment', body);
  } finally {
    await sim.close();
    clients.close();
    simClients.close();
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
