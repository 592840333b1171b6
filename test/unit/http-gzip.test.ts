/** gzip negotiation (Accept-Encoding, RFC 9110 §12.5.3) and the line-flushed gzip stream of util/http-gzip.ts. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { acceptsGzip, gzipLines } from '../../src/util/http-gzip.js';

describe('acceptsGzip', () => {
  const cases: Array<[string | undefined, boolean]> = [
    [undefined, false],
    ['', false],
    ['gzip', true],
    ['gzip, deflate, br, zstd', true],
    ['deflate, GZIP;q=0.5', true],
    ['x-gzip', true],
    ['gzip;q=0', false],
    ['gzip; q=0.0, *', false],
    ['identity', false],
    ['br, *', true],
    ['*;q=0', false],
  ];
  for (const [header, want] of cases) it(`${JSON.stringify(header)} → ${want}`, () => assert.equal(acceptsGzip(header), want));
});

describe('gzipLines', () => {
  it('makes each line decodable as soon as it is written (sync flush), before the stream ends', async () => {
    const wire = new PassThrough();
    const gz = gzipLines(wire);
    const decoded = wire.pipe(createGunzip());
    let text = '';
    decoded.on('data', (d: Buffer) => { text += d.toString(); });
    const seen = (want: string) => new Promise<void>((resolve) => {
      const check = () => { if (text === want) { decoded.off('data', check); resolve(); } };
      decoded.on('data', check);
      check();
    });
    gz.write('{"type":"SNAPSHOT"}\n');
    await seen('{"type":"SNAPSHOT"}\n');
    gz.write('{"type":"NODES"}\n');
    await seen('{"type":"SNAPSHOT"}\n{"type":"NODES"}\n');
    gz.end();
  });
});
