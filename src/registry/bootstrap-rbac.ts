/**
 * Creates upstream's bootstrap ClusterRoles and ClusterRoleBindings when they
 * are absent (kube-apiserver's rbac/bootstrap-roles post-start hook). Existing
 * objects are left as they are: a user's edit survives a restart. The
 * aggregated roles (admin, edit, view) are created empty; the
 * clusterrole-aggregation controller fills their rules.
 */
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from '../api/rbac/bootstrap-policy.js';
import { createIfAbsent } from './bootstrap.js';
import type { Registry } from './registry.js';

export async function ensureBootstrapPolicy(registry: Registry): Promise<void> {
  const roles = registry.store('rbac.authorization.k8s.io', 'v1', 'clusterroles')!;
  const bindings = registry.store('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings')!;
  for (const r of bootstrapClusterRoles()) await createIfAbsent(() => roles.create(undefined, r));
  for (const b of bootstrapClusterRoleBindings()) await createIfAbsent(() => bindings.create(undefined, b));
}
