/**
 * RestClient.requestLight (an undici Pool) against a real Node https server:
 * every request gets its own response, one request at a time on each of at
 * most 64 keep-alive connections (never pipelined unless asked: `pipelined`
 * requests share up to 16 connections, 8 at a time on each, a turn's
 * requests on one connection read by the server at once), with the framing
 * (Content-Length, chunked, 204), the Status errors and client-go's
 * Retry-After retries of request(); a connection the server drops fails only
 * the request on it, which is not sent again (a POST may have been applied),
 * and the next request reconnects. The pool opens only for a burst (more than
 * lightPoolBurst light requests in flight at once); before that they go through
 * request(), so a client that never bursts never loads undici.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import type http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { RestClient, ApiError, lightPoolBurst } from '../../src/client/rest.js';
import { createCA, issueCertificate } from '../../src/pki/index.js';

describe('RestClient.requestLight', () => {
  let server: https.Server;
  let client: RestClient;
  let connections = 0;
  const requestsPerSocket = new Map<Socket, number>();
  const inFlightPerSocket = new Map<Socket, number>();
  let maxInFlightOnASocket = 0;
  const retryScript: Array<{ code: number; retryAfter?: string }> = [];
  let drops = 0;
  /** The server's reads (TLS records handed to the HTTP parser), over all connections. */
  let reads = 0;

  before(async () => {
    const ca = await createCA({ commonName: 'test-ca', days: 1 });
    const serving = await issueCertificate({ ca, commonName: 'localhost', ipAddresses: ['127.0.0.1'], usages: ['server'], days: 1 });
    server = https.createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
      requestsPerSocket.set(req.socket, (requestsPerSocket.get(req.socket) ?? 0) + 1);
      inFlightPerSocket.set(req.socket, (inFlightPerSocket.get(req.socket) ?? 0) + 1);
      maxInFlightOnASocket = Math.max(maxInFlightOnASocket, inFlightPerSocket.get(req.socket)!);
      // Out of flight once answered: when the handler ends the answer, not at 'finish' (its write's
      // callback, a turn later), by which time the client may have sent the next request on the socket.
      const end = res.end.bind(res) as (...a: unknown[]) => http.ServerResponse;
      res.end = ((...a: unknown[]) => { inFlightPerSocket.set(req.socket, inFlightPerSocket.get(req.socket)! - 1); return end(...a); }) as typeof res.end;
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => { body += c; });
      req.on('end', () => {
        const url = new URL(req.url!, 'https://x');
        if (url.pathname === '/echo') {
          // Finishes in a random order: the client must still match responses to requests.
          setTimeout(() => {
            res.writeHead(201, { 'Content-Type': 'application/json' });
            res.end(JSON.stringify({ path: req.url, method: req.method, body: JSON.parse(body), auth: req.headers.authorization ?? null }));
          }, Math.floor(Math.random() * 5));
          return;
        }
        if (url.pathname === '/get') {
          setTimeout(() => { res.writeHead(200, { 'Content-Type': 'application/json' }); res.end(JSON.stringify({ path: req.url })); }, Math.floor(Math.random() * 5));
          return;
        }
        if (url.pathname === '/chunked') {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.write('{"part":');
          setTimeout(() => res.end('"é two"}'), 2);
          return;
        }
        if (url.pathname === '/empty') { res.writeHead(204); res.end(); return; }
        if (url.pathname === '/notfound') {
          res.writeHead(404, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound', message: 'pods "x" not found' }));
          return;
        }
        if (url.pathname === '/retry') {
          const next = retryScript.shift();
          if (!next) { res.writeHead(201, { 'Content-Type': 'application/json' }); res.end('{"ok":true}'); return; }
          res.writeHead(next.code, { 'Content-Type': 'application/json', ...(next.retryAfter !== undefined ? { 'Retry-After': next.retryAfter } : {}) });
          res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: next.code, reason: 'TooManyRequests', message: 'later' }));
          return;
        }
        if (url.pathname === '/drop') { drops++; req.socket.destroy(); return; }
        res.writeHead(500); res.end('unexpected');
      });
    });
    server.on('secureConnection', (socket: Socket) => { connections++; socket.on('data', () => { reads++; }); });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    client = new RestClient({ server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caPem: ca.certPem, token: 'secret' });
  });
  after(() => { client.close(); server.close(); });

  it('sends light requests through request() until more than lightPoolBurst are in flight: no pool, no undici', async () => {
    const quiet = new RestClient({ server: client.config.server, caPem: client.config.caPem });
    try {
      for (let i = 0; i < 3; i++) assert.deepEqual(await quiet.requestLight('GET', `/get?i=${i}`), { path: `/get?i=${i}` });
      const few = await Promise.all(Array.from({ length: lightPoolBurst }, (_, i) => quiet.requestLight('GET', `/get?f=${i}`)));
      few.forEach((r, i) => assert.deepEqual(r, { path: `/get?f=${i}` }));
      // A dropped connection says which client sent it: Node's (ECONNRESET), not undici's pool (UND_ERR_SOCKET).
      await assert.rejects(quiet.requestLight('POST', '/drop', { body: {} }), (e: NodeJS.ErrnoException) => e.code === 'ECONNRESET');
      // A burst opens the pool: a request sent while lightPoolBurst others are in flight goes through it.
      const burst = Array.from({ length: lightPoolBurst + 8 }, (_, n) => quiet.requestLight('POST', `/echo?n=${n}`, { body: { n } }));
      const dropped = quiet.requestLight('POST', '/drop', { body: {} });
      await assert.rejects(dropped, (e: NodeJS.ErrnoException) => e.code === 'UND_ERR_SOCKET');
      (await Promise.all(burst)).forEach((r, n) => assert.deepEqual(r, { path: `/echo?n=${n}`, method: 'POST', body: { n }, auth: null }));
    } finally {
      quiet.close();
    }
  });

  it('gives every one of 400 concurrent requests its own response, one at a time on each of at most 64 connections', async () => {
    const before = connections;
    const out = await Promise.all(Array.from({ length: 400 }, (_, i) =>
      client.requestLight('POST', `/echo?i=${i}`, { body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: `p-${i}` } } })));
    out.forEach((r, i) => assert.deepEqual(r, {
      path: `/echo?i=${i}`, method: 'POST', body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: `p-${i}` } }, auth: 'Bearer secret',
    }));
    // The pool's 64, and the agent's for the requests sent before the burst opened the pool.
    assert.ok(connections - before <= 64 + lightPoolBurst, `opened ${connections - before} connections`);
    assert.equal(maxInFlightOnASocket, 1, 'never two requests at once on a connection');
    assert.ok(Math.max(...requestsPerSocket.values()) > 1, 'connections were kept alive and reused');
  });

  it('sends idempotent requests one at a time on each connection too (GETs are not pipelined either)', async () => {
    const before = connections;
    const out = await Promise.all(Array.from({ length: 400 }, (_, i) => client.requestLight('GET', `/get?i=${i}`)));
    out.forEach((r, i) => assert.deepEqual(r, { path: `/get?i=${i}` }));
    assert.ok(connections - before <= 64, `opened ${connections - before} connections`);
    assert.equal(maxInFlightOnASocket, 1, 'never two requests at once on a connection');
  });

  it('reads chunked bodies (as UTF-8) and bodiless 204s', async () => {
    const [a, b, c] = await Promise.all([
      client.requestLight('GET', '/chunked'), client.requestLight('DELETE', '/empty'), client.requestLight('GET', '/chunked'),
    ]);
    assert.deepEqual(a, { part: 'é two' });
    assert.equal(b, '');
    assert.deepEqual(c, { part: 'é two' });
  });

  it('turns a Status into an ApiError, as request() does', async () => {
    await assert.rejects(client.requestLight('POST', '/notfound', { body: {} }),
      (e: unknown) => e instanceof ApiError && e.code === 404 && e.reason === 'NotFound' && e.message === 'pods "x" not found');
  });

  it('with discardSuccessBody resolves a success to undefined (its body not decoded) and still throws the Status of a failure', async () => {
    assert.equal(await client.requestLight('POST', '/echo?n=1', { body: { n: 1 }, discardSuccessBody: true }), undefined);
    assert.deepEqual(await client.requestLight('POST', '/echo?n=2', { body: { n: 2 } }), { path: '/echo?n=2', method: 'POST', body: { n: 2 }, auth: 'Bearer secret' });
    await assert.rejects(client.requestLight('POST', '/notfound', { body: {}, discardSuccessBody: true }),
      (e: unknown) => e instanceof ApiError && e.code === 404 && e.reason === 'NotFound' && e.message === 'pods "x" not found');
    retryScript.push({ code: 429, retryAfter: '0' });
    assert.equal(await client.requestLight('POST', '/retry', { body: {}, discardSuccessBody: true }), undefined);
    assert.equal(retryScript.length, 0, 'the 429 was retried');
  });

  it('sends again after a 429 with Retry-After, and returns one without it at once', async () => {
    retryScript.push({ code: 429, retryAfter: '0' }, { code: 503, retryAfter: '0' });
    assert.deepEqual(await client.requestLight('POST', '/retry', { body: {} }), { ok: true });
    assert.equal(retryScript.length, 0);
    retryScript.push({ code: 429 });
    await assert.rejects(client.requestLight('POST', '/retry', { body: {} }), (e: unknown) => e instanceof ApiError && e.code === 429);
  });

  it('fails the request of a dropped connection without sending it again, and no other; the next one reconnects', async () => {
    const echo = (n: number) => client.requestLight('POST', `/echo?n=${n}`, { body: { n } });
    const dropsBefore = drops;
    const [dropped, ...others] = await Promise.allSettled([
      client.requestLight('POST', '/drop', { body: {} }), ...Array.from({ length: 100 }, (_, n) => echo(n)),
    ]);
    // undici's SocketError: "other side closed" (Node's client says ECONNRESET, "socket hang up").
    assert.equal(dropped.status, 'rejected');
    assert.equal(((dropped as PromiseRejectedResult).reason as NodeJS.ErrnoException).code, 'UND_ERR_SOCKET');
    assert.equal(drops - dropsBefore, 1, 'the dropped POST was not sent again');
    others.forEach((r, n) => assert.deepEqual(r, { status: 'fulfilled', value: { path: `/echo?n=${n}`, method: 'POST', body: { n }, auth: 'Bearer secret' } }));
    assert.deepEqual(await echo(100), { path: '/echo?n=100', method: 'POST', body: { n: 100 }, auth: 'Bearer secret' });
  });

  it('pipelines requests marked pipelined: 8 at a time on each of at most 16 connections, a turn\'s requests read at once, each answered as its own', async () => {
    maxInFlightOnASocket = 0;
    const send = (i: number) => client.requestLight('POST', `/echo?p=${i}`, { body: { i }, pipelined: true });
    await Promise.all(Array.from({ length: 128 }, (_, i) => send(i))); // the pool's connections opened
    const readsBefore = reads;
    const connectionsBefore = connections;
    const out = await Promise.all(Array.from({ length: 128 }, (_, i) => send(i)));
    out.forEach((r, i) => assert.deepEqual(r, { path: `/echo?p=${i}`, method: 'POST', body: { i }, auth: 'Bearer secret' }));
    assert.equal(connections, connectionsBefore, 'the open connections were reused');
    assert.equal(maxInFlightOnASocket, 8, 'eight requests at once on a connection');
    // One write of 8 requests a connection: 16 reads at best; a record split by the socket may make a few more.
    assert.ok(reads - readsBefore <= 32, `the server read 128 requests in ${reads - readsBefore} reads`);
  });

  it('answers pipelined requests that fail (404) in place, without holding back the others', async () => {
    const out = await Promise.allSettled(Array.from({ length: 64 }, (_, i) => (i % 5 === 2
      ? client.requestLight('POST', '/notfound', { body: {}, pipelined: true })
      : client.requestLight('POST', `/echo?q=${i}`, { body: { i }, pipelined: true }))));
    out.forEach((r, i) => {
      if (i % 5 === 2) assert.ok(r.status === 'rejected' && r.reason instanceof ApiError && r.reason.code === 404, `request ${i}`);
      else assert.deepEqual(r, { status: 'fulfilled', value: { path: `/echo?q=${i}`, method: 'POST', body: { i }, auth: 'Bearer secret' } });
    });
  });

  it('fails the pipelined requests of a dropped connection without sending any again; the others are answered', async () => {
    const dropsBefore = drops;
    const [dropped, ...others] = await Promise.allSettled([
      client.requestLight('POST', '/drop', { body: {}, pipelined: true }),
      ...Array.from({ length: 100 }, (_, n) => client.requestLight('POST', `/echo?d=${n}`, { body: { n }, pipelined: true })),
    ]);
    assert.equal(dropped.status, 'rejected');
    assert.equal(((dropped as PromiseRejectedResult).reason as NodeJS.ErrnoException).code, 'UND_ERR_SOCKET');
    assert.equal(drops - dropsBefore, 1, 'the dropped POST was not sent again');
    let failed = 0;
    others.forEach((r, n) => {
      if (r.status === 'rejected') { failed++; assert.equal((r.reason as NodeJS.ErrnoException).code, 'UND_ERR_SOCKET'); return; }
      assert.deepEqual(r.value, { path: `/echo?d=${n}`, method: 'POST', body: { n }, auth: 'Bearer secret' });
    });
    // Only the requests behind it on its connection (at most 7) fail with it.
    assert.ok(failed <= 7, `${failed} failed with the dropped connection`);
    assert.deepEqual(await client.requestLight('POST', '/echo?d=x', { body: {}, pipelined: true }), { path: '/echo?d=x', method: 'POST', body: {}, auth: 'Bearer secret' });
  });

  it('fails requests sent after close() instead of opening connections again', async () => {
    const closed = new RestClient({ server: client.config.server, caPem: client.config.caPem });
    await closed.requestLight('GET', '/get?i=0');
    const before = connections;
    closed.close();
    await assert.rejects(closed.requestLight('GET', '/get?i=1'), /client closed/);
    assert.equal(connections, before);
  });
});
