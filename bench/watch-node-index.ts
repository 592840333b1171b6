/**
 * Kubelet watches: W pod watches, each selecting one node (`fieldSelector=spec.nodeName=node-i`,
 * as every kubelet watches its pods), then P pods created already bound round-robin to those
 * nodes, 16 in flight. Server CPU per pod create (the write and its watch fan-out) with the
 * watches open, two server builds alternating in one run (e.g. main's and this branch's, whose
 * watch cache offers a pod's event to its node's watchers only). Issue #20.
 *
 *   node dist/bench/watch-node-index.js [--watches 2000] [--pods 2000] [--rounds 2] [--cli-b PATH --label-b NAME]
 */
import https from 'node:https';
import type { ClientRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, readCpuMs, readThreadCpuMs } from './lib/server.js';
import { median } from './lib/stats.js';
import { Clientset, loadKubeconfig } from '../src/client/index.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);

async function forEachLimit<T>(items: T[], limit: number, fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

async function round(work: string, cli: string, label: string, n: number, watches: number, pods: number) {
  const dataDir = join(work, `${label.replace(/\W/g, '')}-${n}`);
  const server = await startServer({ cliPath: cli, dataDir, serverArgs: ['--controllers', 'none'] });
  const kc = loadKubeconfig(join(dataDir, 'admin.conf'));
  const clients = new Clientset(kc, { qps: 0 });
  const agent = new https.Agent({ keepAlive: true, maxSockets: Infinity, ca: server.creds.ca, cert: server.creds.cert, key: server.creds.key });
  const open: ClientRequest[] = [];
  let events = 0;
  try {
    await Promise.all(Array.from({ length: watches }, (_, i) => new Promise<void>((resolve, reject) => {
      const req = https.get(new URL(`/api/v1/pods?watch=1&fieldSelector=spec.nodeName%3Dnode-${i}`, server.creds.server), { agent }, (res) => {
        res.on('data', (c: Buffer) => { for (const b of c) if (b === 10) events++; });
        resolve();
      });
      req.on('error', reject);
      open.push(req);
    })));
    const pod = (i: number) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p-${i}`, namespace: 'default' }, spec: { nodeName: `node-${i % watches}`, containers: [{ name: 'c', image: 'busybox' }] } });
    const idx = Array.from({ length: pods }, (_, i) => i);
    const cpu0 = readCpuMs(server.pid);
    const main0 = readThreadCpuMs(server.pid);
    await forEachLimit(idx, 16, async (i) => { await clients.pods.create('default', pod(i)); });
    while (events < pods) await new Promise((r) => setTimeout(r, 20));
    const r = { label, cpuMs: (readCpuMs(server.pid) - cpu0) / pods, mainMs: (readThreadCpuMs(server.pid) - main0) / pods, load: loadavg()[0] };
    log(`${label} round ${n}: ${r.cpuMs.toFixed(3)} ms server CPU per pod (main ${r.mainMs.toFixed(3)}) with ${watches} node watches, load ${r.load.toFixed(1)}`);
    return r;
  } finally {
    for (const req of open) req.destroy();
    agent.destroy();
    clients.close();
    await server.stop();
  }
}

async function main(): Promise<void> {
  const { values } = benchArgs('Server CPU per pod create with W per-node pod watches.', { options: {
    watches: { type: 'string', default: '2000' }, pods: { type: 'string', default: '2000' }, rounds: { type: 'string', default: '2' },
    'cli-b': { type: 'string' }, 'label-b': { type: 'string', default: 'other build' },
  } });
  const builds = [{ label: 'this build', cli: join(repoRoot, 'dist', 'src', 'cli', 'main.js') }];
  if (values['cli-b']) builds.push({ label: values['label-b']!, cli: values['cli-b'] });
  const work = mkdtempSync(join(tmpdir(), 'k8ts-bench-watchidx-'));
  const results: { label: string; cpuMs: number; mainMs: number }[] = [];
  try {
    for (let n = 1; n <= Number(values.rounds); n++) {
      for (const b of n % 2 ? builds : [...builds].reverse()) results.push(await round(work, b.cli, b.label, n, Number(values.watches), Number(values.pods)));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  for (const b of builds) {
    const rs = results.filter((r) => r.label === b.label);
    log(`${b.label}: median ${median(rs.map((r) => r.cpuMs)).toFixed(3)} ms per pod (main ${median(rs.map((r) => r.mainMs)).toFixed(3)}) over ${rs.length} rounds`);
  }
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
