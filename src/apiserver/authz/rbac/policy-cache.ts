/**
 * Roles, ClusterRoles and their bindings as the RBAC authorizer reads them:
 * kept in memory and current by watching the registry (upstream reads them
 * from shared-informer listers), so authorizing a request lists nothing.
 * A watch that ends (compaction) starts again from a fresh list.
 */
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import type { Registry } from '../../../registry/registry.js';
import type { Watch } from '../../../registry/store.js';
import type { WatchEventOut } from '../../../registry/types.js';
import type { Logger } from '../../../util/log.js';
import { RelistBackoff } from '../../../util/relist-backoff.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** Objects by namespace ('' for cluster-scoped) and name. */
class Index<T extends { metadata?: { namespace?: string; name?: string } }> {
  private readonly byNamespace = new Map<string, Map<string, T>>();

  apply(ev: WatchEventOut): void {
    const obj = ev.object as T;
    const ns = obj.metadata?.namespace ?? '';
    const name = obj.metadata?.name ?? '';
    let m = this.byNamespace.get(ns);
    if (ev.type === 'DELETED') {
      m?.delete(name);
      if (m?.size === 0) this.byNamespace.delete(ns);
      return;
    }
    if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED') return;
    if (!m) this.byNamespace.set(ns, m = new Map());
    m.set(name, obj);
  }

  get(namespace: string, name: string): T | undefined { return this.byNamespace.get(namespace)?.get(name); }
  list(namespace: string): Iterable<T> { return this.byNamespace.get(namespace)?.values() ?? []; }
  clear(): void { this.byNamespace.clear(); }
}

export interface PolicyGetter {
  clusterRole(name: string): ClusterRole | undefined;
  role(namespace: string, name: string): Role | undefined;
  clusterRoleBindings(): Iterable<ClusterRoleBinding>;
  roleBindings(namespace: string): Iterable<RoleBinding>;
}

export class PolicyCache implements PolicyGetter {
  private readonly clusterRoles = new Index<ClusterRole>();
  private readonly roles = new Index<Role>();
  private readonly crbs = new Index<ClusterRoleBinding>();
  private readonly rbs = new Index<RoleBinding>();
  private readonly watches: Watch[] = [];
  private closed = false;

  constructor(private readonly registry: Registry, private readonly logger?: Logger) {}

  /** Resolves once every kind has been read: from then on the cache follows the writes. */
  async start(): Promise<void> {
    await Promise.all([
      this.follow('clusterroles', this.clusterRoles),
      this.follow('roles', this.roles),
      this.follow('clusterrolebindings', this.crbs),
      this.follow('rolebindings', this.rbs),
    ]);
  }

  close(): void {
    this.closed = true;
    for (const w of this.watches.splice(0)) w.close();
  }

  private async follow(plural: string, index: Index<any>, backoff = new RelistBackoff()): Promise<void> {
    const store = this.registry.store(RBAC_GROUP, 'v1', plural)!;
    const restart = (err?: Error) => {
      if (this.closed) return;
      const delayMs = backoff.next();
      this.logger?.warn('rbac cache: watch ended, listing again', { resource: plural, err: err?.message, delayMs });
      setTimeout(() => { if (!this.closed) this.follow(plural, index, backoff).catch((e) => restart(e)); }, delayMs).unref();
    };
    // The initial ADDED events replace what an earlier watch left.
    let fresh = true;
    const w = await store.watch(undefined, { resourceVersion: '0' }, (ev) => {
      if (fresh) { index.clear(); fresh = false; }
      index.apply(ev);
    }, restart);
    if (fresh) index.clear();
    backoff.watching();
    this.watches.push(w);
  }

  clusterRole(name: string): ClusterRole | undefined { return this.clusterRoles.get('', name); }
  role(namespace: string, name: string): Role | undefined { return this.roles.get(namespace, name); }
  clusterRoleBindings(): Iterable<ClusterRoleBinding> { return this.crbs.list(''); }
  roleBindings(namespace: string): Iterable<RoleBinding> { return this.rbs.list(namespace); }
}
