/**
 * RBAC escalation prevention (upstream pkg/registry/rbac: escalation_check.go
 * and the policybased storages of roles, clusterroles and their bindings):
 * a user may write a Role or ClusterRole only with rules it holds itself,
 * unless it may `escalate` roles; may bind a role only when it holds all of
 * the role's rules, unless it may `bind` that role. Members of
 * system:masters, and the API server's own writes (no request user), pass.
 * Runs as an admission step, after the object is decoded and patched.
 */
import type { ClusterRole, PolicyRule, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import type { ResourceInfo } from '../../../api/resources.js';
import { forbiddenStatus } from '../../../api/status.js';
import type { UserInfo } from '../../auth/types.js';
import type { RequestContext } from '../../request-context.js';
import type { Authorizer } from '../types.js';
import { compactRules, compactString, covers, goQuotedList } from '../../../api/rbac/covers.js';
import type { PolicyGetter } from './policy-cache.js';
import { SYSTEM_PRIVILEGED_GROUP } from './privileged.js';
import { rulesFor, roleReferenceRules } from './resolver.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** To set an aggregationRule, which can gather anything, a user needs * on *.* (cluster-admin). */
const fullAuthority: PolicyRule[] = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }];

/** ConfirmNoEscalation: the error message when `user` does not hold every rule of `rules` in `namespace`, else undefined. */
export function escalationError(policy: PolicyGetter, user: UserInfo, namespace: string, rules: PolicyRule[]): string | undefined {
  const owner = rulesFor(policy, user, namespace);
  const { covered, missing } = covers(owner.rules, rules);
  if (covered) return undefined;
  const described = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${JSON.stringify(user.name)} (groups=${goQuotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${described.join('\n')}`;
  if (owner.errors.length) msg += `; resolution errors: [${owner.errors.map((e) => e.message).join(' ')}]`;
  return msg;
}

export function rbacEscalationAdmission(policy: PolicyGetter, authorizer: () => Authorizer | undefined) {
  const allowed = async (user: UserInfo, verb: string, resource: string, name: string, namespace: string): Promise<boolean> => {
    const authorize = authorizer();
    if (!authorize) return true;
    const d = await authorize({
      user, verb, isResourceRequest: true, path: '', apiGroup: RBAC_GROUP, apiVersion: '*', namespace, resource, subresource: '', name,
    });
    return d.decision === 'allow';
  };

  const check = async (info: ResourceInfo, obj: unknown, user: UserInfo | undefined): Promise<void> => {
    if (!user || user.groups.includes(SYSTEM_PRIVILEGED_GROUP)) return;
    const meta = (obj as { metadata?: { name?: string; namespace?: string } }).metadata ?? {};
    const name = meta.name ?? '';
    const namespace = info.namespaced ? meta.namespace ?? '' : '';
    const gr = { group: RBAC_GROUP, resource: info.plural };
    const refuse = (msg: string) => forbiddenStatus(msg, gr, name);
    switch (info.plural) {
      case 'roles':
      case 'clusterroles': {
        if (await allowed(user, 'escalate', info.plural, name, namespace)) return;
        const role = obj as Role | ClusterRole;
        const err = escalationError(policy, user, namespace, role.rules ?? []);
        if (err) throw refuse(err);
        if ('aggregationRule' in role && role.aggregationRule && escalationError(policy, user, namespace, fullAuthority)) {
          throw refuse('must have cluster-admin privileges to use the aggregationRule');
        }
        return;
      }
      case 'rolebindings':
      case 'clusterrolebindings': {
        const ref = (obj as RoleBinding).roleRef;
        const resource = ref.kind === 'ClusterRole' ? 'clusterroles' : ref.kind === 'Role' ? 'roles' : undefined;
        if (resource && await allowed(user, 'bind', resource, ref.name, namespace)) return;
        let rules: PolicyRule[];
        try {
          rules = roleReferenceRules(policy, ref, namespace);
        } catch (e) {
          throw refuse((e as Error).message);
        }
        const err = escalationError(policy, user, namespace, rules);
        if (err) throw refuse(err);
        return;
      }
    }
  };
  // Writes of other groups (nearly all) are answered without a promise (admission/steps.ts).
  return (_op: 'create' | 'update', info: ResourceInfo, obj: unknown, ctx?: RequestContext): Promise<void> | undefined =>
    info.group === RBAC_GROUP ? check(info, obj, ctx?.user) : undefined;
}
