/**
 * Roles, ClusterRoles and their bindings as the RBAC authorizer reads them:
 * four watch-fed caches (registry/lister.ts; upstream reads them from
 * shared-informer listers), so authorizing a request lists nothing. A watch
 * that ends (compaction) starts again from a fresh list, with back-off.
 */
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import { Lister } from '../../../registry/lister.js';
import type { Registry } from '../../../registry/registry.js';
import type { Logger } from '../../../util/log.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

export interface PolicyGetter {
  clusterRole(name: string): ClusterRole | undefined;
  role(namespace: string, name: string): Role | undefined;
  clusterRoleBindings(): Iterable<ClusterRoleBinding>;
  roleBindings(namespace: string): Iterable<RoleBinding>;
}

export class PolicyCache implements PolicyGetter {
  private readonly clusterRoles: Lister<ClusterRole>;
  private readonly roles: Lister<Role>;
  private readonly crbs: Lister<ClusterRoleBinding>;
  private readonly rbs: Lister<RoleBinding>;

  constructor(registry: Registry, logger?: Logger) {
    const lister = (plural: string): Lister => new Lister(registry.store(RBAC_GROUP, 'v1', plural)!, { logger });
    this.clusterRoles = lister('clusterroles');
    this.roles = lister('roles');
    this.crbs = lister('clusterrolebindings');
    this.rbs = lister('rolebindings');
  }

  private all(): Lister[] { return [this.clusterRoles, this.roles, this.crbs, this.rbs]; }

  /** Resolves once every kind has been read: from then on the cache follows the writes. */
  async start(): Promise<void> {
    await Promise.all(this.all().map((l) => l.start()));
  }

  close(): void {
    for (const l of this.all()) l.close();
  }

  clusterRole(name: string): ClusterRole | undefined { return this.clusterRoles.get(undefined, name); }
  role(namespace: string, name: string): Role | undefined { return this.roles.get(namespace, name); }
  clusterRoleBindings(): Iterable<ClusterRoleBinding> { return this.crbs.inNamespace(''); }
  roleBindings(namespace: string): Iterable<RoleBinding> { return this.rbs.inNamespace(namespace); }
}
