/**
 * The fuzz properties: each pairs an arbitrary of request ingredients with
 * the requests it sends. The oracle checks every answer; writes that the
 * server accepted are followed by the stored-object check.
 */
import fc from 'fast-check';
import { applyMutations, bodyDamage, damage, mutation, serialize, type Format } from './mutate.js';
import { patchContentTypes, patchFor, type PatchKind } from './patches.js';
import { accept, bodyContentType, extraHeaders, goBool, isWatch, method, path, query, queryText, watchTimeout, type Query } from './requests.js';
import { fuzzNamespace, seeds, type Seed } from './seeds.js';
import type { Session } from './session.js';
import { stringValue } from './values.js';
import { encode } from './wire.js';

export interface Property<T = any> {
  name: string;
  /** Share of the time budget. */
  share: number;
  arbitrary: fc.Arbitrary<T>;
  run(s: Session, input: T): Promise<void>;
}

const json = 'application/json';
const namespaceChoice = fc.oneof({ weight: 8, arbitrary: fc.constant(fuzzNamespace) }, { weight: 1, arbitrary: fc.constantFrom('default', 'nosuch', 'UPPER', '%2F', 'a'.repeat(300)) });
const collectionPath = (seed: Seed, ns = fuzzNamespace) => seed.collection.replace('NS', ns);
const dryRun = (q: Query) => q.params.some(([k, v]) => k === 'dryRun' && v === 'All');
const ok = (code: number) => code >= 200 && code < 300;

/** Where the object in a 2xx answer lives; Tables and PartialObjectMetadata carry its metadata too. */
function answeredPath(seed: Seed, body: any): string | undefined {
  const meta = body?.kind === 'Table' ? body.rows?.[0]?.object?.metadata : body?.metadata;
  if (typeof meta?.name !== 'string') return undefined;
  const base = seed.collection.includes('NS') ? collectionPath(seed, encode(String(meta.namespace))) : seed.collection;
  return `${base}/${encode(meta.name)}`;
}

/** Creates a valid copy of the seed under a fresh name; returns its path. */
async function createValid(s: Session, seed: Seed, extra: (o: any) => void = () => {}): Promise<{ path: string; name: string }> {
  const obj = structuredClone(seed.object);
  obj.metadata.name = s.freshName(obj.metadata.name);
  extra(obj);
  await s.expect({ method: 'POST', path: collectionPath(seed), headers: { 'Content-Type': json, Accept: json }, body: JSON.stringify(obj), anonymous: false }, 201);
  return { path: `${collectionPath(seed)}/${obj.metadata.name}`, name: obj.metadata.name };
}

const format = fc.constantFrom<Format>('json', 'json', 'json-pretty', 'yaml');
const typeFor = (f: Format) => (f === 'yaml' ? 'application/yaml' : json);
const contentType = fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: bodyContentType });

const writeBody = fc.record({
  mutations: fc.array(mutation, { maxLength: 5 }), format, damage: bodyDamage, cut: fc.nat(), contentType,
});
type WriteBody = { mutations: Parameters<typeof applyMutations>[1]; format: Format; damage: Parameters<typeof damage>[2]; cut: number; contentType?: string };

function bodyText(obj: unknown, b: WriteBody): { text: string; type: string } {
  const mutated = applyMutations(obj, b.mutations);
  return { text: damage(serialize(mutated, b.format), mutated, b.damage, b.cut), type: b.contentType ?? typeFor(b.format) };
}

const create: Property = {
  name: 'create',
  share: 0.22,
  arbitrary: fc.record({ seed: fc.constantFrom(...seeds), body: writeBody, q: query, accept, ns: namespaceChoice }),
  async run(s, { seed, body, q, accept: acc, ns }) {
    const obj = structuredClone(seed.object);
    obj.metadata.name = s.freshName(obj.metadata.name);
    const { text, type } = bodyText(obj, body);
    const { res, json: answer } = await s.send({ method: 'POST', path: collectionPath(seed, ns) + queryText(q), headers: { 'Content-Type': type, Accept: acc }, body: text, anonymous: false });
    const stored = ok(res.status) && !dryRun(q) && answeredPath(seed, answer);
    if (stored) await s.checkStored(stored, `created with ${res.status}`);
  },
};

const update: Property = {
  name: 'update',
  share: 0.15,
  arbitrary: fc.record({
    seed: fc.constantFrom(...seeds), body: writeBody, q: query, accept,
    rv: fc.constantFrom('keep', 'keep', 'drop', 'stale', 'garbage'), status: fc.boolean(),
  }),
  async run(s, { seed, body, q, accept: acc, rv, status }) {
    const { path: target } = await createValid(s, seed);
    const current = await s.expect({ method: 'GET', path: target, headers: { Accept: json }, anonymous: false }, 200);
    if (rv === 'drop') delete current.metadata.resourceVersion;
    if (rv === 'stale') current.metadata.resourceVersion = '1';
    if (rv === 'garbage') current.metadata.resourceVersion = 'x1';
    const { text, type } = bodyText(current, body);
    const sub = status ? '/status' : '';
    const { res } = await s.send({ method: 'PUT', path: target + sub + queryText(q), headers: { 'Content-Type': type, Accept: acc }, body: text, anonymous: false });
    if (ok(res.status) && !dryRun(q)) await s.checkStored(target, `updated with ${res.status}`);
  },
};

const patchKinds: PatchKind[] = ['json', 'merge', 'strategic'];

const patch: Property = {
  name: 'patch',
  share: 0.25,
  arbitrary: fc.tuple(fc.constantFrom(...seeds), fc.constantFrom(...patchKinds)).chain(([seed, kind]) => fc.record({
    seed: fc.constant(seed), kind: fc.constant(kind), patch: patchFor(kind, seed.object),
    contentType: fc.oneof({ weight: 8, arbitrary: fc.constant(patchContentTypes[kind]) }, { weight: 1, arbitrary: bodyContentType }, { weight: 1, arbitrary: fc.constant(`${patchContentTypes[kind]}; charset=utf-8`) }),
    format: fc.constantFrom<Format>('json', 'json', 'json', 'yaml'), damage: bodyDamage, cut: fc.nat(), q: query, accept,
    sub: fc.constantFrom('', '', '', '/status', '/scale'),
  })),
  async run(s, i) {
    const { path: target } = await createValid(s, i.seed);
    const text = damage(serialize(i.patch, i.format), i.patch, i.damage, i.cut);
    const { res } = await s.send({ method: 'PATCH', path: target + i.sub + queryText(i.q), headers: { 'Content-Type': i.contentType, Accept: i.accept }, body: text, anonymous: false });
    if (ok(res.status) && !dryRun(i.q)) await s.checkStored(target, `${i.kind} patch${i.sub} answered ${res.status}`);
  },
};

const deleteOptions = fc.record({
  kind: fc.constantFrom('DeleteOptions', 'Pod', undefined), apiVersion: fc.constantFrom('v1', 'meta.k8s.io/v1', 'apps/v1', undefined),
  gracePeriodSeconds: fc.oneof(fc.constantFrom(0, 1, 30, -1, 1.5, 2 ** 63, '1'), fc.constant(undefined)),
  propagationPolicy: fc.constantFrom('Orphan', 'Background', 'Foreground', 'bogus', '', 1, undefined),
  preconditions: fc.option(fc.record({ uid: fc.constantFrom('x', '', 1), resourceVersion: fc.constantFrom('1', 'x', '') }, { requiredKeys: [] }), { nil: undefined }),
  dryRun: fc.constantFrom(['All'], ['bogus'], 'All', [], undefined),
  orphanDependents: fc.constantFrom(true, false, 'true', undefined),
}, { requiredKeys: [] });

const remove: Property = {
  name: 'delete',
  share: 0.1,
  arbitrary: fc.record({
    seed: fc.constantFrom(...seeds), collection: fc.boolean(), q: query, finalizer: fc.boolean(),
    body: fc.option(fc.record({ options: deleteOptions, mutations: fc.array(mutation, { maxLength: 2 }), format, damage: bodyDamage, cut: fc.nat(), contentType }), { nil: undefined }),
  }),
  async run(s, { seed, collection, q, finalizer, body }) {
    const { path: target } = await createValid(s, seed, (o) => { if (finalizer) o.metadata.finalizers = ['fuzz.k8ts.io/hold']; });
    // Deleting every namespace would leave the suite nowhere to write.
    const path = (collection && seed.kind !== 'Namespace' ? collectionPath(seed) : target) + queryText(q);
    const req = { method: 'DELETE', path, headers: {} as Record<string, string>, body: undefined as string | undefined, anonymous: false };
    if (body) {
      const t = bodyText(body.options, body);
      req.body = t.text;
      req.headers['Content-Type'] = t.type;
    }
    await s.send(req);
    const { res } = await s.send({ method: 'GET', path: target, headers: { Accept: json }, anonymous: false });
    if (res.status === 200) await s.checkStored(target, 'left after delete');
  },
};

const listAndWatch: Property = {
  name: 'list-watch',
  share: 0.13,
  arbitrary: fc.record({
    collection: fc.oneof(
      fc.tuple(fc.constantFrom(...seeds), namespaceChoice).map(([seed, ns]) => collectionPath(seed, ns)),
      fc.constantFrom('/api/v1/pods', '/api/v1/services', '/api/v1/configmaps', '/apis/apps/v1/deployments', '/apis/apps/v1/daemonsets', '/api/v1/events', '/apis/coordination.k8s.io/v1/leases'),
    ),
    q: query, accept, watch: fc.constantFrom('no', 'no', 'no', 'no', 'no', 'param', 'path'), spelling: goBool, timeout: watchTimeout,
  }),
  async run(s, { collection, q, accept: acc, watch, spelling, timeout }) {
    let p = collection;
    const params: [string, string][] = [...q.params];
    if (watch === 'param') params.push(['watch', spelling]);
    if (watch === 'path') p = p.replace(/^(\/api\/v1|\/apis\/[^/]+\/v1)/, '$1/watch');
    const full = { ...q, params };
    await s.send({ method: 'GET', path: p + queryText(full, { watch: isWatch(p, full) }, timeout), headers: { Accept: acc }, anonymous: false });
  },
};

const anyBody = fc.oneof(
  fc.tuple(fc.constantFrom(...seeds), writeBody).map(([seed, b]) => bodyText(seed.object, b).text),
  stringValue,
);

const anyRequest: Property = {
  name: 'any-request',
  share: 0.15,
  arbitrary: fc.record({
    method, path, q: query, accept, contentType: bodyContentType, extra: extraHeaders, timeout: watchTimeout,
    anonymous: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    body: fc.option(anyBody, { nil: undefined, freq: 2 }),
  }),
  async run(s, i) {
    const headers: Record<string, string> = { Accept: i.accept, ...i.extra };
    if (i.body !== undefined) headers['Content-Type'] = i.contentType;
    const q = queryText(i.q, { watch: isWatch(i.path, i.q) || i.method === 'WATCH' }, i.timeout);
    await s.send({ method: i.method, path: i.path + q, headers, body: i.body, anonymous: i.anonymous });
  },
};

/** In this order: the free-form requests last, as they may delete what the others write into. */
export const properties: Property[] = [create, update, patch, remove, listAndWatch, anyRequest];
