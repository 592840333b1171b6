/**
 * Fuzz (fast-check, bounded) of concurrent writes to one object by several
 * managers: server-side applies (force), merge patches and unconditional PUTs,
 * all without resourceVersion, sent at once to a real server. Invariants:
 *  - no unconditional write is refused (every answer 200; never a 409);
 *  - the final object is what the writes give in the order the server
 *    committed them (each answer's resourceVersion orders them): each key
 *    holds the value of the last write that set it;
 *  - a bystander (test/e2e/bystander.ts) is served throughout.
 *
 * Bounded and reproducible: K8TS_FUZZ_APPLY_RUNS (default 12), K8TS_FUZZ_SEED.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { startCluster, type Cluster } from './harness.js';
import { apiRequest, type ApiResponse } from './helpers.js';
import { duringAttack } from './bystander.js';

const numRuns = Number(process.env.K8TS_FUZZ_APPLY_RUNS ?? 12);
const seed = Number(process.env.K8TS_FUZZ_SEED ?? 120_612);
const writers = 4;
/** Each writer's own keys: an apply always sends both, so it never prunes what it applied before. */
const keysOf = (w: number) => [`w${w}a`, `w${w}b`];
const allKeys = Array.from({ length: writers }, (_, w) => keysOf(w)).flat();

type Op =
  | { type: 'apply'; writer: number; value: string }
  | { type: 'merge'; writer: number; key: number; value: string }
  | { type: 'put'; writer: number; value: string };

const value = fc.stringMatching(/^[a-z0-9]{1,6}$/);
const writer = fc.integer({ min: 0, max: writers - 1 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ type: fc.constant('apply' as const), writer, value }),
  fc.record({ type: fc.constant('merge' as const), writer, key: fc.integer({ min: 0, max: 1 }), value }),
  fc.record({ type: fc.constant('put' as const), writer, value }),
);

let cluster: Cluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster?.cleanup(); });

const path = (name: string) => `/api/v1/namespaces/default/configmaps/${name}`;

function send(name: string, o: Op): Promise<ApiResponse> {
  const manager = `writer-${o.writer}`;
  switch (o.type) {
    case 'apply': {
      const data = Object.fromEntries(keysOf(o.writer).map((k) => [k, o.value]));
      return apiRequest(cluster, `${path(name)}?fieldManager=${manager}&force=true`, {
        method: 'PATCH', contentType: 'application/apply-patch+yaml', body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data }),
      });
    }
    case 'merge':
      return apiRequest(cluster, `${path(name)}?fieldManager=${manager}`, {
        method: 'PATCH', contentType: 'application/merge-patch+json', body: JSON.stringify({ data: { [keysOf(o.writer)[o.key]]: o.value } }),
      });
    case 'put': {
      const data = Object.fromEntries(allKeys.map((k) => [k, o.value]));
      return apiRequest(cluster, `${path(name)}?fieldManager=${manager}`, {
        method: 'PUT', body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data }),
      });
    }
  }
}

/** The data the writes give when applied in commit order. */
function expectedData(committed: { o: Op; rv: number }[]): Record<string, string> {
  const data: Record<string, string> = {};
  for (const { o } of [...committed].sort((a, b) => a.rv - b.rv)) {
    if (o.type === 'apply') for (const k of keysOf(o.writer)) data[k] = o.value;
    else if (o.type === 'merge') data[keysOf(o.writer)[o.key]] = o.value;
    else for (const k of allKeys) data[k] = o.value;
  }
  return data;
}

let run = 0;

test('concurrent applies, patches and updates of one object by several managers', { timeout: 300_000 }, async () => {
  console.log(`fuzz-apply: seed ${seed}, ${numRuns} runs (K8TS_FUZZ_SEED, K8TS_FUZZ_APPLY_RUNS)`);
  await duringAttack(cluster, () => fc.assert(fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 24 }), async (ops) => {
    const name = `fuzz-apply-${run++}`;
    const created = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps', {
      method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }),
    });
    assert.equal(created.status, 201, created.body);
    const answers = await Promise.all(ops.map((o) => send(name, o)));
    const refused = answers.map((r, i) => ({ r, o: ops[i] })).filter(({ r }) => r.status !== 200);
    assert.deepEqual(refused.map(({ o, r }) => `${o.type} by writer-${o.writer}: ${r.status} ${r.body}`), []);
    const committed = answers.map((r, i) => ({ o: ops[i], rv: Number((r.json() as ConfigMap).metadata!.resourceVersion) }));
    const final = (await apiRequest(cluster, path(name))).json() as ConfigMap;
    assert.deepEqual(final.data ?? {}, expectedData(committed));
  }), { numRuns, seed }));
});
