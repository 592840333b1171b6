/**
 * Fuzz of CEL rules and schema patterns (hardening findings 1 and 2): random
 * CRDs whose rules nest comprehensions, chain string functions and call
 * matches(), with patterns RE2 accepts or refuses (backtracking shapes
 * included), then custom resources against the accepted ones. Every answer
 * must be a well-formed object (201) or a meta/v1 Status (422 and the like)
 * with causes, and a bystander's /readyz and GET must be served within 1 s
 * throughout.
 *
 * Bounded and reproducible: K8TS_FUZZ_CEL_RUNS (CRDs, default 40) and
 * K8TS_FUZZ_CEL_SEED (default fixed, printed).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import fc from 'fast-check';
import { startCluster, eventually, type Cluster } from './harness.js';
import { apiRequest, type ApiResponse } from './helpers.js';
import { duringAttack } from './bystander.js';

const runs = Number(process.env.K8TS_FUZZ_CEL_RUNS ?? 40);
const seed = Number(process.env.K8TS_FUZZ_CEL_SEED ?? 20_261_202);
const group = 'fuzzcel.example.com';

const patterns = ['^(a+)+$', '^(a|a)*$', '(a*)*b', '^[a-z]+$', '^(?=a)b', '(a)\\1', '(?<!x)y', '[', '\\d{2,3}', '(?i)^A+!$', '^(.*a){12}$'];
const lists = ['self.l', 'self.l.map(x, x + x)', "self.s.split('a')", 'self.l.filter(x, x.size() > 1)'];
const strs = ['self.s', "self.l.join(',')", "self.s.replace('a', 'aaaaaaaaaa')", "self.s.replace('', 'xx')", 'self.s.lowerAscii()'];

/** A rule of the shapes the findings used: nested comprehensions, chained string functions, matches(). */
const rule: fc.Arbitrary<string> = fc.letrec<{ bool: string; str: string }>((tie) => ({
  str: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(...strs),
    fc.tuple(tie('str'), fc.constantFrom("'a'", "''"), fc.constantFrom("'aaaaaaaaaa'", "'b'")).map(([s, a, b]) => `${s}.replace(${a}, ${b})`),
    fc.tuple(tie('str'), tie('str')).map(([a, b]) => `${a} + ${b}`),
  ),
  bool: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    tie('str').map((s) => `${s}.size() > 0`),
    fc.tuple(tie('str'), fc.constantFrom(...patterns)).map(([s, p]) => `${s}.matches(${JSON.stringify(p)})`),
    fc.tuple(fc.constantFrom('all', 'exists', 'exists_one'), fc.constantFrom(...lists), tie('bool')).map(([m, l, b]) => `${l}.${m}(a, ${b})`),
    fc.tuple(fc.constantFrom(...lists), fc.constantFrom(...lists)).map(([l1, l2]) => `${l1}.all(a, ${l2}.all(b, a != b || a == b))`),
    fc.tuple(tie('bool'), tie('bool')).map(([a, b]) => `${a} || ${b}`),
    fc.constantFrom('self.m.all(k, k.size() > 0)', "'x' in self.l", 'self.l.size() <= 3'),
  ),
})).bool;

const bound = (values: (number | undefined)[]) => fc.constantFrom(...values);
const schema = fc.record({
  l: fc.record({ maxItems: bound([undefined, 3, 100, 1000]), maxLength: bound([undefined, 8, 64]) }),
  s: fc.record({ maxLength: bound([undefined, 10, 100]), pattern: fc.option(fc.constantFrom(...patterns), { nil: undefined }) }),
  m: fc.record({ maxProperties: bound([undefined, 5]) }),
  rules: fc.array(rule, { minLength: 1, maxLength: 3 }),
});
const value = fc.record({
  l: fc.oneof(fc.array(fc.constantFrom('a', 'ab', 'aaaaaaaa', 'x'), { maxLength: 8 }), fc.integer({ min: 100, max: 2000 }).map((n) => Array.from({ length: n }, (_, i) => `v${i}`))),
  s: fc.oneof(fc.constantFrom('', 'abc', 'aaaaaaaaaa'), fc.integer({ min: 10, max: 60 }).map((n) => `${'a'.repeat(n)}!`)),
  m: fc.dictionary(fc.constantFrom('k1', 'k2', 'k3'), fc.constant('v')),
});

type Shape = typeof schema extends fc.Arbitrary<infer S> ? S : never;

function crdFor(plural: string, s: Shape) {
  const kind = `Fz${plural.slice(2, -1)}`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `${plural}.${group}` },
    spec: {
      group, scope: 'Namespaced', names: { plural, singular: plural.slice(0, -1), kind, listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: {
        type: 'object',
        properties: {
          l: { type: 'array', maxItems: s.l.maxItems, items: { type: 'string', maxLength: s.l.maxLength } },
          s: { type: 'string', maxLength: s.s.maxLength, pattern: s.s.pattern },
          m: { type: 'object', maxProperties: s.m.maxProperties, additionalProperties: { type: 'string' } },
        },
        'x-kubernetes-validations': s.rules.map((r) => ({ rule: r })),
      } } } } }],
    },
  };
}

/** The invariant of every answer: a created object, or a Status whose code is the HTTP status. */
function wellFormed(r: ApiResponse, kind: string, what: string): any {
  let body: any;
  try { body = r.json(); } catch { assert.fail(`${what}: not JSON (${r.status}): ${r.body.slice(0, 300)}`); }
  if (r.status === 201) { assert.equal(body.kind, kind, `${what}: ${r.body.slice(0, 300)}`); return body; }
  assert.ok(r.status >= 400 && r.status < 500, `${what}: status ${r.status}: ${r.body.slice(0, 500)}`);
  assert.equal(body.kind, 'Status', `${what}: ${r.body.slice(0, 300)}`);
  assert.equal(body.code, r.status);
  if (r.status === 422) assert.ok(Array.isArray(body.details?.causes) && body.details.causes.length > 0, `${what}: ${r.body.slice(0, 300)}`);
  return body;
}

describe('fuzz: CEL rules and patterns', () => {
  let c: Cluster;
  before(async () => { c = await startCluster(); });
  after(async () => {
    await c?.cleanup();
    if (c) rmSync(c.dataDir, { recursive: true, force: true });
  });

  it(`CRDs and custom resources answer well-formed while a bystander is served (seed ${seed}, ${runs} runs)`, { timeout: 600_000 }, async () => {
    console.log(`fuzz-cel: seed ${seed}, ${runs} runs (K8TS_FUZZ_CEL_SEED, K8TS_FUZZ_CEL_RUNS)`);
    let n = 0;
    let accepted = 0;
    let objects = 0;
    await duringAttack(c, () => fc.assert(fc.asyncProperty(schema, fc.array(value, { minLength: 1, maxLength: 2 }), async (s, values) => {
      const plural = `fz${n++}s`;
      const created = await apiRequest(c, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { method: 'POST', body: JSON.stringify(crdFor(plural, s)) });
      if (created.status !== 201) { wellFormed(created, 'CustomResourceDefinition', `CRD ${JSON.stringify(s)}`); return; }
      accepted++;
      await eventually(async () => (await apiRequest(c, `/apis/${group}/v1/namespaces/default/${plural}`)).status === 200, 30_000, `${plural} served`);
      for (const [i, spec] of values.entries()) {
        const kind = `Fz${plural.slice(2, -1)}`;
        const r = await apiRequest(c, `/apis/${group}/v1/namespaces/default/${plural}`, {
          method: 'POST', body: JSON.stringify({ apiVersion: `${group}/v1`, kind, metadata: { name: `o${i}` }, spec }),
        });
        wellFormed(r, kind, `${kind} under rules ${JSON.stringify(s.rules)}`);
        objects++;
      }
    }), { numRuns: runs, seed, endOnFailure: true }), { minSamples: 2 });
    console.log(`fuzz-cel: ${n} CRDs, ${accepted} accepted, ${objects} custom resources`);
  });
});
