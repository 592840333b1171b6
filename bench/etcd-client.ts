/**
 * The etcd client alone: CPU per pod-sized create-if-absent Txn of the backend's channel client
 * (src/storage/etcd/channel-client.ts) against a fresh private etcd, with C calls in flight, in
 * this process; `--baseline DIR` runs another built checkout's client in interleaved rounds in
 * the same process. What the API server spends in its etcd client per create, without the rest
 * of the server's work around it (bench/side-by-side.ts measures that).
 *
 *   node dist/bench/etcd-client.js [--rounds 5] [--calls 4000] [--concurrency 16,64] [--baseline DIR] [--section etcd-client] [--no-write]
 *
 * Needs /usr/bin/etcd (Debian's etcd-server); everything binds to 127.0.0.1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startEtcd } from './lib/etcd.js';
import { median } from './lib/stats.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import type { EtcdClient } from '../src/storage/etcd/client.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Sample { perSec: number; cpuUs: number }

async function clientOf(checkout: string, url: string): Promise<EtcdClient> {
  const mod = await import(pathToFileURL(join(checkout, 'dist', 'src', 'storage', 'etcd', 'channel-client.js')).href) as { channelClient(o: { url: string }): EtcdClient };
  return mod.channelClient({ url });
}

/** `calls` creates of new keys, `concurrency` in flight; CPU of this whole process (user + system) per call. */
async function run(client: EtcdClient, calls: number, concurrency: number, tag: string): Promise<Sample> {
  const value = JSON.stringify({ kind: 'Pod', metadata: { name: tag }, pad: 'x'.repeat(1300) });
  let next = 0;
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < calls) {
      const i = next++;
      const res = await client.txn({ key: `/registry/pods/bench/${tag}-${i}`, guard: 'create', revision: 0, put: { value, prevKv: false } });
      if (!res.succeeded) throw new Error(`create of ${tag}-${i} lost its guard`);
    }
  }));
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  return { perSec: calls / secs, cpuUs: (cpu.user + cpu.system) / calls };
}

async function main(): Promise<void> {
  const { values } = benchArgs('CPU per create-if-absent Txn of the etcd channel client against a private etcd.', {
    options: {
      rounds: { type: 'string', default: '5' }, calls: { type: 'string', default: '4000' }, concurrency: { type: 'string', default: '16,64' },
      baseline: { type: 'string' }, section: { type: 'string', default: 'etcd-client' }, 'no-write': { type: 'boolean', default: false },
    },
  });
  const rounds = Number(values.rounds);
  const calls = Number(values.calls);
  const levels = values.concurrency!.split(',').map(Number);
  const load0 = loadavg()[0];
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-etcd-client-'));
  const etcd = await startEtcd(dir);
  const targets: Array<[string, EtcdClient]> = [['this checkout', await clientOf(repoRoot, etcd.url)]];
  if (values.baseline) targets.push(['baseline', await clientOf(values.baseline, etcd.url)]);
  const samples = new Map<string, Sample[]>();
  try {
    // Warm-up: connections open and the call path compiled, for every client.
    for (const [name, c] of targets) await run(c, calls, levels[0], `warm-${name.replace(/\W/g, '')}`);
    for (let r = 0; r < rounds; r++) {
      for (const c of levels) {
        for (const [name, client] of targets) {
          const s = await run(client, calls, c, `r${r}-c${c}-${name.replace(/\W/g, '')}`);
          console.log(`round ${r + 1}, ${name}, ${c} in flight: ${s.perSec.toFixed(0)} txn/s, ${s.cpuUs.toFixed(1)} µs CPU per txn`);
          const key = `${name}\t${c}`;
          samples.set(key, [...(samples.get(key) ?? []), s]);
        }
      }
    }
  } finally {
    for (const [, c] of targets) c.close();
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const rows = [...samples].map(([key, s]) => {
    const [name, c] = key.split('\t');
    return [name, c, `**${median(s.map((x) => x.cpuUs)).toFixed(1)} µs**`, s.map((x) => x.cpuUs.toFixed(1)).join(', '), median(s.map((x) => x.perSec)).toFixed(0)];
  });
  const body = [
    ...sectionHead(repoRoot, `## The etcd client alone: CPU per create Txn (${values.section})`),
    `- Setup: ${calls} create-if-absent Txns (1.4 KB values, new keys) per cell through the backend's channel client, in this process, against a fresh private etcd (Debian's 3.4); ${rounds} interleaved rounds after a warm-up, medians; CPU is this process's (user + system) per call. Load average at start: ${load0.toFixed(1)}.`,
    '',
    table(['Client', 'In flight', 'CPU per Txn (median)', 'Rounds', 'Txn/s (median)'], rows),
  ].join('\n');
  console.log(body);
  if (!values['no-write']) writeSection(join(repoRoot, 'bench', 'RESULTS.md'), values.section!, body);
}

await main();
