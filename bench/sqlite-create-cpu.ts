/**
 * CPU per create of the SQLite backend alone (storage/sqlite: group commit, its transactions, the
 * WAL's fsync), without HTTP: 16 clients in one process each create a pod's stored value (the
 * side-by-side pod's create answer, 1.9 KB) under its own key, and after each acknowledgement wait
 * 0 to 3 turns of the event loop before the next, so that writes arrive spread over loop turns
 * while an fsync runs, as a server's requests do. A file database in a temp dir, as `k8ts server`
 * opens it; CPU is process.cpuUsage (every thread: the fsync's and the checkpointer's too) per
 * create over the batches after the first five; medians of the batches, then of the rounds. In a
 * fresh process per build and round; with `--baseline-dist` another build's backend runs the same
 * rounds, interleaved with this one's.
 *
 *   node dist/bench/sqlite-create-cpu.js [--rounds 6] [--batches 20] [--batch 2000] [--baseline-dist /tmp/base/dist]
 *
 * Prints a Markdown table; results are copied into bench/RESULTS.md by hand.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Backend } from '../src/storage/backend.js';
import { createdPod } from './lib/pods.js';
import { median } from './lib/stats.js';
import { buildRoundsMain } from './lib/builds-in-children.js';

const clients = 16;
const quiet = { info() {}, warn() {}, error() {} };
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** `count` creates by the clients, numbered from `from`. */
async function creates(backend: Backend, from: number, count: number): Promise<void> {
  let next = from;
  const end = from + count;
  const client = async () => {
    while (next < end) {
      const i = next++;
      const value = JSON.stringify(createdPod(`p-${i}`, randomUUID(), 'abcde'));
      const r = await backend.create(`/registry/pods/bench/p-${i}`, value);
      if (!r.ok) throw new Error('create lost its guard');
      for (let t = Math.floor(Math.random() * 4); t > 0; t--) await turn();
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
}

/** One round in this process: µs of CPU per create, the median of the measured batches. */
async function child(dist: string, batches: number, batch: number): Promise<number> {
  const { openSqliteBackend } = await import(pathToFileURL(join(dist, 'src', 'storage', 'sqlite', 'index.js')).href) as
    { openSqliteBackend(path: string, opts: object): Backend };
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-sqlite-cpu-'));
  const backend = openSqliteBackend(join(dir, 'state.db'), { compactIntervalMs: 0, logger: quiet });
  const perCreate: number[] = [];
  try {
    for (let b = 0; b < batches; b++) {
      const t0 = process.cpuUsage();
      await creates(backend, b * batch, batch);
      const t = process.cpuUsage(t0);
      if (b >= 5) perCreate.push((t.user + t.system) / batch);
    }
  } finally {
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return median(perCreate);
}

await buildRoundsMain({
  script: import.meta.url, description: 'CPU per create of the SQLite backend alone (group commit, transactions, fsync), 16 clients, in a fresh process per build and round.',
  defaults: { rounds: '6', batches: '20', batch: '2000' }, child,
  title: 'sqlite-create-cpu', column: 'CPU µs per create (median)', digits: 1, unit: 'creates',
});
