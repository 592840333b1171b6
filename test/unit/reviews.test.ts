import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../src/api/status.js';
import { allow, deny, noOpinion, unionAuthorizer, unionRulesResolver, alwaysAllowRules, rulesResolverFor, type Authorizer, type AuthorizationAttributes } from '../../src/apiserver/authz/index.js';
import { attributesFromSpec, reviewAccess, validateAccessReview, type AccessReview } from '../../src/apiserver/reviews/access-review.js';
import { reviewRules } from '../../src/apiserver/reviews/rules-review.js';
import { reviewSelf, reviewToken } from '../../src/apiserver/reviews/identity-review.js';
import { goObjectMeta } from '../../src/apiserver/reviews/review-meta.js';
import type { UserInfo } from '../../src/apiserver/auth/index.js';
import type { SelfSubjectRulesReview } from 'kubernetes-types/authorization/v1.js';
import type { TokenReview } from 'kubernetes-types/authentication/v1.js';

const admin: UserInfo = { name: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };

/** An authorizer chain: system:masters may do anything; jane may get pods in "dev"; bob is denied outright. */
const authorize: Authorizer = unionAuthorizer([
  (a) => (a.user.groups.includes('system:masters') ? allow() : noOpinion()),
  (a) => (a.user.name === 'bob' ? deny('bob is banned') : noOpinion()),
  (a) => (a.user.name === 'jane' && a.verb === 'get' && a.resource === 'pods' && a.namespace === 'dev' ? allow('jane reads dev') : noOpinion('no rule for jane')),
]);

const sar = (spec: object, metadata?: Record<string, unknown>) => ({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', ...(metadata ? { metadata } : {}), spec });

async function rejection(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof StatusError, String(e));
    return { code: e.status.code, message: e.status.message ?? '' };
  }
  assert.fail('expected a rejection');
}

test('SubjectAccessReview: the spec\'s user is asked about; allowed, denied and reason as the chain decided', async () => {
  const table: { spec: any; status: object }[] = [
    { spec: { user: 'jane', resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'dev' } }, status: { allowed: true, reason: 'jane reads dev' } },
    { spec: { user: 'jane', resourceAttributes: { verb: 'delete', resource: 'pods', namespace: 'dev' } }, status: { allowed: false, reason: 'no rule for jane' } },
    { spec: { user: 'bob', nonResourceAttributes: { verb: 'get', path: '/healthz' } }, status: { allowed: false, denied: true, reason: 'bob is banned' } },
    { spec: { user: 'x', groups: ['system:masters'], resourceAttributes: { verb: 'create', resource: 'nodes' } }, status: { allowed: true } },
  ];
  for (const { spec, status } of table) {
    const got = await reviewAccess('SubjectAccessReview', sar(spec), { requestor: admin, authorize });
    assert.deepEqual(got, { ...sar(spec), metadata: { creationTimestamp: null }, status }, JSON.stringify(spec));
  }
});

test('SelfSubjectAccessReview: the requesting user is asked about; no authorizer is AlwaysAllow', async () => {
  const review = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'dev' } } };
  const jane: UserInfo = { name: 'jane', groups: ['system:authenticated'] };
  assert.deepEqual((await reviewAccess('SelfSubjectAccessReview', review, { requestor: jane, authorize })).status, { allowed: true, reason: 'jane reads dev' });
  assert.deepEqual((await reviewAccess('SelfSubjectAccessReview', review, { requestor: { name: 'bob', groups: [] }, authorize })).status, { allowed: false, denied: true, reason: 'bob is banned' });
  assert.deepEqual((await reviewAccess('SelfSubjectAccessReview', review, { requestor: { name: 'bob', groups: [] } })).status, { allowed: true });
});

test('attributesFromSpec: an empty version means every version; the spec\'s user, groups, uid and extra', () => {
  const asked: AuthorizationAttributes = attributesFromSpec({ name: 'u', groups: [] }, { resourceAttributes: { verb: 'list', group: 'apps', resource: 'deployments', subresource: 'scale', name: 'd', namespace: 'n' } });
  assert.deepEqual(asked, {
    user: { name: 'u', groups: [] }, verb: 'list', isResourceRequest: true, path: '', apiGroup: 'apps', apiVersion: '*',
    namespace: 'n', resource: 'deployments', subresource: 'scale', name: 'd',
  });
  const nonResource = attributesFromSpec({ name: 'u', groups: [] }, { nonResourceAttributes: { verb: 'get', path: '/metrics' } });
  assert.equal(nonResource.isResourceRequest, false);
  assert.equal(nonResource.path, '/metrics');
});

test('access reviews: upstream\'s validation words', async () => {
  assert.deepEqual(await rejection(reviewAccess('SubjectAccessReview', sar({ resourceAttributes: { verb: 'get' } }), { requestor: admin })), {
    code: 422, message: 'SubjectAccessReview.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified',
  });
  assert.deepEqual(await rejection(reviewAccess('SelfSubjectAccessReview', { spec: {} }, { requestor: admin })), {
    code: 422, message: 'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
  });
  assert.deepEqual(validateAccessReview('SelfSubjectAccessReview', { spec: { resourceAttributes: { verb: 'get' }, nonResourceAttributes: { verb: 'get', path: '/x' } } }).map((e) => [e.field, e.detail]),
    [['spec.nonResourceAttributes', 'cannot be specified in combination with resourceAttributes']]);
  const named = await rejection(reviewAccess('SubjectAccessReview', sar({ user: 'u', resourceAttributes: {} }, { name: 'x', labels: { b: '2', a: '1' } }), { requestor: admin }));
  assert.equal(named.message, `SubjectAccessReview.authorization.k8s.io "" is invalid: metadata: Invalid value: ${goObjectMeta({ name: 'x', labels: { b: '2', a: '1' } })}: must be empty`);
  assert.match(named.message, /v1\.ObjectMeta\{Name:"x", GenerateName:"", .*Labels:map\[string\]string\{"a":"1", "b":"2"\}, Annotations:map\[string\]string\(nil\)/);
  // Empty metadata, managedFields and a null creationTimestamp are all "empty".
  assert.deepEqual(validateAccessReview('SubjectAccessReview', sar({ user: 'u', resourceAttributes: {} }, { creationTimestamp: null, managedFields: [{}], labels: {} })), []);
});

test('LocalSubjectAccessReview: the namespace rules', async () => {
  const local = (ns: string | undefined, spec: object): AccessReview => ({ metadata: ns === undefined ? {} : { namespace: ns }, spec });
  const ok = await reviewAccess('LocalSubjectAccessReview', local('dev', { user: 'jane', resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'dev' } }), { requestor: admin, namespace: 'dev', authorize });
  assert.deepEqual(ok.status, { allowed: true, reason: 'jane reads dev' });
  assert.deepEqual(await rejection(reviewAccess('LocalSubjectAccessReview', local('dev', { user: 'jane', resourceAttributes: { verb: 'get', namespace: 'prod' } }), { requestor: admin, namespace: 'dev' })), {
    code: 422, message: 'LocalSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "prod": must match metadata.namespace',
  });
  assert.deepEqual(await rejection(reviewAccess('LocalSubjectAccessReview', local('dev', { user: 'jane', nonResourceAttributes: { verb: 'get', path: '/x' } }), { requestor: admin, namespace: 'dev' })), {
    code: 422, message: 'LocalSubjectAccessReview.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:"get"}: disallowed on this kind of request',
  });
  assert.deepEqual(await rejection(reviewAccess('LocalSubjectAccessReview', local('dev', { user: 'jane', resourceAttributes: { verb: 'get', namespace: 'dev' } }), { requestor: admin, namespace: 'prod' })), {
    code: 400, message: 'spec.resourceAttributes.namespace must match namespace: prod',
  });
});

test('SelfSubjectRulesReview: AlwaysAllow\'s rules, the resolver\'s, or incomplete; a namespace is required', async () => {
  const review: SelfSubjectRulesReview = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' } };
  assert.deepEqual(await reviewRules(review, { requestor: admin, authorizing: false }), {
    apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', metadata: { creationTimestamp: null }, spec: {},
    status: {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false,
    },
  });
  assert.deepEqual((await reviewRules(review, { requestor: admin, authorizing: true })).status, { resourceRules: [], nonResourceRules: [], incomplete: true });
  const asked: string[] = [];
  const rulesResolver = unionRulesResolver([
    (user, ns) => { asked.push(`${user.name}@${ns}`); return { resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], nonResourceRules: [], incomplete: false }; },
    () => ({ resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'node authorizer does not support user rule resolution' }),
    alwaysAllowRules,
  ]);
  assert.deepEqual((await reviewRules(review, { requestor: admin, authorizing: true, rulesResolver })).status, {
    resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: true, evaluationError: 'node authorizer does not support user rule resolution',
  });
  assert.deepEqual(asked, ['kubernetes-admin@default']);
  assert.deepEqual(await rejection(reviewRules({ spec: {} }, { requestor: admin, authorizing: false })), { code: 400, message: 'no namespace on request' });
});

test('SelfSubjectReview: the requesting user, empty fields left out', () => {
  const now = new Date('2026-12-01T10:00:00.123Z');
  const got = reviewSelf({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, { name: 'sa', uid: 'u1', groups: ['g'], extra: { 'authentication.kubernetes.io/pod-name': ['p'] } }, now);
  assert.deepEqual(got, {
    apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: { creationTimestamp: '2026-12-01T10:00:00Z' },
    status: { userInfo: { username: 'sa', uid: 'u1', groups: ['g'], extra: { 'authentication.kubernetes.io/pod-name': ['p'] } } },
  });
  assert.deepEqual(reviewSelf({}, { name: 'x', groups: [], extra: {} }, now).status, { userInfo: { username: 'x' } });
});

test('TokenReview: authenticated with the user and the audiences asked for; unknown tokens are not; a token is required', async () => {
  const authenticateToken = async (t: string) => (t === 'good' ? { name: 'alice', uid: 'a1', groups: ['dev', 'system:authenticated'] } : undefined);
  const review = (spec: TokenReview['spec']): TokenReview => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec });
  assert.deepEqual(await reviewToken(review({ token: 'good' }), { authenticateToken, apiAudiences: ['https://kubernetes.default.svc.cluster.local'] }), {
    ...review({ token: 'good' }), metadata: { creationTimestamp: null },
    status: { authenticated: true, user: { username: 'alice', uid: 'a1', groups: ['dev', 'system:authenticated'] }, audiences: ['https://kubernetes.default.svc.cluster.local'] },
  });
  assert.deepEqual((await reviewToken(review({ token: 'good', audiences: ['vault'] }), { authenticateToken })).status?.audiences, ['vault']);
  assert.deepEqual((await reviewToken(review({ token: 'good' }), { authenticateToken })).status, { authenticated: true, user: { username: 'alice', uid: 'a1', groups: ['dev', 'system:authenticated'] } });
  assert.deepEqual((await reviewToken(review({ token: 'bad' }), { authenticateToken })).status, { user: {} });
  assert.deepEqual(await rejection(reviewToken(review({} as TokenReview['spec']), { authenticateToken })), { code: 400, message: 'token is required for TokenReview in authentication' });
});

test('rulesResolverFor: the chain\'s resolvers in mode order; a node\'s rules are incomplete', async () => {
  const rbac = () => ({ resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], nonResourceRules: [], incomplete: false });
  const node: UserInfo = { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
  assert.deepEqual(await rulesResolverFor(['Node', 'RBAC'], { rbac })(node, 'default'), {
    resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], nonResourceRules: [],
    incomplete: true, evaluationError: 'node authorizer does not support user rule resolution',
  });
  assert.deepEqual(await rulesResolverFor(['Node', 'RBAC'], { rbac })(admin, 'default'), await rbac());
  assert.deepEqual(await rulesResolverFor(['AlwaysDeny'], { rbac })(admin, 'default'), { resourceRules: [], nonResourceRules: [], incomplete: false });
  assert.deepEqual((await rulesResolverFor(['RBAC', 'AlwaysAllow'], { rbac })(admin, 'default')).resourceRules.length, 2);
});
