/**
 * What `k8ts dashboard` (the local proxy) adds to a request, against
 * `k8ts server` on this machine:
 *  - GET /api/v1/namespaces/default/configmaps (20 small objects), --requests
 *    times one after another, directly (HTTPS, admin client certificate,
 *    kept-alive connection) and through the proxy (HTTP, kept-alive), p50/p99;
 *  - the proxy process's CPU per forwarded request (/proc/PID/stat utime+stime
 *    over the run, divided by the requests), so a loaded machine's wall
 *    times can be read beside it;
 *  - a watch event's delay: a ConfigMap created, the time until the event
 *    arrives on a watch held directly and on one held through the proxy.
 *
 *   node dist/bench/dashboard-proxy.js [--requests 500] [--events 50] [--no-write]
 */
import http from 'node:http';
import https from 'node:https';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath, repoRoot, startCluster } from '../test/e2e/harness.js';
import { adminCredentials, killChild, lineReader } from '../test/e2e/helpers.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const { values } = benchArgs('What `k8ts dashboard` (the local proxy) adds to a request and to a watch event.', { options: { requests: { type: 'string', default: '500' }, events: { type: 'string', default: '50' }, 'no-write': { type: 'boolean' } } });
const requests = Number(values.requests);
const events = Number(values.events);
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]; };
const ms = (x: number) => `${x.toFixed(2)} ms`;
const ticks = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return Number(f[11]) + Number(f[12]); };

type Get = (path: string, init?: { method?: string; body?: string; stream?: (line: string) => void }) => Promise<number>;

function client(base: string, opts: https.AgentOptions): Get {
  const secure = base.startsWith('https:');
  const agent = secure ? new https.Agent({ ...opts, keepAlive: true, maxSockets: 4 }) : new http.Agent({ keepAlive: true, maxSockets: 4 });
  return (path, init = {}) => new Promise((resolve, reject) => {
    const req = (secure ? https : http).request(new URL(path, base), { method: init.method ?? 'GET', agent, headers: { 'Content-Type': 'application/json' } }, (res) => {
      let buf = '';
      res.on('data', (d: Buffer) => {
        if (!init.stream) return;
        buf += d;
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) { init.stream(buf.slice(0, nl)); buf = buf.slice(nl + 1); }
      });
      if (init.stream) resolve(res.statusCode!); else res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

async function main(): Promise<void> {
  const cluster = await startCluster({ controllers: 'none' });
  const creds = adminCredentials(cluster.kubeconfig);
  const proxy = spawn(process.execPath, [cliPath, 'dashboard', '--kubeconfig', cluster.kubeconfig, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const out = lineReader(proxy);
    const at = await out.waitFor((l) => l.startsWith('Starting to serve the dashboard on '), 'the URL line', 0, 60_000);
    const proxyBase = new URL(out.lines[at].replace('Starting to serve the dashboard on ', '').trim()).origin;
    const direct = client(cluster.url, { ca: creds.ca, cert: creds.cert, key: creds.key });
    const viaProxy = client(proxyBase, {});
    for (let i = 0; i < 20; i++) await direct('/api/v1/namespaces/default/configmaps', { method: 'POST', body: JSON.stringify({ metadata: { name: `cm-${i}` }, data: { k: 'v'.repeat(100) } }) });
    const path = '/api/v1/namespaces/default/configmaps';
    const time = async (get: Get) => {
      const xs: number[] = [];
      for (let i = 0; i < 20; i++) await get(path); // warm connections and caches
      for (let i = 0; i < requests; i++) { const t0 = performance.now(); const code = await get(path); xs.push(performance.now() - t0); if (code !== 200) throw new Error(`GET ${code}`); }
      return xs;
    };
    const directMs = await time(direct);
    const cpu0 = ticks(proxy.pid!);
    const proxyMs = await time(viaProxy);
    const cpuPerRequestMs = ((ticks(proxy.pid!) - cpu0) * 10) / (requests + 20);
    // Watch delay: both watches open, then creates one at a time.
    const seen = { direct: new Map<string, number>(), proxy: new Map<string, number>() };
    const record = (m: Map<string, number>) => (line: string) => { const name = JSON.parse(line).object?.metadata?.name; if (name && !m.has(name)) m.set(name, performance.now()); };
    await direct(`${path}?watch=1&resourceVersion=0`, { stream: record(seen.direct) });
    await viaProxy(`${path}?watch=1&resourceVersion=0`, { stream: record(seen.proxy) });
    const delays = { direct: [] as number[], proxy: [] as number[] };
    for (let i = 0; i < events; i++) {
      const name = `ev-${i}`;
      const t0 = performance.now();
      await direct(path, { method: 'POST', body: JSON.stringify({ metadata: { name } }) });
      while (!seen.direct.has(name) || !seen.proxy.has(name)) await new Promise((r) => setTimeout(r, 1));
      delays.direct.push(seen.direct.get(name)! - t0);
      delays.proxy.push(seen.proxy.get(name)! - t0);
    }
    const body = [
      ...sectionHead(repoRoot, '## Dashboard proxy: what `k8ts dashboard` adds to a request (bench/dashboard-proxy.ts)', '; `k8ts server` and `k8ts dashboard` on loopback'),
      '',
      table(['measure', 'direct (HTTPS, client cert)', 'through k8ts dashboard', 'runs'], [
        ['GET a list of 20 ConfigMaps, p50', ms(pct(directMs, 50)), ms(pct(proxyMs, 50)), String(requests)],
        ['GET a list of 20 ConfigMaps, p99', ms(pct(directMs, 99)), ms(pct(proxyMs, 99)), String(requests)],
        ['create sent to its watch event, p50', ms(pct(delays.direct, 50)), ms(pct(delays.proxy, 50)), String(events)],
        ['create sent to its watch event, p99', ms(pct(delays.direct, 99)), ms(pct(delays.proxy, 99)), String(events)],
      ]),
      '',
      `The proxy process used ${cpuPerRequestMs.toFixed(2)} ms of CPU per forwarded GET (user+system over the run, /proc/PID/stat). Wall times on this loaded machine swing with the load; the CPU figure is the steadier one.`,
    ].join('\n');
    console.log(body);
    if (!values['no-write']) writeSection(join(repoRoot, 'bench', 'RESULTS.md'), 'dashboard-proxy', body);
  } finally {
    await killChild(proxy);
    await cluster.cleanup();
  }
  process.exit(0);
}

await main();
