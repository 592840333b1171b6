/**
 * Gzipped API responses (APIResponseCompression) at 5,000 nodes and 10,000
 * pods: this checkout's `k8ts server --controllers none` and, with
 * `--baseline DIR`, another built checkout's (before the change), each
 * holding the same Nodes (as a kubelet registers them) and DaemonSet-style pods. Each round
 * lists every cell once, interleaved (server × list × Accept-Encoding), one
 * request at a time over a keep-alive connection: time from request to last
 * byte, bytes on the wire, the server's CPU for the list (all its threads:
 * zlib's run on libuv's pool), and for gzip the client's gunzip. Medians over
 * the rounds. Results to bench/RESULTS.md (section `compression`).
 *
 *   node dist/bench/compression.js [--nodes 5000] [--pods 10000] [--runs 10] [--baseline /path/to/checkout] [--no-write]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { ApiClient } from './lib/client.js';
import { runConcurrent, podName } from './lib/load.js';
import { daemonSetPod } from './lib/pods.js';
import { readCpuMs, startServer, type ServerProcess } from './lib/server.js';
import { fmtMs, median } from './lib/stats.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');

const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);

/** A Node as a kubelet registers and updates it: labels, addresses, capacity, five conditions, node info, images. */
function node(i: number): object {
  const name = `node-${String(i).padStart(5, '0')}`;
  const t = '2026-12-03T10:00:00Z';
  const resources = { cpu: '8', 'ephemeral-storage': '101430960Ki', 'hugepages-2Mi': '0', memory: '32810208Ki', pods: '110' };
  const condition = (type: string, status: string, reason: string, message: string) => ({ type, status, lastHeartbeatTime: t, lastTransitionTime: t, reason, message });
  return {
    apiVersion: 'v1', kind: 'Node',
    metadata: {
      name,
      labels: {
        'beta.kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', 'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux', 'node.kubernetes.io/instance-type': 'm5.2xlarge', 'topology.kubernetes.io/region': 'eu-west-1',
        'topology.kubernetes.io/zone': `eu-west-1${'abc'[i % 3]}`,
      },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
    },
    spec: { podCIDR: `10.${(i >> 8) & 255}.${i & 255}.0/24`, podCIDRs: [`10.${(i >> 8) & 255}.${i & 255}.0/24`], providerID: `aws:///eu-west-1a/i-0${(1e15 + i * 7919).toString(16)}` },
    status: {
      capacity: resources, allocatable: { ...resources, cpu: '7910m', memory: '31659232Ki' },
      conditions: [
        condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
      ],
      addresses: [{ type: 'InternalIP', address: `172.20.${(i >> 8) & 255}.${i & 255}` }, { type: 'Hostname', address: name }],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: (0xabc0000 + i).toString(16).padStart(32, '0'), systemUUID: `ec2${(0xdef0000 + i).toString(16).padStart(29, '0')}`,
        bootID: `${(0x1230000 + i).toString(16).padStart(8, '0')}-8f3e-4c1a-9b2d-5e6f7a8b9c0d`, kernelVersion: '6.1.0-18-cloud-amd64',
        osImage: 'Debian GNU/Linux 12 (bookworm)', containerRuntimeVersion: 'containerd://1.7.24', kubeletVersion: 'v1.32.0', kubeProxyVersion: 'v1.32.0',
        operatingSystem: 'linux', architecture: 'amd64',
      },
      images: [
        { names: ['quay.io/prometheus/node-exporter@sha256:4032c6d5bfd752342c3e631c2f1de93ba6b86c41db6b167b9a35372c139e7706', 'quay.io/prometheus/node-exporter:v1.8.2'], sizeBytes: 12389164 },
        { names: ['registry.k8s.io/pause@sha256:ee6521f290b2168b6e0935a181d4cff9be1ac3f505666ef0e3c98fae8199917a', 'registry.k8s.io/pause:3.10'], sizeBytes: 320368 },
      ],
    },
  };
}

interface Target { name: string; server: ServerProcess; client: ApiClient }
interface Cell { target: string; list: string; gzip: boolean; ms: number[]; cpuMs: number[]; bytes: number; items: number; gunzipMs: number[] }

async function populate(t: Target, nodes: number, pods: number): Promise<void> {
  const c = t.client;
  await c.expect(201, 'POST', '/api/v1/namespaces', { body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } }) });
  await runConcurrent(0, nodes, 32, async (i) => (await c.expect(201, 'POST', '/api/v1/nodes', { body: JSON.stringify(node(i)) })).ms);
  await runConcurrent(0, pods, 32, async (i) => (await c.expect(201, 'POST', '/api/v1/namespaces/bench/pods',
    { body: JSON.stringify(daemonSetPod('bench', podName('p', i), `node-${String(i % nodes).padStart(5, '0')}`)) })).ms);
}

/** One list of a cell: timed, its CPU read from the server, its gzip checked and gunzipped on the first round. */
async function listOnce(t: Target, cell: Cell, path: string, first: boolean): Promise<void> {
  const cpu0 = readCpuMs(t.server.pid);
  const reply = await t.client.expect(200, 'GET', path, { accept: 'application/json', headers: cell.gzip ? { 'Accept-Encoding': 'gzip' } : {}, discard: !first && !cell.gzip });
  cell.cpuMs.push(readCpuMs(t.server.pid) - cpu0);
  cell.ms.push(reply.ms);
  cell.bytes = reply.bytes;
  if (first || cell.gzip) {
    const gzipped = reply.body[0] === 0x1f && reply.body[1] === 0x8b;
    const g0 = process.hrtime.bigint();
    const text = gzipped ? gunzipSync(reply.body) : reply.body;
    if (gzipped) cell.gunzipMs.push(Number(process.hrtime.bigint() - g0) / 1e6);
    if (first) cell.items = (JSON.parse(text.toString('utf8')) as { items: unknown[] }).items.length;
  }
}

async function main(): Promise<void> {
  const { values } = benchArgs('Gzipped API responses at 5,000 nodes and 10,000 pods, this build and optionally a baseline.', {
    options: {
      nodes: { type: 'string', default: '5000' }, pods: { type: 'string', default: '10000' }, runs: { type: 'string', default: '10' },
      baseline: { type: 'string' }, 'no-write': { type: 'boolean', default: false },
    },
  });
  const nodes = Number(values.nodes);
  const pods = Number(values.pods);
  const runs = Number(values.runs);
  const load0 = loadavg()[0]!;
  const dirs: string[] = [];
  const targets: Target[] = [];
  const checkouts = [{ name: 'this build', root: repoRoot }, ...(values.baseline ? [{ name: 'baseline', root: values.baseline }] : [])];
  try {
    for (const { name, root } of checkouts) {
      const dir = mkdtempSync(join(tmpdir(), 'k8ts-gzip-bench-'));
      dirs.push(dir);
      const server = await startServer({ cliPath: join(root, 'dist', 'src', 'cli', 'main.js'), dataDir: join(dir, 'data'), serverArgs: ['--controllers', 'none'] });
      const target = { name, server, client: new ApiClient(server.creds, 32) };
      targets.push(target);
      log(`${name}: populating ${nodes} nodes and ${pods} pods`);
      await populate(target, nodes, pods);
    }
    const lists = [{ list: `${nodes.toLocaleString('en-US')} nodes`, path: '/api/v1/nodes' }, { list: `${pods.toLocaleString('en-US')} pods`, path: '/api/v1/namespaces/bench/pods' }];
    const cells = targets.flatMap((t) => lists.flatMap(({ list }) => [false, true].map((gzip): Cell => ({ target: t.name, list, gzip, ms: [], cpuMs: [], bytes: 0, items: 0, gunzipMs: [] }))));
    // One warm-up list of each (the watch cache's texts are made on the first), then the rounds, interleaved.
    for (let r = -1; r < runs; r++) {
      for (const t of targets) {
        for (const { list, path } of lists) {
          for (const cell of cells.filter((c) => c.target === t.name && c.list === list)) {
            if (r < 0) { await t.client.expect(200, 'GET', path, { discard: true }); continue; }
            await listOnce(t, cell, path, r === 0);
          }
        }
      }
      if (r >= 0) log(`round ${r + 1}/${runs} done`);
    }
    const rows = cells.map((c) => {
      const identity = cells.find((x) => x.target === c.target && x.list === c.list && !x.gzip)!;
      return [c.target, c.list, c.gzip ? 'gzip' : '(none)', String(c.items), `${(c.bytes / 1e6).toFixed(2)} MB`,
        `**${fmtMs(median(c.ms))}**`, `${fmtMs(median(c.cpuMs))}`, c.gunzipMs.length ? fmtMs(median(c.gunzipMs)) : '–',
        c.gzip ? `${(identity.bytes / c.bytes).toFixed(1)}× smaller, ${(median(c.ms) / median(identity.ms)).toFixed(2)}× time, ${(median(c.cpuMs) / median(identity.cpuMs)).toFixed(2)}× CPU` : ''];
    });
    const perItem = (list: string) => {
      const c = cells.find((x) => x.list === list && !x.gzip)!;
      return `${(c.bytes / c.items / 1000).toFixed(1)} KB`;
    };
    const body = [
      ...sectionHead(repoRoot, `## Gzipped API responses at ${nodes.toLocaleString('en-US')} nodes and ${pods.toLocaleString('en-US')} pods (bench/compression.ts)`),
      `- Setup: a fresh \`k8ts server --controllers none\` on SQLite per build${values.baseline ? ` (this build and the baseline at ${values.baseline})` : ''}, ${nodes.toLocaleString('en-US')} Nodes (${perItem(lists[0]!.list)} each as listed) and ${pods.toLocaleString('en-US')} DaemonSet-style pods (${perItem(lists[1]!.list)} each as listed, with the server's fields); JSON lists (\`Accept: application/json\`, no resourceVersion: served from the watch cache), with and without \`Accept-Encoding: gzip\`, one at a time over a keep-alive HTTPS connection on loopback, ${runs} interleaved rounds after a warm-up list; medians. Time is request to last byte; CPU is the server process's (user + system, all threads, 10 ms ticks) across the list; gunzip is the client's. Load average at start: ${load0.toFixed(1)}.`,
      '',
      table(['Server', 'List', 'Accept-Encoding', 'Items', 'On the wire', 'Time p50', 'Server CPU p50', 'Client gunzip p50', 'gzip against none'], rows),
    ].join('\n');
    console.log(body);
    if (!values['no-write']) writeSection(resultsFile, 'compression', body);
  } finally {
    for (const t of targets) { t.client.close(); await t.server.stop(); }
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
