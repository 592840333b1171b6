/**
 * Hardening findings 1 and 2 against a real server: CEL rules without a cost
 * budget and backtracking schema patterns. The exact CRDs of the findings are
 * refused at create with upstream's words; a CRD whose rule passes the
 * estimate but runs long on a large object is cut off at PerCallLimit; a
 * `^(a+)+$` pattern answers at once (RE2). While each attack runs, a
 * bystander's /readyz and GET must answer within 1 s.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { startCluster, eventually, type Cluster } from './harness.js';
import { apiRequest, manifestDir } from './helpers.js';
import { duringAttack } from './bystander.js';

const group = 'bounds.example.com';
const budgetHint = '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';

/** A namespaced CRD `<plural>.bounds.example.com` with `spec` as given. */
function crd(plural: string, spec: Record<string, unknown>, rules: Record<string, unknown>[] = []) {
  const kind = plural[0].toUpperCase() + plural.slice(1, -1);
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group, scope: 'Namespaced',
      names: { plural, singular: plural.slice(0, -1), kind, listKind: `${kind}List` },
      versions: [{
        name: 'v1', served: true, storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec, 'x-kubernetes-validations': rules.length ? rules : undefined } } } },
      }],
    },
  };
}

/** What `request` answered and how long it took. */
async function timed<T>(request: () => Promise<T>): Promise<{ r: T; ms: number }> {
  const started = performance.now();
  const r = await request();
  return { r, ms: performance.now() - started };
}

describe('CEL cost and RE2 patterns (hardening findings 1 and 2)', () => {
  let c: Cluster;
  const files = manifestDir();
  const createCRD = (body: unknown) => apiRequest(c, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { method: 'POST', body: JSON.stringify(body) });
  const established = async (plural: string) => {
    await eventually(async () => (await apiRequest(c, `/apis/${group}/v1/namespaces/default/${plural}`)).status === 200, 30_000, `${plural} served`);
  };
  const createCR = (plural: string, name: string, spec: unknown) => {
    const kind = plural[0].toUpperCase() + plural.slice(1, -1);
    return apiRequest(c, `/apis/${group}/v1/namespaces/default/${plural}`, {
      method: 'POST', body: JSON.stringify({ apiVersion: `${group}/v1`, kind, metadata: { name }, spec }),
    });
  };

  before(async () => { c = await startCluster(); });
  after(async () => {
    files.close();
    await c?.cleanup();
    if (c) rmSync(c.dataDir, { recursive: true, force: true });
  });

  it('finding 1: the triple all() over 1,000 items is refused at create with the estimated cost errors (kubectl)', async () => {
    const body = crd('triples', { l: { type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 8 } } },
      [{ rule: 'self.l.all(a, self.l.all(b, self.l.all(c, a != b || b != c || c == a)))' }]);
    const r = await duringAttack(c, () => c.kubectl(['create', '-f', files.write('triples.json', JSON.stringify(body))], { allowFail: true }));
    assert.notEqual(r.code, 0);
    const at = 'spec.versions[0].schema.openAPIV3Schema';
    const rule = `${at}.properties[spec].x-kubernetes-validations[0].rule`;
    assert.match(r.stderr, /The CustomResourceDefinition "triples.bounds.example.com" is invalid/);
    assert.ok(r.stderr.includes(`${rule}: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${budgetHint}`), r.stderr);
    assert.ok(r.stderr.includes(`${rule}: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`), r.stderr);
    assert.ok(r.stderr.includes(`${at}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${budgetHint}`), r.stderr);
    assert.equal((await apiRequest(c, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/triples.${group}`)).status, 404);
  });

  it('finding 1: seven chained replace() calls are refused at create (422 with the cost error at the rule), with or without maxLength 10', async () => {
    // With the string bounded to the finding's 10 characters the estimate still exceeds the per-call
    // limit (each replace may multiply the size by ten), so the runtime budget is never reached on a
    // server: the metering of the call itself is test/unit/cel-cost.test.ts's.
    const rule = `self.s${".replace('a','aaaaaaaaaa')".repeat(7)}.size() > 0`;
    for (const s of [{ type: 'string' }, { type: 'string', maxLength: 10 }]) {
      const r = await duringAttack(c, () => createCRD(crd('replaces', { s }, [{ rule }])));
      assert.equal(r.status, 422, r.body);
      const causes = r.json().details.causes as { reason: string; field: string; message: string }[];
      assert.ok(causes.some((x) => x.reason === 'FieldValueForbidden' && x.field === 'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule'
        && x.message.startsWith('Forbidden: estimated rule cost exceeds budget by factor of')), r.body);
    }
  });

  it('a rule within the estimate that runs long on a large object is cut off at PerCallLimit while others are served', async () => {
    const rule = 'self.l.all(a, self.l.all(b, a != b || a == b))';
    const created = await createCRD(crd('pairs', { l: { type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 8 } } }, [{ rule }]));
    assert.equal(created.status, 201, created.body);
    await established('pairs');
    assert.equal((await createCR('pairs', 'small', { l: ['a', 'b'] })).status, 201);
    const l = Array.from({ length: 1000 }, (_, i) => `v${i}`);
    // Timed around the request alone: the bystander's start (a thread, its TLS connections, a first round) took
    // seconds of its own at CI's load.
    const { r, ms } = await duringAttack(c, () => timed(() => createCR('pairs', 'large', { l })));
    assert.equal(r.status, 422, r.body);
    const status = r.json();
    assert.equal(status.kind, 'Status');
    assert.equal(status.reason, 'Invalid');
    assert.deepEqual(status.details.causes, [{
      reason: 'FieldValueInvalid', field: 'spec',
      message: `Invalid value: "object": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${rule}`,
    }]);
    assert.ok(ms < 5_000, `answered in ${Math.round(ms)} ms`);
  });

  it('rules do not run on an object over its schema\'s bounds (upstream\'s blocking errors)', async () => {
    const l = Array.from({ length: 5000 }, (_, i) => `v${i}`);
    const r = await duringAttack(c, () => createCR('pairs', 'over', { l }));
    assert.equal(r.status, 422, r.body);
    assert.deepEqual(r.json().details.causes, [
      { reason: 'FieldValueTooMany', field: 'spec.l', message: 'Too many: 5000: must have at most 1000 items' },
      { reason: 'FieldValueInvalid', field: '<nil>', message: 'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation' },
    ]);
  });

  it('finding 2: ^(a+)+$ with a×27+! and a×40+! is answered at once with the pattern error while others are served', async () => {
    const created = await createCRD(crd('patterns', { s: { type: 'string', pattern: '^(a+)+$' } }));
    assert.equal(created.status, 201, created.body);
    await established('patterns');
    for (const n of [27, 40]) {
      const s = `${'a'.repeat(n)}!`;
      const { r, ms } = await duringAttack(c, () => timed(() => createCR('patterns', `p${n}`, { s })));
      assert.equal(r.status, 422, r.body);
      assert.deepEqual(r.json().details.causes, [{ reason: 'FieldValueInvalid', field: 'spec.s', message: `Invalid value: "${s}": spec.s in body should match '^(a+)+$'` }]);
      assert.ok(ms < 2_000, `answered in ${Math.round(ms)} ms`);
    }
    assert.equal((await createCR('patterns', 'fine', { s: 'a'.repeat(40) })).status, 201);
  });

  it('finding 2: lookahead and backreference patterns are refused at create with Go regexp\'s words', async () => {
    for (const [plural, pattern, why] of [
      ['lookaheads', '^(?=a)b', 'invalid or unsupported Perl syntax: `(?=`'],
      ['backrefs', '(a)\\1', 'invalid escape sequence: `\\1`'],
    ]) {
      const r = await duringAttack(c, () => createCRD(crd(plural, { s: { type: 'string', pattern } })));
      assert.equal(r.status, 422, r.body);
      assert.deepEqual(r.json().details.causes, [{
        reason: 'FieldValueInvalid', field: 'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[s].pattern',
        message: `Invalid value: ${JSON.stringify(pattern)}: must be a valid regular expression, but isn't: error parsing regexp: ${why}`,
      }]);
    }
  });

  it('CEL matches() is RE2 too: a backtracking pattern in a rule answers at once', async () => {
    const rule = "self.s.matches('^(a+)+$')";
    const created = await createCRD(crd('matchers', { s: { type: 'string', maxLength: 64 } }, [{ rule }]));
    assert.equal(created.status, 201, created.body);
    await established('matchers');
    const r = await duringAttack(c, () => createCR('matchers', 'm', { s: `${'a'.repeat(40)}!` }));
    assert.equal(r.status, 422, r.body);
    assert.equal(r.json().details.causes[0].message, `Invalid value: "object": failed rule: ${rule}`);
  });
});
