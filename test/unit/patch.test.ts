/**
 * PATCH content types, JSON patch (RFC 6902 with kube-apiserver's
 * evanphx/json-patch v4 behaviour) and JSON merge patch (RFC 7386), with the
 * Status codes and messages upstream answers.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyPatch, patchTypeFromContentType } from '../../src/api/patch/index.js';
import type { PatchType } from '../../src/api/patch/index.js';
import { StatusError } from '../../src/api/status.js';

const generic422 = 'the server rejected our request due to an error in our request';

function expectStatus(fn: () => unknown, code: number, message: string, reason?: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof StatusError, `expected a StatusError, got ${String(e)}`);
    assert.equal(e.code, code);
    assert.equal(e.status.message, message);
    if (reason !== undefined) assert.equal(e.reason, reason);
    return true;
  });
}

describe('patchTypeFromContentType', () => {
  const table: [string, PatchType | undefined][] = [
    ['application/json-patch+json', 'json'],
    ['application/merge-patch+json', 'merge'],
    ['application/strategic-merge-patch+json', 'strategic'],
    ['application/merge-patch+json; charset=utf-8', 'merge'],
    ['application/strategic-merge-patch+json;charset=UTF-8', 'strategic'],
    ['application/apply-patch+yaml', undefined],
    ['application/json', undefined],
    ['Application/Merge-Patch+JSON', undefined],
    ['', undefined],
    ['text/plain', undefined],
  ];
  for (const [ct, want] of table) it(`${JSON.stringify(ct)} → ${want}`, () => assert.equal(patchTypeFromContentType(ct), want));
});

const deployment = () => ({
  apiVersion: 'apps/v1', kind: 'Deployment',
  metadata: { name: 'd', namespace: 'default', labels: { app: 'web', 'app.kubernetes.io/name': 'web' } },
  spec: { replicas: 2, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'a', image: 'x:2' }, { name: 'b', image: 'y' }] } } },
});

interface JsonCase { name: string; patch: unknown[]; check: (r: any) => void }

const jsonCases: JsonCase[] = [
  { name: 'add a member', patch: [{ op: 'add', path: '/metadata/annotations', value: { a: 'b' } }], check: (r) => assert.deepEqual(r.metadata.annotations, { a: 'b' }) },
  { name: 'add replaces an existing member', patch: [{ op: 'add', path: '/spec/replicas', value: 5 }], check: (r) => assert.equal(r.spec.replicas, 5) },
  { name: 'add inserts into a list', patch: [{ op: 'add', path: '/spec/template/spec/containers/1', value: { name: 'c' } }], check: (r) => assert.deepEqual(r.spec.template.spec.containers.map((c: any) => c.name), ['a', 'c', 'b']) },
  { name: 'add with - appends', patch: [{ op: 'add', path: '/spec/template/spec/containers/-', value: { name: 'c' } }], check: (r) => assert.equal(r.spec.template.spec.containers[2].name, 'c') },
  { name: 'add at the list length appends', patch: [{ op: 'add', path: '/spec/template/spec/containers/2', value: { name: 'c' } }], check: (r) => assert.equal(r.spec.template.spec.containers[2].name, 'c') },
  { name: 'add at index -1 appends (negative indices)', patch: [{ op: 'add', path: '/spec/template/spec/containers/-1', value: { name: 'c' } }], check: (r) => assert.deepEqual(r.spec.template.spec.containers.map((c: any) => c.name), ['a', 'b', 'c']) },
  { name: 'add without a value adds null', patch: [{ op: 'add', path: '/spec/paused' }], check: (r) => assert.equal(r.spec.paused, null) },
  { name: 'escaped keys (~1 is /, ~0 is ~)', patch: [{ op: 'add', path: '/metadata/labels/example.com~1a~0b', value: 'v' }], check: (r) => assert.equal(r.metadata.labels['example.com/a~b'], 'v') },
  { name: 'remove a member', patch: [{ op: 'remove', path: '/metadata/labels/app.kubernetes.io~1name' }], check: (r) => assert.deepEqual(r.metadata.labels, { app: 'web' }) },
  { name: 'remove the last list item with -1', patch: [{ op: 'remove', path: '/spec/template/spec/containers/-1' }], check: (r) => assert.deepEqual(r.spec.template.spec.containers, [{ name: 'a', image: 'x:2' }]) },
  { name: 'replace a member', patch: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'x:3' }], check: (r) => assert.equal(r.spec.template.spec.containers[0].image, 'x:3') },
  { name: 'replace a missing member adds it (evanphx v4)', patch: [{ op: 'replace', path: '/metadata/annotations', value: { c: 'd' } }], check: (r) => assert.deepEqual(r.metadata.annotations, { c: 'd' }) },
  {
    name: 'kubectl rollout undo of a Deployment: replace template and annotations',
    patch: [
      { op: 'replace', path: '/spec/template', value: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'a', image: 'x:1' }] } } },
      { op: 'replace', path: '/metadata/annotations', value: { 'deployment.kubernetes.io/revision': '3' } },
    ],
    check: (r) => {
      assert.deepEqual(r.spec.template.spec.containers, [{ name: 'a', image: 'x:1' }]);
      assert.deepEqual(r.metadata.annotations, { 'deployment.kubernetes.io/revision': '3' });
    },
  },
  { name: 'move', patch: [{ op: 'move', from: '/metadata/labels/app', path: '/metadata/labels/role' }], check: (r) => assert.deepEqual(r.metadata.labels, { 'app.kubernetes.io/name': 'web', role: 'web' }) },
  { name: 'move within a list', patch: [{ op: 'move', from: '/spec/template/spec/containers/0', path: '/spec/template/spec/containers/-' }], check: (r) => assert.deepEqual(r.spec.template.spec.containers.map((c: any) => c.name), ['b', 'a']) },
  { name: 'copy', patch: [{ op: 'copy', from: '/spec/template/metadata/labels', path: '/spec/selector' }], check: (r) => assert.deepEqual(r.spec.selector, { app: 'web' }) },
  { name: 'copy from a missing member copies null', patch: [{ op: 'copy', from: '/spec/nope', path: '/spec/x' }], check: (r) => assert.equal(r.spec.x, null) },
  { name: 'test then replace (optimistic update)', patch: [{ op: 'test', path: '/spec/replicas', value: 2 }, { op: 'replace', path: '/spec/replicas', value: 3 }], check: (r) => assert.equal(r.spec.replicas, 3) },
  { name: 'test of a structured value', patch: [{ op: 'test', path: '/spec/template/spec/containers/1', value: { image: 'y', name: 'b' } }], check: (r) => assert.equal(r.spec.replicas, 2) },
  { name: 'test of a missing member against null passes', patch: [{ op: 'test', path: '/spec/nope', value: null }], check: (r) => assert.equal(r.spec.replicas, 2) },
  { name: 'replace the whole document', patch: [{ op: 'replace', path: '', value: { kind: 'Deployment', spec: {} } }], check: (r) => assert.deepEqual(r, { kind: 'Deployment', spec: {} }) },
  { name: 'an empty patch changes nothing', patch: [], check: (r) => assert.deepEqual(r, deployment()) },
];

describe('JSON patch', () => {
  for (const c of jsonCases) {
    it(c.name, () => {
      const original = deployment();
      const patch = structuredClone(c.patch);
      c.check(applyPatch('json', original, patch, 'apps/v1/Deployment'));
      assert.deepEqual(original, deployment(), 'original untouched');
      assert.deepEqual(patch, c.patch, 'patch untouched');
    });
  }

  const failures: [string, unknown[]][] = [
    ['test of a different value', [{ op: 'test', path: '/spec/replicas', value: 3 }]],
    ['test of a missing member against a value', [{ op: 'test', path: '/spec/nope', value: 'x' }]],
    ['remove of a missing member', [{ op: 'remove', path: '/metadata/annotations' }]],
    ['remove of a missing index', [{ op: 'remove', path: '/spec/template/spec/containers/5' }]],
    ['replace of a missing index', [{ op: 'replace', path: '/spec/template/spec/containers/2', value: {} }]],
    ['add past the end of a list', [{ op: 'add', path: '/spec/template/spec/containers/3', value: {} }]],
    ['add under a missing parent', [{ op: 'add', path: '/metadata/annotations/a', value: 'b' }]],
    ['add at the root', [{ op: 'add', path: '', value: {} }]],
    ['add with a non-numeric list index', [{ op: 'add', path: '/spec/template/spec/containers/x', value: {} }]],
    ['move from a missing member', [{ op: 'move', from: '/spec/nope', path: '/spec/x' }]],
    ['an unknown op', [{ op: 'frobnicate', path: '/spec' }]],
    ['a missing op', [{ path: '/spec' }]],
    ['a missing path', [{ op: 'add', value: 1 }]],
    ['a later operation failing undoes the earlier ones', [{ op: 'replace', path: '/spec/replicas', value: 9 }, { op: 'test', path: '/spec/replicas', value: 2 }]],
    ['replace of the root with a scalar', [{ op: 'replace', path: '', value: 'x' }]],
  ];
  for (const [name, patch] of failures) {
    it(`422: ${name}`, () => {
      const original = deployment();
      expectStatus(() => applyPatch('json', original, patch, 'apps/v1/Deployment'), 422, generic422, 'Invalid');
      assert.deepEqual(original, deployment());
    });
  }

  it('the 422 has empty details, as NewGenericServerResponse builds it', () => {
    assert.throws(() => applyPatch('json', deployment(), [{ op: 'test', path: '/spec/replicas', value: 0 }], 'apps/v1/Deployment'),
      (e: unknown) => e instanceof StatusError && JSON.stringify(e.status) === JSON.stringify({
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: generic422, reason: 'Invalid', details: {}, code: 422,
      }));
  });

  const decodeErrors: [string, unknown, string][] = [
    ['an object body', { op: 'add' }, 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp'],
    ['a string body', 'x', 'error decoding patch: json: cannot unmarshal string into Go value of type []handlers.jsonPatchOp'],
    ['an operation that is a string', ['add'], 'error decoding patch: json: cannot unmarshal string into Go value of type handlers.jsonPatchOp'],
    ['a numeric path', [{ op: 'add', path: 1 }], 'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.path of type string'],
    ['an object op', [{ op: {}, path: '/a' }], 'error decoding patch: json: cannot unmarshal object into Go struct field jsonPatchOp.op of type string'],
  ];
  for (const [name, body, message] of decodeErrors) {
    it(`400: ${name}`, () => expectStatus(() => applyPatch('json', deployment(), body, 'apps/v1/Deployment'), 400, message, 'BadRequest'));
  }

  it('413 past 10000 operations', () => {
    const ops = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/kind', value: 'Deployment' }));
    expectStatus(() => applyPatch('json', deployment(), ops, 'apps/v1/Deployment'), 413,
      'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001', 'RequestEntityTooLarge');
  });

  it('10000 operations are fine', () => {
    const ops = Array.from({ length: 10000 }, () => ({ op: 'test', path: '/kind', value: 'Deployment' }));
    assert.equal(applyPatch('json', deployment(), ops, 'apps/v1/Deployment').kind, 'Deployment');
  });

  it('replacing the root with an array is a 422 Invalid from decoding', () => {
    assert.throws(() => applyPatch('json', deployment(), [{ op: 'replace', path: '', value: [1] }], 'apps/v1/Deployment'), (e: unknown) => {
      assert.ok(e instanceof StatusError);
      assert.equal(e.code, 422);
      assert.match(e.status.message ?? '', /^ "" is invalid: patch: Invalid value: "\[1\]": couldn't get version\/kind; json parse error: json: cannot unmarshal array into Go value of type struct/);
      assert.equal(e.status.details?.causes?.[0]?.field, 'patch');
      return true;
    });
  });

  it('inserted values do not alias the patch', () => {
    const patch = [{ op: 'add', path: '/metadata/annotations', value: { a: 'b' } }];
    const r = applyPatch('json', deployment(), patch, 'apps/v1/Deployment');
    r.metadata.annotations.a = 'changed';
    assert.equal(patch[0].value.a, 'b');
  });
});

interface MergeCase { name: string; target: Record<string, unknown>; patch: unknown; want: unknown }

// RFC 7386 appendix A (object targets) and kubectl's merge patches.
const mergeCases: MergeCase[] = [
  { name: 'RFC: replace a value', target: { a: 'b' }, patch: { a: 'c' }, want: { a: 'c' } },
  { name: 'RFC: add a member', target: { a: 'b' }, patch: { b: 'c' }, want: { a: 'b', b: 'c' } },
  { name: 'RFC: null deletes', target: { a: 'b' }, patch: { a: null }, want: {} },
  { name: 'RFC: null deletes one of two', target: { a: 'b', b: 'c' }, patch: { a: null }, want: { b: 'c' } },
  { name: 'RFC: a list replaced by a scalar', target: { a: ['b'] }, patch: { a: 'c' }, want: { a: 'c' } },
  { name: 'RFC: a scalar replaced by a list', target: { a: 'c' }, patch: { a: ['b'] }, want: { a: ['b'] } },
  { name: 'RFC: nested merge with a delete', target: { a: { b: 'c' } }, patch: { a: { b: 'd', c: null } }, want: { a: { b: 'd' } } },
  { name: 'RFC: lists are replaced', target: { a: [{ b: 'c' }] }, patch: { a: [1] }, want: { a: [1] } },
  { name: 'RFC: untouched nulls stay', target: { e: null }, patch: { a: 1 }, want: { a: 1, e: null } },
  { name: 'RFC: nulls in new values are dropped', target: {}, patch: { a: { bb: { ccc: null } } }, want: { a: { bb: {} } } },
  { name: 'a null member is replaced by the pruned patch value', target: { a: null }, patch: { a: { b: 1, c: null } }, want: { a: { b: 1 } } },
  { name: 'nulls inside a replacing list are pruned from its objects', target: { a: 1 }, patch: { a: [{ b: null, c: 1 }, null] }, want: { a: [{ c: 1 }, null] } },
  { name: 'a list replacing an object is taken as is', target: { a: { x: 1 } }, patch: { a: [{ b: null }] }, want: { a: [{ b: null }] } },
  {
    name: 'kubectl label a=b c-',
    target: { metadata: { name: 'p', labels: { c: 'd', keep: 'y' } } },
    patch: { metadata: { labels: { a: 'b', c: null } } },
    want: { metadata: { name: 'p', labels: { keep: 'y', a: 'b' } } },
  },
  {
    name: 'kubectl label on an object without labels (with --resource-version)',
    target: { metadata: { name: 'p', resourceVersion: '5' } },
    patch: { metadata: { labels: { a: 'b' }, resourceVersion: '5' } },
    want: { metadata: { name: 'p', resourceVersion: '5', labels: { a: 'b' } } },
  },
  {
    name: 'kubectl annotate removing the last annotation',
    target: { metadata: { annotations: { x: 'y' } } },
    patch: { metadata: { annotations: { x: null } } },
    want: { metadata: { annotations: {} } },
  },
  {
    name: 'kubectl scale through /scale',
    target: { apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 1 }, status: { replicas: 1, selector: 'app=web' } },
    patch: { spec: { replicas: 2 } },
    want: { apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 2 }, status: { replicas: 1, selector: 'app=web' } },
  },
  {
    name: 'merge patch replaces lists that strategic merge would merge',
    target: { spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b' }] } },
    patch: { spec: { containers: [{ name: 'a', image: 'y' }] } },
    want: { spec: { containers: [{ name: 'a', image: 'y' }] } },
  },
];

describe('JSON merge patch', () => {
  for (const c of mergeCases) {
    it(c.name, () => {
      const target = structuredClone(c.target);
      assert.deepEqual(applyPatch('merge', target, c.patch, 'v1/Pod'), c.want);
      assert.deepEqual(target, c.target, 'original untouched');
    });
  }
  it('a "__proto__" member is set as a member, not as the prototype', () => {
    const r = applyPatch('merge', { metadata: {} }, JSON.parse('{"metadata":{"__proto__":{"polluted":true}}}'), 'v1/Pod');
    assert.equal(Object.getPrototypeOf(r.metadata), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(r.metadata, '__proto__')?.value, { polluted: true });
    assert.equal(({} as any).polluted, undefined);
  });
  it('400 Invalid JSON Patch for a null body', () => expectStatus(() => applyPatch('merge', {}, null, 'v1/Pod'), 400, 'Invalid JSON Patch', 'BadRequest'));
  for (const [body, kind] of [[['c'], 'array'], ['bar', 'string'], [3, 'number'], [false, 'bool']] as const) {
    it(`400 for a ${kind} body`, () => expectStatus(() => applyPatch('merge', { a: 1 }, body, 'v1/Pod'), 400,
      `error decoding patch: json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`, 'BadRequest'));
  }
});
