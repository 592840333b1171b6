/**
 * The forwarder (src/dns/forwarder.ts) against real UDP sockets on loopback:
 * the cache counts TTLs down and caps them at 30 s, a denial without an SOA
 * is not cached, and the in-flight bound answers at once when an upstream that
 * never answers has 10,000 questions open.
 */
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { Forwarder, countDown } from '../../src/dns/forwarder.js';
import { silentLogger } from '../../src/util/log.js';
import { startUpstream } from '../e2e/dns-client.js';

const octet = () => 1 + Math.floor(Math.random() * 250);

describe('Forwarder', () => {
  const host = `127.55.${octet()}.${octet()}`;
  let now = 1_000_000;
  const upstreamP = startUpstream(host, 10053, {
    'long.test': [{ type: 'A', name: 'long.test', ttl: 3600, data: '192.0.2.1' }],
  });
  after(async () => (await upstreamP).close());

  test('an answer is cached for its TTL, at most 30 s, and served counted down', async () => {
    const upstream = await upstreamP;
    const f = new Forwarder({ upstreams: [{ host, port: 10053 }], logger: silentLogger, now: () => now });
    const first = await f.resolve({ name: 'long.test', type: 'A', class: 'IN' });
    assert.equal(first?.rcode, 'NOERROR');
    assert.equal(first!.expiresAt - first!.storedAt, 30_000);
    now += 12_500;
    const again = await f.resolve({ name: 'LONG.test', type: 'A', class: 'IN' });
    assert.equal(again, first, 'from the cache');
    assert.equal(upstream.received.filter((r) => r === 'udp long.test A').length, 1);
    assert.deepEqual(countDown(again!.answers, again!.storedAt, now).map((a) => 'ttl' in a && a.ttl), [3588]);
    now += 18_000;
    assert.equal(f.cached({ name: 'long.test', type: 'A', class: 'IN' }), undefined, 'expired after 30 s');
    f.close();
  });

  test('NXDOMAIN without an SOA is not cached (no TTL to cache it for)', async () => {
    const f = new Forwarder({ upstreams: [{ host, port: 10053 }], logger: silentLogger, now: () => now });
    assert.equal((await f.resolve({ name: 'nosuch.test', type: 'A', class: 'IN' }))?.rcode, 'NXDOMAIN');
    assert.equal(f.cached({ name: 'nosuch.test', type: 'A', class: 'IN' }), undefined);
    f.close();
  });

  test('an upstream that never answers: 10,000 questions in flight, the next one is refused at once', async () => {
    const hole = dgram.createSocket('udp4'); // receives and never answers
    const holeHost = `127.56.${octet()}.${octet()}`;
    await new Promise<void>((r) => hole.bind(10053, holeHost, () => r()));
    const f = new Forwarder({ upstreams: [{ host: holeHost, port: 10053 }], logger: silentLogger, timeoutMs: 30_000 });
    const open = Array.from({ length: 10_000 }, (_, i) => f.resolve({ name: `n${i}.flood.test`, type: 'A', class: 'IN' }));
    const started = Date.now();
    assert.equal(await f.resolve({ name: 'one-more.flood.test', type: 'A', class: 'IN' }), undefined);
    assert.ok(Date.now() - started < 1000, 'answered without waiting for the upstream');
    f.close();
    assert.deepEqual(new Set(await Promise.all(open)), new Set([undefined]), 'close ends the open questions');
    hole.close();
  });
});
