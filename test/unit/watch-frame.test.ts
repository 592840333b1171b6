/**
 * A pass's events as one HTTP/1.1 chunk (watch-frame.ts): built once for the watchers that send
 * the same events, parsed by a real HTTP client as the body those events make, and written to
 * the socket only when the response owns it and is chunked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chunkFrame, chunkSocket } from '../../src/apiserver/handlers/watch-frame.js';

const line = (s: string) => Buffer.from(`{"type":"ADDED","object":{"n":"${s}"}}\n`);

test('watchers sending the same events in a turn share one chunk; other events get their own', () => {
  const a = line('a'), b = line('b'), c = line('c');
  const first = chunkFrame([a, b]);
  assert.equal(chunkFrame([a, b]), first, 'the same parts in the same turn: the same chunk');
  const other = chunkFrame([a, c]);
  assert.notEqual(other, first);
  const size = a.length + b.length;
  assert.equal(first.toString(), `${size.toString(16)}\r\n${a}${b}\r\n`);
  assert.equal(chunkFrame([a]).toString(), `${a.length.toString(16)}\r\n${a}\r\n`);
});

test('a chunk written to the socket of a chunked response reads back as the events, then the body ends', async () => {
  const events = [line('x'), line('y'), line('z')];
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    const socket = chunkSocket(res);
    assert.ok(socket, 'a chunked response that owns its socket');
    socket.write(chunkFrame(events.slice(0, 2)));
    socket.write(chunkFrame(events.slice(2)));
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const body = await new Promise<string>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path: '/' }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => { text += d; });
        res.on('end', () => resolve(text));
      }).on('error', reject);
    });
    assert.equal(body, events.join(''));
  } finally {
    server.close();
  }
});

test('an HTTP/1.0 response (no chunked encoding) is not framed here: the caller writes through res', async () => {
  let owned: boolean | undefined;
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.flushHeaders();
    owned = chunkSocket(res) !== undefined;
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const net = await import('node:net');
    await new Promise<void>((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1', () => s.write('GET / HTTP/1.0\r\n\r\n'));
      s.on('data', () => undefined);
      s.on('close', () => resolve());
      s.on('error', reject);
    });
    assert.equal(owned, false);
  } finally {
    server.close();
  }
});

test('a HEAD answer is not framed here (it has no body): the caller writes through res, which drops it', async () => {
  let owned: boolean | undefined;
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    owned = chunkSocket(res) !== undefined;
    res.write(line('x'));
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const send = (method: string) => new Promise<string>((resolve, reject) => {
      http.request({ host: '127.0.0.1', port, path: '/', method, agent }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => { text += d.toString(); });
        res.on('end', () => resolve(`${res.statusCode} ${text}`));
      }).on('error', reject).end();
    });
    assert.equal(await send('HEAD'), '200 ');
    assert.equal(owned, false);
    // The next answer on the same keep-alive connection parses.
    assert.equal(await send('GET'), `200 ${line('x')}`);
    agent.destroy();
  } finally {
    server.close();
  }
});
