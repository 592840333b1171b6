/**
 * Odd JSON values for the fuzz suite: numbers at and past the Go int32 and
 * int64 edges, floats where integers go, quantities, long strings, unicode
 * (including NUL, a lone surrogate and right-to-left marks) and small
 * nested values of every JSON type.
 */
import fc from 'fast-check';

const edgeNumbers = [
  0, -1, 1, 1.5, -0.5, 0.1, 1e-9, 80, 65535, 65536, 30000, 32767, 32768, 2 ** 31 - 1, 2 ** 31, -(2 ** 31) - 1,
  2 ** 32, 2 ** 53, 2 ** 53 + 2, 2 ** 63, -(2 ** 63), 1e21, 1e300, -1e300, Number.MAX_VALUE, Number.MIN_VALUE,
];

export const numberValue: fc.Arbitrary<number> = fc.oneof(fc.constantFrom(...edgeNumbers), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));

/** Strings a Kubernetes field might be fed: names, quantities, numbers as text, selectors, unicode. */
const edgeStrings = [
  '', ' ', 'a', 'A', '-', '.', '..', 'a.b', 'a_b', 'a b', 'UPPER', '1', '-1', '0x10', '1e3', '1.5', 'NaN', 'Infinity', 'true', 'null',
  '100m', '1Gi', '1.5Gi', '-1Gi', '1e100', '9999999999999999999999Ei', '0.0000000001', '1Ki', '1k', '12Mi ', '+1', '.5',
  'ünïcödé', '日本語', '😀', 'a\u0000b', '\ud800', '\u202eabc', 'line\nbreak', 'tab\there', '"quoted"', "'single'", '\\', '%00', '%zz',
  'a=b', 'a,b', 'a!=b', '(x)', 'in', 'notin', 'x'.repeat(63), 'x'.repeat(64), 'x'.repeat(253), 'x'.repeat(254),
  'kubernetes.io/name', 'example.com/x', '/leading', 'trailing/', 'a/b/c', '10.0.0.1', '::1', '999.1.1.1', '30000', 'TCP', 'UDP', 'SCTP',
  'Always', 'Never', 'IfNotPresent', 'ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName', 'RollingUpdate', 'OnDelete', 'Recreate',
  'NoSchedule', 'NoExecute', 'Exists', 'Equal', 'busybox', 'busybox:1.36', 'apps/v1', 'v1', 'Pod', 'Service',
];

export const stringValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...edgeStrings) },
  { weight: 2, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.constantFrom(300, 4096, 70_000, 300_000).map((n) => 'x'.repeat(n)) },
);

/** Any JSON value, weighted towards the edges above. */
export const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: stringValue },
  { weight: 3, arbitrary: numberValue },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.dictionary(stringValue, stringValue, { maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.array(stringValue, { maxLength: 3 }) },
);

/** A key for an unknown field, or a known name in the wrong place. */
export const fieldName: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('foo', 'spec', 'status', 'metadata', 'name', 'labels', 'items', 'apiVersion', 'kind', 'containers', 'ports', '$patch', '$retainKeys', '', ' ', 'ü', '__proto__', 'constructor', 'toString', 'hasOwnProperty'),
  fc.string({ maxLength: 12 }),
);
