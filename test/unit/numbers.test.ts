/**
 * Out-of-range numbers, refused or kept as upstream does: int32 and int64
 * fields decode only numbers that fit them (encoding/json's "cannot unmarshal
 * number X ... of type int32"), integer query parameters parse as
 * strconv.ParseInt, --service-node-port-range parses as net.PortRange, and
 * BinarySI quantities past int64 are capped at 2^63-1, not refused.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { kindKey, resources } from '../../src/api/resources.js';
import { findTypeErrors, openapiDefinitions } from '../../src/api/schema/index.js';
import { decodeTreeFor, type DecodeNode } from '../../src/api/schema/compile.js';
import { fitsGoInt } from '../../src/api/schema/goints.js';
import { canonicalQuantity, quantityError } from '../../src/api/quantity.js';
import { parseInt64 } from '../../src/api/list-options.js';
import { parsePortRange, portRangeContains, portRangeString } from '../../src/util/port-range.js';

describe('fitsGoInt', () => {
  const cases: [number, 'int32' | 'int64', boolean][] = [
    [0, 'int32', true], [2147483647, 'int32', true], [-2147483648, 'int32', true],
    [2147483648, 'int32', false], [-2147483649, 'int32', false], [1.5, 'int32', false], [1e300, 'int32', false],
    [0, 'int64', true], [2147483648, 'int64', true], [Number.MAX_SAFE_INTEGER, 'int64', true], [-Number.MAX_SAFE_INTEGER, 'int64', true],
    // Past 2^53 the double is kept (the request's low digits may already be lost).
    [2 ** 62, 'int64', true], [2 ** 63 - 1024, 'int64', true], [-(2 ** 63) + 1024, 'int64', true],
    // ±2^63 is what JSON.parse makes of 9223372036854775807 as well as of 9223372036854775808: refused.
    [2 ** 63, 'int64', false], [-(2 ** 63), 'int64', false], [1e300, 'int64', false], [-1e300, 'int64', false],
    [0.5, 'int64', false], [Infinity, 'int64', false], [NaN, 'int64', false], [Infinity, 'int32', false],
  ];
  for (const [value, goType, want] of cases) {
    it(`${value} ${want ? 'fits' : 'does not fit'} ${goType}`, () => assert.equal(fitsGoInt(value, goType), want));
  }
  it('2^63 - 1024 is written back as text that Go reads into an int64', () => {
    const text = JSON.stringify(2 ** 63 - 1024);
    assert.ok(BigInt(text) <= 2n ** 63n - 1n, text);
  });
});

describe('findTypeErrors: integers out of range', () => {
  const cases: { name: string; key: string; obj: unknown; want: string[] }[] = [
    { name: 'int32 one past the top', key: 'apps/v1/Deployment', obj: { spec: { replicas: 2147483648 } },
      want: ['json: cannot unmarshal number 2147483648 into Go struct field DeploymentSpec.spec.replicas of type int32'] },
    { name: 'int32 one past the bottom', key: 'apps/v1/Deployment', obj: { spec: { replicas: -2147483649 } },
      want: ['json: cannot unmarshal number -2147483649 into Go struct field DeploymentSpec.spec.replicas of type int32'] },
    { name: 'int32 at both ends', key: 'apps/v1/Deployment', obj: { spec: { replicas: 2147483647, minReadySeconds: -2147483648 } }, want: [] },
    { name: 'int64 far out', key: 'v1/Pod', obj: { spec: { terminationGracePeriodSeconds: 1e300 } },
      want: ['json: cannot unmarshal number 1e+300 into Go struct field PodSpec.spec.terminationGracePeriodSeconds of type int64'] },
    { name: 'int64 at 2^63', key: 'v1/Pod', obj: { spec: { activeDeadlineSeconds: 2 ** 63 } },
      want: ['json: cannot unmarshal number 9223372036854775808 into Go struct field PodSpec.spec.activeDeadlineSeconds of type int64'] },
    { name: 'int64 past int32 is fine', key: 'v1/Pod', obj: { spec: { terminationGracePeriodSeconds: 2147483648 } }, want: [] },
    { name: 'int64 list elements', key: 'v1/Pod', obj: { spec: { securityContext: { supplementalGroups: [1, -1e300] } } },
      want: ['json: cannot unmarshal number -1e+300 into Go struct field PodSecurityContext.spec.securityContext.supplementalGroups of type int64'] },
    { name: 'int32 inside a list of structs', key: 'v1/Service', obj: { spec: { ports: [{ port: 80 }, { port: 4294967296 }] } },
      want: ['json: cannot unmarshal number 4294967296 into Go struct field ServicePort.spec.ports.port of type int32'] },
    { name: 'a numeric IntOrString holds an int32', key: 'v1/Service', obj: { spec: { ports: [{ port: 80, targetPort: 2147483648 }] } },
      want: ['json: cannot unmarshal number 2147483648 into Go struct field ServicePort.spec.ports.targetPort of type int32'] },
    { name: 'a string IntOrString has no range', key: 'v1/Service', obj: { spec: { ports: [{ port: 80, targetPort: '99999999999' }] } }, want: [] },
    { name: 'past 1e21 JavaScript\'s spelling', key: 'apps/v1/Deployment', obj: { spec: { replicas: 1e21 } },
      want: ['json: cannot unmarshal number 1e+21 into Go struct field DeploymentSpec.spec.replicas of type int32'] },
    { name: 'the Scale subresource', key: 'autoscaling/v1/Scale', obj: { spec: { replicas: 2147483648 } },
      want: ['json: cannot unmarshal number 2147483648 into Go struct field ScaleSpec.spec.replicas of type int32'] },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(findTypeErrors(c.key, c.obj), c.want));
  }
});

interface IntegerField { path: (string | 0)[]; goType: string }

/** Every integer (and IntOrString) field reachable from a decode tree, once per struct along a path. */
function integerFields(node: DecodeNode, path: (string | 0)[] = [], seen = new Set<DecodeNode>(), out: IntegerField[] = []): IntegerField[] {
  if (node.kind === 'integer' || node.kind === 'intOrString') out.push({ path, goType: node.goType });
  if (node.kind === 'array') integerFields(node.items, [...path, 0], seen, out);
  if (node.kind === 'map') integerFields(node.value, [...path, 'key'], seen, out);
  if (node.kind === 'struct' && !seen.has(node)) {
    seen.add(node);
    for (const [name, field] of node.fields) integerFields(field, [...path, name], seen, out);
    seen.delete(node);
  }
  return out;
}

/** A minimal object that holds `value` at `path` (index 0 makes a one-element list). */
function objectAt(path: (string | 0)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  return head === 0 ? [objectAt(rest, value)] : { [head]: objectAt(rest, value) };
}

describe('every integer field of every served kind', () => {
  const kinds = [...new Set(resources.map((r) => kindKey(r)))];
  let checked = 0;
  for (const key of kinds) {
    const root = decodeTreeFor(key);
    if (!root) continue;
    it(`${key}: in range is accepted, one past is refused`, () => {
      for (const { path, goType } of integerFields(root)) {
        const [max, over] = goType === 'int32' ? [2 ** 31 - 1, 2 ** 31] : [Number.MAX_SAFE_INTEGER, 2 ** 63];
        const where = path.join('.');
        assert.deepEqual(findTypeErrors(key, objectAt(path, max)), [], `${key} ${where} = ${max}`);
        assert.deepEqual(findTypeErrors(key, objectAt(path, -max - 1)), [], `${key} ${where} = ${-max - 1}`);
        const errs = findTypeErrors(key, objectAt(path, over));
        assert.equal(errs.length, 1, `${key} ${where} = ${over}`);
        assert.match(errs[0], new RegExp(`^json: cannot unmarshal number ${BigInt(over)} into Go struct field \\w+\\.[\\w.]+ of type ${goType}$`));
        checked++;
      }
    });
  }
  it('covers many fields', () => assert.ok(checked > 100, `${checked}`));
  it('every integer in the schemas says int32 or int64, as upstream\'s OpenAPI does', () => {
    const missing: string[] = [];
    for (const [name, def] of Object.entries(openapiDefinitions())) {
      for (const [field, prop] of Object.entries(def.properties ?? {})) {
        const leaf = prop.type === 'array' ? prop.items : prop.type === 'object' && prop.additionalProperties ? prop.additionalProperties : prop;
        if (leaf?.type === 'integer' && leaf.format !== 'int32' && leaf.format !== 'int64') missing.push(`${name}.${field}`);
      }
    }
    assert.deepEqual(missing, []);
  });
  it('known Go types', () => {
    const format = (def: string, field: string) => openapiDefinitions()[def].properties?.[field];
    assert.equal(format('io.k8s.api.apps.v1.DeploymentSpec', 'replicas')?.format, 'int32');
    assert.equal(format('io.k8s.api.core.v1.PodSpec', 'terminationGracePeriodSeconds')?.format, 'int64');
    assert.equal(format('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'generation')?.format, 'int64');
    assert.equal(format('io.k8s.api.core.v1.PodSecurityContext', 'supplementalGroups')?.items?.format, 'int64');
    assert.equal(format('io.k8s.api.core.v1.ServicePort', 'nodePort')?.format, 'int32');
  });
});

describe('parseInt64: integer query parameters', () => {
  const cases: [string, bigint | string][] = [
    ['500', 500n], ['0', 0n], ['-1', -1n], ['+7', 7n], ['007', 7n],
    ['9223372036854775807', 9223372036854775807n], ['-9223372036854775808', -9223372036854775808n],
    ['9223372036854775808', 'strconv.ParseInt: parsing "9223372036854775808": value out of range'],
    ['abc', 'strconv.ParseInt: parsing "abc": invalid syntax'],
    ['1.5', 'strconv.ParseInt: parsing "1.5": invalid syntax'],
    ['1e3', 'strconv.ParseInt: parsing "1e3": invalid syntax'],
    ['', 'strconv.ParseInt: parsing "": invalid syntax'],
    [' 5', 'strconv.ParseInt: parsing " 5": invalid syntax'],
  ];
  for (const [input, want] of cases) {
    it(JSON.stringify(input), () => {
      let got: { value?: bigint; error?: string };
      try { got = { value: parseInt64(input) }; } catch (e) { got = { error: (e as Error).message }; }
      assert.deepEqual(got, typeof want === 'bigint' ? { value: want } : { error: want });
    });
  }
});

describe('parsePortRange: --service-node-port-range', () => {
  const cases: [string, { base: number; size: number } | string][] = [
    ['30000-32767', { base: 30000, size: 2768 }], ['30000+2767', { base: 30000, size: 2768 }], ['31000', { base: 31000, size: 1 }],
    [' 1-65535 ', { base: 1, size: 65535 }], ['', { base: 30000, size: 2768 }],
    ['abc', 'strconv.Atoi: parsing "abc": invalid syntax'], ['1-2+3', 'unable to parse port range: 1-2+3'],
    ['30000-70000', 'the port range cannot be greater than 65535: 30000-70000'], ['32767-30000', 'end port cannot be less than start port: 32767-30000'],
  ];
  for (const [input, want] of cases) {
    it(JSON.stringify(input), () => {
      if (typeof want === 'string') assert.throws(() => parsePortRange(input), { message: want });
      else assert.deepEqual(parsePortRange(input), want);
    });
  }
  it('prints and bounds the range as the port allocator does', () => {
    const r = parsePortRange('30000-32767');
    assert.equal(portRangeString(r), '30000-32767');
    assert.deepEqual([29999, 30000, 32767, 32768, 99999].map((p) => portRangeContains(r, p)), [false, true, true, false, false]);
  });
});

describe('quantities past int64', () => {
  // apimachinery ParseQuantity: "The max is just a simple cap" for BinarySI (quantity_test.go: "9Ei" and
  // "9223372036854775807Ki" parse to maxAllowed); DecimalSI and exponents are kept exactly.
  const cases: [string, string][] = [
    ['99999999999999999999999Ei', '9223372036854775807'], ['-99999999999999999999999Ei', '-9223372036854775807'],
    ['9Ei', '9223372036854775807'], ['9223372036854775807Ki', '9223372036854775807'], ['8Ei', '9223372036854775807'],
    ['7Ei', '7Ei'], ['99999999999999999999999E', '99999999999999999999999E'], ['99999999999999999999999', '99999999999999999999999'],
    ['9223372036854775808', '9223372036854775808'],
  ];
  for (const [input, want] of cases) {
    it(`${input} -> ${want}`, () => {
      assert.equal(quantityError(input), undefined);
      assert.equal(canonicalQuantity(input), want);
    });
  }
});
