/**
 * Server-side apply versus client-side apply versus a plain update (issue #9):
 * 1,000 ConfigMaps and 1,000 Deployments in one fresh `k8ts server`, each
 * changed once per pass by
 *  - PUT: the whole object with its resourceVersion (a plain update);
 *  - client-side apply: the strategic merge patch `kubectl apply` sends (the
 *    change plus the new last-applied-configuration annotation), manager
 *    kubectl-client-side-apply;
 *  - server-side apply: the whole manifest as application/apply-patch+yaml,
 *    manager bench (what `kubectl apply --server-side` sends).
 * Every write records managedFields. The passes run in that order per kind
 * with 16 keep-alive clients; each pass changes a value, so every request
 * writes. Time per write (wall / objects) and its ratio to PUT are reported;
 * the target is server-side apply no slower than 1.5x a plain update.
 *
 *   node dist/bench/ssa.js [--count N] [--clients N] [--no-write]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiClient } from './lib/client.js';
import { readCpuMs, startServer } from './lib/server.js';
import { fmtMs, fmtRate, percentile } from './lib/stats.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cliPath = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');
const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';

type Kind = 'ConfigMap' | 'Deployment';
type Method = 'PUT' | 'client-side apply' | 'server-side apply';
interface Pass { kind: Kind; method: Method; perSec: number; msPerWrite: number; p50: number; p99: number; cpuMsPerWrite: number; failed: number }

const collection = (kind: Kind) => (kind === 'ConfigMap' ? '/api/v1/namespaces/default/configmaps' : '/apis/apps/v1/namespaces/default/deployments');

/** The manifest a user would keep for object `i`, at `version`. */
function manifest(kind: Kind, i: number, version: number): any {
  const name = `${kind.toLowerCase()}-${i}`;
  if (kind === 'ConfigMap') {
    return { apiVersion: 'v1', kind, metadata: { name, labels: { app: 'bench' } }, data: { version: String(version), 'app.properties': 'a=1\nb=2\n', mode: 'bench' } };
  }
  return {
    apiVersion: 'apps/v1', kind, metadata: { name, labels: { app: name } },
    spec: {
      replicas: 1, selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name }, annotations: { version: String(version) } },
        spec: { containers: [{ name: 'web', image: 'nginx:1.25', ports: [{ containerPort: 80 }], env: [{ name: 'VERSION', value: String(version) }], resources: { requests: { cpu: '100m', memory: '64Mi' } } }] },
      },
    },
  };
}

/** kubectl apply's patch: the manifest's changes plus the new annotation (changes only, as its three-way diff sends). */
function clientSideApplyPatch(kind: Kind, i: number, version: number): any {
  const m = manifest(kind, i, version);
  const annotations = { [lastApplied]: `${JSON.stringify(m)}\n` };
  if (kind === 'ConfigMap') return { metadata: { annotations }, data: { version: String(version) } };
  return {
    metadata: { annotations },
    spec: { template: { metadata: { annotations: { version: String(version) } }, spec: { '$setElementOrder/containers': [{ name: 'web' }], containers: [{ name: 'web', env: [{ name: 'VERSION', value: String(version) }] }] } } },
  };
}

async function pass(client: ApiClient, pid: number, kind: Kind, method: Method, count: number, clients: number, version: number, live: any[]): Promise<Pass> {
  const latencies: number[] = [];
  let next = 0;
  let failed = 0;
  const request = (i: number) => {
    const path = `${collection(kind)}/${kind.toLowerCase()}-${i}`;
    if (method === 'PUT') {
      const obj = structuredClone(live[i]);
      const m = manifest(kind, i, version);
      if (kind === 'ConfigMap') obj.data = m.data; else obj.spec.template = { ...obj.spec.template, metadata: m.spec.template.metadata, spec: { ...obj.spec.template.spec, containers: [{ ...obj.spec.template.spec.containers[0], env: m.spec.template.spec.containers[0].env }] } };
      return client.request('PUT', `${path}?fieldManager=bench-put`, { body: JSON.stringify(obj), contentType: 'application/json' });
    }
    if (method === 'client-side apply') {
      return client.request('PATCH', `${path}?fieldManager=kubectl-client-side-apply`, { body: JSON.stringify(clientSideApplyPatch(kind, i, version)), contentType: 'application/strategic-merge-patch+json' });
    }
    return client.request('PATCH', `${path}?fieldManager=bench&force=true`, { body: JSON.stringify(manifest(kind, i, version)), contentType: 'application/apply-patch+yaml' });
  };
  const cpuBefore = readCpuMs(pid);
  const started = process.hrtime.bigint();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const r = await request(i);
      if (r.status === 200) { latencies.push(r.ms); live[i] = JSON.parse(r.body.toString()); } else failed++;
    }
  };
  await Promise.all(Array.from({ length: clients }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpuMs = readCpuMs(pid) - cpuBefore;
  return { kind, method, perSec: latencies.length / seconds, msPerWrite: (seconds * 1000) / count, p50: percentile(latencies, 50), p99: percentile(latencies, 99), cpuMsPerWrite: cpuMs / count, failed };
}

async function createAll(client: ApiClient, kind: Kind, count: number, clients: number): Promise<any[]> {
  const live: any[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const r = await client.request('POST', `${collection(kind)}?fieldManager=bench-create`, { body: JSON.stringify(manifest(kind, i, 0)), contentType: 'application/json' });
      if (r.status !== 201) throw new Error(`create ${kind} ${i}: ${r.status} ${r.body.toString()}`);
      live[i] = JSON.parse(r.body.toString());
    }
  };
  await Promise.all(Array.from({ length: clients }, worker));
  return live;
}

const methods: Method[] = ['PUT', 'client-side apply', 'server-side apply'];

async function main(): Promise<void> {
  const { values } = benchArgs('Server-side apply against client-side apply against a plain update.', { options: {
    count: { type: 'string', default: '1000' }, clients: { type: 'string', default: '16' }, 'no-write': { type: 'boolean', default: false },
  } });
  const count = Number(values.count);
  const clients = Number(values.clients);
  const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-bench-ssa-'));
  const server = await startServer({ cliPath, dataDir, serverArgs: ['--controllers', 'none'] });
  const results: Pass[] = [];
  try {
    const client = new ApiClient(server.creds, clients);
    let version = 1;
    for (const kind of ['ConfigMap', 'Deployment'] as const) {
      const live = await createAll(client, kind, count, clients);
      // Warm-up: one pass of each method (V8 optimizes the paths in the first requests).
      for (const method of methods) await pass(client, server.pid, kind, method, Math.min(count, 300), clients, version++, live);
      for (const method of methods) {
        results.push(await pass(client, server.pid, kind, method, count, clients, version++, live));
        console.log(JSON.stringify(results.at(-1)));
      }
    }
    client.close();
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const put = (p: Pass) => results.find((r) => r.kind === p.kind && r.method === 'PUT')!;
  const ratio = (p: Pass) => p.msPerWrite / put(p).msPerWrite;
  const cpuRatio = (p: Pass) => p.cpuMsPerWrite / put(p).cpuMsPerWrite;
  const ssa = results.filter((r) => r.method === 'server-side apply');
  const body = [
    ...sectionHead(repoRoot, '## Server-side apply versus client-side apply and PUT (bench/ssa.ts)'),
    `- Setup: one \`k8ts server --controllers none\` (SQLite, HTTPS); ${count} ConfigMaps and ${count} Deployments created first, then one pass per method over all of them with ${clients} keep-alive clients, each pass changing one value in every object (so every request writes), after a warm-up pass of ${Math.min(count, 300)} objects per method. PUT sends the whole object with its resourceVersion; client-side apply sends kubectl's strategic merge patch (the change and the new last-applied annotation); server-side apply sends the whole manifest as application/apply-patch+yaml with force. Every write records managedFields. One run.`,
    '',
    table(['kind', 'method', 'writes/s', 'ms per write (wall / objects)', 'wall vs PUT', 'p50', 'p99', 'server CPU ms/write', 'CPU vs PUT', 'failed'], results.map((p) => [
      p.kind, p.method, `**${fmtRate(p.perSec)}**`, p.msPerWrite.toFixed(2), `${ratio(p).toFixed(2)}×`, fmtMs(p.p50), fmtMs(p.p99), p.cpuMsPerWrite.toFixed(2), `${cpuRatio(p).toFixed(2)}×`, String(p.failed),
    ])),
    '',
    `Target: server-side apply no slower than 1.5× a plain update. Wall time: ${ssa.map((p) => `${p.kind} ${ratio(p).toFixed(2)}× (${ratio(p) <= 1.5 ? 'meets' : 'misses'})`).join(', ')}; server CPU per write: ${ssa.map((p) => `${p.kind} ${cpuRatio(p).toFixed(2)}× (${cpuRatio(p) <= 1.5 ? 'meets' : 'misses'})`).join(', ')}. On a loaded machine the CPU ratio is the steadier of the two (wall time includes waiting for the cores).`,
  ].join('\n');
  console.log(body);
  if (!values['no-write']) writeSection(resultsFile, 'ssa', body);
  if (results.some((r) => r.failed)) process.exitCode = 1;
}

main().catch((e) => { console.error(e); process.exitCode = 1; });
