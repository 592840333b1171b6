import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeJSON } from '../../src/apiserver/respond.js';

// writeJSON ends an answer in one write when it is small enough that the write leaves the socket
// below its high-water mark (16 KiB), and only a larger one in two (all but a tail, then the tail
// once the socket took the rest: respond.ts, endFlushed). A pod as a controller creates it answers
// 4.0-4.5 KB: it used to go out in two writes, two TLS records and two syscalls.

interface Written { writes: number[]; end: number; body: string; length: string | undefined }

/** One request to a real server whose handler answers `text` through writeJSON; the response's write and end calls counted. */
async function answer(text: string): Promise<Written> {
  const seen = { writes: [] as number[], end: -1 };
  const server = http.createServer((req, res) => {
    req.resume();
    const write = res.write.bind(res) as (chunk: Buffer | string, cb?: () => void) => boolean;
    const end = res.end.bind(res) as (chunk?: Buffer | string) => http.ServerResponse;
    (res as unknown as { write: typeof write }).write = (chunk, cb) => { seen.writes.push(Buffer.byteLength(chunk)); return write(chunk, cb); };
    (res as unknown as { end: typeof end }).end = (chunk) => { seen.end = chunk === undefined ? 0 : Buffer.byteLength(chunk); return end(chunk); };
    writeJSON(res, 201, text);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as AddressInfo;
    const got = await new Promise<{ body: string; length: string | undefined }>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path: '/' }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ body: Buffer.concat(chunks).toString('utf8'), length: res.headers['content-length'] }));
      }).on('error', reject);
    });
    return { ...seen, ...got };
  } finally {
    server.close();
  }
}

const jsonOf = (bytes: number) => JSON.stringify({ pad: 'x'.repeat(bytes - 10) });

for (const bytes of [4105, 6000, 8192]) {
  test(`an answer of ${bytes} bytes is ended in one write`, async () => {
    const text = jsonOf(bytes);
    const got = await answer(text);
    assert.deepEqual(got.writes, []);
    assert.equal(got.end, bytes);
    assert.equal(got.body, text);
    assert.equal(got.length, String(bytes));
  });
}

for (const bytes of [8193, 40_000]) {
  test(`an answer of ${bytes} bytes goes out as all but an 8 KiB tail, then the tail`, async () => {
    const text = jsonOf(bytes);
    const got = await answer(text);
    assert.deepEqual(got.writes, [bytes - 8192]);
    assert.equal(got.end, 8192);
    assert.equal(got.body, text);
    assert.equal(got.length, String(bytes));
  });
}
