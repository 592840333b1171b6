/**
 * What the etcd client would take off the serving loop on a thread of its own: pod-sized
 * create-if-absent Txns and the watch events they cause (as the watch cache's feed receives them),
 * either through the backend's channel client on this thread ("on the loop", as the server runs
 * today) or through the same client in a worker thread, requests and answers crossing by
 * postMessage in one batch per loop turn each way ("hop"). Reports the main thread's CPU per
 * create (what the serving loop would pay) and the whole process's (what the two cores pay),
 * in interleaved rounds. An experiment for docs/threads.md's "storage calls on the loop", not
 * a change of the server.
 *
 *   node dist/bench/etcd-thread-hop.js [--rounds 5] [--calls 4000] [--concurrency 16,64] [--section etcd-thread-hop] [--no-write]
 *
 * Needs /usr/bin/etcd (Debian's etcd-server); everything binds to 127.0.0.1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { channelClient } from '../src/storage/etcd/channel-client.js';
import { prefixRange } from '../src/storage/etcd/keys.js';
import type { EtcdClient } from '../src/storage/etcd/client.js';
import { startEtcd } from './lib/etcd.js';
import { cpuRows, type CpuSample } from './lib/cpu-rows.js';
import { readThreadCpuMs } from './lib/server.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PREFIX = '/registry/pods/hop/';

interface TxnRequest { id: number; key: string; value: string }
/** A Txn's answer: id, revision, succeeded. */
type Answer = [number, number, boolean];
/** A watch event as it crosses: key, value, mod revision. */
type Event = [string, string, number];
interface FromWorker { ready?: boolean; answers: Answer[]; events: Event[] }

/** Opens the feed-like watch (the whole prefix, with prev_kv) and calls `ready` once etcd created it. */
function watchAll(client: EtcdClient, onEvents: (events: Event[]) => void, ready: () => void): void {
  const { key, range_end: rangeEnd } = prefixRange(PREFIX);
  client.watch({ key, rangeEnd, startRevision: 0, prevKv: true }, {
    onResponse: (res) => {
      if (res.created) ready();
      if (res.events.length) onEvents(res.events.map((e) => [e.kv.key, e.kv.value, e.kv.modRevision]));
    },
    onError: (err) => { if (!/closed|cancel/i.test(err.message)) console.error('watch ended:', err.message); },
  });
}

/** The worker: the channel client and its watch, answers and events sent back once per loop turn. */
function serveInWorker(): void {
  const port = parentPort!;
  const client = channelClient({ url: (workerData as { url: string }).url });
  let answers: Answer[] = [];
  let events: Event[] = [];
  let scheduled = false;
  const flush = () => { scheduled = false; port.postMessage({ answers, events } satisfies FromWorker); answers = []; events = []; };
  const later = () => { if (!scheduled) { scheduled = true; setImmediate(flush); } };
  watchAll(client, (evs) => { events.push(...evs); later(); }, () => port.postMessage({ ready: true, answers: [], events: [] } satisfies FromWorker));
  port.on('message', (m: { txns?: TxnRequest[]; close?: boolean }) => {
    if (m.close) { client.close(); port.close(); return; }
    for (const t of m.txns ?? []) {
      client.txn({ key: t.key, guard: 'create', revision: 0, put: { value: t.value, prevKv: false } }).then(
        (res) => { answers.push([t.id, res.revision, res.succeeded]); later(); },
        () => { answers.push([t.id, 0, false]); later(); },
      );
    }
  });
}

/** What a round drives: a create, and a count of the watch events seen. */
interface Target { create(key: string, value: string): Promise<boolean>; seen: number; close(): void }

function onLoop(url: string): Promise<Target> {
  const client = channelClient({ url });
  return new Promise((resolve) => {
    const t: Target = {
      create: async (key, value) => (await client.txn({ key, guard: 'create', revision: 0, put: { value, prevKv: false } })).succeeded,
      seen: 0,
      close: () => client.close(),
    };
    watchAll(client, (evs) => { t.seen += evs.length; }, () => resolve(t));
  });
}

function hop(url: string): Promise<Target> {
  const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { url } });
  const waiting = new Map<number, (ok: boolean) => void>();
  let batch: TxnRequest[] = [];
  let nextId = 0;
  let scheduled = false;
  const flush = () => { scheduled = false; worker.postMessage({ txns: batch }); batch = []; };
  return new Promise((resolve) => {
    const t: Target = {
      create: (key, value) => new Promise((done) => {
        const id = nextId++;
        waiting.set(id, done);
        batch.push({ id, key, value });
        if (!scheduled) { scheduled = true; setImmediate(flush); }
      }),
      seen: 0,
      close: () => { worker.postMessage({ close: true }); void worker.terminate(); },
    };
    worker.on('message', (m: FromWorker) => {
      if (m.ready) { resolve(t); return; }
      for (const [id, , ok] of m.answers) { waiting.get(id)?.(ok); waiting.delete(id); }
      t.seen += m.events.length;
    });
  });
}

type Sample = CpuSample;

async function run(target: Target, calls: number, concurrency: number, tag: string): Promise<Sample> {
  const value = JSON.stringify({ kind: 'Pod', metadata: { name: tag }, pad: 'x'.repeat(1800) });
  const seen0 = target.seen;
  let next = 0;
  const main0 = readThreadCpuMs(process.pid);
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < calls) {
      const i = next++;
      if (!await target.create(`${PREFIX}${tag}-${i}`, value)) throw new Error(`create of ${tag}-${i} lost its guard`);
    }
  }));
  // Every create's event in too, as the feed needs it.
  while (target.seen - seen0 < calls) await new Promise((r) => setTimeout(r, 1));
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  return { mainUs: ((readThreadCpuMs(process.pid) - main0) * 1000) / calls, processUs: (cpu.user + cpu.system) / calls, perSec: calls / secs };
}

async function main(): Promise<void> {
  const { values } = benchArgs('Main-thread and process CPU per create Txn (with its watch event) of the etcd client on the loop or in a worker thread.', {
    options: {
      rounds: { type: 'string', default: '5' }, calls: { type: 'string', default: '4000' }, concurrency: { type: 'string', default: '16,64' },
      section: { type: 'string', default: 'etcd-thread-hop' }, 'no-write': { type: 'boolean', default: false },
    },
  });
  const rounds = Number(values.rounds);
  const calls = Number(values.calls);
  const levels = values.concurrency!.split(',').map(Number);
  const load0 = loadavg()[0];
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-etcd-hop-'));
  const etcd = await startEtcd(dir);
  const targets: Array<[string, Target]> = [['on the loop', await onLoop(etcd.url)], ['hop to a worker', await hop(etcd.url)]];
  const samples = new Map<string, Sample[]>();
  try {
    for (const [name, t] of targets) await run(t, calls, levels[0], `warm-${name.replace(/\W/g, '')}`);
    for (let r = 0; r < rounds; r++) {
      for (const c of levels) {
        for (const [name, t] of targets) {
          const s = await run(t, calls, c, `r${r}-c${c}-${name.replace(/\W/g, '')}`);
          console.log(`round ${r + 1}, ${name}, ${c} in flight: ${s.perSec.toFixed(0)} creates/s, main thread ${s.mainUs.toFixed(1)} µs, process ${s.processUs.toFixed(1)} µs per create`);
          const key = `${name}\t${c}`;
          samples.set(key, [...(samples.get(key) ?? []), s]);
        }
      }
    }
  } finally {
    for (const [, t] of targets) t.close();
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const rows = cpuRows(samples, ['mainUs', 'processUs'], 0);
  const body = [
    ...sectionHead(repoRoot, `## The etcd client on the loop or on its own thread (${values.section})`),
    `- Setup: ${calls} create-if-absent Txns (2 KB values, new keys) per cell through the backend's channel client against a fresh private etcd (Debian's 3.4), with a watch of the prefix (prev_kv, as the watch cache's feed) whose events are all awaited; "hop": the same client in a worker thread, requests and answers and events crossing by postMessage in one batch per loop turn each way. ${rounds} interleaved rounds after a warm-up, medians. Main thread CPU from /proc (10 ms ticks), process CPU from process.cpuUsage. Load average at start: ${load0.toFixed(1)}.`,
    '',
    table(['Client', 'In flight', 'Main thread CPU per create (median)', 'Rounds', 'Process CPU per create', 'Rounds', 'Creates/s'], rows),
  ].join('\n');
  console.log(body);
  if (!values['no-write']) writeSection(join(repoRoot, 'bench', 'RESULTS.md'), values.section!, body);
}

if (isMainThread) await main(); else serveInWorker();
