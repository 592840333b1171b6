/**
 * `kubectl get pods -A` on etcd, page by page, against a baseline build: the first page comes from
 * the watch cache, every continue page is read from etcd at the list's revision (upstream 1.32
 * does the same). Per whole list: the etcd process's CPU, the server's CPU, the Ranges etcd
 * answered (its gRPC counter) and the wall time.
 *
 * One private etcd holds --pods pods (created once through this build's server); then, --runs
 * times, each build in turn (baseline first) starts a fresh `k8ts server --controllers none` on
 * that etcd, walks the list once to warm up and --walks times measured, and stops.
 *
 *   node dist/bench/etcd-paged-list.js --baseline DIR [--pods 20000] [--runs 3] [--walks 5] [--no-write]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiClient } from './lib/client.js';
import { podName, runConcurrent } from './lib/load.js';
import { daemonSetPod } from './lib/pods.js';
import { readCpuMs, startServer } from './lib/server.js';
import { readEtcdRanges, startEtcd, type Etcd } from './lib/etcd.js';
import { median, msSince } from './lib/stats.js';
import { machineLine, revisionLine, table, writeSection } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');
const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);

interface Walk { etcdCpuMs: number; serverCpuMs: number; ranges: number; wallMs: number; pages: number; items: number }

/** Every page of /api/v1/pods?limit=500, following the continue token. */
async function walk(client: ApiClient, etcd: Etcd, serverPid: number): Promise<Walk> {
  const e0 = readCpuMs(etcd.pid);
  const s0 = readCpuMs(serverPid);
  const r0 = await readEtcdRanges(etcd.url);
  const t0 = process.hrtime.bigint();
  let cont = '';
  let pages = 0;
  let items = 0;
  do {
    const reply = await client.expect(200, 'GET', `/api/v1/pods?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
    const list = JSON.parse(reply.body.toString('utf8')) as { items: unknown[]; metadata: { continue?: string } };
    pages++;
    items += list.items.length;
    cont = list.metadata.continue ?? '';
  } while (cont);
  const wallMs = msSince(t0);
  return { etcdCpuMs: readCpuMs(etcd.pid) - e0, serverCpuMs: readCpuMs(serverPid) - s0, ranges: (await readEtcdRanges(etcd.url)) - r0, wallMs, pages, items };
}

async function main(): Promise<void> {
  const { values } = benchArgs('kubectl get pods -A on etcd, page by page: etcd and server CPU and Ranges per list, against a baseline build.', {
    options: {
      baseline: { type: 'string' }, pods: { type: 'string', default: '20000' }, runs: { type: 'string', default: '3' },
      walks: { type: 'string', default: '5' }, 'no-write': { type: 'boolean', default: false },
    },
  });
  if (!values.baseline) throw new Error('--baseline DIR (a built checkout) is required');
  const builds = [
    { name: 'baseline', cliPath: join(values.baseline, 'dist', 'src', 'cli', 'main.js') },
    { name: 'this build', cliPath: join(repoRoot, 'dist', 'src', 'cli', 'main.js') },
  ];
  const pods = Number(values.pods);
  const work = mkdtempSync(join(tmpdir(), 'k8ts-bench-etcd-pages-'));
  const etcd = await startEtcd(join(work, 'etcd'));
  const dataDir = join(work, 'data');
  const load0 = loadavg()[0]!;
  const walks: Record<string, Walk[]> = { baseline: [], 'this build': [] };
  try {
    const seed = await startServer({ cliPath: builds[1]!.cliPath, dataDir, serverArgs: ['--controllers', 'none', '--etcd-servers', etcd.url] });
    const seeder = new ApiClient(seed.creds, 32);
    try {
      await seeder.expect(201, 'POST', '/api/v1/namespaces', { body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } }) });
      await runConcurrent(0, pods, 32, async (i) => (await seeder.expect(201, 'POST', '/api/v1/namespaces/bench/pods', { body: JSON.stringify(daemonSetPod('bench', podName('p', i), `node-${i % 5000}`)) })).ms);
    } finally {
      seeder.close();
      await seed.stop();
    }
    log(`${pods} pods created`);
    for (let run = 0; run < Number(values.runs); run++) {
      for (const b of builds) {
        const server = await startServer({ cliPath: b.cliPath, dataDir, serverArgs: ['--controllers', 'none', '--etcd-servers', etcd.url] });
        const client = new ApiClient(server.creds, 1);
        try {
          await walk(client, etcd, server.pid);
          for (let w = 0; w < Number(values.walks); w++) {
            const x = await walk(client, etcd, server.pid);
            walks[b.name]!.push(x);
            log(`${b.name} run ${run + 1}: ${x.items} pods in ${x.pages} pages, ${x.wallMs.toFixed(0)} ms; etcd CPU ${x.etcdCpuMs.toFixed(0)} ms, server CPU ${x.serverCpuMs.toFixed(0)} ms, ${x.ranges} Ranges; load ${loadavg()[0]!.toFixed(1)}`);
          }
        } finally {
          client.close();
          await server.stop();
        }
      }
    }
  } finally {
    await etcd.stop();
    rmSync(work, { recursive: true, force: true });
  }
  const span = (xs: number[]) => `**${median(xs).toFixed(0)}** (${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)})`;
  const rows = builds.map((b) => {
    const xs = walks[b.name]!;
    return [b.name, String(xs.length), String(xs[0]?.pages ?? 0), span(xs.map((x) => x.ranges)), span(xs.map((x) => x.etcdCpuMs)), span(xs.map((x) => x.serverCpuMs)), span(xs.map((x) => x.wallMs))];
  });
  const command = `node ${relative(repoRoot, process.argv[1]!)} ${process.argv.slice(2).join(' ')}`.trim();
  const md = [
    `## kubectl get pods -A on etcd, page by page, ${pods.toLocaleString('en-US')} pods (bench/etcd-paged-list.ts)`,
    '',
    `- Command: \`${command}\``,
    `- Date: ${new Date().toISOString()}; load average ${load0.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}`,
    `- Machine: ${machineLine()}`,
    `- Revision: ${revisionLine(repoRoot)}`,
    '- Per whole list (pages of 500, JSON, one at a time), median (min-max) over every measured walk:',
    '',
    table(['Build', 'Walks', 'Pages', 'etcd Ranges', 'etcd CPU ms', 'server CPU ms', 'wall ms'], rows),
  ].join('\n');
  console.log(`\n${md}`);
  if (!values['no-write']) writeSection(resultsFile, 'etcd-paged-list', md);
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
