/**
 * Client and server CPU per binding POST, by transport: RestClient.request()
 * (Node's http client through the pooled agent), requestLight() (an undici
 * Pool, the transport the scheduler binds through) on HTTP/1.1, and an undici
 * Pool of the same shape with `pipelined` requests (HTTP/1.1 pipelining, the
 * scheduler's bindings since sched8: client/light-pool.ts), and an undici
 * Pool offering HTTP/2 (issue #20's experiment: ALPN h2 then
 * http/1.1 as client-go, one connection, up to 250 streams at once as
 * kube-apiserver's default --http2-max-streams-per-connection). A child process
 * serves HTTPS on 127.0.0.1 twice: node:https (HTTP/1.1, as the API server
 * today) and node:http2's createSecureServer with allowHTTP1 (ALPN h2 and
 * http/1.1, as kube-apiserver), both through the same compatibility-style
 * handler answering each POST 201 with a small Status. The figures are each
 * process's own CPU per request; rounds alternate the transports. Prints its
 * results (nothing is written).
 *
 *   node dist/bench/binding-transport.js [--requests 10000] [--in-flight 512] [--rounds 3] [--transports a,b]
 */
import { fork } from 'node:child_process';
import https from 'node:https';
import http2 from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { RestClient } from '../src/client/rest.js';
import { createCA, issueCertificate } from '../src/pki/index.js';
import { benchArgs } from './lib/args.js';

/** A transport: which client call, offering which protocols, to which of the child's two servers. */
const transports = {
  'https': { client: 'request', server: 'h1' },
  'undici': { client: 'requestLight', server: 'h1' },
  'undici-pipelined': { client: 'pipelined', server: 'h1' },
  'undici-h1-to-h2server': { client: 'requestLight', server: 'h2' },
  'undici-h2': { client: 'h2', server: 'h2' },
} as const;
type TransportName = keyof typeof transports;

async function serve(): Promise<void> {
  const ca = await createCA({ commonName: 'bench-ca', days: 1 });
  const cert = await issueCertificate({ ca, commonName: 'localhost', ipAddresses: ['127.0.0.1'], usages: ['server'], days: 1 });
  const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
  const answer = (req: IncomingMessage | http2.Http2ServerRequest, res: ServerResponse | http2.Http2ServerResponse) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    });
  };
  const h1 = https.createServer({ cert: cert.certPem, key: cert.keyPem, keepAliveTimeout: 65_000 }, answer);
  const h2 = http2.createSecureServer({ cert: cert.certPem, key: cert.keyPem, allowHTTP1: true, settings: { maxConcurrentStreams: 250 } }, answer);
  await Promise.all([h1, h2].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
  process.on('message', () => process.send!({ cpu: process.cpuUsage() }));
  process.send!({ ports: { h1: (h1.address() as AddressInfo).port, h2: (h2.address() as AddressInfo).port }, ca: ca.certPem });
}

async function main(): Promise<void> {
  const { values } = benchArgs('Client and server CPU per binding POST, by transport (HTTP/1.1 and HTTP/2).', {
    options: {
      requests: { type: 'string', default: '10000', help: 'binding POSTs per round and transport' },
      'in-flight': { type: 'string', default: '512', help: 'requests in flight at once (the scheduler allows 512 bindings)' },
      rounds: { type: 'string', default: '3', help: 'rounds; each runs every transport once, in turn' },
      transports: { type: 'string', default: Object.keys(transports).join(','), help: `which, comma-separated: ${Object.keys(transports).join(', ')}` },
    },
    strict: true,
  });
  const n = Number(values.requests);
  const inFlight = Number(values['in-flight']);
  const names = values.transports.split(',') as TransportName[];
  for (const t of names) if (!(t in transports)) throw new Error(`unknown transport ${t}`);
  const child = fork(fileURLToPath(import.meta.url), ['--serve']);
  const { ports, ca } = await new Promise<{ ports: { h1: number; h2: number }; ca: string }>((r) => child.once('message', (m) => r(m as { ports: { h1: number; h2: number }; ca: string })));
  const serverCpu = () => new Promise<NodeJS.CpuUsage>((r) => { child.once('message', (m) => r((m as { cpu: NodeJS.CpuUsage }).cpu)); child.send('cpu'); });
  const binding = (i: number) => ({
    apiVersion: 'v1', kind: 'Binding', metadata: { name: `pod-${i}`, namespace: 'default', uid: '0b1c5d6e-1111-2222-3333-444455556666' },
    target: { apiVersion: 'v1', kind: 'Node', name: `node-${String(i % 5000).padStart(5, '0')}` },
  });
  const round = async (name: TransportName): Promise<{ client: number; server: number }> => {
    const t = transports[name];
    const server = `https://127.0.0.1:${ports[t.server]}`;
    const client = t.client === 'h2' ? await h2Client(server, ca) : new RestClient({ server, caPem: ca, token: 'x'.repeat(40) }, { qps: 0 });
    const send = (i: number) => {
      const path = `/api/v1/namespaces/default/pods/pod-${i}/binding`;
      if (t.client === 'request') return (client as RestClient).request('POST', path, { body: binding(i) });
      return client.requestLight('POST', path, { body: binding(i), pipelined: t.client === 'pipelined' });
    };
    await Promise.all(Array.from({ length: 64 }, (_, i) => send(i))); // connections opened (and undici loaded) before measuring
    const s0 = await serverCpu();
    const cpu0 = process.cpuUsage();
    let next = 0;
    await Promise.all(Array.from({ length: inFlight }, async () => { while (next < n) await send(next++); }));
    const cpu = process.cpuUsage(cpu0);
    const s1 = await serverCpu();
    client.close();
    return { client: (cpu.user + cpu.system) / 1000 / n, server: (s1.user - s0.user + s1.system - s0.system) / 1000 / n };
  };
  console.log(`${n} binding POSTs, ${inFlight} in flight; load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  for (let r = 1; r <= Number(values.rounds); r++) {
    for (const name of names) {
      const { client, server } = await round(name);
      console.log(`round ${r} ${name.padEnd(22)} client ${client.toFixed(3)} ms, server ${server.toFixed(3)} ms CPU per request`);
    }
  }
  console.log(`load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  child.kill();
}

/**
 * requestLight's undici dispatch offering HTTP/2: one connection whose streams carry up to 250
 * requests at once. `idempotent` because undici otherwise sends a POST on HTTP/2 only while no
 * other stream is open (it could not retry it); this client never sends a request again.
 */
async function h2Client(server: string, ca: string): Promise<{ requestLight(method: string, path: string, o: { body: unknown; pipelined?: boolean }): Promise<unknown>; close(): void }> {
  const { Pool } = await import('undici');
  const pool = new Pool(server, { allowH2: true, connections: 1, pipelining: 250, maxConcurrentStreams: 250, connect: { ca } });
  const headers = { Accept: 'application/json', 'User-Agent': 'k8ts', 'Content-Type': 'application/json', Authorization: `Bearer ${'x'.repeat(40)}` };
  return {
    requestLight: (method, path, o) => new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      pool.dispatch({ method: method as 'POST', path, headers, body: JSON.stringify(o.body), idempotent: true }, {
        onRequestStart() { /* nothing to do before the response */ },
        onResponseStart() { /* the code is 201 here */ },
        onResponseData(_c, chunk) { chunks.push(chunk); },
        onResponseEnd() { resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))); },
        onResponseError(_c, e) { reject(e); },
      });
    }),
    close: () => { void pool.destroy(); },
  };
}

if (process.argv.includes('--serve')) void serve(); else void main();
