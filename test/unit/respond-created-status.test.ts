import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeCreatedStatus, writeObjectAs } from '../../src/apiserver/respond.js';
import { successStatus } from '../../src/api/status.js';

// A binding's (and an eviction's) answer, upstream's Status {status: Success} with code 201, is
// written from text and headers made once (respond.ts, writeCreatedStatus): every client must get
// what writeObjectAs writes for that Status, byte for byte, JSON, indented JSON and protobuf alike.

interface Answer { code: number; headers: http.IncomingHttpHeaders; body: string }

/** The answer a real server gives through `write`, to a request with `path` and `headers`. */
async function answer(write: (res: http.ServerResponse) => void, path: string, headers: Record<string, string>): Promise<Answer> {
  const server = http.createServer((req, res) => { req.resume(); write(res); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise<Answer>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ code: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('latin1') }));
      }).on('error', reject);
    });
  } finally {
    server.close();
  }
}

const cases: Array<{ name: string; path: string; headers: Record<string, string>; protobuf: boolean }> = [
  { name: 'JSON (the scheduler, kubectl)', path: '/api/v1/namespaces/default/pods/p/binding', headers: { 'user-agent': 'k8ts' }, protobuf: false },
  { name: 'indented JSON (curl)', path: '/api/v1/namespaces/default/pods/p/binding', headers: { 'user-agent': 'curl/8.5.0' }, protobuf: false },
  { name: 'indented JSON (?pretty=true)', path: '/api/v1/namespaces/default/pods/p/binding?pretty=true', headers: {}, protobuf: false },
  { name: 'protobuf', path: '/api/v1/namespaces/default/pods/p/binding', headers: {}, protobuf: true },
];

for (const c of cases) {
  test(`the cached 201 Status answers as writeObjectAs does: ${c.name}`, async () => {
    const cached = await answer((res) => writeCreatedStatus(res, c.protobuf), c.path, c.headers);
    const built = await answer((res) => writeObjectAs(res, 201, { ...successStatus(), code: 201 }, c.protobuf), c.path, c.headers);
    assert.equal(cached.code, 201);
    assert.equal(cached.body, built.body);
    for (const h of ['content-type', 'content-length', 'cache-control']) assert.equal(cached.headers[h], built.headers[h], h);
  });
}

test('the cached JSON is upstream\'s text of the Status', async () => {
  const { body } = await answer((res) => writeCreatedStatus(res, false), '/', {});
  assert.equal(body, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}\n');
});
