/**
 * util/read-text.ts: a file read in 64 KiB pieces (so no malloc above glibc's mmap threshold is
 * freed, which would raise it for good) gives exactly what readFileSync(file, 'utf8') gives, a
 * multi-byte character split between two pieces included; and the OpenAPI definitions, read this
 * way, are the generated file's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withFile } from './temp-file.js';
import { readTextInPieces } from '../../src/util/read-text.js';
import { openapiDefinitions } from '../../src/api/schema/definitions.js';
import { packageRoot } from '../../src/util/package-root.js';


test('readTextInPieces: the file as readFileSync(file, "utf8") reads it, across pieces', () => {
  const cases: { what: string; data: string | Buffer; piece: number }[] = [
    { what: 'empty', data: '', piece: 4 },
    { what: 'shorter than a piece', data: 'abc', piece: 4 },
    { what: 'exactly one piece', data: 'abcd', piece: 4 },
    { what: 'pieces and a rest', data: 'x'.repeat(10) + 'yz', piece: 4 },
    { what: 'the default piece size, several', data: '{"a": "b"},\n'.repeat(30_000), piece: 64 * 1024 },
    // Two-, three- and four-byte characters, each split between two 1-, 2- or 3-byte pieces somewhere.
    { what: 'a two-byte character split', data: 'abc\u00b5s', piece: 4 },
    { what: 'three- and four-byte characters split', data: 'a \u2192 b \u{1F600} c \u2014', piece: 3 },
    { what: 'every split of a four-byte character', data: '\u{1F600}'.repeat(5), piece: 1 },
    { what: 'the default piece size, a character across its edge', data: 'x'.repeat(64 * 1024 - 1) + '\u2192 done', piece: 64 * 1024 },
    // Not utf-8 (a lone continuation byte, a truncated sequence at the end): replaced as readFileSync replaces it.
    { what: 'invalid utf-8', data: Buffer.from([0x61, 0x80, 0x62, 0xe2, 0x86]), piece: 2 },
  ];
  for (const c of cases) {
    withFile(c.data, (file) => assert.equal(readTextInPieces(file, c.piece), readFileSync(file, 'utf8'), c.what));
  }
});

test('openapiDefinitions: the generated definitions, read in pieces, as JSON.parse of the file gives them', () => {
  const file = join(packageRoot(), 'generated', 'openapi-defs.json');
  assert.deepEqual(openapiDefinitions(), JSON.parse(readFileSync(file, 'utf8')));
});
