/**
 * Service-account token authentication cost: sequential GETs of one small
 * object over one keep-alive connection, authenticated by the admin client
 * certificate, then by a service-account token (signature check plus a
 * registry read of the service account per request), then by a pod-bound
 * token (one more read, of the pod). Reports p50/p99 and requests/s.
 *
 *   node dist/bench/satoken.js [--count N] [--no-write]
 */
import https from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from './lib/server.js';
import { fmtMs, percentile } from './lib/stats.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import type { Credentials } from './lib/client.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cliPath = join(repoRoot, 'dist', 'src', 'cli', 'main.js');

function request(agent: https.Agent, creds: Credentials, method: string, path: string, opts: { token?: string; body?: string } = {}): Promise<{ status: number; body: string }> {
  const tls = opts.token ? { ca: creds.ca } : { ca: creds.ca, cert: creds.cert, key: creds.key };
  const headers: Record<string, string> = { Accept: 'application/json', 'Content-Type': 'application/json' };
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, creds.server), { method, headers, agent, ...tls }, (res) => {
      let body = '';
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

async function measure(creds: Credentials, count: number, token?: string): Promise<number[]> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
  const ms: number[] = [];
  for (let i = 0; i < count + 50; i++) {
    const t = process.hrtime.bigint();
    const r = await request(agent, creds, 'GET', '/api/v1/namespaces/default/serviceaccounts/default', { token });
    if (r.status !== 200) throw new Error(`status ${r.status}: ${r.body}`);
    if (i >= 50) ms.push(Number(process.hrtime.bigint() - t) / 1e6); // the first 50 warm up
  }
  agent.destroy();
  return ms;
}

async function main(): Promise<void> {
  const { values } = benchArgs('Service-account token authentication cost per request.', { options: { count: { type: 'string', default: '2000' }, 'no-write': { type: 'boolean' } } });
  const count = Number(values.count);
  const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-bench-satoken-'));
  const server = await startServer({ cliPath, dataDir, serverArgs: ['--controllers', 'none'] });
  try {
    const agent = new https.Agent({ keepAlive: true });
    const tokenOf = async (body: object) => JSON.parse((await request(agent, server.creds, 'POST', '/api/v1/namespaces/default/serviceaccounts/default/token', { body: JSON.stringify(body) })).body).status.token as string;
    const pod = JSON.parse((await request(agent, server.creds, 'POST', '/api/v1/namespaces/default/pods', { body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x' }] } }) })).body);
    const plain = await tokenOf({ spec: {} });
    const bound = await tokenOf({ spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: pod.metadata.uid } } });
    agent.destroy();
    const rows: string[][] = [];
    for (const [name, token] of [['client certificate', undefined], ['service-account token', plain], ['pod-bound token', bound]] as const) {
      const ms = await measure(server.creds, count, token);
      const total = ms.reduce((a, b) => a + b, 0);
      rows.push([name, String(count), fmtMs(percentile(ms, 50)), fmtMs(percentile(ms, 99)), (count / (total / 1000)).toFixed(0)]);
      console.log(rows.at(-1)!.join('  '));
    }
    const body = [
      ...sectionHead(repoRoot, '## Service-account token authentication (bench/satoken.ts)'),
      '- Setup: one `k8ts server --controllers none`; sequential GETs of serviceaccounts/default over one keep-alive connection; 50 warm-up requests not counted. One run.',
      '',
      table(['Credential', 'Requests', 'p50', 'p99', 'req/s'], rows),
      '',
      'A token costs an ES256 verification and a registry read of the service account (and of the pod when bound) per request; no cache.',
    ].join('\n');
    if (!values['no-write']) writeSection(join(repoRoot, 'bench', 'RESULTS.md'), 'satoken', body);
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
