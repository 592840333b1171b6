/**
 * The pod summary's cost per GET at 5,000 nodes and 150,000 pods (issue #24), two builds
 * alternating in one run: each round starts one process per build, which feeds that build's
 * PodSummary from a store replaying --pods pods bound round-robin to --nodes nodes (plus a
 * DaemonSet pod on every node), serves its real endpoint (pod-summary/endpoint.ts) on a
 * loopback HTTP server and GETs /dashboard/api/summary --gets times asking for gzip, as a
 * browser does. Before each GET one pod changes (one node's counts), so no answer repeats the
 * one before. Measured: the process's CPU per GET (every thread: the gzip runs on libuv's
 * pool), the GET's time and the bytes on the wire; medians. No API server, no TLS, no
 * storage: the summary's own cost, apart from the rest of the server.
 *
 *   node dist/bench/dashboard-summary-cpu.js --root-b /tmp/base-dash [--label-b main] [--rounds 3] [--gets 30] [--no-write]
 */
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { repoRoot } from '../test/e2e/harness.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { median } from './lib/stats.js';
import { benchArgs } from './lib/args.js';

const { values } = benchArgs("The pod summary's CPU per GET at 5,000 nodes and 150,000 pods, two builds alternating.", { options: {
  'root-b': { type: 'string' }, 'label-b': { type: 'string', default: 'main' }, rounds: { type: 'string', default: '3' }, gets: { type: 'string', default: '30' },
  nodes: { type: 'string', default: '5000' }, pods: { type: 'string', default: '150000' }, worker: { type: 'string' }, 'no-write': { type: 'boolean' },
} });

interface Sample { cpuMs: number; wallMs: number; bytes: number }

type Emit = (ev: { type: string; object: Pod }) => void;
interface SummaryModule { PodSummary: new (store: () => unknown) => unknown }
interface EndpointModule { podSummaryEndpoint(s: unknown): { serve(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void>; close(): void } }

/** One build measured in this process: its dist/ at `root`. */
async function worker(root: string): Promise<Sample> {
  const { PodSummary } = await import(join(root, 'dist/src/apiserver/pod-summary/summary.js')) as SummaryModule;
  const { podSummaryEndpoint } = await import(join(root, 'dist/src/apiserver/pod-summary/endpoint.js')) as EndpointModule;
  const nodes = Number(values.nodes); const pods = Number(values.pods);
  const node = (i: number) => `node-${String(i).padStart(5, '0')}`;
  let rv = 0;
  let emit: Emit = () => undefined;
  const pod = (i: number, phase: string): Pod => ({ metadata: { name: `map-${i}`, namespace: 'default', resourceVersion: String(++rv) }, spec: { nodeName: node(i % nodes), containers: [] },
    status: { phase, conditions: [{ type: 'Ready', status: 'True' }] } });
  const store = { watch: async (_key: unknown, _opts: unknown, on: Emit) => {
    emit = on;
    for (let i = 0; i < pods; i++) on({ type: 'ADDED', object: pod(i, 'Running') });
    for (let i = 0; i < nodes; i++) {
      on({ type: 'ADDED', object: { metadata: { name: `kp-${i}`, namespace: 'kube-system', resourceVersion: String(++rv),
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'kube-proxy', uid: 'ds', controller: true }] }, spec: { nodeName: node(i), containers: [] }, status: { phase: 'Running' } } });
    }
    return { close() { /* nothing held */ }, startRevision: rv };
  } };
  const endpoint = podSummaryEndpoint(new PodSummary(() => store));
  const server = http.createServer((req, res) => { endpoint.serve(req, res, new URL(req.url ?? '/', 'http://localhost')).catch((e) => { res.statusCode = 500; res.end(String(e)); }); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const agent = new http.Agent({ keepAlive: true });
  const get = () => new Promise<number>((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/dashboard/api/summary', agent, headers: { 'Accept-Encoding': 'gzip' } }, (res) => {
      let bytes = 0;
      res.on('data', (d: Buffer) => { bytes += d.length; });
      res.on('end', () => resolve(bytes));
    }).on('error', reject);
  });
  await get();
  const cpu: number[] = []; const wall: number[] = [];
  let bytes = 0;
  for (let i = 0; i < Number(values.gets); i++) {
    emit({ type: 'MODIFIED', object: pod((i * 37) % pods, i % 2 ? 'Running' : 'Pending') });
    const c0 = process.cpuUsage(); const t0 = performance.now();
    bytes = await get();
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  server.close(); agent.destroy(); endpoint.close();
  return { cpuMs: median(cpu), wallMs: median(wall), bytes };
}

async function main(): Promise<void> {
  if (values.worker) { console.log(JSON.stringify(await worker(values.worker))); process.exit(0); }
  if (!values['root-b']) throw new Error('--root-b DIR (a built checkout to compare with) is required');
  const builds = [{ label: values['label-b']!, root: values['root-b'] }, { label: 'this build', root: repoRoot }];
  const samples = new Map<string, Sample[]>(builds.map((b) => [b.label, []]));
  for (let r = 0; r < Number(values.rounds); r++) {
    for (const b of builds) {
      const out = execFileSync(process.execPath, [process.argv[1]!, ...process.argv.slice(2), '--worker', b.root], { encoding: 'utf8', maxBuffer: 1 << 20 });
      const s = JSON.parse(out.trim().split('\n').pop()!) as Sample;
      samples.get(b.label)!.push(s);
      console.log(`round ${r + 1} ${b.label}: ${JSON.stringify(s)}`);
    }
  }
  const row = (label: string) => {
    const ss = samples.get(label)!;
    return [label, `${median(ss.map((s) => s.cpuMs)).toFixed(1)} ms`, `${median(ss.map((s) => s.wallMs)).toFixed(1)} ms`, `${(median(ss.map((s) => s.bytes)) / 1024).toFixed(1)} KiB`];
  };
  const body = [
    ...sectionHead(repoRoot, '## Dashboard: the pod summary\'s cost per GET (bench/dashboard-summary-cpu.ts)'),
    '',
    `${values.nodes} nodes, ${values.pods} pods and a DaemonSet pod a node; ${values.gets} GETs a process (one pod changed before each), ${values.rounds} rounds alternating the builds; medians of the rounds' medians.`,
    '',
    table(['build', 'process CPU a GET (all threads)', 'GET time', 'bytes on the wire (Accept-Encoding: gzip)'], builds.map((b) => row(b.label))),
  ].join('\n');
  console.log(body);
  if (!values['no-write']) writeSection(join(repoRoot, 'bench', 'RESULTS.md'), 'dashboard-summary-cpu', body);
}

await main();
