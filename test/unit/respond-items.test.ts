import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeJSONItems } from '../../src/apiserver/respond.js';

// A list body written in slices must be the very text prefix + items.join(',') + suffix.

async function serveOnce(items: string[]): Promise<{ status: number; length: string | undefined; body: string }> {
  const server = http.createServer((_req, res) => { void writeJSONItems(res, 200, '{"items":[', items, ']}'); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path: '/' }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, length: res.headers['content-length'], body: Buffer.concat(chunks).toString('utf8') }));
      }).on('error', reject);
    });
  } finally {
    server.close();
  }
}

for (const [name, items] of Object.entries({
  'no items': [],
  'one item': ['{"a":1}'],
  'many slices, multi-byte text': Array.from({ length: 3000 }, (_, i) => JSON.stringify({ i, text: 'ünï ☃ 𝄞 '.repeat(50 + (i % 7)) })),
})) {
  test(`writeJSONItems: ${name}`, async () => {
    const want = `{"items":[${items.join(',')}]}`;
    const got = await serveOnce(items);
    assert.equal(got.status, 200);
    assert.equal(got.length, String(Buffer.byteLength(want)));
    assert.equal(got.body, want);
  });
}
