/**
 * Which rules hold for a user (upstream rbac/validation DefaultRuleResolver):
 * the ClusterRoleBindings first, then the RoleBindings of the request's
 * namespace. A binding whose role is missing is an error the visitor is told
 * of; the other bindings still count.
 */
import type { PolicyRule, RoleRef, Subject } from 'kubernetes-types/rbac/v1.js';
import type { UserInfo } from '../../auth/types.js';
import type { PolicyGetter } from './policy-cache.js';
import { describeSubject, subjectIndexFor } from './subjects.js';

/** Where a rule came from, as upstream's describers print it in an allow reason. */
export type RuleSource = () => string;

/** Returns false to stop visiting. */
export type RuleVisitor = (source: RuleSource | undefined, rule: PolicyRule | undefined, err: Error | undefined) => boolean;

/** The rules a RoleRef names; a missing role is upstream's lister NotFound. */
export function roleReferenceRules(policy: PolicyGetter, ref: RoleRef, namespace: string): PolicyRule[] {
  if (ref.kind === 'Role') {
    const role = policy.role(namespace, ref.name);
    if (!role) throw new Error(`role.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found`);
    return role.rules ?? [];
  }
  if (ref.kind === 'ClusterRole') {
    const role = policy.clusterRole(ref.name);
    if (!role) throw new Error(`clusterrole.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found`);
    return role.rules ?? [];
  }
  throw new Error(`unsupported role reference kind: ${JSON.stringify(ref.kind)}`);
}

interface BindingLike { metadata?: { name?: string; namespace?: string }; roleRef: RoleRef; subjects?: Subject[] }

function visitBinding(policy: PolicyGetter, user: UserInfo, b: BindingLike, namespace: string, visit: RuleVisitor): boolean {
  const i = subjectIndexFor(user, b.subjects, namespace);
  if (i < 0) return true;
  let rules: PolicyRule[];
  try {
    rules = roleReferenceRules(policy, b.roleRef, namespace);
  } catch (e) {
    return visit(undefined, undefined, e as Error);
  }
  const source: RuleSource = () => {
    const name = namespace ? `${b.metadata?.name}/${namespace}` : b.metadata?.name ?? '';
    const kind = namespace ? 'RoleBinding' : 'ClusterRoleBinding';
    return `${kind} ${JSON.stringify(name)} of ${b.roleRef.kind} ${JSON.stringify(b.roleRef.name)} to ${describeSubject(b.subjects![i]!, namespace)}`;
  };
  for (const rule of rules) if (!visit(source, rule, undefined)) return false;
  return true;
}

export function visitRulesFor(policy: PolicyGetter, user: UserInfo, namespace: string, visit: RuleVisitor): void {
  for (const b of policy.clusterRoleBindings()) if (!visitBinding(policy, user, b, '', visit)) return;
  if (!namespace) return;
  for (const b of policy.roleBindings(namespace)) if (!visitBinding(policy, user, b, namespace, visit)) return;
}

/** RulesFor: every rule that holds, and the errors met (the list is then incomplete). */
export function rulesFor(policy: PolicyGetter, user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: Error[] } {
  const rules: PolicyRule[] = [];
  const errors: Error[] = [];
  visitRulesFor(policy, user, namespace, (_s, rule, err) => {
    if (rule) rules.push(rule);
    if (err) errors.push(err);
    return true;
  });
  return { rules, errors };
}
