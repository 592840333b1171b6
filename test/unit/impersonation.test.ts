import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import {
  impersonate, impersonationRequests, internalErrorText, splitServiceAccountUsername, type UserInfo,
} from '../../src/apiserver/auth/index.js';
import { allow, deny, noOpinion, type AuthorizationAttributes, type Authorizer } from '../../src/apiserver/authz/index.js';

/** A request as node's http server hands it over: lower-case headers, repeated ones in headersDistinct. */
function request(headers: Record<string, string | string[]>): IncomingMessage {
  const distinct: Record<string, string[]> = {};
  const joined: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    distinct[k.toLowerCase()] = Array.isArray(v) ? v : [v];
    joined[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return { headers: joined, headersDistinct: distinct, url: '/api/v1/namespaces/default/pods' } as unknown as IncomingMessage;
}

const bob: UserInfo = { name: 'bob', groups: ['system:authenticated'] };

/** An authorizer that allows impersonating everything and records what it was asked. */
function recording(decide: (a: AuthorizationAttributes) => ReturnType<Authorizer> = () => allow()): { asked: AuthorizationAttributes[]; authorize: Authorizer } {
  const asked: AuthorizationAttributes[] = [];
  return { asked, authorize: (a) => { asked.push(a); return decide(a); } };
}

const cases: { name: string; headers: Record<string, string | string[]>; user: UserInfo; asked: string[] }[] = [
  {
    name: 'a user gets system:authenticated',
    headers: { 'Impersonate-User': 'jane' },
    user: { name: 'jane', uid: '', groups: ['system:authenticated'], extra: {} },
    asked: ['impersonate users "jane" ns="" group="" sub=""'],
  },
  {
    name: 'groups are repeatable and are the authority',
    headers: { 'Impersonate-User': 'jane', 'Impersonate-Group': ['dev', 'ops'] },
    user: { name: 'jane', uid: '', groups: ['dev', 'ops', 'system:authenticated'], extra: {} },
    asked: ['impersonate users "jane" ns="" group="" sub=""', 'impersonate groups "dev" ns="" group="" sub=""', 'impersonate groups "ops" ns="" group="" sub=""'],
  },
  {
    name: 'a service account is checked in its namespace and gets its groups',
    headers: { 'Impersonate-User': 'system:serviceaccount:kube-system:default' },
    user: { name: 'system:serviceaccount:kube-system:default', uid: '', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'], extra: {} },
    asked: ['impersonate serviceaccounts "default" ns="kube-system" group="" sub=""'],
  },
  {
    name: 'a service account with groups given keeps only those',
    headers: { 'Impersonate-User': 'system:serviceaccount:kube-system:default', 'Impersonate-Group': 'x' },
    user: { name: 'system:serviceaccount:kube-system:default', uid: '', groups: ['x', 'system:authenticated'], extra: {} },
    asked: ['impersonate serviceaccounts "default" ns="kube-system" group="" sub=""', 'impersonate groups "x" ns="" group="" sub=""'],
  },
  {
    name: 'system:anonymous gets system:unauthenticated',
    headers: { 'Impersonate-User': 'system:anonymous' },
    user: { name: 'system:anonymous', uid: '', groups: ['system:unauthenticated'], extra: {} },
    asked: ['impersonate users "system:anonymous" ns="" group="" sub=""'],
  },
  {
    name: 'system:unauthenticated given keeps system:authenticated out',
    headers: { 'Impersonate-User': 'jane', 'Impersonate-Group': 'system:unauthenticated' },
    user: { name: 'jane', uid: '', groups: ['system:unauthenticated'], extra: {} },
    asked: ['impersonate users "jane" ns="" group="" sub=""', 'impersonate groups "system:unauthenticated" ns="" group="" sub=""'],
  },
  {
    name: 'extra keys are unescaped and checked as userextras/<key>; the uid as uids',
    headers: { 'Impersonate-User': 'jane', 'Impersonate-Extra-Example.com%2fScopes': ['a', 'b'], 'Impersonate-Uid': '1234' },
    user: { name: 'jane', uid: '1234', groups: ['system:authenticated'], extra: { 'example.com/scopes': ['a', 'b'] } },
    asked: [
      'impersonate users "jane" ns="" group="" sub=""',
      'impersonate userextras "a" ns="" group="authentication.k8s.io" sub="example.com/scopes"',
      'impersonate userextras "b" ns="" group="authentication.k8s.io" sub="example.com/scopes"',
      'impersonate uids "1234" ns="" group="authentication.k8s.io" sub=""',
    ],
  },
];

for (const c of cases) {
  test(`impersonation: ${c.name}`, async () => {
    const req = request(c.headers);
    const { asked, authorize } = recording();
    const got = await impersonate(req, bob, authorize);
    assert.deepEqual(got, { kind: 'user', user: c.user });
    assert.deepEqual(asked.map((a) => `${a.verb} ${a.resource} "${a.name}" ns="${a.namespace}" group="${a.apiGroup}" sub="${a.subresource}"`), c.asked);
    assert.ok(asked.every((a) => a.user === bob && a.isResourceRequest));
    assert.deepEqual(Object.keys(req.headers).filter((h) => h.startsWith('impersonate-')), [], 'the impersonation headers are removed');
  });
}

test('impersonation: no headers leaves the user alone and asks nothing', async () => {
  const { asked, authorize } = recording();
  assert.deepEqual(await impersonate(request({ Accept: 'application/json' }), bob, authorize), { kind: 'none' });
  assert.equal(asked.length, 0);
});

test('impersonation: without an authorizer (AlwaysAllow) anyone may impersonate', async () => {
  const got = await impersonate(request({ 'Impersonate-User': 'jane' }), bob);
  assert.equal(got.kind === 'user' && got.user.name, 'jane');
});

test('impersonation: the first refusal is upstream\'s 403, with the authorizer\'s reason', async () => {
  const { authorize } = recording((a) => (a.resource === 'groups' ? deny('not you') : a.resource === 'users' ? allow() : noOpinion()));
  const got = await impersonate(request({ 'Impersonate-User': 'jane', 'Impersonate-Group': 'admins' }), bob, authorize);
  assert.equal(got.kind, 'forbidden');
  const status = got.kind === 'forbidden' ? got.error.status : undefined;
  assert.equal(status?.code, 403);
  assert.equal(status?.message, 'groups "admins" is forbidden: User "bob" cannot impersonate resource "groups" in API group "" at the cluster scope: not you');
  const sa = await impersonate(request({ 'Impersonate-User': 'system:serviceaccount:ns1:robot' }), bob, () => noOpinion());
  assert.equal(sa.kind === 'forbidden' && sa.error.status.message,
    'serviceaccounts "robot" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns1"');
  const extra = await impersonate(request({ 'Impersonate-User': 'jane', 'Impersonate-Extra-Scopes': 'view' }), bob, (a) => (a.resource === 'users' ? allow() : noOpinion()));
  assert.equal(extra.kind === 'forbidden' && extra.error.status.message,
    'userextras.authentication.k8s.io "view" is forbidden: User "bob" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope');
});

test('impersonation: groups, extras or a uid without a user are upstream\'s internal error', async () => {
  assert.deepEqual(impersonationRequests(request({ 'Impersonate-Group': 'admins' })), { error: 'requested [{Group  admins    }] without impersonating a user' });
  assert.deepEqual(impersonationRequests(request({ 'Impersonate-Uid': '42' })), { error: 'requested [{UID  42  authentication.k8s.io/v1  }] without impersonating a user' });
  assert.deepEqual(impersonationRequests(request({ 'Impersonate-Extra-Scopes': 'a' })),
    { error: 'requested [{UserExtra  a  authentication.k8s.io/v1  scopes}] without impersonating a user' });
  const got = await impersonate(request({ 'Impersonate-Group': 'a', 'Impersonate-Uid': 'u' }), bob, () => allow());
  assert.deepEqual(got, { kind: 'internalError', message: 'requested [{Group  a    } {UID  u  authentication.k8s.io/v1  }] without impersonating a user' });
  assert.equal(internalErrorText('/api?x=<y>&z', 'boom'), 'Internal Server Error: "/api?x=&lt;y&gt;&amp;z": boom');
});

test('splitServiceAccountUsername: only well-formed service-account names', () => {
  assert.deepEqual(splitServiceAccountUsername('system:serviceaccount:ns:name'), { namespace: 'ns', name: 'name' });
  assert.deepEqual(splitServiceAccountUsername('system:serviceaccount:ns:a.b'), { namespace: 'ns', name: 'a.b' });
  for (const bad of ['jane', 'system:serviceaccount:ns', 'system:serviceaccount:ns:a:b', 'system:serviceaccount:Ns:a', 'system:serviceaccount:ns:', 'system:serviceaccount:a.b:c']) {
    assert.equal(splitServiceAccountUsername(bad), undefined, bad);
  }
});
