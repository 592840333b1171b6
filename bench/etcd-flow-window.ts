/**
 * Does HTTP/2 flow control hold the etcd client's writes back? etcd (grpc-go) announces a 64 KiB
 * initial window and grows its connection window by its BDP estimate; C pod-sized create Txns in
 * flight could outrun it. This samples the channel's session every millisecond while `calls`
 * create-if-absent Txns (1.9 KB values, the size of a stored pod) run with C in flight through
 * src/storage/etcd/wire/channel.ts in this process against a fresh private etcd, and prints the
 * send window etcd grants (session.state.remoteWindowSize: what may be sent before its next
 * WINDOW_UPDATE) as percentiles, with the share of samples where it was below one Txn (a Txn
 * started then waits for etcd's WINDOW_UPDATE). bench/RESULTS.md `etcd9-2026-12-06`.
 *
 *   node dist/bench/etcd-flow-window.js [--calls 20000] [--concurrency 16,64]
 *
 * Needs /usr/bin/etcd (Debian's etcd-server); everything binds to 127.0.0.1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type http2 from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GrpcChannel } from '../src/storage/etcd/wire/channel.js';
import { decodeTxn, encodeGuardedTxn } from '../src/storage/etcd/wire/messages.js';
import { startEtcd } from './lib/etcd.js';
import { benchArgs } from './lib/args.js';

const TXN = '/etcdserverpb.KV/Txn';

/** Nearest-rank percentile of sorted numbers. */
const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];

async function cell(url: string, calls: number, concurrency: number): Promise<string> {
  const channel = new GrpcChannel({ url });
  const value = JSON.stringify({ kind: 'Pod', pad: 'x'.repeat(1880) });
  const frameBytes = encodeGuardedTxn({ key: '/registry/pods/flow/p-0', guard: 'create', revision: 0, put: { value, prevKv: false } }).length;
  const windows: number[] = [];
  const sample = setInterval(() => {
    // The channel keeps its session private; a benchmark may look.
    const state = (channel as unknown as { session?: http2.ClientHttp2Session }).session?.state;
    if (state?.remoteWindowSize === undefined) return;
    windows.push(state.remoteWindowSize);
  }, 1);
  const tag = `c${concurrency}-${Date.now()}`;
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < calls) {
      const i = next++;
      const key = `/registry/pods/flow/${tag}-${i}`;
      const res = decodeTxn(await channel.unary(TXN, encodeGuardedTxn({ key, guard: 'create', revision: 0, put: { value, prevKv: false } })));
      if (!res.succeeded) throw new Error(`create of ${key} lost its guard`);
    }
  }));
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  clearInterval(sample);
  channel.close();
  windows.sort((a, b) => a - b);
  const below = windows.filter((w) => w < frameBytes).length / Math.max(1, windows.length);
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  return `${concurrency} in flight: ${Math.round(calls / secs)} Txn/s, ${windows.length} samples; send window p1 ${kb(pct(windows, 0.01))}, p10 ${kb(pct(windows, 0.1))}, p50 ${kb(pct(windows, 0.5))}, p90 ${kb(pct(windows, 0.9))}; `
    + `below one Txn (${frameBytes} B) in ${(below * 100).toFixed(2)}% of samples`;
}

async function main(): Promise<void> {
  const { values } = benchArgs('The etcd channel\'s HTTP/2 send window and unsent bytes, sampled each millisecond under C creates in flight.', {
    options: { calls: { type: 'string', default: '20000' }, concurrency: { type: 'string', default: '16,64' } },
  });
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-etcd-flow-'));
  const etcd = await startEtcd(dir);
  try {
    for (const c of values.concurrency!.split(',').map(Number)) console.log(await cell(etcd.url, Number(values.calls), c));
  } finally {
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
