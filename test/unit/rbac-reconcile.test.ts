/** Reconciling the default RBAC policy with the stored one (upstream pkg/registry/rbac/reconciliation). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterRole, ClusterRoleBinding } from 'kubernetes-types/rbac/v1.js';
import { reconcileClusterRole, reconcileClusterRoleBinding } from '../../src/api/rbac/reconcile.js';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from '../../src/api/rbac/bootstrap-policy.js';

const meta = (annotations: Record<string, string> = { 'rbac.authorization.kubernetes.io/autoupdate': 'true' }, labels: Record<string, string> = { 'kubernetes.io/bootstrapping': 'rbac-defaults' }) =>
  ({ name: 'r', labels, annotations });
const role = (rules: ClusterRole['rules'], m = meta(), aggregationRule?: ClusterRole['aggregationRule']): ClusterRole =>
  ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: m, rules, ...(aggregationRule ? { aggregationRule } : {}) });
const pods = (verbs: string[]) => ({ apiGroups: [''], resources: ['pods'], verbs });

test('reconcileClusterRole', () => {
  const cases: { name: string; existing: ClusterRole; expected: ClusterRole; operation: string; isProtected: boolean; rules?: unknown[] }[] = [
    { name: 'equal', existing: role([pods(['get', 'list'])]), expected: role([pods(['get', 'list'])]), operation: 'none', isProtected: false },
    { name: 'covered by a wider stored rule', existing: role([{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]), expected: role([pods(['get'])]), operation: 'none', isProtected: false },
    { name: 'missing verbs are appended as atomic rules', existing: role([pods(['get'])]), expected: role([pods(['get', 'list', 'watch'])]),
      operation: 'update', isProtected: false, rules: [pods(['get']), pods(['list']), pods(['watch'])] },
    { name: 'extra rules are kept', existing: role([pods(['get']), pods(['delete'])]), expected: role([pods(['get'])]), operation: 'none', isProtected: false },
    { name: 'autoupdate "false" protects', existing: role([], meta({ 'rbac.authorization.kubernetes.io/autoupdate': 'false' })), expected: role([pods(['get'])]),
      operation: 'update', isProtected: true },
    { name: 'a missing label is added', existing: role([pods(['get'])], meta(undefined, {})), expected: role([pods(['get'])]), operation: 'update', isProtected: false },
    { name: 'a missing aggregation selector is added', existing: role([pods(['get'])], meta(), { clusterRoleSelectors: [] }),
      expected: role(undefined, meta(), { clusterRoleSelectors: [{ matchLabels: { a: 'true' } }] }), operation: 'update', isProtected: false },
  ];
  for (const c of cases) {
    const r = reconcileClusterRole(c.existing, c.expected);
    assert.equal(r.operation, c.operation, c.name);
    assert.equal(r.protected, c.isProtected, c.name);
    if (c.rules) assert.deepEqual(r.role.rules, c.rules, c.name);
  }
});

test('reconcileClusterRoleBinding: missing subjects added, a changed roleRef recreates, stored annotations win', () => {
  const [expected] = bootstrapClusterRoleBindings().filter((b) => b.metadata!.name === 'system:basic-user');
  const alice = { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' };
  const edited: ClusterRoleBinding = { ...structuredClone(expected), subjects: [alice] };
  const r = reconcileClusterRoleBinding(edited, expected);
  assert.equal(r.operation, 'update');
  assert.deepEqual(r.binding.subjects, [alice, ...expected.subjects!]);
  assert.equal(reconcileClusterRoleBinding(expected, expected).operation, 'none');
  const moved = { ...structuredClone(expected), roleRef: { ...expected.roleRef, name: 'view' } };
  assert.equal(reconcileClusterRoleBinding(moved, expected).operation, 'recreate');
  const locked = structuredClone(expected);
  locked.metadata!.annotations = { 'rbac.authorization.kubernetes.io/autoupdate': 'false' };
  locked.subjects = [];
  const l = reconcileClusterRoleBinding(locked, expected);
  assert.ok(l.protected);
  assert.equal(l.binding.metadata!.annotations!['rbac.authorization.kubernetes.io/autoupdate'], 'false');
});

test('every default reconciles with itself to nothing', () => {
  for (const r of bootstrapClusterRoles()) assert.equal(reconcileClusterRole(r, r).operation, 'none', r.metadata!.name);
  for (const b of bootstrapClusterRoleBindings()) assert.equal(reconcileClusterRoleBinding(b, b).operation, 'none', b.metadata!.name);
});
