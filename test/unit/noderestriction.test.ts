/**
 * NodeRestriction through a real registry (in-memory SQLite) with the
 * request's user and RequestInfo in its context, as the API server passes them:
 * the checks the e2e test cannot reach with kubectl (PVC status fields, pod
 * status labels, TokenRequests), and that other users pass untouched.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openSqliteBackend } from '../../src/storage/sqlite/index.js';
import { Registry } from '../../src/registry/registry.js';
import { realClock } from '../../src/util/clock.js';
import { silentLogger } from '../../src/util/log.js';
import { nodeRestrictionAdmission } from '../../src/apiserver/admission/noderestriction.js';
import type { RequestContext } from '../../src/apiserver/request-context.js';
import { parseRequestInfo } from '../../src/apiserver/request-info.js';
import type { UserInfo } from '../../src/apiserver/auth/types.js';

const n1: UserInfo = { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
const admin: UserInfo = { name: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };

let registry: Registry;
const restriction = nodeRestrictionAdmission(() => registry);

/** Runs `fn` with the context of `user` serving `method path`, as the API server makes it. */
const serving = <T>(user: UserInfo, method: string, path: string, fn: (ctx: RequestContext) => Promise<T>) =>
  fn({ user, info: parseRequestInfo(method, new URL(path, 'https://k8ts')) });

async function refusal(p: Promise<unknown>): Promise<string> {
  try { await p; } catch (e: any) { assert.equal(e.status?.code, 403); return e.status.message; }
  assert.fail('expected a 403');
}

describe('NodeRestriction', () => {
  before(async () => {
    const backend = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: silentLogger });
    registry = new Registry(backend, realClock, (op, info, obj, old, ctx) => restriction.admit(op, info, obj, old, ctx), {
      admitDelete: restriction.admitDelete, admitSubresourceCreate: (info, obj, _o, ctx) => restriction.admit('create', info, obj, undefined, ctx),
    });
    await registry.store('', 'v1', 'namespaces')!.create(undefined, { metadata: { name: 'default' } });
    const pods = registry.store('', 'v1', 'pods')!;
    await pods.create('default', { metadata: { name: 'p1' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] } });
    await pods.create('default', { metadata: { name: 'p2' }, spec: { nodeName: 'n2', containers: [{ name: 'c', image: 'i' }] } });
    await registry.store('', 'v1', 'persistentvolumeclaims')!.create('default', {
      metadata: { name: 'claim' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
  });
  after(async () => { await registry.backend.close(); });

  it('a node updates only status.capacity and conditions of a PVC', async () => {
    const pvcs = registry.store('', 'v1', 'persistentvolumeclaims')!;
    const path = '/api/v1/namespaces/default/persistentvolumeclaims/claim/status';
    await serving(n1, 'PUT', path, (ctx) => pvcs.guaranteedUpdate('default', 'claim', (c) => ({ ...c, status: { ...c.status, capacity: { storage: '2Gi' } } }), { subresource: 'status', context: ctx }));
    const msg = await refusal(serving(n1, 'PUT', path, (ctx) => pvcs.guaranteedUpdate('default', 'claim', (c) => ({ ...c, status: { ...c.status, phase: 'Lost' } }), { subresource: 'status', context: ctx })));
    assert.equal(msg, 'persistentvolumeclaims "claim" is forbidden: node "n1" is not allowed to update fields other than status.capacity and status.conditions');
    assert.equal(await refusal(serving(n1, 'PATCH', '/api/v1/namespaces/default/persistentvolumeclaims/claim', (ctx) =>
      pvcs.guaranteedUpdate('default', 'claim', (c) => ({ ...c, metadata: { ...c.metadata, labels: { a: 'b' } } }), { context: ctx }))),
    'persistentvolumeclaims "claim" is forbidden: may only update PVC status');
  });

  it("a node writes its pods' status but not their labels, and nothing else of them", async () => {
    const pods = registry.store('', 'v1', 'pods')!;
    const path = '/api/v1/namespaces/default/pods/p1/status';
    await serving(n1, 'PATCH', path, (ctx) => pods.guaranteedUpdate('default', 'p1', (p) => ({ ...p, status: { phase: 'Running' } }), { subresource: 'status', context: ctx }));
    assert.equal(await refusal(serving(n1, 'PATCH', path, (ctx) =>
      pods.guaranteedUpdate('default', 'p1', (p) => ({ ...p, metadata: { ...p.metadata, labels: { x: 'y' } } }), { subresource: 'status', context: ctx }))),
    'pods "p1" is forbidden: node "n1" cannot update labels through pod status');
    assert.equal(await refusal(serving(n1, 'PATCH', '/api/v1/namespaces/default/pods/p1', (ctx) =>
      pods.guaranteedUpdate('default', 'p1', (p) => ({ ...p, metadata: { ...p.metadata, labels: { x: 'y' } } }), { context: ctx }))),
    'pods "p1" is forbidden: unexpected operation "UPDATE", node "n1" can only create and delete mirror pods');
    // pods/binding is admitted as a CREATE with the Binding as its object, as upstream.
    const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p1', namespace: 'default' }, target: { kind: 'Node', name: 'n1' } };
    assert.equal(await refusal(serving(n1, 'POST', '/api/v1/namespaces/default/pods/p1/binding', (ctx) =>
      registry.admitSubresourceCreate({ ...pods.info, kind: 'Binding' }, 'default', 'p1', binding, false, ctx))),
    `pods "p1" is forbidden: unexpected pod subresource "binding", only 'status' and 'eviction' are allowed`);
  });

  it('TokenRequests of a node must be bound to a pod of its own, by uid', async () => {
    const p1 = await registry.store('', 'v1', 'pods')!.get('default', 'p1');
    const p2 = await registry.store('', 'v1', 'pods')!.get('default', 'p2');
    const path = '/api/v1/namespaces/default/serviceaccounts/default/token';
    const tr = (ref?: any) => ({ spec: { audiences: [], boundObjectRef: ref } });
    const request = (ref?: any) => serving(n1, 'POST', path, (ctx) => restriction.admitTokenRequest('default', 'default', tr(ref), ctx));
    await request({ apiVersion: 'v1', kind: 'Pod', name: 'p1', uid: p1.metadata.uid });
    assert.equal(await refusal(request()), 'serviceaccounts "default" is forbidden: node requested token not bound to a pod');
    assert.equal(await refusal(request({ apiVersion: 'v1', kind: 'Pod', name: 'p1' })),
      'serviceaccounts "default" is forbidden: node requested token with a pod binding without a uid');
    assert.equal(await refusal(request({ apiVersion: 'v1', kind: 'Pod', name: 'p1', uid: 'stale' })),
      'serviceaccounts "default" is forbidden: the UID in the bound object reference (stale) does not match the UID in record. The object might have been deleted and then recreated');
    assert.equal(await refusal(request({ apiVersion: 'v1', kind: 'Pod', name: 'p2', uid: p2.metadata.uid })),
      'serviceaccounts "default" is forbidden: node requested token bound to a pod scheduled on a different node');
    await serving(admin, 'POST', path, (ctx) => restriction.admitTokenRequest('default', 'default', tr(), ctx));
  });

  it('leaves other users and requests outside a request alone', async () => {
    const pods = registry.store('', 'v1', 'pods')!;
    await serving(admin, 'PATCH', '/api/v1/namespaces/default/pods/p2', (ctx) =>
      pods.guaranteedUpdate('default', 'p2', (p) => ({ ...p, metadata: { ...p.metadata, labels: { x: 'y' } } }), { context: ctx }));
    await pods.delete('default', 'p2', { gracePeriodSeconds: 0 });
  });
});
