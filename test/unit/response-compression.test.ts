/**
 * APIResponseCompression (apiserver/response-compression.ts) through the API server's writers,
 * over a real loopback HTTP server: an answer over 128 KiB is gzipped for a client that accepts
 * gzip (Content-Encoding, Vary, no Content-Length), one of 128 KiB or less is not, nor is any
 * answer to a client that refuses it; HEAD gets the headers only.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http, { type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { writeBytes, writeJSON, writeJSONItems } from '../../src/apiserver/respond.js';
import { gzipChunks, gzipsAnswer, gzipThresholdBytes } from '../../src/apiserver/response-compression.js';
import { servePulledBytes } from '../../src/apiserver/heavy/pulled-bytes.js';

interface Answer { status: number; headers: http.IncomingHttpHeaders; body: Buffer }

async function serveOnce(write: (res: ServerResponse) => unknown, headers: Record<string, string>, method = 'GET'): Promise<Answer> {
  const server = http.createServer((_req, res) => { void write(res); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      http.request({ host: '127.0.0.1', port, path: '/', method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      }).on('error', reject).end();
    });
  } finally {
    server.close();
  }
}

/** A list `{"items":[...]}` of JSON strings, exactly `bytes` long. */
function listOfSize(bytes: number): string {
  const items: string[] = [];
  // Bytes of the items and the commas between them; each item but the last is 1,000 bytes and a comma.
  let left = bytes - '{"items":[]}'.length;
  for (; left > 2100; left -= 1001) items.push(`"${'x'.repeat(998)}"`);
  items.push(`"${'x'.repeat(left - 2)}"`);
  return `{"items":[${items.join(',')}]}`;
}

const writers = {
  writeJSON: (text: string) => (res: ServerResponse) => writeJSON(res, 200, text),
  writeJSONItems: (text: string) => {
    const items = (JSON.parse(text) as { items: unknown[] }).items.map((i) => JSON.stringify(i));
    return (res: ServerResponse) => writeJSONItems(res, 200, '{"items":[', items, ']}');
  },
  'writeBytes (parts)': (text: string) => (res: ServerResponse) => writeBytes(res, 200, 'application/json', [Buffer.from(text)]),
  'writeBytes (pulled from a port)': (text: string) => (res: ServerResponse) => writeBytes(res, 200, 'application/json', servePulledBytes([Buffer.from(text)])),
};

describe('API responses are gzipped as kube-apiserver gzips them', () => {
  const over = listOfSize(gzipThresholdBytes + 1);
  const atThreshold = listOfSize(gzipThresholdBytes);
  const large = listOfSize(3 << 20);
  it('the fixtures have the sizes they claim', () => {
    assert.equal(Buffer.byteLength(over), gzipThresholdBytes + 1);
    assert.equal(Buffer.byteLength(atThreshold), gzipThresholdBytes);
  });
  const cases: Array<{ name: string; body: string; acceptEncoding?: string; gzipped: boolean }> = [
    { name: 'one byte over 128 KiB, Accept-Encoding: gzip', body: over, acceptEncoding: 'gzip', gzipped: true },
    { name: '3 MiB, Go\'s transport header', body: large, acceptEncoding: 'gzip', gzipped: true },
    { name: '3 MiB, a browser\'s header', body: large, acceptEncoding: 'gzip, deflate, br, zstd', gzipped: true },
    { name: 'exactly 128 KiB: not compressed', body: atThreshold, acceptEncoding: 'gzip', gzipped: false },
    { name: 'no Accept-Encoding (kubectl --disable-compression)', body: large, gzipped: false },
    { name: 'Accept-Encoding: identity', body: large, acceptEncoding: 'identity', gzipped: false },
    { name: 'Accept-Encoding: gzip;q=0', body: large, acceptEncoding: 'gzip;q=0', gzipped: false },
  ];
  for (const [writerName, writer] of Object.entries(writers)) {
    for (const c of cases) {
      it(`${writerName}: ${c.name} → ${c.gzipped ? 'gzip' : 'identity'}`, async () => {
        const got = await serveOnce(writer(c.body), c.acceptEncoding === undefined ? {} : { 'Accept-Encoding': c.acceptEncoding });
        assert.equal(got.status, 200);
        assert.equal(got.headers['content-type'], 'application/json');
        if (c.gzipped) {
          assert.equal(got.headers['content-encoding'], 'gzip');
          assert.equal(got.headers.vary, 'Accept-Encoding');
          assert.equal(got.headers['content-length'], undefined);
          assert.ok(got.body.length < Buffer.byteLength(c.body) / 4, `${got.body.length} bytes of gzip`);
          assert.equal(gunzipSync(got.body).toString('utf8'), c.body);
        } else {
          assert.equal(got.headers['content-encoding'], undefined);
          assert.equal(got.headers.vary, undefined);
          assert.equal(got.headers['content-length'], String(Buffer.byteLength(c.body)));
          assert.equal(got.body.toString('utf8'), c.body);
        }
      });
    }
    it(`${writerName}: HEAD gets a GET's headers and no body`, async () => {
      const got = await serveOnce(writer(large), { 'Accept-Encoding': 'gzip' }, 'HEAD');
      assert.equal(got.headers['content-encoding'], 'gzip');
      assert.equal(got.headers.vary, 'Accept-Encoding');
      assert.equal(got.body.length, 0);
    });
  }
});

describe('gzipsAnswer', () => {
  const req = (acceptEncoding?: string) => ({ headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } });
  const cases: Array<[string, ReturnType<typeof req> | undefined, number, boolean]> = [
    ['over the threshold, gzip', req('gzip'), gzipThresholdBytes + 1, true],
    ['at the threshold', req('gzip'), gzipThresholdBytes, false],
    ['no header', req(), 10 << 20, false],
    ['q=0', req('gzip;q=0'), 10 << 20, false],
    ['identity only', req('identity'), 10 << 20, false],
    ['a response without its request', undefined, 10 << 20, false],
  ];
  for (const [name, r, bytes, want] of cases) it(`${name} → ${want}`, () => assert.equal(gzipsAnswer(r, bytes), want));
});

describe('gzipChunks', () => {
  it('compresses parts given as text and bytes, sync or async, into one gzip member', async () => {
    async function* parts() { yield 'abc'; yield Buffer.from('def'); yield 'ghi'.repeat(100_000); }
    const out: Buffer[] = [];
    for await (const c of gzipChunks(parts())) out.push(c);
    assert.equal(gunzipSync(Buffer.concat(out)).toString(), `abcdef${'ghi'.repeat(100_000)}`);
  });

  it('stops reading the parts when its consumer stops (a client that left)', async () => {
    let made = 0;
    let closed = false;
    function* parts() {
      try {
        // Incompressible bytes, so output chunks come long before the parts run out.
        for (; made < 1000; made++) yield randomBytes(1 << 16);
      } finally { closed = true; }
    }
    for await (const _ of gzipChunks(parts())) break;
    assert.ok(closed, 'the parts were closed');
    assert.ok(made < 1000, `${made} parts read of 1000`);
  });

  it('fails when its parts fail', async () => {
    async function* parts() { yield 'abc'; throw new Error('worker gone'); }
    await assert.rejects(async () => { for await (const _ of gzipChunks(parts())) { /* drain */ } }, /worker gone/);
  });
});
