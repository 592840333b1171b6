/**
 * The proxy transport of pods/proxy and services/proxy against real HTTP
 * servers on loopback: a front server whose handler is forwardRequest, and a
 * backend standing for the pod. Covers the kept-alive pool: a reused
 * connection the backend drops before answering is retried on a new one
 * for a bodiless GET, and not for a POST with a body (upstream's Go
 * transport retries the same way); and what comes back (status, headers,
 * body, a redirect through the proxy, a gzipped page's links rewritten,
 * the 503 of a closed port).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createProxyAgents, forwardRequest, type ProxyAgents } from '../../src/apiserver/proxy/transport.js';
import { maxRewrittenPage } from '../../src/apiserver/proxy/html-rewrite.js';
import { toStatus } from '../../src/apiserver/respond.js';
import { gunzipSync, gzipSync } from 'node:zlib';

const prefix = '/api/v1/namespaces/default/pods/web:80/proxy';

describe('forwardRequest', () => {
  let backend: http.Server;
  let front: http.Server;
  let agents: ProxyAgents;
  let backendPort = 0;
  let frontPort = 0;
  let targetPort = 0;
  /** Requests the backend has seen on each socket; `drop` makes it drop a socket's second request unanswered. */
  const seen = new Map<Socket, number>();
  let drop = false;

  before(async () => {
    backend = http.createServer((req: IncomingMessage, res: ServerResponse) => {
      const n = (seen.get(req.socket) ?? 0) + 1;
      seen.set(req.socket, n);
      if (drop && n > 1) { req.socket.destroy(); return; }
      let body = '';
      req.on('data', (c) => { body += c; });
      req.on('end', () => {
        if (req.url === '/redirect') { res.writeHead(302, { Location: '/elsewhere' }); res.end(); return; }
        if (req.url === '/big') { res.writeHead(200, { 'Content-Type': 'text/html' }); res.end(`<a href="/x">${'.'.repeat(maxRewrittenPage)}`); return; }
        if (req.url === '/page') { res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Encoding': 'gzip' }); res.end(gzipSync('<a href="/next">é</a>')); return; }
        res.writeHead(201, { 'Content-Type': 'text/plain', 'Access-Control-Allow-Origin': '*', 'X-Pod': 'yes' });
        res.end(`${req.method} ${req.url} ${body}`);
      });
    });
    agents = createProxyAgents();
    front = http.createServer((req, res) => {
      const url = new URL(req.url!, 'http://front');
      forwardRequest({ req, res, target: { scheme: 'http', host: '127.0.0.1', port: targetPort }, path: url.pathname, search: url.search, prefix }, agents)
        .catch((e) => { const s = toStatus(e); res.writeHead(s.code!, { 'Content-Type': 'application/json' }); res.end(JSON.stringify(s)); });
    });
    await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
    backendPort = (backend.address() as AddressInfo).port;
    frontPort = (front.address() as AddressInfo).port;
    targetPort = backendPort;
  });
  after(async () => {
    agents.close();
    front.closeAllConnections();
    backend.closeAllConnections();
    await new Promise((r) => front.close(r));
    await new Promise((r) => backend.close(r));
  });

  const call = (path: string, method = 'GET', body?: string) => new Promise<{ code: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: frontPort, path, method, agent: false }, (res) => {
      let b = '';
      res.on('data', (c) => { b += c; });
      res.on('end', () => resolve({ code: res.statusCode!, headers: res.headers, body: b }));
    });
    req.on('error', reject);
    req.end(body);
  });

  it('status, headers and body come back; CORS headers stay behind; the query goes on', async () => {
    const r = await call('/a/b?x=1', 'POST', 'hello');
    assert.deepEqual([r.code, r.body, r.headers['x-pod'], r.headers['access-control-allow-origin']], [201, 'POST /a/b?x=1 hello', 'yes', undefined]);
  });

  it('a redirect on the pod goes through the proxy again', async () => {
    const r = await call('/redirect');
    assert.deepEqual([r.code, r.headers.location], [302, `${prefix}/elsewhere`]);
  });

  it('a gzipped page comes back gzipped, its links through the proxy, with its new length', async () => {
    const r = await new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: frontPort, path: '/page', agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      }).on('error', reject);
    });
    assert.equal(gunzipSync(r.body).toString(), `<a href="${prefix}/next">é</a>`);
    assert.deepEqual([r.headers['content-encoding'], Number(r.headers['content-length'])], ['gzip', r.body.length]);
  });

  it('a page past the bound passes through unchanged, not held whole', async () => {
    const r = await call('/big');
    assert.equal(r.code, 200);
    assert.equal(r.body.length, maxRewrittenPage + '<a href="/x">'.length);
    assert.ok(r.body.startsWith('<a href="/x">'));
  });

  it('a reused connection dropped before the answer: a GET is sent again on a new one, a POST with a body is not', async () => {
    seen.clear();
    assert.equal((await call('/first')).code, 201);
    drop = true;
    try {
      const again = await call('/second');
      assert.deepEqual([again.code, again.body], [201, 'GET /second ']);
      assert.equal([...seen.values()].reduce((a, b) => a + b, 0), 3, 'the dropped attempt, then one on a new connection');
      assert.equal((await call('/warm')).code, 201, 'a new pooled connection, answered once');
      const post = await call('/post', 'POST', 'body');
      assert.equal(post.code, 503);
      assert.match(JSON.parse(post.body).message, /^error trying to reach service: /);
    } finally {
      drop = false;
    }
  });

  it('nothing listening: 503 in Go\'s words', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    targetPort = port;
    try {
      const r = await call('/x');
      assert.equal(r.code, 503);
      assert.equal(JSON.parse(r.body).message, `error trying to reach service: dial tcp 127.0.0.1:${port}: connect: connection refused`);
    } finally {
      targetPort = backendPort;
    }
  });
});
