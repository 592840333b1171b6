import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import {
  addQuantities, canonicalQuantity, compareQuantities, formatQuantity, integerValue, milliValue, parseQuantity,
  quantityError, quantityFormatError, quantitySuffixError, roundUpQuantity, subtractQuantities,
} from '../../src/api/quantity.js';

const q = (s: string | number) => {
  const parsed = parseQuantity(s);
  assert.ok(parsed, `${s} should parse`);
  return parsed;
};

test('canonical form, as upstream serializes quantities', () => {
  const cases: [string | number, string][] = [
    ['100m', '100m'], ['1500m', '1500m'], ['1.5', '1500m'], ['1000m', '1'], ['0.5', '500m'], ['1', '1'], ['2', '2'],
    ['1000', '1k'], ['1024', '1024'], ['1023', '1023'], ['12e2', '1200'], ['1e3', '1e3'], ['1E3', '1e3'], ['1e-7', '100e-9'],
    ['1Gi', '1Gi'], ['200Mi', '200Mi'], ['1024Mi', '1Gi'], ['1000Mi', '1000Mi'], ['0.5Gi', '512Mi'], ['1.5Gi', '1536Mi'],
    ['500Ki', '500Ki'], ['0.1Ki', '102400m'], ['1Ki', '1Ki'], ['1023Ki', '1023Ki'], ['2048Ki', '2Mi'],
    ['1k', '1k'], ['1M', '1M'], ['1G', '1G'], ['1T', '1T'], ['1P', '1P'], ['1E', '1E'], ['1000E', '1000E'],
    ['0', '0'], ['0m', '0'], ['0Gi', '0'], ['-1', '-1'], ['-0.5', '-500m'], ['+3', '3'], ['007', '7'],
    ['0.0000000001', '1n'], ['1n', '1n'], ['1u', '1u'], ['0.000001', '1u'], ['1.', '1'], ['.5', '500m'], [' 1Gi ', '1Gi'],
    [2, '2'], [0.5, '500m'], [1e21, '1e21'], [1500, '1500'], [128974848, '128974848'], ['129e6', '129e6'], ['123Mi', '123Mi'],
  ];
  for (const [input, want] of cases) assert.equal(canonicalQuantity(input), want, `canonical(${JSON.stringify(input)})`);
});

test('parse errors use upstream messages', () => {
  const cases: [unknown, string][] = [
    ['', quantityFormatError], ['abc', quantityFormatError], ['1.2.3', quantityFormatError], ['1Kb', quantityFormatError],
    ['1 Gi', quantityFormatError], ['1e', quantitySuffixError], ['1K', quantitySuffixError], ['1Gib', quantityFormatError],
    ['1mi', quantitySuffixError], ['--1', quantitySuffixError], [true, quantityFormatError], [null, quantityFormatError], [{}, quantityFormatError],
  ];
  for (const [input, want] of cases) assert.equal(quantityError(input), want, `error(${JSON.stringify(input)})`);
  assert.equal(quantityFormatError, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  assert.equal(quantityError('1Gi'), undefined);
});

test('compare across formats and scales', () => {
  const cases: [string, string, number][] = [
    ['1', '1000m', 0], ['1Gi', '1024Mi', 0], ['1G', '1Gi', -1], ['2', '1500m', 1], ['100m', '0.1', 0], ['-1', '0', -1],
    ['1k', '1Ki', -1], ['1e3', '1k', 0], ['1n', '0', 1],
  ];
  for (const [a, b, want] of cases) assert.equal(compareQuantities(q(a), q(b)), want, `cmp(${a}, ${b})`);
});

test('add and subtract keep the first format', () => {
  const cases: [string, string, string, string][] = [
    ['100m', '900m', '1', '-800m'], ['1Gi', '512Mi', '1536Mi', '512Mi'], ['1', '1Ki', '1025', '-1023'], ['1.5', '0.5', '2', '1'],
  ];
  for (const [a, b, sum, diff] of cases) {
    assert.equal(formatQuantity(addQuantities(q(a), q(b))), sum, `${a}+${b}`);
    assert.equal(formatQuantity(subtractQuantities(q(a), q(b))), diff, `${a}-${b}`);
  }
});

test('adding to or subtracting from zero takes the other format (upstream Add/Sub: a quota used 0 + 600Mi is 600Mi)', () => {
  const cases: [string, string, string, string][] = [
    ['0', '600Mi', '600Mi', '-600Mi'], ['0', '1Gi', '1Gi', '-1Gi'], ['0', '400m', '400m', '-400m'], ['0Mi', '2k', '2k', '-2k'],
  ];
  for (const [a, b, sum, diff] of cases) {
    assert.equal(formatQuantity(addQuantities(q(a), q(b))), sum, `${a}+${b}`);
    assert.equal(formatQuantity(subtractQuantities(q(a), q(b))), diff, `${a}-${b}`);
  }
});

test('scaled values round up', () => {
  const cases: [string, bigint, bigint][] = [
    ['100m', 100n, 1n], ['1.5', 1500n, 2n], ['1Gi', 1073741824000n, 1073741824n], ['1n', 1n, 1n], ['0', 0n, 0n], ['-1.5', -1500n, -2n],
  ];
  for (const [s, milli, value] of cases) {
    assert.equal(milliValue(q(s)), milli, `milli(${s})`);
    assert.equal(integerValue(q(s)), value, `value(${s})`);
  }
});

test('RoundUp to milli (SetDefaults_ResourceList)', () => {
  const cases: [string, string][] = [['0.0001', '1m'], ['1.0001', '1001m'], ['5n', '1m'], ['100m', '100m'], ['1Gi', '1Gi']];
  for (const [s, want] of cases) assert.equal(formatQuantity(roundUpQuantity(q(s), -3)), want, `roundUp(${s})`);
});

test('a string parsed again answers the first parse, frozen, and arithmetic on it leaves it as it was', () => {
  const first = q('500Mi');
  assert.equal(q('500Mi'), first, 'the same string is not parsed twice');
  assert.ok(Object.isFrozen(first));
  assert.throws(() => { (first as { scale: number }).scale = 3; }, TypeError);
  const sum = addQuantities(first, q('12Mi'));
  assert.equal(formatQuantity(sum), '512Mi');
  assert.equal(formatQuantity(first), '500Mi');
  assert.equal(formatQuantity(q('500Mi')), '500Mi', 'its kept canonical form');
  assert.equal(formatQuantity(roundUpQuantity(q('1.0001'), -3)), '1001m', 'a rounded copy is formatted as itself');
  // Errors are kept as well, and stay errors; numbers are parsed as their text, each time.
  assert.equal(quantityError('12iM'), quantitySuffixError);
  assert.equal(quantityError('12iM'), quantitySuffixError);
  assert.equal(formatQuantity(q(1.5)), '1500m');
  assert.notEqual(q(1.5), q(1.5));
  // Past the kept strings' bound the map starts over; answers stay right.
  for (let i = 0; i < 3000; i++) assert.equal(formatQuantity(q(`${i}m`)), i === 0 ? '0' : i % 1000 === 0 ? `${i / 1000}` : `${i}m`);
  assert.equal(formatQuantity(q('500Mi')), '500Mi');
  const long = `${'1'.repeat(70)}m`;
  assert.notEqual(q(long), q(long), 'a long string is not kept');
});
