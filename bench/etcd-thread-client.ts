/**
 * The etcd client the API server runs on one server (src/storage/etcd/thread-client.ts: the channel
 * client on a thread of its own) alone, without the API server around it: pod-sized
 * create-if-absent Txns and their watch events (a watch of the prefix with prev_kv, as the watch
 * cache's feed), every event awaited. Reports the CPU per create of the calling thread (what the
 * serving loop pays) and of the whole process (both threads and V8's), for this checkout and, with
 * `--baseline DIR`, a built checkout of another revision, each cell in a fresh process, in
 * interleaved rounds against one etcd. The per-create CPU of the etcd client without the noise of
 * the rest of a create, for A/B of the client itself (bench/RESULTS.md `etcd6-2026-12-06`), and
 * etcd's own. `--op update` updates instead (each caller its own key, guarded by its revision);
 * `--prev-kv off` opens the watch without prev_kv, `--prev-kv ab` compares the two on this
 * checkout (bench/RESULTS.md `etcd7-2026-12-06`: what the watch cache's feed saves etcd). `--feed off` opens
 * no watch at all, `--feed ab` compares the watch (as --prev-kv says) against none on this checkout:
 * what the watch cache's feed costs a create in the client and in etcd (bench/RESULTS.md `etcd9-2026-12-06`).
 * `--update-answer` says what an update asks etcd to answer on success: `prev-kv` (the previous value, as
 * the backend did before etcd11), `create-revision` (a keys-only Range after the Put, as it does since),
 * `ab` both on this checkout (bench/RESULTS.md `etcd11-2026-12-07`). `--pad N`: the value's padding
 * (1,200: a 1.4 KB value; a scale run's pods are about 4.5 KB).
 *
 *   node dist/bench/etcd-thread-client.js [--rounds 5] [--calls 8000] [--concurrency 16,64] [--baseline DIR]
 *     [--op create|update] [--prev-kv on|off|ab] [--feed on|off|ab] [--update-answer prev-kv|create-revision|ab]
 *     [--pad 1200] [--section NAME] [--no-write]
 *
 * Needs /usr/bin/etcd (Debian's etcd-server); everything binds to 127.0.0.1.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { EtcdClient } from '../src/storage/etcd/client.js';
import { startEtcd } from './lib/etcd.js';
import { cpuRows, type CpuSample } from './lib/cpu-rows.js';
import { median } from './lib/stats.js';
import { readCpuMs, readThreadCpuMs } from './lib/server.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

type Sample = CpuSample;

type Op = 'create' | 'update';

/** The cell's watch of the prefix: with prev_kv, without, or none at all (no feed). */
type Feed = 'on' | 'off' | 'none';

/** What an update asks etcd to answer on success (see the file's comment). */
type Answer = 'prev-kv' | 'create-revision';

/**
 * One cell, in this process: `checkout`'s thread client, a warm-up of 2,000 calls, then `calls`
 * measured: creates of new keys, or updates (each of `concurrency` keys updated again and again,
 * guarded by its last revision). The watch asks etcd for prev_kv or not, or there is none (its
 * events are then not awaited); etcd's CPU is read from /proc of `etcdPid` over the measured calls.
 */
async function cell(
  checkout: string, url: string, calls: number, concurrency: number, tag: string, op: Op, feed: Feed, etcdPid: number, answer: Answer, pad: number,
): Promise<Sample & { etcdUs: number }> {
  const { threadClient } = await import(pathToFileURL(join(checkout, 'dist', 'src', 'storage', 'etcd', 'thread-client.js')).href) as { threadClient(o: { url: string }): EtcdClient };
  const { prefixRange } = await import(pathToFileURL(join(checkout, 'dist', 'src', 'storage', 'etcd', 'keys.js')).href) as { prefixRange(p: string): { key: Buffer; range_end: Buffer } };
  const client = threadClient({ url });
  const prefix = `/registry/pods/${tag}/`;
  let seen = 0;
  let written = 0;
  if (feed !== 'none') {
    await new Promise<void>((ready) => {
      const { key, range_end: rangeEnd } = prefixRange(prefix);
      client.watch({ key, rangeEnd, startRevision: 0, prevKv: feed === 'on' }, {
        onResponse: (res) => { if (res.created) ready(); seen += res.events.length; },
        onError: (err) => { if (!/closed/.test(err.message)) console.error('watch ended:', err.message); },
      });
    });
  }
  // Without a watch nothing is awaited but the writes themselves.
  const events = () => (feed === 'none' ? written : seen);
  const value = JSON.stringify({ kind: 'Pod', apiVersion: 'v1', metadata: { name: tag, namespace: 'load', labels: { load: 'yes' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] }, pad: 'x'.repeat(pad) });
  const updated = answer === 'prev-kv' ? { value, prevKv: true } : { value, prevKv: false, createRevision: true };
  const revisions: number[] = [];
  if (op === 'update') {
    for (let k = 0; k < concurrency; k++) revisions.push((await client.txn({ key: `${prefix}u-${k}`, guard: 'create', revision: 0, put: { value, prevKv: false } })).revision);
    written += concurrency;
    while (events() < concurrency) await new Promise((r) => setTimeout(r, 1));
  }
  const run = async (n: number, label: string) => {
    const seen0 = events();
    let next = 0;
    await Promise.all(Array.from({ length: concurrency }, async (_, k) => {
      while (next < n) {
        const i = next++;
        const r = op === 'create'
          ? await client.txn({ key: `${prefix}${label}-${i}`, guard: 'create', revision: 0, put: { value, prevKv: false } })
          : await client.txn({ key: `${prefix}u-${k}`, guard: 'mod', revision: revisions[k], put: updated });
        if (!r.succeeded) throw new Error(`${op} ${label}-${i} lost its guard`);
        written++;
        revisions[k] = r.revision;
      }
    }));
    while (events() - seen0 < n) await new Promise((r) => setTimeout(r, 1));
  };
  await run(2000, 'warm');
  const main0 = readThreadCpuMs(process.pid);
  const etcd0 = readCpuMs(etcdPid);
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await run(calls, 'm');
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  const sample = {
    mainUs: ((readThreadCpuMs(process.pid) - main0) * 1000) / calls, processUs: (cpu.user + cpu.system) / calls, perSec: calls / secs,
    etcdUs: ((readCpuMs(etcdPid) - etcd0) * 1000) / calls,
  };
  client.close();
  return sample;
}

async function main(): Promise<void> {
  const { values } = benchArgs('The etcd thread client alone: CPU of the calling thread and of the process per create Txn with its watch event, this checkout against --baseline, interleaved.', {
    options: {
      rounds: { type: 'string', default: '5' }, calls: { type: 'string', default: '8000' }, concurrency: { type: 'string', default: '16,64' },
      baseline: { type: 'string', help: 'a built checkout of another revision (its dist/src)' },
      section: { type: 'string', default: 'etcd-thread-client' }, 'no-write': { type: 'boolean', default: false },
      op: { type: 'string', default: 'create', help: 'create (new keys) or update (each in-flight caller updates its own key)' },
      'prev-kv': { type: 'string', default: 'on', help: 'the watch asks for prev_kv: on, off, or ab (on against off with this checkout, instead of --baseline)' },
      feed: { type: 'string', default: 'on', help: 'the watch of the prefix: on, off (none), or ab (the watch against none with this checkout, instead of --baseline)' },
      'update-answer': { type: 'string', default: 'prev-kv', help: 'what an update asks etcd to answer: prev-kv, create-revision (a keys-only range after the put), or ab (both with this checkout, instead of --baseline)' },
      pad: { type: 'string', default: '1200', help: 'the value\'s padding in bytes (1200: a 1.4 KB value)' },
      cell: { type: 'string', help: 'internal: run one cell (CHECKOUT,URL,CALLS,CONCURRENCY,TAG,OP,PREVKV,ETCDPID,ANSWER,PAD) and print its JSON' },
    },
  });
  if (values.cell) {
    const [checkout, url, calls, concurrency, tag, op, feed, etcdPid, answer, pad] = values.cell.split(',');
    console.log(JSON.stringify(await cell(checkout, url, Number(calls), Number(concurrency), tag, op as Op, feed as Feed, Number(etcdPid), answer as Answer, Number(pad))));
    return;
  }
  const op = values.op as Op;
  if (op !== 'create' && op !== 'update') throw new Error('--op is create or update');
  const prevKvMode = values['prev-kv']!;
  const feedMode = values.feed!;
  if (prevKvMode === 'ab' && feedMode !== 'on') throw new Error('--prev-kv ab compares two watches: leave --feed on');
  const answerMode = values['update-answer']!;
  if (!['prev-kv', 'create-revision', 'ab'].includes(answerMode)) throw new Error('--update-answer is prev-kv, create-revision or ab');
  if (answerMode === 'ab' && (op !== 'update' || prevKvMode === 'ab' || feedMode === 'ab')) throw new Error('--update-answer ab compares two updates: use it with --op update alone');
  const pad = Number(values.pad);
  if (!Number.isInteger(pad) || pad < 0) throw new Error('--pad is a number of bytes');
  const answer: Answer = answerMode === 'ab' ? 'prev-kv' : answerMode as Answer;
  const watch: Feed = feedMode === 'off' ? 'none' : prevKvMode === 'on' ? 'on' : 'off';
  // [row name, checkout, the cell's watch, an update's answer]
  const targets: Array<[string, string, Feed, Answer]> = prevKvMode === 'ab'
    ? [['watch with prev_kv', repoRoot, 'on', answer], ['watch without prev_kv', repoRoot, 'off', answer]]
    : feedMode === 'ab'
      ? [[`watch (${watch === 'on' ? 'prev_kv' : 'no prev_kv'})`, repoRoot, watch, answer], ['no watch', repoRoot, 'none', answer]]
      : answerMode === 'ab'
        ? [['update answering prev_kv', repoRoot, watch, 'prev-kv'], ['update answering the create revision', repoRoot, watch, 'create-revision']]
        : [['this checkout', repoRoot, watch, answer], ...(values.baseline ? [['baseline', resolve(values.baseline), watch, answer] as [string, string, Feed, Answer]] : [])];
  const levels = values.concurrency!.split(',').map(Number);
  const load0 = loadavg()[0];
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-etcd-thread-client-'));
  const etcd = await startEtcd(dir);
  const samples = new Map<string, Array<Sample & { etcdUs: number }>>();
  try {
    for (let r = 0; r < Number(values.rounds); r++) {
      for (const c of levels) {
        for (const [name, checkout, feed, cellAnswer] of targets) {
          const tag = `r${r}-c${c}-${name.replace(/\W/g, '')}`;
          const { stdout } = await promisify(execFile)(process.execPath, [fileURLToPath(import.meta.url), '--cell', [checkout, etcd.url, values.calls, c, tag, op, feed, etcd.pid, cellAnswer, pad].join(',')]);
          const s = JSON.parse(stdout.trim().split('\n').pop()!) as Sample & { etcdUs: number };
          console.log(`round ${r + 1}, ${name}, ${c} in flight: ${s.perSec.toFixed(0)} ${op}s/s, calling thread ${s.mainUs.toFixed(1)} µs, process ${s.processUs.toFixed(1)} µs, etcd ${s.etcdUs.toFixed(0)} µs per ${op}`);
          samples.set(`${name}\t${c}`, [...(samples.get(`${name}\t${c}`) ?? []), s]);
        }
      }
    }
  } finally {
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  // etcd's CPU per call, after cpuRows' columns.
  const rows = cpuRows(samples, ['processUs', 'mainUs'], 1).map((row, i) => {
    const s = [...samples.values()][i];
    return [...row, `${median(s.map((x) => x.etcdUs)).toFixed(0)} µs`, s.map((x) => x.etcdUs.toFixed(0)).join(', ')];
  });
  const size = `${((pad + 200) / 1000).toFixed(1)} KB pod-like values`;
  const answered = answerMode === 'ab' ? 'answering the previous value (prev_kv) in one row, the key without its value (a keys-only Range after the Put) in the other'
    : answer === 'prev-kv' ? 'answering the previous value (prev_kv)' : 'answering the key without its value (a keys-only Range after the Put)';
  const what = op === 'create' ? `create-if-absent Txns (${size}, new keys)` : `guarded update Txns (${size}, each caller its own key, ${answered})`;
  const kv = watch === 'on' ? 'prev_kv' : 'no prev_kv';
  const watchWhat = prevKvMode === 'ab' ? 'with a watch of the prefix (with prev_kv in one row, without in the other) whose events are all awaited'
    : feedMode === 'ab' ? `with a watch of the prefix (${kv}) whose events are all awaited in one row, and no watch in the other`
      : watch === 'none' ? 'with no watch (the writes alone awaited)' : `with a watch of the prefix (${kv}) whose events are all awaited`;
  const body = [
    ...sectionHead(repoRoot, `## The etcd thread client alone (${values.section})`),
    `- Setup: ${values.calls} ${what} per cell through src/storage/etcd/thread-client.ts of each checkout, after 2,000 unmeasured, ${watchWhat}; one fresh process per cell, one private etcd (Debian's 3.4) for the run; ${values.rounds} interleaved rounds, medians. Calling thread CPU from /proc (10 ms ticks), process CPU from process.cpuUsage, etcd's from /proc over the measured calls. Load average at start: ${load0.toFixed(1)}.`,
    '',
    table(['Client', 'In flight', `Process CPU per ${op} (median)`, 'Rounds', `Calling thread CPU per ${op}`, 'Rounds', `${op === 'create' ? 'Creates' : 'Updates'}/s`, `etcd CPU per ${op}`, 'Rounds'], rows),
  ].join('\n');
  console.log(body);
  if (!values['no-write']) writeSection(join(repoRoot, 'bench', 'RESULTS.md'), values.section!, body);
}

await main();
