/**
 * openStream (storage/etcd/wire/open-stream.ts) opens the same stream as session.request, in
 * the caller's async context, and leaves AsyncResource.prototype.bind as it found it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import type { AddressInfo } from 'node:net';
import { openStream } from '../../src/storage/etcd/wire/open-stream.js';

async function withServer(fn: (session: http2.ClientHttp2Session) => Promise<void>): Promise<void> {
  const server = http2.createServer();
  server.on('stream', (stream, headers) => {
    const body: Buffer[] = [];
    stream.on('data', (c: Buffer) => body.push(c));
    stream.on('end', () => { stream.respond({ ':status': 200 }); stream.end(`${headers[':path']} ${Buffer.concat(body)}`); });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const session = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  try {
    await fn(session);
  } finally {
    session.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
}

function answer(stream: http2.ClientHttp2Stream, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('error', reject);
    stream.on('close', () => resolve(Buffer.concat(chunks).toString()));
    stream.end(body);
  });
}

test('a stream opened before and after the session connects carries its request and answer', async () => {
  await withServer(async (session) => {
    // The first is opened while the session is still connecting (its start waits for 'connect').
    const first = openStream(session, { ':method': 'POST', ':path': '/a' });
    assert.equal(await answer(first, 'one'), '/a one');
    const second = openStream(session, { ':method': 'POST', ':path': '/b' }, { endStream: false });
    assert.equal(await answer(second, 'two'), '/b two');
  });
});

test('the stream starts in the async context it was opened from, also when it waits for the connection', async () => {
  const als = new AsyncLocalStorage<string>();
  await withServer(async (session) => {
    const seen = await als.run('caller', () => new Promise<string | undefined>((resolve) => {
      const stream = openStream(session, { ':method': 'POST', ':path': '/c' });
      // 'ready' is emitted from the stream's start, run through the bound function.
      stream.once('ready', () => resolve(als.getStore()));
      stream.end();
      stream.resume();
    }));
    assert.equal(seen, 'caller');
  });
});

test('AsyncResource.prototype.bind is restored, also when request() throws', async () => {
  const before = AsyncResource.prototype.bind;
  await withServer(async (session) => {
    await answer(openStream(session, { ':method': 'POST', ':path': '/d' }), '');
    assert.equal(AsyncResource.prototype.bind, before);
    session.destroy();
    assert.throws(() => openStream(session, { ':method': 'POST', ':path': '/e' }));
    assert.equal(AsyncResource.prototype.bind, before);
  });
  // Other code's bound functions keep their (deprecated) asyncResource property.
  const resource = new AsyncResource('Test');
  assert.equal((resource.bind(() => 1) as unknown as { asyncResource: AsyncResource }).asyncResource, resource);
});
