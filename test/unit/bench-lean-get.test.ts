/**
 * bench/lib/lean-get.ts: the bystander's client reads an answer to its end (Content-Length, a
 * chunked body's last chunk, or no body) before it counts it, whatever the TCP segments it came in;
 * and against a real TLS server it sends its GETs one after another on one connection, opening
 * another when the server closes it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { complete, LeanGet } from '../../bench/lib/lean-get.js';
import { createCA, issueCertificate } from '../../src/pki/index.js';

const cases: { name: string; text: string; want: number | undefined }[] = [
  { name: 'the head not yet in', text: 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n', want: undefined },
  { name: 'Content-Length, body short of it', text: 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n{"a"', want: undefined },
  { name: 'Content-Length, body whole', text: 'HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\n{"a"', want: 200 },
  { name: 'chunked, last chunk not yet in', text: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n', want: undefined },
  { name: 'chunked, whole', text: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n', want: 200 },
  { name: 'no body', text: 'HTTP/1.1 304 Not Modified\r\nDate: x\r\n\r\n', want: 304 },
  { name: 'an error status', text: 'HTTP/1.1 429 Too Many Requests\r\nContent-Length: 0\r\n\r\n', want: 429 },
];

test('complete: Connection: close is told', () => {
  assert.equal(complete(Buffer.from('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'))?.close, true);
  assert.equal(complete(Buffer.from('HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n'))?.close, false);
});

for (const c of cases) {
  test(`complete: ${c.name}`, () => assert.equal(complete(Buffer.from(c.text))?.status, c.want));
}

test('GETs asked for together are sent one after another on one connection, and a closed connection is opened again', async () => {
  const ca = await createCA({ commonName: 'test-ca', days: 1 });
  const serving = await issueCertificate({ ca, commonName: 'localhost', ipAddresses: ['127.0.0.1'], usages: ['server'], days: 1 });
  const client = await issueCertificate({ ca, commonName: 'bystander', usages: ['client'], days: 1 });
  const sockets = new Set<unknown>();
  let served = 0;
  const server = https.createServer({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true }, (req, res) => {
    sockets.add(req.socket);
    served++;
    // The third answer closes its connection (Connection: close); the fourth comes chunked.
    if (served === 3) res.setHeader('Connection', 'close');
    if (served === 4) { res.write('{"kind":'); res.end('"Namespace"}'); return; }
    res.writeHead(served === 2 ? 404 : 200, { 'Content-Type': 'application/json', 'Content-Length': 2 });
    res.end('{}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const get = new LeanGet({ server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, ca: ca.certPem, cert: client.certPem, key: client.keyPem! }, '/api/v1/namespaces/default');
  try {
    assert.deepEqual(await Promise.all([get.get(), get.get(), get.get()]), [200, 404, 200]);
    assert.equal(sockets.size, 1);
    assert.equal(await get.get(), 200);
    assert.equal(sockets.size, 2);
  } finally {
    get.close();
    server.close();
  }
});
