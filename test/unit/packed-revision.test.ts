/**
 * util/packed-revision.ts: a cold object's resourceVersion kept as a number gives back the
 * exact string, and a string that is not a plain decimal stays a string.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { packRevision, unpackRevision } from '../../src/util/packed-revision.js';

test('a plain decimal revision is packed as a number and read back as the same string', () => {
  for (const rv of ['1', '9', '10', '12345', '2147483647', '2147483648', '999999999999999']) {
    assert.equal(typeof packRevision(rv), 'number', rv);
    assert.equal(unpackRevision(packRevision(rv)), rv);
  }
});

test('anything else stays the string it was', () => {
  for (const rv of [undefined, '', '0', '007', '1e3', ' 1', '1.5', '-3', '1234567890123456', 'abc']) {
    assert.equal(packRevision(rv), rv, String(rv));
    assert.equal(unpackRevision(packRevision(rv)), rv);
  }
});
