/**
 * What the kubelet API's authentication and authorization cost per request:
 * a `k8ts server` and a `k8ts agent --runtime simulated` (admin kubeconfig,
 * kubelet API on 127.0.0.1), then sequential GETs of the kubelet's /healthz
 * over one keep-alive connection:
 *
 *  - admin client certificate (SubjectAccessReview cached after the first);
 *  - a service-account token bound to system:kubelet-api-admin (TokenReview
 *    and SubjectAccessReview cached after the first);
 *  - a new random token per request (a TokenReview every time, answered 401):
 *    the cost a token spray puts on the kubelet and the API server.
 *
 *   node dist/bench/kubelet-auth.js [--count N] [--no-write]
 */
import https from 'node:https';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
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
const node = 'bench-node';

function get(agent: https.Agent, url: string, tls: Partial<Credentials>, token?: string, method = 'GET', body?: string): Promise<{ status: number; body: string }> {
  const headers: Record<string, string> = { Accept: 'application/json', 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) };
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method, headers, agent, rejectUnauthorized: false, ...tls }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function measure(url: string, tls: Partial<Credentials>, count: number, token: () => string | undefined, want: number): Promise<number[]> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
  const ms: number[] = [];
  for (let i = 0; i < count + 50; i++) {
    const t = process.hrtime.bigint();
    const r = await get(agent, url, tls, token());
    if (r.status !== want) throw new Error(`status ${r.status}: ${r.body}`);
    if (i >= 50) ms.push(Number(process.hrtime.bigint() - t) / 1e6); // the first 50 warm up
  }
  agent.destroy();
  return ms;
}

async function kubeletPort(api: (method: string, path: string, body?: object) => Promise<any>): Promise<number> {
  for (let i = 0; i < 300; i++) {
    const n = await api('GET', `/api/v1/nodes/${node}`).catch(() => undefined);
    const port = n?.status?.daemonEndpoints?.kubeletEndpoint?.Port;
    if (port) return port;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the node did not register');
}

async function main(): Promise<void> {
  const { values } = benchArgs('CPU per kubelet API request spent on authentication and authorization.', { options: { count: { type: 'string', default: '2000' }, 'no-write': { type: 'boolean' } } });
  const count = Number(values.count);
  const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-bench-kubelet-auth-'));
  const server = await startServer({ cliPath, dataDir, serverArgs: ['--controllers', 'none'] });
  const agentProc = spawn(process.execPath, [cliPath, 'agent', '--kubeconfig', join(dataDir, 'admin.conf'), '--node-name', node, '--runtime', 'simulated',
    '--node-ip', '127.0.0.1', '--address', '127.0.0.1', '--kubelet-port', '0'], { stdio: 'ignore' });
  try {
    const admin = { cert: server.creds.cert, key: server.creds.key };
    const apiAgent = new https.Agent({ keepAlive: true });
    const api = async (method: string, path: string, body?: object) => {
      const r = await get(apiAgent, new URL(path, server.creds.server).toString(), server.creds, undefined, method, body && JSON.stringify(body));
      if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.body}`);
      return JSON.parse(r.body);
    };
    const port = await kubeletPort(api);
    await api('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'bench' } });
    await api('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { name: 'bench-kubelet-api-admin' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:kubelet-api-admin' },
      subjects: [{ kind: 'ServiceAccount', name: 'bench', namespace: 'default' }],
    });
    const token = (await api('POST', '/api/v1/namespaces/default/serviceaccounts/bench/token', { spec: {} })).status.token as string;
    apiAgent.destroy();
    const url = `https://127.0.0.1:${port}/healthz`;
    const rows: string[][] = [];
    const cases: [string, Partial<Credentials>, () => string | undefined, number][] = [
      ['admin client certificate (decision cached)', admin, () => undefined, 200],
      ['service-account token, granted (review and decision cached)', {}, () => token, 200],
      ['a new random token each request (TokenReview each, 401)', {}, () => randomBytes(24).toString('base64url'), 401],
    ];
    for (const [name, tls, tok, want] of cases) {
      const ms = await measure(url, tls, count, tok, want);
      const total = ms.reduce((a, b) => a + b, 0);
      rows.push([name, String(count), fmtMs(percentile(ms, 50)), fmtMs(percentile(ms, 99)), (count / (total / 1000)).toFixed(0)]);
      console.log(rows.at(-1)!.join('  '));
    }
    const body = [
      ...sectionHead(repoRoot, '## Kubelet API authentication and authorization (bench/kubelet-auth.ts)'),
      `- Setup: one \`k8ts server --controllers none\` and one \`k8ts agent --runtime simulated\` on the admin kubeconfig; sequential GETs of the kubelet's /healthz over one keep-alive connection; 50 warm-up requests not counted. One run. Command: \`node dist/bench/kubelet-auth.js --count ${count}\`.`,
      '',
      table(['Caller', 'Requests', 'p50', 'p99', 'req/s'], rows),
      '',
      'Cached callers cost a hash-map lookup or two (TokenReviews 2 min, decisions 5 min); a new token is a TokenReview round trip to the API server each time, paced by the review client\'s rate limit (50/s, burst 100), which is why the last row is slow: a spray is throttled at the kubelet, not passed on to the API server.',
    ].join('\n');
    if (!values['no-write']) writeSection(join(repoRoot, 'bench', 'RESULTS.md'), 'kubelet-auth', body);
  } finally {
    agentProc.kill('SIGTERM');
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
