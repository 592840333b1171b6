/**
 * The load client bench/cold-creates.ts runs when no other is named: a process of its own, as the
 * issue's reference client is, that creates N minimal pods in namespace `load` with C keep-alive
 * node:https clients, waits a second, lists them, and prints one JSON line (createsPerSec, p50ms,
 * p99ms, errors, listed). The same requests and bodies as the reference, so the server does the same work.
 *
 *   node dist/bench/lib/cold-client.js ADMIN.CONF [--pods 2000] [--concurrency 16]
 */
import https from 'node:https';
import { readAdminCredentials } from './client.js';
import { percentile } from './stats.js';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: string) => { const i = argv.indexOf(`--${name}`); return i > 0 ? argv[i + 1]! : dflt; };
const pods = Number(opt('pods', '2000')), concurrency = Number(opt('concurrency', '16'));
const creds = readAdminCredentials(argv[0]!);
const server = new URL(creds.server);
const agent = new https.Agent({ keepAlive: true, maxSockets: concurrency + 4, ca: creds.ca, cert: creds.cert, key: creds.key });

function request(method: string, path: string, body?: object): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const data = body ? JSON.stringify(body) : undefined;
    const req = https.request({ host: server.hostname, port: server.port, path, method, agent,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...(data ? { 'Content-Length': Buffer.byteLength(data) } : {}) } },
    (res) => { const chunks: Buffer[] = []; res.on('data', (c: Buffer) => chunks.push(c)); res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() })); });
    req.on('error', reject);
    if (data) req.write(data);
    req.end();
  });
}

async function main(): Promise<void> {
  const stamp = Date.now(), latencies: number[] = [];
  let next = 0, errors = 0;
  const t0 = process.hrtime.bigint();
  const worker = async () => {
    while (next < pods) {
      const i = next++;
      const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: `p-${stamp}-${i}`, labels: { load: 'yes' } },
        spec: { containers: [{ name: 'c', image: 'busybox' }], schedulerName: 'no-such-scheduler' } };
      const s = process.hrtime.bigint();
      const r = await request('POST', '/api/v1/namespaces/load/pods', pod);
      latencies.push(Number(process.hrtime.bigint() - s) / 1e6);
      if (r.status !== 201) errors++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  await new Promise((r) => setTimeout(r, 1000));
  const listed = (JSON.parse((await request('GET', '/api/v1/namespaces/load/pods')).body) as { items?: unknown[] }).items?.length;
  console.log(JSON.stringify({ pods, concurrency, errors, seconds: +secs.toFixed(2), createsPerSec: Math.round(pods / secs),
    p50ms: +percentile(latencies, 50).toFixed(1), p99ms: +percentile(latencies, 99).toFixed(1), listed }));
  agent.destroy();
}

main().catch((e) => { console.error(e); process.exit(1); });
