/** Integer query parameters (limit) parsed as Go's strconv.ParseInt(s, 10, 64). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseInt64Param } from '../../src/apiserver/query-int.js';
import { StatusError } from '../../src/api/status.js';

describe('parseInt64Param', () => {
  const ok: [string | undefined, number | undefined][] = [
    [undefined, undefined], ['0', 0], ['500', 500], ['-1', -1], ['+1', 1], ['01', 1],
    ['9223372036854775807', Number.MAX_SAFE_INTEGER], ['-9223372036854775808', Number.MIN_SAFE_INTEGER],
  ];
  for (const [text, want] of ok) it(`${JSON.stringify(text)} -> ${want}`, () => assert.equal(parseInt64Param(text), want));

  const refused: [string, string][] = [
    ['', 'invalid syntax'], ['abc', 'invalid syntax'], ['1.5', 'invalid syntax'], ['1e3', 'invalid syntax'], [' 1', 'invalid syntax'], ['0x10', 'invalid syntax'],
    ['9223372036854775808', 'value out of range'], ['99999999999999999999', 'value out of range'], ['-9223372036854775809', 'value out of range'],
  ];
  for (const [text, why] of refused) {
    it(`${JSON.stringify(text)} is a 400: ${why}`, () => {
      assert.throws(() => parseInt64Param(text), (e: unknown) => e instanceof StatusError && e.code === 400 && e.status.message === `strconv.ParseInt: parsing ${JSON.stringify(text)}: ${why}`);
    });
  }
});
