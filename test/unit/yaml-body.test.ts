/**
 * A YAML body parsed once (src/apiserver/yaml-body.ts): the value and the
 * errors are yaml.parse's, and the duplicate-key check on the document the
 * decoding composed answers as it does on the text.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { StatusError } from '../../src/api/status.js';
import { decodeObjectBodyWithSource } from '../../src/apiserver/body.js';
import { yamlDuplicateKeysError } from '../../src/apiserver/yaml-duplicates.js';
import { maxNestingDepth } from '../../src/api/nesting.js';

const into = { apiVersion: 'v1', kind: 'ConfigMap' };
const decode = (text: string) => decodeObjectBodyWithSource(Buffer.from(text), 'application/yaml', into);

describe('a YAML body parsed once', () => {
  const valid = [
    'a: &x [1, 2]\nb: *x\nc: {d: e, f: [g, {h: i}]}\n',
    'a: |\n  multi\n  line\nb: >\n  folded\nc: "two\n  lines"\n',
    'a: 0x1F\nb: 1e3\nc: .inf\nd: ~\ne: 123456789012345678901\n',
    '---\na: 1\n...\n',
    'apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: a\n    name: b\n  - image: x\n    image: y\n',
    'a:\n  b: 1\n  b: 2\na: 3\n',
  ];
  for (const text of valid) {
    it(`decodes ${JSON.stringify(text.slice(0, 24))} as yaml.parse does, with the same duplicate keys`, () => {
      const { obj, raw } = decode(text);
      assert.deepEqual(obj, parse(text, { uniqueKeys: false, intAsBigInt: false }));
      assert.ok(raw?.yaml && raw.parsedYAML);
      assert.equal(yamlDuplicateKeysError(raw.parsedYAML), yamlDuplicateKeysError(text));
    });
  }

  // The first line of yaml.parse's prettified error: with or without the colon before the quoted text.
  const invalid: [string, string][] = [
    ['a: 1\n---\nb: 2\n', 'Source contains multiple documents; please use YAML.parseAllDocuments() at line 2, column 1:'],
    ['\ta: 1\n', 'Tabs are not allowed as indentation at line 1, column 1:'],
    ['key: [unclosed\nother: 1\n', 'Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 1:'],
  ];
  for (const [text, words] of invalid) {
    it(`refuses ${JSON.stringify(text)} in yaml.parse's words`, () => {
      assert.throws(() => decode(text), (e: unknown) => e instanceof StatusError && e.status.message ===
        `the object provided is unrecognized (must be of type ConfigMap): error converting YAML to JSON: yaml: ${words} (${text.length > 30 ? Buffer.from(text).subarray(0, 30).toString('hex') + ' ...' : Buffer.from(text).toString('hex')})`);
    });
  }

  it('refuses a text nested past the limit by the line where it went too deep', () => {
    const deep = maxNestingDepth + 20;
    const text = 'a: 1\nb: ' + '['.repeat(deep) + ']'.repeat(deep) + '\n';
    assert.throws(() => decode(text), (e: unknown) => e instanceof StatusError && e.status.message!.includes(`error converting YAML to JSON: yaml: line 2: exceeded max depth of ${maxNestingDepth} (`));
  });
});
