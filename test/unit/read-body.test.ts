/**
 * A request body as the server reads it (apiserver/body.ts), over a real loopback HTTP connection:
 * a large declared body arrives in many chunks and comes back as one buffer of its own memory
 * (what the heavy lane is handed without a copy), byte for byte; a small one as it came; one
 * declared over 3 MiB is refused before it is read; one whose client goes away fails.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from '../../src/apiserver/body.js';

/** Larger than a socket read (64 KiB), so the body arrives in several chunks. */
const large = 128 * 1024;
import { StatusError } from '../../src/api/status.js';

/** Serves one request with readBody and hands back what it gave (or threw). */
async function readOne(send: (req: ReturnType<typeof request>) => void, headers: Record<string, string | number>): Promise<Buffer | Error> {
  let got!: (v: Buffer | Error) => void;
  const result = new Promise<Buffer | Error>((r) => { got = r; });
  const server = createServer((req: IncomingMessage, res) => {
    readBody(req).then(got, got).finally(() => res.end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const req = request({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', method: 'POST', headers });
    req.on('error', () => {});
    req.on('response', (res) => res.resume());
    send(req);
    return await result;
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

const bytes = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + 7) & 0xff));

test('a large body sent in many writes is one buffer of its own memory, byte for byte', async () => {
  const body = bytes(3 * large + 12_345);
  const got = await readOne(async (req) => {
    for (let at = 0; at < body.length; at += 9_000) {
      req.write(body.subarray(at, at + 9_000));
      await new Promise((r) => setImmediate(r));
    }
    req.end();
  }, { 'Content-Length': body.length });
  assert.ok(Buffer.isBuffer(got), String(got));
  assert.ok(got.equals(body));
  assert.equal(got.byteOffset, 0);
  assert.equal(got.buffer.byteLength, body.length, 'the buffer owns exactly its bytes');
});

test('a small body and a chunked one of unknown length are read as sent', async () => {
  const small = bytes(2_000);
  assert.ok((await readOne((req) => req.end(small), { 'Content-Length': small.length }) as Buffer).equals(small));
  const chunked = bytes(2 * large);
  const got = await readOne((req) => { req.write(chunked.subarray(0, large)); req.end(chunked.subarray(large)); }, { 'Transfer-Encoding': 'chunked' });
  assert.ok((got as Buffer).equals(chunked));
});

test('a body declared over 3 MiB is refused with 413; one cut off early fails', async () => {
  const tooLarge = await readOne((req) => req.end(), { 'Content-Length': 3 * 1024 * 1024 + 1 });
  assert.ok(tooLarge instanceof StatusError && tooLarge.code === 413, String(tooLarge));
  const cut = await readOne((req) => { req.write(bytes(large)); setTimeout(() => req.destroy(), 50); }, { 'Content-Length': 4 * large });
  assert.ok(cut instanceof Error && !(cut instanceof StatusError), String(cut));
});
