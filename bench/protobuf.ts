/**
 * Protobuf versus JSON request bodies (issue #9): pod creates/s against one
 * fresh `k8ts server`, the same ~1.3 KB DaemonSet-style pod sent as
 * application/json and as application/vnd.kubernetes.protobuf (client-go's
 * default for typed clients), answered in the same encoding. Rounds
 * alternate JSON and protobuf so that load from elsewhere hits both alike;
 * the median round is reported. The protobuf bodies are encoded before the
 * clock starts, as JSON bodies are stringified before it.
 *
 *   node dist/bench/protobuf.js [--count N] [--clients N] [--rounds N] [--no-write]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiClient } from './lib/client.js';
import { daemonSetPod } from './lib/pods.js';
import { readCpuMs, startServer } from './lib/server.js';
import { fmtMs, fmtRate, median, percentile } from './lib/stats.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { encodeObject } from '../src/api/protobuf/envelope.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cliPath = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');
const namespace = 'default';
const protobufType = 'application/vnd.kubernetes.protobuf';

type Encoding = 'json' | 'protobuf';
interface Round { encoding: Encoding; perSec: number; p50: number; p99: number; cpuMsPerPod: number; bodyBytes: number; failed: number }

async function round(client: ApiClient, pid: number, encoding: Encoding, prefix: string, count: number, clients: number): Promise<Round> {
  const bodies = Array.from({ length: count }, (_, i) => {
    const pod = daemonSetPod(namespace, `${prefix}-${i}`, `node-${i % 100}`);
    return encoding === 'json' ? Buffer.from(JSON.stringify(pod)) : encodeObject(pod)!;
  });
  const opts = encoding === 'json' ? { contentType: 'application/json', accept: 'application/json' } : { contentType: protobufType, accept: `${protobufType},application/json` };
  const latencies: number[] = [];
  let next = 0;
  let failed = 0;
  const cpuBefore = readCpuMs(pid);
  const started = process.hrtime.bigint();
  const worker = async () => {
    while (next < count) {
      const body = bodies[next++];
      const r = await client.request('POST', `/api/v1/namespaces/${namespace}/pods`, { ...opts, body, discard: true });
      if (r.status === 201) latencies.push(r.ms); else failed++;
    }
  };
  await Promise.all(Array.from({ length: clients }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpuMs = readCpuMs(pid) - cpuBefore;
  return {
    encoding, perSec: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99),
    cpuMsPerPod: cpuMs / count, bodyBytes: median(bodies.map((b) => b.length)), failed,
  };
}

async function main(): Promise<void> {
  const { values } = benchArgs('Pod creates/s with protobuf against JSON request bodies.', { options: {
    count: { type: 'string', default: '1500' }, clients: { type: 'string', default: '16' }, rounds: { type: 'string', default: '3' },
    'no-write': { type: 'boolean', default: false },
  } });
  const count = Number(values.count);
  const clients = Number(values.clients);
  const rounds = Number(values.rounds);
  const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-bench-protobuf-'));
  const server = await startServer({ cliPath, dataDir, serverArgs: ['--controllers', 'none'] });
  const results: Round[] = [];
  try {
    const client = new ApiClient(server.creds, clients);
    // Warm-up of both paths (V8 optimizes the request path in the first thousand requests).
    await round(client, server.pid, 'json', 'warm-json', 500, clients);
    await round(client, server.pid, 'protobuf', 'warm-pb', 500, clients);
    for (let i = 0; i < rounds; i++) {
      for (const encoding of ['json', 'protobuf'] as const) {
        results.push(await round(client, server.pid, encoding, `${encoding}-${i}`, count, clients));
        console.log(JSON.stringify(results.at(-1)));
      }
    }
    client.close();
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const of = (e: Encoding) => results.filter((r) => r.encoding === e);
  const summary = (e: Encoding) => {
    const rs = of(e);
    return { perSec: median(rs.map((r) => r.perSec)), p50: median(rs.map((r) => r.p50)), p99: median(rs.map((r) => r.p99)), cpu: median(rs.map((r) => r.cpuMsPerPod)), bytes: rs[0].bodyBytes, failed: rs.reduce((a, r) => a + r.failed, 0) };
  };
  const json = summary('json');
  const pb = summary('protobuf');
  const body = [
    ...sectionHead(repoRoot, '## Protobuf versus JSON bodies (bench/protobuf.ts)'),
    `- Setup: one \`k8ts server --controllers none\` (SQLite, HTTPS); ${clients} keep-alive clients POST ${count} DaemonSet-style pods per round, answered in the body's encoding; ${rounds} rounds of each, alternating, after 500 warm-up creates of each; medians over the rounds. Server CPU is user + system time of the server process over the round.`,
    '',
    table(['body', 'bytes per pod', 'creates/s (median)', 'rounds', 'p50', 'p99', 'server CPU ms/pod', 'failed'], (['json', 'protobuf'] as const).map((e) => {
      const s = e === 'json' ? json : pb;
      return [e === 'json' ? 'application/json' : protobufType, String(s.bytes), `**${fmtRate(s.perSec)}**`, of(e).map((r) => fmtRate(r.perSec)).join(', '), fmtMs(s.p50), fmtMs(s.p99), s.cpu.toFixed(2), String(s.failed)];
    })),
    '',
    `Protobuf/JSON creates/s: ${(pb.perSec / json.perSec).toFixed(2)}×. The server decodes a protobuf body into the object the JSON path would have parsed (then the same defaulting, validation and storage, which keeps JSON either way) and encodes its answer from the stored object.`,
  ].join('\n');
  console.log(body);
  if (!values['no-write']) writeSection(resultsFile, 'protobuf', body);
  if (json.failed || pb.failed) process.exitCode = 1;
}

main().catch((e) => { console.error(e); process.exitCode = 1; });
