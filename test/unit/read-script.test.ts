/**
 * cli/read-script.ts: the launcher's script read in pieces and its code cache read into a buffer
 * reserved past glibc's dynamic mmap threshold give the file's exact text and bytes; and the
 * bundle's non-ASCII characters escaped (scripts/ascii-only.mjs) mean the same to V8.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { withFile } from './temp-file.js';
import { runInNewContext } from 'node:vm';
import { beyondDynamicThreshold, readLargeFile, readScriptSource } from '../../src/cli/read-script.js';
// @ts-expect-error: a build script (JavaScript, no declarations)
import { asciiOnly } from '../../../scripts/ascii-only.mjs';

const escape = asciiOnly as (text: string) => string;


test('readScriptSource: the text of a file, across pieces, and utf-8 decoded when not ASCII', () => {
  const cases: { what: string; text: string; piece: number }[] = [
    { what: 'empty', text: '', piece: 4 },
    { what: 'shorter than a piece', text: 'abc', piece: 4 },
    { what: 'exactly one piece', text: 'abcd', piece: 4 },
    { what: 'pieces and a rest', text: 'x'.repeat(10) + 'yz', piece: 4 },
    { what: 'the default piece size, several', text: 'const a = 1;\n'.repeat(20_000), piece: 64 * 1024 },
    // A two-byte character split between pieces: read whole as utf-8 instead.
    { what: 'not ASCII, split across pieces', text: 'abc\u00b5s and \u2192 and \u{1F600}', piece: 4 },
  ];
  for (const c of cases) {
    withFile(c.text, (file) => assert.equal(readScriptSource(file, c.piece), c.text, c.what));
  }
});

test('readLargeFile: the file\'s bytes exactly, in a buffer reserved past 32 MiB', () => {
  const bytes = Buffer.alloc(300_000);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) & 0xff;
  withFile(bytes, (file) => {
    const got = readLargeFile(file);
    assert.equal(got.length, bytes.length);
    assert.ok(got.equals(bytes));
    assert.ok(got.buffer.byteLength >= beyondDynamicThreshold, 'the reservation is past glibc\'s DEFAULT_MMAP_THRESHOLD_MAX');
  });
  withFile('', (file) => assert.equal(readLargeFile(file).length, 0));
});

test('asciiOnly: escaped text is ASCII and evaluates to the same values', () => {
  const sources = [
    String.raw`/(\d+)(h|ms|us|µs|μs|ns)/.exec("12µs")[2]`,
    String.raw`/^[\u{1F600}-\u{1F64F}]$/u.test("😀") && /^😀$/u.test("😀") && /^[😀]$/u.test("😀")`,
    `"→ — ſ K".length + ":" + "→ — ſ K"`,
    `\`tpl → \${1 + 1}\``,
    `// a comment → with — dashes\n"kept"`,
    `(() => { const µ = 2; return µ * 3; })()`,
  ];
  for (const src of sources) {
    const out = escape(src);
    assert.ok(/^[\x00-\x7f]*$/.test(out), `${out} is ASCII`);
    assert.deepEqual(runInNewContext(out), runInNewContext(src), src);
  }
  assert.equal(escape('plain ascii'), 'plain ascii');
});

test('the build\'s main.cjs is ASCII only, so V8 keeps its source one byte a character', () => {
  // dist/test/unit -> dist/bundle: every build (npm test's too) bundles before the tests run.
  const text = readFileSync(new URL('../../bundle/main.cjs', import.meta.url), 'utf8');
  assert.ok(!/[^\x00-\x7f]/.test(text), 'a character past ASCII in dist/bundle/main.cjs');
});
