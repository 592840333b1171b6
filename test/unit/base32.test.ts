import { test } from 'node:test';
import assert from 'node:assert/strict';
import { base32NoPadding } from '../../src/util/base32.js';

test('base32NoPadding: RFC 4648\'s test vectors without their padding; maxChars truncates', () => {
  const vectors: [string, string][] = [['', ''], ['f', 'MY'], ['fo', 'MZXQ'], ['foo', 'MZXW6'], ['foob', 'MZXW6YQ'], ['fooba', 'MZXW6YTB'], ['foobar', 'MZXW6YTBOI']];
  for (const [input, want] of vectors) assert.equal(base32NoPadding(Buffer.from(input)), want, input);
  assert.equal(base32NoPadding(Buffer.from('foobar'), 3), 'MZX');
  assert.equal(base32NoPadding(Buffer.from('foobar'), 8), 'MZXW6YTB');
});
