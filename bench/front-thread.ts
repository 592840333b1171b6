/**
 * The ceiling of the other split of a create (issue 20, create3): a thread that terminates TLS and
 * HTTP/1 and posts each request to the serving loop as a message, the loop answering with the
 * answer's text. Measured without the API server, so that only TLS, HTTP and the hand-over differ:
 * an HTTPS server whose handler reads a pod-sized body and answers a pod-sized JSON text (the
 * reference load's create: ~0.2 KB in, ~1.9 KB out, 201), driven by 16 keep-alive node:https clients in
 * a child process (its CPU is not counted), in two modes:
 *  - loop:   the server on the main thread (today's shape);
 *  - thread: the server in a worker thread, which posts {method, url, body} of all requests read in
 *            one of its turns in one postMessage; the main thread builds each answer and posts the
 *            turn's answers back in one; the worker writes them.
 *  - tls:    the worker terminates TLS only and posts the plaintext bytes of every connection (a
 *            turn's chunks in one postMessage each way); the main thread's node:http server reads
 *            them from a Duplex per connection (`server.emit('connection', duplex)`), so HTTP, the
 *            request and response objects and everything built on them stay on the loop, unchanged.
 * Per mode: the main thread's CPU per request (its schedstat), the worker's, the process's.
 * Rounds alternate the modes' order; medians of the rounds.
 *
 *   node dist/bench/front-thread.js [--rounds 3] [--requests 20000] [--warmup 5000]
 * Prints a Markdown table; results are copied into bench/RESULTS.md by hand.
 */
import { execFileSync, fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { Duplex } from 'node:stream';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { roundsCell, threadCpuNs } from './lib/thread-cpu.js';
import { table } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const clients = 16;
const padding = 'x'.repeat(1600);

/** A pod-sized answer to a pod-sized body: the loop's own share of a create, kept tiny and equal in both modes. */
function answer(body: string): string {
  const name = /"name":"([^"]+)"/.exec(body)?.[1] ?? 'p';
  return `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"${name}","namespace":"load"},"spec":{"padding":"${padding}"}}`;
}

interface Tls { key: Buffer; cert: Buffer }

/** An HTTPS server that hands each request's body to `handle` and writes what it answers. */
function serve(keys: Tls, handle: (body: string, respond: (text: string) => void) => void): Promise<https.Server> {
  const server = https.createServer({ ...keys, keepAlive: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(Buffer.concat(chunks).toString(), (text) => {
      res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
    }));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** A turn's messages to the other thread, posted together at the turn's end. */
class TurnBatch<T> {
  private items: T[] = [];
  constructor(private readonly post: (items: T[]) => void) {}
  push(item: T): void {
    if (this.items.length === 0) setImmediate(() => { const items = this.items; this.items = []; this.post(items); });
    this.items.push(item);
  }
}

type Chunk = [id: number, bytes: Uint8Array | null];

/** The worker for `tls`: TLS here, each connection's plaintext to and from the main thread. */
async function tlsWorker(): Promise<void> {
  const port = parentPort!;
  const sockets = new Map<number, tls.TLSSocket>();
  const out = new TurnBatch<Chunk>((items) => port.postMessage(items));
  let nextId = 0;
  const server = tls.createServer(workerData.tls as Tls, (socket) => {
    const id = nextId++;
    sockets.set(id, socket);
    socket.on('data', (c: Buffer) => out.push([id, c]));
    socket.on('end', () => out.push([id, null]));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => sockets.delete(id));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port.on('message', (m: Chunk[] | 'cpu') => {
    if (m === 'cpu') { port.postMessage({ cpu: threadCpuNs() }); return; }
    for (const [id, bytes] of m) { const s = sockets.get(id); if (bytes) s?.write(bytes); else s?.end(); }
  });
  port.postMessage({ port: (server.address() as AddressInfo).port });
}

/** The worker for `thread`: TLS and HTTP here, each turn's bodies posted to the main thread, its answers written back. */
async function frontWorker(): Promise<void> {
  if (workerData.mode === 'tls') return tlsWorker();
  const port = parentPort!;
  const waiting = new Map<number, (text: string) => void>();
  let nextId = 0;
  let batch: Array<[number, string]> = [];
  const server = await serve(workerData.tls as Tls, (body, respond) => {
    const id = nextId++;
    waiting.set(id, respond);
    if (batch.length === 0) setImmediate(() => { port.postMessage(batch); batch = []; });
    batch.push([id, body]);
  });
  port.on('message', (m: Array<[number, string]> | 'cpu') => {
    if (m === 'cpu') { port.postMessage({ cpu: threadCpuNs() }); return; }
    for (const [id, text] of m) { waiting.get(id)!(text); waiting.delete(id); }
  });
  port.postMessage({ port: (server.address() as AddressInfo).port });
}

/** The clients, in a child process: `requests` POSTs over `clients` keep-alive connections. */
async function clientChild(portNo: number, requests: number): Promise<void> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: clients, rejectUnauthorized: false });
  let next = 0;
  const post = (i: number) => new Promise<void>((resolve, reject) => {
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p-${i}`, labels: { load: 'yes' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    const req = https.request({ host: '127.0.0.1', port: portNo, path: '/api/v1/namespaces/load/pods', method: 'POST', agent,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      res.on('data', () => {});
      res.on('end', () => (res.statusCode === 201 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
  await Promise.all(Array.from({ length: clients }, async () => { while (next < requests) await post(next++); }));
  agent.destroy();
}

function drive(portNo: number, requests: number): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), ['--client', String(portNo), String(requests)]);
  return new Promise((resolve, reject) => child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`client exited ${code}`)))));
}

interface Front { port: number; workerCpuNs(): Promise<number>; close(): Promise<void> }

async function startLoop(tls: Tls): Promise<Front> {
  const server = await serve(tls, (body, respond) => respond(answer(body)));
  return { port: (server.address() as AddressInfo).port, workerCpuNs: async () => 0, close: () => new Promise((r) => server.close(() => r())) };
}

async function startThread(keys: Tls): Promise<Front> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { tls: keys, mode: 'thread' } });
  let cpuWaiter: ((ns: number) => void) | undefined;
  const port = await new Promise<number>((resolve) => worker.on('message', (m: Array<[number, string]> | { port: number } | { cpu: number }) => {
    if (Array.isArray(m)) { worker.postMessage(m.map(([id, body]) => [id, answer(body)])); return; }
    if ('port' in m) resolve(m.port); else cpuWaiter?.(m.cpu);
  }));
  return {
    port,
    workerCpuNs: () => new Promise((resolve) => { cpuWaiter = resolve; worker.postMessage('cpu'); }),
    close: async () => { await worker.terminate(); },
  };
}

async function startTls(keys: Tls): Promise<Front> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { tls: keys, mode: 'tls' } });
  const out = new TurnBatch<Chunk>((items) => worker.postMessage(items));
  const server = http.createServer({ keepAlive: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = answer(Buffer.concat(chunks).toString());
      res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
  const conns = new Map<number, Duplex>();
  const connection = (id: number) => {
    const duplex = new Duplex({
      read() {},
      write(chunk: Buffer, _enc, done) { out.push([id, chunk]); done(); },
      final(done) { out.push([id, null]); done(); },
    });
    conns.set(id, duplex);
    server.emit('connection', duplex);
    return duplex;
  };
  let cpuWaiter: ((ns: number) => void) | undefined;
  const port = await new Promise<number>((resolve) => worker.on('message', (m: Chunk[] | { port: number } | { cpu: number }) => {
    if (Array.isArray(m)) {
      for (const [id, bytes] of m) {
        const d = conns.get(id) ?? connection(id);
        if (bytes) d.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)); else { d.push(null); conns.delete(id); }
      }
      return;
    }
    if ('port' in m) resolve(m.port); else cpuWaiter?.(m.cpu);
  }));
  return {
    port,
    workerCpuNs: () => new Promise((resolve) => { cpuWaiter = resolve; worker.postMessage('cpu'); }),
    close: async () => { await worker.terminate(); server.close(); },
  };
}

async function measure(front: Front, requests: number): Promise<{ mainUs: number; workerUs: number; processUs: number }> {
  const main0 = threadCpuNs(), worker0 = await front.workerCpuNs(), proc0 = process.cpuUsage();
  await drive(front.port, requests);
  const p = process.cpuUsage(proc0);
  return { mainUs: (threadCpuNs() - main0) / 1e3 / requests, workerUs: (await front.workerCpuNs() - worker0) / 1e3 / requests, processUs: (p.user + p.system) / requests };
}

function selfSignedTls(): Tls {
  const dir = mkdtempSync(join(tmpdir(), 'front-thread-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', '/CN=127.0.0.1', '-days', '1',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  } finally { rmSync(dir, { recursive: true, force: true }); }
}

async function main(): Promise<void> {
  const { values } = benchArgs('Main-thread CPU per HTTPS request with TLS and HTTP on the main thread or in a worker that posts requests to it.', {
    options: {
      rounds: { type: 'string', default: '3', help: 'rounds (modes in alternating order)' },
      requests: { type: 'string', default: '20000', help: 'measured requests per mode and round' },
      warmup: { type: 'string', default: '5000', help: 'unmeasured requests per mode first' },
    },
  });
  const rounds = Number(values.rounds), requests = Number(values.requests), warmup = Number(values.warmup);
  const keys = selfSignedTls();
  const fronts = { loop: await startLoop(keys), thread: await startThread(keys), tls: await startTls(keys) };
  const modes = ['loop', 'thread', 'tls'] as const;
  for (const m of modes) await measure(fronts[m], warmup);
  type Measured = Awaited<ReturnType<typeof measure>>;
  const results = { loop: [] as Measured[], thread: [] as Measured[], tls: [] as Measured[] };
  const load0 = loadavg()[0]!.toFixed(1);
  for (let r = 0; r < rounds; r++) for (const m of r % 2 ? [...modes].reverse() : modes) results[m].push(await measure(fronts[m], requests));
  for (const m of modes) await fronts[m].close();
  console.log(`front-thread: ${requests} requests a mode and round, ${rounds} rounds, ${clients} keep-alive clients in a child process, load ${load0} -> ${loadavg()[0]!.toFixed(1)}`);
  console.log(table(['Mode', 'Main thread CPU µs per request', 'Worker CPU µs per request', 'Process CPU µs per request'],
    modes.map((m) => [m, roundsCell(results[m].map((x) => x.mainUs)), roundsCell(results[m].map((x) => x.workerUs)), roundsCell(results[m].map((x) => x.processUs))])));
}

if (!isMainThread) await frontWorker();
else if (process.argv[2] === '--client') await clientChild(Number(process.argv[3]), Number(process.argv[4]));
else await main();
