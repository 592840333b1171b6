/**
 * Lists at 10,000 pods with and without the watch cache, in one run: for each storage (SQLite,
 * a fresh private etcd) a fresh `k8ts server --controllers none` with the cache (default) and
 * one with `--default-watch-cache-size 0` (lists read storage, as before the cache), the same
 * 10,000 ~1.3 KB pods (label `shard: s-0..s-99`, 100 pods each), then each list shape timed
 * `--runs` times one after the other; p50 and p99 of the runs. Results to bench/RESULTS.md.
 *
 *   node dist/bench/list-cache.js [--pods 10000] [--runs 50] [--no-etcd] [--no-write]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiClient } from './lib/client.js';
import { runConcurrent, podName } from './lib/load.js';
import { daemonSetPod } from './lib/pods.js';
import { startServer } from './lib/server.js';
import { startEtcd } from './lib/etcd.js';
import { fmtMs, percentile } from './lib/stats.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');
const pods = '/api/v1/namespaces/bench/pods';

const shapes = [
  { what: 'label selector (100 of N), no resourceVersion', query: '?labelSelector=shard%3Ds-7' },
  { what: 'label selector (100 of N), resourceVersion=0', query: '?labelSelector=shard%3Ds-7&resourceVersion=0' },
  { what: 'field selector (1 of N), no resourceVersion', query: '?fieldSelector=metadata.name%3Dp-000042' },
  { what: 'first page, limit=500, no resourceVersion', query: '?limit=500' },
  { what: 'full list, resourceVersion=0', query: '?resourceVersion=0' },
  { what: 'full list, no resourceVersion', query: '' },
];

const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);

interface Cell { storage: string; cache: boolean; what: string; p50: number; p99: number; items: number }

async function measure(storage: 'sqlite' | 'etcd', cache: boolean, count: number, runs: number): Promise<Cell[]> {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-lists-'));
  const etcd = storage === 'etcd' ? await startEtcd(join(dir, 'etcd')) : undefined;
  const server = await startServer({
    cliPath: join(repoRoot, 'dist', 'src', 'cli', 'main.js'), dataDir: join(dir, 'data'),
    serverArgs: ['--controllers', 'none', ...(etcd ? ['--etcd-servers', etcd.url] : []), ...(cache ? [] : ['--default-watch-cache-size', '0'])],
  });
  const client = new ApiClient(server.creds, 32);
  try {
    await client.expect(201, 'POST', '/api/v1/namespaces', { body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } }) });
    await runConcurrent(0, count, 32, async (i) => {
      const pod = daemonSetPod('bench', podName('p', i), `node-${i % 5000}`) as { metadata: { labels: Record<string, string> } };
      pod.metadata.labels.shard = `s-${i % 100}`;
      return (await client.expect(201, 'POST', pods, { body: JSON.stringify(pod) })).ms;
    });
    const cells: Cell[] = [];
    for (const shape of shapes) {
      const times: number[] = [];
      let items = 0;
      const n = shape.query.includes('limit') || shape.query.includes('Selector') ? runs : Math.max(5, Math.round(runs / 5));
      for (let r = 0; r < n; r++) {
        const reply = await client.expect(200, 'GET', pods + shape.query, { discard: r > 0 });
        if (r === 0) items = JSON.parse(reply.body.toString('utf8')).items.length;
        times.push(reply.ms);
      }
      cells.push({ storage, cache, what: `${shape.what} (${n} runs)`, p50: percentile(times, 50), p99: percentile(times, 99), items });
      log(`${storage} cache=${cache} ${shape.what}: p50 ${fmtMs(percentile(times, 50))} p99 ${fmtMs(percentile(times, 99))} items ${items}`);
    }
    return cells;
  } finally {
    client.close();
    await server.stop();
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = benchArgs('Lists at 10,000 pods with and without the watch cache, on SQLite and etcd.', {
    options: {
      pods: { type: 'string', default: '10000' }, runs: { type: 'string', default: '50' },
      'no-etcd': { type: 'boolean', default: false }, 'no-write': { type: 'boolean', default: false },
    },
  });
  const count = Number(values.pods);
  const runs = Number(values.runs);
  const load0 = loadavg()[0]!;
  const cells: Cell[] = [];
  for (const storage of values['no-etcd'] ? ['sqlite' as const] : ['sqlite' as const, 'etcd' as const]) {
    cells.push(...await measure(storage, false, count, runs));
    cells.push(...await measure(storage, true, count, runs));
  }
  const rows: string[][] = [];
  for (const c of cells.filter((x) => x.cache)) {
    const before = cells.find((x) => !x.cache && x.storage === c.storage && x.what === c.what)!;
    rows.push([c.storage === 'sqlite' ? 'SQLite' : 'etcd', c.what, String(c.items), `${fmtMs(before.p50)} / ${fmtMs(before.p99)}`,
      `**${fmtMs(c.p50)}** / ${fmtMs(c.p99)}`, `${(before.p50 / c.p50).toFixed(1)}×`]);
  }
  const body = [
    ...sectionHead(repoRoot, `## Lists at ${count.toLocaleString('en-US')} pods, with and without the watch cache (bench/list-cache.ts)`),
    `- Setup: a fresh \`k8ts server --controllers none\` per cell, without the cache (\`--default-watch-cache-size 0\`: every list reads storage) then with it; ${count.toLocaleString('en-US')} DaemonSet-style pods of ~1.3 KB in one namespace, label \`shard\` with 100 values; lists of that namespace, JSON, one at a time over a keep-alive connection, times from request to last byte. Load average at start: ${load0.toFixed(1)}.`,
    '',
    table(['Storage', 'List', 'Items', 'Without cache p50 / p99', 'With cache p50 / p99', 'p50 speed-up'], rows),
  ].join('\n');
  console.log(body);
  if (!values['no-write']) writeSection(resultsFile, 'list-cache', body);
}

main().catch((e) => { console.error(e); process.exit(1); });
