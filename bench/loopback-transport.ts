/**
 * What TLS costs the control loops' traffic with their own API server (issue #20, ds9): the
 * same small HTTP exchanges over HTTPS on TCP (the cluster CA's ECDSA certificates, a client
 * certificate, as the loops sent before) and over plain HTTP on an abstract Unix socket (the
 * loopback socket they use now, cli/loopback-clients.ts), measured as CPU per operation on
 * each end: the server in a child process (its whole process CPU, read over the same
 * connection), the client in this one, both through node:http's server and undici's Pool (the
 * loops' light requests) or Node's http client (their watches).
 *
 * Per round and transport: `--requests` POSTs of a 1.5 KB body answered with 4 KB (a pod create
 * and its answer), 16 at a time on up to 16 kept-alive connections; then one watch-like
 * response of `--events` 3 KB chunks, written 8 per turn of the server's loop (a watch cache's
 * fan-out); then `--connections` new connections, each with one small GET (a handshake each,
 * for TLS). Transports alternate within each round; medians of the rounds are printed.
 *
 *   node dist/bench/loopback-transport.js [--rounds 5] [--requests 20000] [--events 30000] [--connections 200]
 */
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { createCA, issueCertificate } from '../src/pki/certificates.js';
import { benchArgs } from './lib/args.js';
import { median } from './lib/stats.js';

type Transport = 'tls' | 'unix';
interface Pki { caPem: string; serverCertPem: string; serverKeyPem: string; clientCertPem: string; clientKeyPem: string }
interface Row { transport: Transport; reqServerUs: number; reqClientUs: number; evServerUs: number; evClientUs: number; connServerUs: number; connClientUs: number }

const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

/** The child: one server of the given transport; `/cpu` answers its process's CPU ms. */
function serve(transport: Transport, pki: Pki, events: number): void {
  const answer = Buffer.alloc(4000, 'a');
  const event = Buffer.alloc(3000, 'b');
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.url === '/cpu') { res.end(String(cpuMs())); return; }
    if (req.url === '/watch') {
      res.writeHead(200, { 'content-type': 'application/json' });
      let n = 0;
      const turn = () => { for (let i = 0; i < 8 && n < events; i++, n++) res.write(event); if (n < events) setImmediate(turn); else res.end(); };
      turn();
      return;
    }
    req.resume();
    req.on('end', () => { res.writeHead(201, { 'content-type': 'application/json' }); res.end(answer); });
  };
  const server = transport === 'tls'
    ? https.createServer({ key: pki.serverKeyPem, cert: pki.serverCertPem, ca: pki.caPem, requestCert: true, rejectUnauthorized: false }, handler)
    : http.createServer(handler);
  server.keepAliveTimeout = 65_000;
  const address = transport === 'tls' ? 0 : `\0k8ts-bench-loopback-${process.pid}`;
  server.listen(address, () => process.send!(transport === 'tls' ? (server.address() as { port: number }).port : address));
}

async function measure(transport: Transport, pki: Pki, o: { requests: number; events: number; connections: number }): Promise<Row> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--serve', transport, '--events', String(o.events)], { env: { ...process.env, K8TS_BENCH_PKI: JSON.stringify(pki) } });
  const where = await new Promise<number | string>((resolve) => child.once('message', (m) => resolve(m as number | string)));
  try {
    const tls = { ca: pki.caPem, cert: pki.clientCertPem, key: pki.clientKeyPem, servername: 'localhost' };
    const pool = transport === 'tls'
      ? new Pool(`https://127.0.0.1:${where}`, { connections: 16, pipelining: 1, connect: tls })
      : new Pool('http://localhost', { connections: 16, pipelining: 1, socketPath: where as string });
    const body = 'x'.repeat(1500);
    const post = async () => { const r = await pool.request({ method: 'POST', path: '/x', body, headers: { 'content-type': 'application/json' } }); await r.body.arrayBuffer(); };
    const serverCpu = async () => Number(await (await pool.request({ method: 'GET', path: '/cpu' })).body.text());
    const bounded = async (n: number, fn: () => Promise<void>) => { let left = n; await Promise.all(Array.from({ length: 16 }, async () => { while (left-- > 0) await fn(); })); };
    await bounded(2000, post); // warm: connections open, code optimized
    let s0 = await serverCpu(); let c0 = cpuMs();
    await bounded(o.requests, post);
    const reqServerUs = ((await serverCpu()) - s0) * 1000 / o.requests; const reqClientUs = (cpuMs() - c0) * 1000 / o.requests;
    // A watch as the loops read theirs: Node's http client.
    const get = (path: string, agent: http.Agent) => new Promise<void>((resolve, reject) => {
      const opts = { path, agent, headers: { Accept: 'application/json' } };
      const req = transport === 'tls' ? https.request({ ...opts, host: '127.0.0.1', port: where as number, ...tls }) : http.request({ ...opts, socketPath: where as string });
      req.on('response', (res) => { res.on('data', () => undefined); res.on('end', resolve); });
      req.on('error', reject);
      req.end();
    });
    const keep = transport === 'tls' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
    s0 = await serverCpu(); c0 = cpuMs();
    await get('/watch', keep);
    const evServerUs = ((await serverCpu()) - s0) * 1000 / o.events; const evClientUs = (cpuMs() - c0) * 1000 / o.events;
    keep.destroy();
    // New connections, one small request each, 8 at a time.
    s0 = await serverCpu(); c0 = cpuMs();
    let left = o.connections;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (left-- > 0) { const a = transport === 'tls' ? new https.Agent({ keepAlive: false }) : new http.Agent({ keepAlive: false }); await get('/cpu', a); a.destroy(); }
    }));
    const connServerUs = ((await serverCpu()) - s0) * 1000 / o.connections; const connClientUs = (cpuMs() - c0) * 1000 / o.connections;
    await pool.close();
    return { transport, reqServerUs, reqClientUs, evServerUs, evClientUs, connServerUs, connClientUs };
  } finally {
    child.kill();
  }
}

async function main(): Promise<void> {
  const { values } = benchArgs('CPU per request, per watch event and per new connection on each end: HTTPS over TCP against plain HTTP on a Unix socket.', {
    options: {
      rounds: { type: 'string', default: '5' },
      requests: { type: 'string', default: '20000' },
      events: { type: 'string', default: '30000' },
      connections: { type: 'string', default: '200' },
      serve: { type: 'string', help: '(internal: the server child\'s transport)' },
    },
  });
  if (values.serve) { serve(values.serve as Transport, JSON.parse(process.env.K8TS_BENCH_PKI!) as Pki, Number(values.events)); return; }
  const ca = await createCA({ commonName: 'kubernetes', days: 1 });
  const server = await issueCertificate({ ca, commonName: 'kube-apiserver', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], usages: ['server'], days: 1 });
  const client = await issueCertificate({ ca, commonName: 'system:kube-controller-manager', usages: ['client'], days: 1 });
  const pki: Pki = { caPem: ca.certPem, serverCertPem: server.certPem, serverKeyPem: server.keyPem, clientCertPem: client.certPem, clientKeyPem: client.keyPem };
  const o = { requests: Number(values.requests), events: Number(values.events), connections: Number(values.connections) };
  const rows: Row[] = [];
  for (let r = 1; r <= Number(values.rounds); r++) {
    for (const t of (r % 2 ? ['tls', 'unix'] : ['unix', 'tls']) as Transport[]) {
      const row = await measure(t, pki, o);
      rows.push(row);
      console.log(`round ${r} ${t.padEnd(4)} load ${loadavg()[0].toFixed(1)}: request ${row.reqServerUs.toFixed(1)} / ${row.reqClientUs.toFixed(1)} µs (server / client), watch event ${row.evServerUs.toFixed(2)} / ${row.evClientUs.toFixed(2)} µs, new connection ${row.connServerUs.toFixed(0)} / ${row.connClientUs.toFixed(0)} µs`);
    }
  }
  const col = (t: Transport, k: keyof Omit<Row, 'transport'>) => median(rows.filter((r) => r.transport === t).map((r) => r[k]));
  console.log('\n| Transport | Request: server / client µs | Watch event (3 KB): server / client µs | New connection + one GET: server / client µs |\n| --- | --- | --- | --- |');
  for (const t of ['tls', 'unix'] as Transport[]) {
    console.log(`| ${t === 'tls' ? 'HTTPS on TCP (before)' : 'HTTP on a Unix socket (now)'} | ${col(t, 'reqServerUs').toFixed(1)} / ${col(t, 'reqClientUs').toFixed(1)} | ${col(t, 'evServerUs').toFixed(2)} / ${col(t, 'evClientUs').toFixed(2)} | ${col(t, 'connServerUs').toFixed(0)} / ${col(t, 'connClientUs').toFixed(0)} |`);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
