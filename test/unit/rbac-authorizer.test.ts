import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import { rbacAuthorizer, rulesFor, ruleAllows, type PolicyGetter } from '../../src/apiserver/authz/rbac/index.js';
import { authorizerFor, parseAuthorizationModes, type AuthorizationAttributes } from '../../src/apiserver/authz/index.js';
import type { UserInfo } from '../../src/apiserver/auth/index.js';

const alice: UserInfo = { name: 'alice', groups: ['dev', 'system:authenticated'] };

function attrs(over: Partial<AuthorizationAttributes>): AuthorizationAttributes {
  return {
    user: alice, verb: 'get', isResourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1',
    namespace: 'default', resource: 'pods', subresource: '', name: '', ...over,
  };
}

/** A fixed set of RBAC objects, as the policy cache holds them. */
function policy(objs: { clusterRoles?: ClusterRole[]; roles?: Role[]; crbs?: ClusterRoleBinding[]; rbs?: RoleBinding[] }): PolicyGetter {
  return {
    clusterRole: (n) => objs.clusterRoles?.find((r) => r.metadata!.name === n),
    role: (ns, n) => objs.roles?.find((r) => r.metadata!.namespace === ns && r.metadata!.name === n),
    clusterRoleBindings: () => objs.crbs ?? [],
    roleBindings: (ns) => (objs.rbs ?? []).filter((b) => b.metadata!.namespace === ns),
  };
}

const rule = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule =>
  ({ verbs, apiGroups, resources, ...(resourceNames ? { resourceNames } : {}) });

test('ruleAllows: verbs, groups, resources with subresources, names and URLs as upstream', () => {
  const allows = (r: PolicyRule, a: Partial<AuthorizationAttributes>) => ruleAllows(attrs(a), r);
  assert.ok(allows(rule(['*'], ['*'], ['*']), { verb: 'delete', apiGroup: 'apps', resource: 'deployments' }));
  assert.ok(allows(rule(['get'], [''], ['pods']), {}));
  assert.ok(!allows(rule(['get'], [''], ['pods']), { verb: 'list' }));
  assert.ok(!allows(rule(['get'], ['apps'], ['pods']), {}));
  assert.ok(!allows(rule(['get'], [''], ['pods']), { subresource: 'log' }), 'pods does not cover pods/log');
  assert.ok(allows(rule(['get'], [''], ['pods/log']), { subresource: 'log' }));
  assert.ok(allows(rule(['get'], [''], ['*/log']), { subresource: 'log' }));
  assert.ok(!allows(rule(['get'], [''], ['*/log']), {}), '*/log does not cover the resource itself');
  assert.ok(!allows(rule(['get'], [''], ['*/status']), { subresource: 'log' }));
  assert.ok(allows(rule(['get'], [''], ['pods'], ['a']), { name: 'a' }));
  assert.ok(!allows(rule(['get'], [''], ['pods'], ['a']), { name: 'b' }));
  assert.ok(!allows(rule(['list'], [''], ['pods'], ['a']), { verb: 'list' }), 'a list has no name');
  const urls = (u: string[]): PolicyRule => ({ verbs: ['get'], nonResourceURLs: u });
  const path = (p: string) => attrs({ isResourceRequest: false, path: p, resource: '', namespace: '' });
  assert.ok(ruleAllows(path('/healthz'), urls(['/healthz'])));
  assert.ok(ruleAllows(path('/healthz/etcd'), urls(['/healthz/*'])));
  assert.ok(ruleAllows(path('/healthz'), urls(['/healthz*'])));
  assert.ok(!ruleAllows(path('/healthz'), urls(['/healthz/*'])));
  assert.ok(ruleAllows(path('/anything'), urls(['*'])));
  assert.ok(!ruleAllows(path('/healthz'), rule(['get'], ['*'], ['*'])), 'resource rules never allow a path');
});

const view: ClusterRole = { metadata: { name: 'view' }, rules: [rule(['get', 'list'], [''], ['pods'])] };
const bindTo = (name: string, roleKind: 'Role' | 'ClusterRole', roleName: string, subjects: RoleBinding['subjects'], namespace?: string) => ({
  metadata: { name, ...(namespace ? { namespace } : {}) },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: roleName }, subjects,
});

test('rbacAuthorizer: cluster bindings everywhere, role bindings in their namespace, with upstream reasons', async () => {
  const p = policy({
    clusterRoles: [view],
    roles: [{ metadata: { name: 'cm-writer', namespace: 'team' }, rules: [rule(['create'], [''], ['configmaps'])] }],
    crbs: [bindTo('devs-view', 'ClusterRole', 'view', [{ kind: 'Group', name: 'dev' }])],
    rbs: [
      bindTo('alice-cm', 'Role', 'cm-writer', [{ kind: 'User', name: 'alice' }], 'team'),
      bindTo('sa-view', 'ClusterRole', 'view', [{ kind: 'ServiceAccount', name: 'robot' }], 'team'),
    ],
  });
  const authorize = rbacAuthorizer(p);
  assert.deepEqual(await authorize(attrs({ verb: 'list', namespace: 'other' })),
    { decision: 'allow', reason: 'RBAC: allowed by ClusterRoleBinding "devs-view" of ClusterRole "view" to Group "dev"' });
  assert.deepEqual(await authorize(attrs({ verb: 'create', resource: 'configmaps', namespace: 'team' })),
    { decision: 'allow', reason: 'RBAC: allowed by RoleBinding "alice-cm/team" of Role "cm-writer" to User "alice"' });
  assert.equal((await authorize(attrs({ verb: 'create', resource: 'configmaps', namespace: 'default' }))).decision, 'noOpinion');
  const robot: UserInfo = { name: 'system:serviceaccount:team:robot', groups: ['system:serviceaccounts'] };
  assert.deepEqual(await authorize(attrs({ user: robot, namespace: 'team' })),
    { decision: 'allow', reason: 'RBAC: allowed by RoleBinding "sa-view/team" of ClusterRole "view" to ServiceAccount "robot/team"' });
  assert.equal((await authorize(attrs({ user: robot, namespace: 'default' }))).decision, 'noOpinion');
});

test('rbacAuthorizer: a binding to a missing role is the reason, and the rules that exist still count', async () => {
  const p = policy({
    clusterRoles: [view],
    crbs: [bindTo('ghost', 'ClusterRole', 'missing', [{ kind: 'User', name: 'alice' }])],
    rbs: [bindTo('ghost-role', 'Role', 'gone', [{ kind: 'User', name: 'alice' }], 'default')],
  });
  assert.deepEqual(await rbacAuthorizer(p)(attrs({})), {
    decision: 'noOpinion',
    reason: 'RBAC: [clusterrole.rbac.authorization.k8s.io "missing" not found, role.rbac.authorization.k8s.io "gone" not found]',
  });
  const r = rulesFor(p, alice, 'default');
  assert.equal(r.incomplete, true);
  assert.deepEqual(r.resourceRules, []);
});

test('rulesFor: resource and non-resource rules of every binding that applies', () => {
  const p = policy({
    clusterRoles: [view, { metadata: { name: 'info' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/version'] }] }],
    crbs: [bindTo('a', 'ClusterRole', 'view', [{ kind: 'User', name: 'alice' }]), bindTo('b', 'ClusterRole', 'info', [{ kind: 'Group', name: 'system:authenticated' }])],
  });
  assert.deepEqual(rulesFor(p, alice, 'default'), {
    resourceRules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }],
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/version'] }],
    incomplete: false,
  });
});

test('authorization modes: system:masters first, AlwaysAllow alone is no authorizer, bad modes in upstream words', async () => {
  assert.deepEqual(parseAuthorizationModes('Node,RBAC'), ['Node', 'RBAC']);
  assert.throws(() => parseAuthorizationModes('Node,ABAC'), /authorization-mode "ABAC" is not a valid mode/);
  assert.throws(() => parseAuthorizationModes('RBAC,RBAC'), /authorization-mode "RBAC" has mode specified more than once/);
  assert.equal(authorizerFor(['AlwaysAllow'], { rbac: () => ({ decision: 'deny', reason: '' }) }), undefined);
  const chain = authorizerFor(['Node', 'RBAC'], { rbac: rbacAuthorizer(policy({})) })!;
  assert.equal((await chain(attrs({ user: { name: 'root', groups: ['system:masters'] } }))).decision, 'allow');
  assert.equal((await chain(attrs({}))).decision, 'noOpinion');
});
