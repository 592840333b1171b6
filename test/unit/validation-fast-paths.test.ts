/**
 * The validators' shortcuts on the create path (names.ts longerThan, isQualifiedName without a
 * split, validatePathNoBacksteps' substring test, validateLabels without a copy of the map) give
 * upstream's answers at their edges: lengths in UTF-8 bytes, not characters; one '/' at most;
 * '..' only as a whole path element.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '../../src/api/names.js';
import { validatePathNoBacksteps } from '../../src/api/validation/paths.js';
import { validateLabels } from '../../src/api/validation/labels.js';
import { validateCreate } from '../../src/api/validation/index.js';

describe('lengths count UTF-8 bytes, as Go does', () => {
  // '€' is one UTF-16 unit and three UTF-8 bytes: 21 of them are 63 bytes, 22 are 66.
  const cases: { name: string; errs: () => string[]; tooLong: boolean }[] = [
    { name: 'a label value of 21 three-byte characters (63 bytes)', errs: () => isValidLabelValue('€'.repeat(21)), tooLong: false },
    { name: 'a label value of 22 three-byte characters (66 bytes, 22 characters)', errs: () => isValidLabelValue('€'.repeat(22)), tooLong: true },
    { name: 'a label value of 63 ASCII characters', errs: () => isValidLabelValue('a'.repeat(63)), tooLong: false },
    { name: 'a label value of 64 ASCII characters', errs: () => isValidLabelValue('a'.repeat(64)), tooLong: true },
    { name: 'a qualified name part of 32 two-byte characters (64 bytes)', errs: () => isQualifiedName('é'.repeat(32)), tooLong: true },
    { name: 'a DNS label of 22 three-byte characters', errs: () => isDNS1123Label('€'.repeat(22)), tooLong: true },
    { name: 'a DNS subdomain of 84 three-byte characters (252 bytes)', errs: () => isDNS1123Subdomain('€'.repeat(84)), tooLong: false },
    { name: 'a DNS subdomain of 85 three-byte characters (255 bytes)', errs: () => isDNS1123Subdomain('€'.repeat(85)), tooLong: true },
    { name: 'a label value of 16 four-byte characters (32 units, 64 bytes)', errs: () => isValidLabelValue('😀'.repeat(16)), tooLong: true },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(c.errs().some((e) => e.includes('must be no more than')), c.tooLong, c.errs().join('; ')));
  }
});

describe('isQualifiedName splits at one slash', () => {
  const cases: { value: string; want: string[] }[] = [
    { value: 'app', want: [] },
    { value: 'example.com/app', want: [] },
    { value: '/app', want: ['prefix part must be non-empty'] },
    { value: 'example.com/', want: ['name part must be non-empty', "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"] },
    { value: 'a/b/c', want: ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"] },
    { value: 'Example.com/app', want: ["prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"] },
  ];
  for (const c of cases) it(JSON.stringify(c.value), () => assert.deepEqual(isQualifiedName(c.value), c.want));
});

describe("validatePathNoBacksteps refuses '..' as a path element only", () => {
  const cases: { target: string; refused: boolean }[] = [
    { target: 'a/b', refused: false },
    { target: '..', refused: true },
    { target: 'a/../b', refused: true },
    { target: 'a\\..\\b', refused: true },
    { target: 'a/..b', refused: false },
    { target: '...', refused: false },
    { target: 'a..', refused: false },
    { target: 'a/b/..', refused: true },
  ];
  for (const c of cases) it(JSON.stringify(c.target), () => assert.equal(validatePathNoBacksteps(c.target, 'p').length, c.refused ? 1 : 0));
});

describe('validateLabels reports at the map, values shown as their text', () => {
  it('checks every key and value in order', () => {
    const errs = validateLabels({ 'ok': 'yes', 'bad key!': 'v', k: '-bad' }, 'metadata.labels');
    assert.deepEqual(errs.map((e) => [e.field, e.value]), [['metadata.labels', 'bad key!'], ['metadata.labels', '-bad']]);
  });
  it('a non-string value is validated as its text', () => {
    const errs = validateLabels({ n: 5, t: true, x: null }, 'metadata.labels');
    assert.deepEqual(errs, []);
  });
  it('anything but a map has no labels to check', () => {
    assert.deepEqual(validateLabels(['a'], 'p'), []);
    assert.deepEqual(validateLabels('a', 'p'), []);
  });
});

describe('a "__proto__" key is validated like any other (JSON.parse keeps it as an own key)', () => {
  // main accepted and stored a pod labelled {"__proto__": "x"} (201); upstream answers 422.
  const body = '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"d","labels":{"__proto__":"x"},"annotations":{"__proto__":"y"}},"spec":{"containers":[{"name":"c","image":"i","imagePullPolicy":"Always","terminationMessagePolicy":"File"}],"restartPolicy":"Always","dnsPolicy":"ClusterFirst","terminationGracePeriodSeconds":30}}';
  it('as a label key and as an annotation key', () => {
    const errs = validateCreate('v1/Pod', JSON.parse(body));
    assert.deepEqual(errs.map((e) => [e.field, e.value]), [['metadata.labels', '__proto__'], ['metadata.annotations', '__proto__']]);
  });
});
