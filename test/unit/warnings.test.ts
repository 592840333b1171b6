/** Warning header values: ASCII only, and bounded like upstream's warning recorder. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { warningHeaderValues } from '../../src/apiserver/warnings.js';

describe('warningHeaderValues', () => {
  it('quotes each text as 299 - "text"', () => {
    assert.deepEqual(warningHeaderValues(['unknown field "spec.foo"']), ['299 - "unknown field \\"spec.foo\\""']);
  });

  it('escapes what Node cannot send in a header: past U+00FF, Latin-1 and DEL', () => {
    assert.deepEqual(warningHeaderValues(['Ā é \x7f 😀']), ['299 - "\\u0100 \\u00e9 \\u007f \\ud83d\\ude00"']);
  });

  it('cuts each text to 256 characters once the warnings pass 4 KiB, and drops what still does not fit', () => {
    const values = warningHeaderValues(['x'.repeat(70_000), ...Array.from({ length: 40 }, (_, i) => `w${i}`.repeat(200))]);
    assert.equal(values[0], `299 - "${'x'.repeat(256)}"`);
    assert.ok(values.reduce((n, v) => n + v.length, 0) <= 4096);
    assert.ok(values.length > 1 && values.length < 41);
  });

  it('leaves small sets of warnings whole', () => {
    const texts = Array.from({ length: 10 }, (_, i) => `unknown field "f${i}${'y'.repeat(300)}"`);
    assert.equal(warningHeaderValues(texts).join('').length, texts.reduce((n, t) => n + JSON.stringify(t).length + 6, 0));
  });
});
