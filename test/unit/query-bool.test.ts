import { test } from 'node:test';
import assert from 'node:assert/strict';
import { queryBool } from '../../src/api/list-options.js';

// apimachinery's Convert_Slice_string_To_bool: only absence, "0" and "false" (any case) are false.
const cases: Array<[string | null | undefined, boolean]> = [
  [undefined, false], [null, false], ['0', false], ['false', false], ['False', false], ['FALSE', false], ['fAlSe', false],
  ['true', true], ['True', true], ['TRUE', true], ['1', true], ['t', true], ['T', true], ['', true], ['yes', true], ['f', true],
];
for (const [input, want] of cases) {
  test(`queryBool(${JSON.stringify(input)}) is ${want}`, () => assert.equal(queryBool(input), want));
}
