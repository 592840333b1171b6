/**
 * The REST client retries as client-go's does: a 429, or a 5xx carrying
 * Retry-After, is sent again after the seconds the server asks for (the API
 * server's fair queue answers 429 with Retry-After: 1 to a flow whose queue is
 * full), up to 10 times; other failures are returned at once.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { RestClient, ApiError } from '../../src/client/rest.js';
import { createCA, issueCertificate } from '../../src/pki/index.js';

describe('RestClient retries (client-go checkWait)', () => {
  let server: https.Server;
  let client: RestClient;
  /** What the server answers next for each path, in order; then 201. */
  const script = new Map<string, Array<{ code: number; retryAfter?: string }>>();
  const seen = new Map<string, number>();

  before(async () => {
    const ca = await createCA({ commonName: 'test-ca', days: 1 });
    const serving = await issueCertificate({ ca, commonName: 'localhost', ipAddresses: ['127.0.0.1'], usages: ['server'], days: 1 });
    server = https.createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
      const path = req.url ?? '';
      seen.set(path, (seen.get(path) ?? 0) + 1);
      req.resume();
      req.on('end', () => {
        const next = script.get(path)?.shift();
        if (!next) { res.writeHead(201, { 'Content-Type': 'application/json' }); res.end('{"kind":"ConfigMap"}'); return; }
        const headers: Record<string, string> = { 'Content-Type': 'application/json' };
        if (next.retryAfter !== undefined) headers['Retry-After'] = next.retryAfter;
        res.writeHead(next.code, headers);
        res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: next.code, reason: next.code === 429 ? 'TooManyRequests' : 'InternalError', message: `answer ${next.code}` }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    client = new RestClient({ server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caPem: ca.certPem });
  });
  after(() => { client.close(); server.close(); });

  it('sends a create again after a 429 with Retry-After, waiting the seconds asked', async () => {
    script.set('/a', [{ code: 429, retryAfter: '1' }, { code: 503, retryAfter: '0' }]);
    const started = Date.now();
    const out = await client.request('POST', '/a', { body: { kind: 'ConfigMap' } });
    assert.deepEqual(out, { kind: 'ConfigMap' });
    assert.equal(seen.get('/a'), 3);
    assert.ok(Date.now() - started >= 1000, 'waited the second Retry-After asked for');
  });

  it('returns a 429 without Retry-After, and a 5xx without it, at once', async () => {
    script.set('/b', [{ code: 429 }]);
    await assert.rejects(client.request('POST', '/b', { body: {} }), (e: unknown) => e instanceof ApiError && e.code === 429);
    assert.equal(seen.get('/b'), 1);
    script.set('/c', [{ code: 500 }]);
    await assert.rejects(client.request('GET', '/c'), (e: unknown) => e instanceof ApiError && e.code === 500);
    assert.equal(seen.get('/c'), 1);
  });

  it('gives up after 10 retries with the last answer', async () => {
    script.set('/d', Array.from({ length: 12 }, () => ({ code: 429, retryAfter: '0' })));
    await assert.rejects(client.request('GET', '/d'), (e: unknown) => e instanceof ApiError && e.code === 429);
    assert.equal(seen.get('/d'), 11);
  });
});
