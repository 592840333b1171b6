/**
 * Creates upstream's bootstrap ClusterRoles and ClusterRoleBindings, and
 * reconciles the existing ones at every start (kube-apiserver's
 * rbac/bootstrap-roles post-start hook): missing rules, aggregation
 * selectors, subjects, labels and annotations are added (api/rbac/reconcile.ts);
 * nothing a user added is removed; an object annotated
 * `rbac.authorization.kubernetes.io/autoupdate: "false"` is left as it is.
 * The aggregated roles (admin, edit, view) are created empty; the
 * clusterrole-aggregation controller fills their rules.
 */
import type { ClusterRole, ClusterRoleBinding } from 'kubernetes-types/rbac/v1.js';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from '../api/rbac/bootstrap-policy.js';
import { compactString } from '../api/rbac/covers.js';
import { reconcileClusterRole, reconcileClusterRoleBinding } from '../api/rbac/reconcile.js';
import { silentLogger, type Logger } from '../util/log.js';
import type { Registry } from './registry.js';
import type { Store } from './store.js';
import { statusCode } from './status-code.js';
import { apiServerFieldManager } from './bootstrap.js';

const group = 'rbac.authorization.k8s.io';

export async function ensureBootstrapPolicy(registry: Registry, logger: Logger = silentLogger): Promise<void> {
  const roles = registry.store(group, 'v1', 'clusterroles')!;
  const bindings = registry.store(group, 'v1', 'clusterrolebindings')!;
  // Concurrently: each is independent of the others, and on a fresh store the creates then share a few
  // group commits (one fsync each) instead of waiting for one fsync apiece (a fresh `k8ts up`'s start).
  await Promise.all([
    ...bootstrapClusterRoles().map((r) => reconcileWithRetry(() => reconcileRole(roles, r, logger))),
    ...bootstrapClusterRoleBindings().map((b) => reconcileWithRetry(() => reconcileBinding(bindings, b, logger))),
  ]);
}

/** Another server starting at the same time may write first: read again and retry (upstream retries on conflict too). */
async function reconcileWithRetry(run: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await run();
      return;
    } catch (e) {
      if (attempt >= 3 || (statusCode(e) !== 409 && statusCode(e) !== 404)) throw e;
    }
  }
}

/** The stored object; undefined when it was absent and the default has just been created. */
async function storedOrCreated<T extends ClusterRole | ClusterRoleBinding>(store: Store, expected: T): Promise<T | undefined> {
  try {
    return await store.get(undefined, expected.metadata!.name!);
  } catch (e) {
    if (statusCode(e) !== 404) throw e;
  }
  await store.create(undefined, expected, { fieldManager: apiServerFieldManager });
  return undefined;
}

async function reconcileRole(store: Store, expected: ClusterRole, logger: Logger): Promise<void> {
  const name = expected.metadata!.name!;
  const current = await storedOrCreated(store, expected);
  if (!current) return;
  const r = reconcileClusterRole(current, expected);
  if (r.operation === 'none') return;
  const missing = `[${r.missingRules.map(compactString).join(' ')}]`;
  if (r.protected) {
    logger.warn(`skipped reconcile-protected clusterrole.${group}/${name} with missing permissions: ${missing}`);
    return;
  }
  await store.update(undefined, name, r.role, { fieldManager: apiServerFieldManager });
  logger.info(`updated clusterrole.${group}/${name} with additional permissions: ${missing}`);
}

async function reconcileBinding(store: Store, expected: ClusterRoleBinding, logger: Logger): Promise<void> {
  const name = expected.metadata!.name!;
  const current = await storedOrCreated(store, expected);
  if (!current) return;
  const r = reconcileClusterRoleBinding(current, expected);
  if (r.operation === 'none') return;
  const missing = `[${r.missingSubjects.map((s) => `${s.kind}/${s.namespace ? `${s.namespace}/` : ''}${s.name}`).join(' ')}]`;
  if (r.protected) {
    logger.warn(`skipped reconcile-protected clusterrolebinding.${group}/${name} with missing subjects: ${missing}`);
    return;
  }
  if (r.operation === 'recreate') {
    await store.delete(undefined, name);
    const { resourceVersion: _rv, uid: _uid, creationTimestamp: _ct, ...meta } = r.binding.metadata!;
    await store.create(undefined, { ...r.binding, metadata: meta }, { fieldManager: apiServerFieldManager });
    logger.info(`recreated clusterrolebinding.${group}/${name}`);
    return;
  }
  await store.update(undefined, name, r.binding, { fieldManager: apiServerFieldManager });
  logger.info(`updated clusterrolebinding.${group}/${name} with additional subjects: ${missing}`);
}
