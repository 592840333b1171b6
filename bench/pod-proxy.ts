/**
 * What pods/proxy and services/proxy add to a request to a pod, on one
 * machine: a `k8ts server` and a `k8ts agent --runtime process` in a network
 * namespace this script creates (pod IP 10.83.0.1, a veth pair inside it),
 * an echo pod answering `ok`, and --requests rounds, each of which sends, one
 * after another (kept-alive connections):
 *   - GET http://POD_IP:18080/ directly;
 *   - GET .../pods/echo:18080/proxy/ through the API server (HTTPS, admin cert);
 *   - GET .../services/echo:http/proxy/ likewise;
 *   - GET .../pods/echo (the object: what any API request costs here).
 * Interleaved, so a load swing hits all four alike; medians, p99 and the
 * ratio to the direct GET. Then the API server's CPU per request (user+system
 * from /proc/PID/stat) over --requests proxied GETs and as many object GETs.
 *
 *   node dist/bench/pod-proxy.js [--requests 500] [--no-write]     (as root: it makes a network namespace)
 */
import http from 'node:http';
import https from 'node:https';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, eventually, repoRoot, startCluster } from '../test/e2e/harness.js';
import { adminCredentials, killChild } from '../test/e2e/helpers.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const { values } = benchArgs('What pods/proxy and services/proxy add to a request to a pod (as root, in a network namespace).', { options: { requests: { type: 'string', default: '500' }, 'no-write': { type: 'boolean' }, inside: { type: 'string' } } });
const requests = Number(values.requests);
const nodeIP = '10.83.0.1';
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!; };
const ms = (x: number) => `${x.toFixed(2)} ms`;
const ticks = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return Number(f[11]) + Number(f[12]); };

type Get = (path: string) => Promise<number>;

function client(base: string, opts: https.AgentOptions): Get {
  const secure = base.startsWith('https:');
  const agent = secure ? new https.Agent({ ...opts, keepAlive: true, maxSockets: 1 }) : new http.Agent({ keepAlive: true, maxSockets: 1 });
  return (path) => new Promise((resolve, reject) => {
    const req = (secure ? https : http).request(new URL(path, base), { agent }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode!)); });
    req.on('error', reject);
    req.end();
  });
}

const echo = `require('http').createServer((q, s) => s.end('ok')).listen(18080, '0.0.0.0'); process.on('SIGTERM', () => process.exit(0));`;
const manifests = JSON.stringify({
  apiVersion: 'v1', kind: 'List', items: [
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'echo', namespace: 'default', labels: { app: 'echo' } },
      spec: { nodeName: 'bench-node', containers: [{ name: 'echo', image: 'k8ts.local/node:1', command: [process.execPath, '-e', echo], ports: [{ name: 'web', containerPort: 18080 }] }] } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'echo', namespace: 'default' }, spec: { selector: { app: 'echo' }, ports: [{ name: 'http', port: 80, targetPort: 'web' }] } },
  ],
});

/** Outside: make the namespace, run this script inside it, remove the namespace. */
function outside(): void {
  const netns = `k8ts-bench-pp-${randomBytes(3).toString('hex')}`;
  const ip = (...args: string[]) => execFileSync('ip', args);
  ip('netns', 'add', netns);
  try {
    ip('-n', netns, 'link', 'set', 'lo', 'up');
    ip('-n', netns, 'link', 'add', 'n0', 'type', 'veth', 'peer', 'name', 'n1');
    ip('-n', netns, 'addr', 'add', `${nodeIP}/24`, 'dev', 'n0');
    ip('-n', netns, 'link', 'set', 'n0', 'up');
    ip('-n', netns, 'link', 'set', 'n1', 'up');
    const r = spawnSync('nsenter', [`--net=/run/netns/${netns}`, process.execPath, process.argv[1]!, ...process.argv.slice(2), '--inside', netns], { stdio: 'inherit' });
    process.exitCode = r.status ?? 1;
  } finally {
    ip('netns', 'delete', netns);
  }
}

async function inside(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'k8ts-bench-pp-'));
  const cluster = await startCluster({ controllers: 'all' });
  let agent: ChildProcess | undefined;
  try {
    agent = spawn(process.execPath, [cliPath, 'agent', '--kubeconfig', cluster.kubeconfig, '--runtime', 'process', '--node-name', 'bench-node', '--node-ip', nodeIP,
      '--root-dir', join(work, 'kubelet'), '--pod-logs-dir', join(work, 'pods'), '--address', nodeIP, '--kubelet-port', '0'], { stdio: 'ignore' });
    await eventually(async () => (await cluster.kubectl(['apply', '-f', '-'], { input: manifests, allowFail: true })).code === 0, 60_000, 'the manifests applied');
    const creds = adminCredentials(cluster.kubeconfig);
    const api = client(cluster.url, { ca: creds.ca, cert: creds.cert, key: creds.key });
    const direct = client(`http://${nodeIP}:18080`, {});
    const paths = { pod: '/api/v1/namespaces/default/pods/echo:18080/proxy/', svc: '/api/v1/namespaces/default/services/echo:http/proxy/', object: '/api/v1/namespaces/default/pods/echo' };
    await eventually(async () => (await api(paths.pod)) === 200 && (await api(paths.svc)) === 200, 120_000, 'the echo pod through both proxies');
    const kinds = ['direct', 'pod', 'svc', 'object'] as const;
    const get = (k: typeof kinds[number]) => (k === 'direct' ? direct('/') : api(paths[k]));
    const times: Record<string, number[]> = { direct: [], pod: [], svc: [], object: [] };
    for (let i = 0; i < 20; i++) for (const k of kinds) await get(k); // warm connections and caches
    for (let i = 0; i < requests; i++) {
      for (const k of kinds) {
        const t0 = performance.now();
        const code = await get(k);
        times[k]!.push(performance.now() - t0);
        if (code !== 200) throw new Error(`${k}: ${code}`);
      }
    }
    const cpu = async (k: 'pod' | 'object') => { const t0 = ticks(cluster.proc.pid!); for (let i = 0; i < requests; i++) await get(k); return ((ticks(cluster.proc.pid!) - t0) * 10) / requests; };
    const cpuPod = await cpu('pod');
    const cpuObject = await cpu('object');
    const p50 = (k: string) => pct(times[k]!, 50);
    const row = (label: string, k: string) => [label, ms(p50(k)), ms(pct(times[k]!, 99)), `${(p50(k) / p50('direct')).toFixed(1)}x`];
    const body = [
      ...sectionHead(repoRoot, '## pods/proxy and services/proxy: what the API server adds to a request to a pod (bench/pod-proxy.ts)', '; `k8ts server`, a process-runtime agent and the pod in one network namespace'),
      '',
      table(['GET (one after another, kept alive; interleaved rounds)', 'p50', 'p99', 'p50 / direct'], [
        row('the pod directly (http://POD_IP:18080/)', 'direct'),
        row('pods/echo:18080/proxy/ (HTTPS to the API server)', 'pod'),
        row('services/echo:http/proxy/', 'svc'),
        row('pods/echo, the object (reference: any API GET)', 'object'),
      ]),
      '',
      `${requests} rounds. API server CPU (user+system, /proc/PID/stat) per request: ${cpuPod.toFixed(2)} ms for pods/proxy, ${cpuObject.toFixed(2)} ms for the object GET. Connections to the pod are kept alive (proxy/transport.ts createProxyAgents).`,
    ].join('\n').replace(/ --inside [^\s`]+/, ''); // the command as typed, not as re-run inside the namespace
    console.log(body);
    if (!values['no-write']) writeSection(join(repoRoot, 'bench', 'RESULTS.md'), 'pod-proxy', body);
  } finally {
    await cluster.kubectl(['delete', 'pod', 'echo', '--grace-period=1', '--timeout=60s'], { allowFail: true });
    if (agent) await killChild(agent);
    await cluster.cleanup();
    rmSync(work, { recursive: true, force: true });
  }
}

if (values.inside) await inside().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
else outside();
