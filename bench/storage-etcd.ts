/**
 * The storage backends side by side, without HTTP: guarded creates per second (one at a time
 * and 64 in flight) and a list of every key, on SQLite (a file in a temp dir, as `k8ts server`
 * uses) and on a private etcd (Debian's /usr/bin/etcd, one member, data in a temp dir).
 * Writes a section of bench/RESULTS.md.
 *
 *   node dist/bench/storage-etcd.js [--count 2000] [--rounds 3]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Backend } from '../src/storage/backend.js';
import { openEtcdBackend } from '../src/storage/etcd/index.js';
import { openSqliteBackend } from '../src/storage/sqlite/index.js';
import { startEtcd } from '../test/e2e/etcd.js';
import { runConcurrent } from './lib/load.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { fmtMs, fmtRate, median, msSince, percentile } from './lib/stats.js';
import { benchArgs } from './lib/args.js';

const repo = join(import.meta.dirname, '..', '..');
const { values } = benchArgs('SQLite and a private etcd side by side without HTTP: guarded creates/s and a full list.', { options: { count: { type: 'string', default: '2000' }, rounds: { type: 'string', default: '3' } } });
const count = Number(values.count);
const rounds = Number(values.rounds);
const quiet = { info() {}, error() {} };
const value = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'bench' }, data: { k: 'v'.repeat(200) } });

interface Row { backend: string; shape: string; perSec: number[]; latencies: number[] }

async function creates(backend: Backend, prefix: string, concurrency: number): Promise<{ perSec: number; latencies: number[] }> {
  const { latencies, wallMs } = await runConcurrent(0, count, concurrency, async (i) => {
    const start = process.hrtime.bigint();
    const r = await backend.create(`${prefix}${String(i).padStart(6, '0')}`, value);
    if (!r.ok) throw new Error('create lost its guard');
    return msSince(start);
  });
  return { perSec: count / (wallMs / 1000), latencies };
}

async function measure(name: string, backend: Backend): Promise<Row[]> {
  const rows: Row[] = [];
  for (const concurrency of [1, 64]) {
    const row: Row = { backend: name, shape: `create, ${concurrency} in flight`, perSec: [], latencies: [] };
    for (let r = 0; r < rounds; r++) {
      const run = await creates(backend, `/registry/core/configmaps/bench-${concurrency}-${r}/`, concurrency);
      row.perSec.push(run.perSec);
      row.latencies.push(...run.latencies);
    }
    rows.push(row);
  }
  const list: Row = { backend: name, shape: `list ${count} keys`, perSec: [], latencies: [] };
  for (let r = 0; r < 5; r++) {
    const start = process.hrtime.bigint();
    const { kvs } = await backend.list('/registry/core/configmaps/bench-64-0/');
    if (kvs.length !== count) throw new Error(`listed ${kvs.length}`);
    list.latencies.push(msSince(start));
  }
  rows.push(list);
  return rows;
}

const dir = mkdtempSync(join(tmpdir(), 'k8ts-bench-storage-'));
const etcd = await startEtcd();
const rows: Row[] = [];
try {
  const sqlite = openSqliteBackend(join(dir, 'state.db'), { compactIntervalMs: 0, logger: quiet });
  rows.push(...await measure('SQLite', sqlite));
  await sqlite.close();
  const onEtcd = openEtcdBackend({ servers: [etcd.url], compactIntervalMs: 0, logger: quiet });
  rows.push(...await measure('etcd', onEtcd));
  await onEtcd.close();
} finally {
  await etcd.stop();
  rmSync(dir, { recursive: true, force: true });
}

const etcdVersion = execFileSync('etcd', ['--version'], { encoding: 'utf8' }).split('\n')[0];
const fs = execFileSync('df', ['-T', tmpdir()], { encoding: 'utf8' }).trim().split('\n').pop()!.split(/\s+/)[1];
const byShape = (shape: string, backend: string) => rows.find((r) => r.shape === shape && r.backend === backend)!;
const body = [
  ...sectionHead(repo, '## Storage: SQLite vs etcd (Backend calls, no HTTP)'),
  `- Setup: ${etcdVersion}, one member on 127.0.0.1 with its data in ${tmpdir()} (${fs}); SQLite in a file in the same directory (WAL, group commit). ` +
    `Each create is a guarded create of a new key with a ~300-byte value, acknowledged after it is durable (etcd: raft commit + fsync; SQLite: commit + fsync). ` +
    `${rounds} rounds of ${count} creates per shape; creates/s is the median round (min-max in brackets); latencies over all rounds. The list reads every key of one round at the latest revision (5 times).`,
  '',
  table(['Backend', 'Operation', 'Creates/s (median, min-max)', 'p50', 'p99'], rows.map((r) => [
    r.backend, r.shape,
    r.perSec.length ? `**${fmtRate(median(r.perSec))}** (${fmtRate(Math.min(...r.perSec))}-${fmtRate(Math.max(...r.perSec))})` : '-',
    fmtMs(percentile(r.latencies, 50)), fmtMs(percentile(r.latencies, 99)),
  ])),
  '',
  `Ratios etcd / SQLite (median creates/s): one in flight ${(median(byShape('create, 1 in flight', 'etcd').perSec) / median(byShape('create, 1 in flight', 'SQLite').perSec)).toFixed(2)}, ` +
    `64 in flight ${(median(byShape('create, 64 in flight', 'etcd').perSec) / median(byShape('create, 64 in flight', 'SQLite').perSec)).toFixed(2)}; ` +
    `list p50 ${(percentile(byShape(`list ${count} keys`, 'etcd').latencies, 50) / percentile(byShape(`list ${count} keys`, 'SQLite').latencies, 50)).toFixed(2)}× SQLite's time.`,
];
writeSection(join(repo, 'bench', 'RESULTS.md'), 'storage-etcd', body.join('\n'));
console.log(body.join('\n'));
