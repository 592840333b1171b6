/**
 * Patch bodies of the three PATCH types, built against a seed object so a
 * good share of them touch real fields: JSON patches (RFC 6902 operations on
 * real and broken pointers), merge patches (mutated fragments with null
 * deletions) and strategic merge patches (the same plus `$patch`,
 * `$retainKeys`, `$setElementOrder` and `$deleteFromPrimitiveList` directives
 * and list items without their merge key).
 */
import fc from 'fast-check';
import { applyMutations, mutation, pathsOf } from './mutate.js';
import { fieldName, jsonValue, stringValue } from './values.js';

export type PatchKind = 'json' | 'merge' | 'strategic';

export const patchContentTypes: Record<PatchKind, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

const pointerOf = (path: (string | number)[]) => path.map((k) => `/${String(k).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

const brokenPointers = ['', '/', 'metadata', '/metadata/labels/a~1b', '/metadata/labels/new', '/spec/containers/-', '/spec/containers/99', '/spec/containers/-1',
  '/spec/containers/01', '/~2', '/metadata/name', '/metadata/resourceVersion', '/kind', '/apiVersion', '/status', '/spec/template/spec/containers/0/ports/-',
  '/metadata/labels', '/metadata/finalizers/-', '/metadata/ownerReferences', '/spec/selector/matchLabels/app', '/%', '/a/b/c/d'];

/** A pointer into the seed (usually) or a broken one. */
const pointer = (seed: object) => fc.oneof(
  { weight: 3, arbitrary: fc.nat().map((i) => { const ps = pathsOf(seed); return pointerOf(ps[i % ps.length]); }) },
  { weight: 2, arbitrary: fc.constantFrom(...brokenPointers) },
  { weight: 1, arbitrary: fc.string({ maxLength: 10 }).map((s) => `/${s}`) },
);

const jsonPatchOp = (seed: object) => fc.record({
  op: fc.oneof({ weight: 8, arbitrary: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test') }, { weight: 1, arbitrary: fc.constantFrom('bogus', 'ADD', '', 'merge') }),
  path: pointer(seed),
  from: fc.option(pointer(seed), { nil: undefined }),
  value: fc.option(jsonValue, { nil: undefined }),
}, { requiredKeys: [] });

/** An operations list, sometimes damaged or past upstream's 10000-operation limit. */
const jsonPatch = (seed: object): fc.Arbitrary<unknown> => fc.oneof(
  { weight: 8, arbitrary: fc.array(jsonPatchOp(seed), { maxLength: 6 }) },
  { weight: 1, arbitrary: jsonValue },
  { weight: 1, arbitrary: fc.constant(Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/kind', value: 'x' }))) },
);

/** A fragment of the seed, mutated, with some fields set to null (deletion). */
const fragment = (seed: object) => fc.record({
  keep: fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
  mutations: fc.array(mutation, { maxLength: 4 }),
  nulls: fc.array(fc.nat(), { maxLength: 2 }),
}).map(({ keep, mutations, nulls }) => {
  const ps = pathsOf(seed).filter((p) => p.length > 0);
  const out: any = {};
  for (const i of keep) copyPath(seed, out, ps[i % ps.length]);
  for (const i of nulls) setPath(out, ps[i % ps.length], null);
  return applyMutations(out, mutations);
});

function copyPath(src: any, dst: any, path: (string | number)[]) {
  let v = src;
  for (const k of path) v = v?.[k];
  setPath(dst, path, structuredClone(v));
}

function setPath(dst: any, path: (string | number)[], value: unknown) {
  let d = dst;
  for (let i = 0; i < path.length - 1; i++) {
    const k = path[i];
    if (d[k] === null || typeof d[k] !== 'object') d[k] = typeof path[i + 1] === 'number' ? [] : {};
    d = d[k];
  }
  d[path[path.length - 1]] = value;
}

const mergePatch = (seed: object): fc.Arbitrary<unknown> => fc.oneof(
  { weight: 8, arbitrary: fragment(seed) },
  { weight: 1, arbitrary: jsonValue },
);

const directive = fc.oneof(
  fc.record({ key: fc.constant('$patch'), value: fc.constantFrom('replace', 'delete', 'merge', 'bogus', 1, null) }),
  fc.record({ key: fc.constant('$retainKeys'), value: fc.oneof(fc.array(fieldName, { maxLength: 3 }), jsonValue) }),
  fc.record({ key: fc.constantFrom('$setElementOrder/containers', '$setElementOrder/ports', '$setElementOrder/tolerations', '$setElementOrder/env', '$setElementOrder/finalizers'), value: fc.oneof(fc.array(fc.record({ name: stringValue }), { maxLength: 3 }), jsonValue) }),
  fc.record({ key: fc.constantFrom('$deleteFromPrimitiveList/finalizers', '$deleteFromPrimitiveList/command', '$deleteFromPrimitiveList/args'), value: fc.oneof(fc.array(stringValue, { maxLength: 3 }), jsonValue) }),
);

/** Strategic patches that reach the merge-key logic: list items of keyed lists with odd or missing keys. */
const keyedLists = fc.constantFrom(
  { metadata: { finalizers: ['a', 'a'] } },
  { spec: { containers: [{ image: 'nginx' }] } },
  { spec: { containers: [{ name: 'main', $patch: 'delete' }] } },
  { spec: { containers: [{ name: 'main', ports: [{ containerPort: 9090, $patch: 'replace' }] }] } },
  { spec: { containers: [{ name: 1 }] } },
  { spec: { containers: [[{ name: 'x' }]] } },
  { spec: { containers: ['main'] } },
  { spec: { ports: [{ port: 81 }, { port: 81, protocol: 'UDP' }] } },
  { spec: { ports: [{ name: 'x' }] } },
  { spec: { template: { spec: { containers: [{ name: 'main', env: [{ value: 'no-name' }] }] } } } },
  { spec: { template: { spec: { volumes: [{ name: 'v', $retainKeys: ['name'], emptyDir: {} }] } } } },
  { spec: { taints: [{ effect: 'NoSchedule' }] } },
  { metadata: { ownerReferences: [{ uid: 'u' }] } },
  { spec: { tolerations: [{ $patch: 'delete' }] } },
  { spec: { $patch: 'replace', selector: { app: 'x' } } },
);

const strategicPatch = (seed: object): fc.Arbitrary<unknown> => fc.oneof(
  { weight: 4, arbitrary: fragment(seed) },
  { weight: 3, arbitrary: fc.tuple(fragment(seed), fc.array(fc.tuple(fc.nat(), directive), { minLength: 1, maxLength: 3 })).map(([frag, ds]) => withDirectives(frag, ds)) },
  { weight: 2, arbitrary: keyedLists },
  { weight: 1, arbitrary: jsonValue },
);

/** Puts each directive into one of the fragment's objects, picked by index. */
function withDirectives(frag: unknown, ds: [number, { key: string; value: unknown }][]): unknown {
  const objects = pathsOf(frag).map((p) => p.reduce((v: any, k) => v?.[k], frag)).filter((v) => v !== null && typeof v === 'object' && !Array.isArray(v));
  for (const [i, d] of ds) if (objects.length) (objects[i % objects.length] as any)[d.key] = d.value;
  return frag;
}

export function patchFor(kind: PatchKind, seed: object): fc.Arbitrary<unknown> {
  switch (kind) {
    case 'json': return jsonPatch(seed);
    case 'merge': return mergePatch(seed);
    case 'strategic': return strategicPatch(seed);
  }
}
