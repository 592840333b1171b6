/**
 * Label selectors: upstream's grammar and error texts, LabelSelectorAsSelector
 * with its validation errors, matching, and String() (Scale.status.selector).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  LabelSelectorError, everything, isEverything, matchesSelector, nothing, parseSelector, requiresExactMatch,
  selectorFromLabelSelector, selectorFromSet, selectorToString,
} from '../../src/api/labels.js';
import type { LabelSelector, Requirement } from '../../src/api/labels.js';

const qualifiedNameMsg = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const labelValueMsg = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('parseSelector: valid selectors', () => {
  const table: [string, Requirement[], string][] = [
    ['', [], ''],
    ['a=b', [{ key: 'a', operator: '=', values: ['b'] }], 'a=b'],
    ['a==b', [{ key: 'a', operator: '==', values: ['b'] }], 'a==b'],
    ['a!=b', [{ key: 'a', operator: '!=', values: ['b'] }], 'a!=b'],
    ['a', [{ key: 'a', operator: 'exists', values: [] }], 'a'],
    ['!a', [{ key: 'a', operator: '!', values: [] }], '!a'],
    ['a in (y,x,y)', [{ key: 'a', operator: 'in', values: ['x', 'y'] }], 'a in (x,y)'],
    ['a notin (x)', [{ key: 'a', operator: 'notin', values: ['x'] }], 'a notin (x)'],
    ['a=', [{ key: 'a', operator: '=', values: [''] }], 'a='],
    ['a in ()', [{ key: 'a', operator: 'in', values: [''] }], 'a in ()'],
    ['a in (,)', [{ key: 'a', operator: 'in', values: [''] }], 'a in ()'],
    ['a in (b,,c)', [{ key: 'a', operator: 'in', values: ['', 'b', 'c'] }], 'a in (,b,c)'],
    ['x in (foo,,baz),y,z notin ()', [
      { key: 'x', operator: 'in', values: ['', 'baz', 'foo'] }, { key: 'y', operator: 'exists', values: [] }, { key: 'z', operator: 'notin', values: [''] },
    ], 'x in (,baz,foo),y,z notin ()'],
    ['b=1,a=2', [{ key: 'a', operator: '=', values: ['2'] }, { key: 'b', operator: '=', values: ['1'] }], 'a=2,b=1'],
    ['  a  =  b ,\tc  ', [{ key: 'a', operator: '=', values: ['b'] }, { key: 'c', operator: 'exists', values: [] }], 'a=b,c'],
    ['a>1', [{ key: 'a', operator: 'gt', values: ['1'] }], 'a>1'],
    ['a<5', [{ key: 'a', operator: 'lt', values: ['5'] }], 'a<5'],
    ['in in (in,notin)', [{ key: 'in', operator: 'in', values: ['in', 'notin'] }], 'in in (in,notin)'],
    ['a=in', [{ key: 'a', operator: '=', values: ['in'] }], 'a=in'],
    ['example.com/app=web,app.kubernetes.io/name!=x', [
      { key: 'app.kubernetes.io/name', operator: '!=', values: ['x'] }, { key: 'example.com/app', operator: '=', values: ['web'] },
    ], 'app.kubernetes.io/name!=x,example.com/app=web'],
    ['!a,a=b', [{ key: 'a', operator: '!', values: [] }, { key: 'a', operator: '=', values: ['b'] }], '!a,a=b'],
  ];
  for (const [input, requirements, str] of table) {
    it(JSON.stringify(input), () => {
      const sel = parseSelector(input);
      assert.deepEqual(sel.requirements, requirements);
      assert.equal(selectorToString(sel), str);
      assert.deepEqual(parseSelector(selectorToString(sel)).requirements.map((r) => r.key), requirements.map((r) => r.key));
    });
  }
});

describe('parseSelector: errors worded as upstream', () => {
  const table: [string, string][] = [
    ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ['a=b c', "found 'c', expected: ',' or 'end of string'"],
    ['a=b,', "found '', expected: identifier after ','"],
    ['a=b,,c', "found ',', expected: identifier after ','"],
    ['=a', "found '=', expected: !, identifier, or 'end of string'"],
    [',a', "found ',', expected: !, identifier, or 'end of string'"],
    ['(', "found '(', expected: !, identifier, or 'end of string'"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['!=a', "found '!=', expected: !, identifier, or 'end of string'"],
    ['! =a', "unable to parse requirement: found '=', expected: identifier"],
    ['a<-5', `unable to parse requirement: values[0][a]: Invalid value: "-5": ${labelValueMsg}`],
    ['a in b', "unable to parse requirement: found 'b' expected: '('"],
    ['a in (b', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['a in (b c)', "unable to parse requirement: found 'c', expected: ',' or ')'"],
    ['a in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['a in (b,=)', "unable to parse requirement: found '=', expected: ',', or identifier"],
    ['a=(b)', "unable to parse requirement: found '(', expected: identifier"],
    ['a==!b', "unable to parse requirement: found '!', expected: identifier"],
    ['a$b', `unable to parse requirement: <nil>: Invalid value: "a$b": ${qualifiedNameMsg}`],
    ['-a', `unable to parse requirement: <nil>: Invalid value: "-a": ${qualifiedNameMsg}`],
    ['a/b/c=d', 'unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\') with an optional DNS subdomain prefix and \'/\' (e.g. \'example.com/MyName\')'],
    ['a=b$c', `unable to parse requirement: values[0][a]: Invalid value: "b$c": ${labelValueMsg}`],
    ['a in (ok,-bad)', `unable to parse requirement: values[0][a]: Invalid value: "-bad": ${labelValueMsg}`],
    ['a>b', 'unable to parse requirement: values[0]: Invalid value: "b": for \'Gt\', \'Lt\' operators, the value must be an integer'],
    [`a=${'x'.repeat(64)}`, `unable to parse requirement: values[0][a]: Invalid value: "${'x'.repeat(64)}": must be no more than 63 characters`],
  ];
  for (const [input, message] of table) {
    it(JSON.stringify(input), () => {
      assert.throws(() => parseSelector(input), (e: unknown) => {
        assert.ok(e instanceof LabelSelectorError);
        assert.equal(e.message, message);
        return true;
      });
    });
  }
});

describe('matchesSelector', () => {
  const labels = { app: 'web', tier: 'fe', empty: '', n: '10' };
  const table: [string, boolean][] = [
    ['', true],
    ['app=web', true], ['app==web', true], ['app=db', false], ['missing=x', false],
    ['app!=db', true], ['app!=web', false], ['missing!=x', true],
    ['app in (web,db)', true], ['app in (db)', false], ['missing in (x)', false],
    ['app notin (db)', true], ['app notin (web)', false], ['missing notin (x)', true],
    ['app', true], ['missing', false], ['empty', true], ['!app', false], ['!missing', true], ['!empty', false],
    ['empty=', true], ['empty in ()', true], ['missing=', false],
    ['n>9', true], ['n>10', false], ['n<11', true], ['n<10', false], ['app>1', false], ['missing<5', false],
    ['app=web,tier=fe', true], ['app=web,tier=be', false], ['app=web,!missing,tier in (fe,be),n>1', true],
  ];
  for (const [sel, want] of table) {
    it(`${JSON.stringify(sel)} → ${want}`, () => assert.equal(matchesSelector(parseSelector(sel), labels), want));
  }
  it('the nothing selector matches nothing, even no labels', () => {
    assert.equal(matchesSelector(nothing, {}), false);
    assert.equal(matchesSelector(nothing, labels), false);
  });
  it('everything matches absent labels', () => assert.equal(matchesSelector(everything, undefined), true));
  it('a label set inheriting Object.prototype keys is not fooled', () => assert.equal(matchesSelector(parseSelector('toString'), {}), false));
});

describe('selectorFromLabelSelector (LabelSelectorAsSelector)', () => {
  it('null is nothing; {} is everything', () => {
    assert.equal(isEverything(selectorFromLabelSelector(null)), false);
    assert.equal(matchesSelector(selectorFromLabelSelector(undefined), { a: 'b' }), false);
    assert.equal(isEverything(selectorFromLabelSelector({})), true);
    assert.equal(isEverything(selectorFromLabelSelector({ matchLabels: {}, matchExpressions: [] })), true);
    assert.equal(selectorToString(selectorFromLabelSelector(null)), '');
  });

  const table: [LabelSelector, string][] = [
    [{ matchLabels: { app: 'web' } }, 'app=web'],
    [{ matchLabels: { tier: 'fe', app: 'web' } }, 'app=web,tier=fe'],
    [{ matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'dev'] }] }, 'env in (dev,prod)'],
    [{ matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] }, 'env notin (prod)'],
    [{ matchExpressions: [{ key: 'gpu', operator: 'Exists' }] }, 'gpu'],
    [{ matchExpressions: [{ key: 'gpu', operator: 'DoesNotExist', values: [] }] }, '!gpu'],
    [{ matchLabels: { z: '1' }, matchExpressions: [{ key: 'a', operator: 'Exists' }, { key: 'z', operator: 'In', values: ['1'] }] }, 'a,z=1,z in (1)'],
  ];
  for (const [ls, str] of table) {
    it(`${JSON.stringify(ls)} → ${JSON.stringify(str)}`, () => assert.equal(selectorToString(selectorFromLabelSelector(ls)), str));
  }

  it('matches like the parsed string', () => {
    const sel = selectorFromLabelSelector({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] });
    assert.equal(matchesSelector(sel, { app: 'web' }), true);
    assert.equal(matchesSelector(sel, { app: 'web', env: 'prod' }), false);
    assert.equal(matchesSelector(sel, { env: 'dev' }), false);
  });

  const errors: [LabelSelector, string][] = [
    [{ matchExpressions: [{ key: 'a', operator: 'Foo', values: ['x'] }] }, '"Foo" is not a valid label selector operator'],
    [{ matchExpressions: [{ key: 'a', operator: 'in', values: ['x'] }] }, '"in" is not a valid label selector operator'],
    [{ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }, "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"],
    [{ matchExpressions: [{ key: 'a', operator: 'NotIn' }] }, "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"],
    [{ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }, 'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist'],
    [{ matchLabels: { 'a b': 'c' } }, `key: Invalid value: "a b": ${qualifiedNameMsg}`],
    [{ matchLabels: { a: 'b c' } }, `values[0][a]: Invalid value: "b c": ${labelValueMsg}`],
    [{ matchExpressions: [{ key: '', operator: 'DoesNotExist', values: ['x y'] }] },
      `[key: Invalid value: "": name part must be non-empty; ${qualifiedNameMsg}, values: Invalid value: []string{"x y"}: values set must be empty for exists and does not exist, values[0][]: Invalid value: "x y": ${labelValueMsg}]`],
  ];
  for (const [ls, message] of errors) {
    it(`error: ${message.slice(0, 60)}`, () => {
      assert.throws(() => selectorFromLabelSelector(ls), (e: unknown) => e instanceof LabelSelectorError && e.message === message);
    });
  }
});

describe('selectorFromSet, isEverything, requiresExactMatch', () => {
  it('selectorFromSet sorts by key and matches exactly', () => {
    const sel = selectorFromSet({ tier: 'fe', app: 'web' });
    assert.equal(selectorToString(sel), 'app=web,tier=fe');
    assert.equal(matchesSelector(sel, { app: 'web', tier: 'fe', x: 'y' }), true);
    assert.equal(matchesSelector(sel, { app: 'web' }), false);
    assert.equal(isEverything(selectorFromSet({})), true);
  });
  it('isEverything', () => {
    assert.equal(isEverything(parseSelector('')), true);
    assert.equal(isEverything(parseSelector('a')), false);
    assert.equal(isEverything(nothing), false);
  });
  const table: [string, string, string | undefined][] = [
    ['a=b', 'a', 'b'], ['a==b', 'a', 'b'], ['a in (b)', 'a', 'b'], ['a in (b,c)', 'a', undefined],
    ['a!=b', 'a', undefined], ['a', 'a', undefined], ['x=y', 'a', undefined],
  ];
  for (const [sel, label, want] of table) {
    it(`requiresExactMatch(${sel}, ${label}) → ${want}`, () => assert.equal(requiresExactMatch(parseSelector(sel), label), want));
  }
});
