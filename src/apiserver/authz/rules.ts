/**
 * What a user may do in a namespace, as authorizer.RuleResolver answers it for
 * SelfSubjectRulesReview (`kubectl auth can-i --list`). Each authorizer of the
 * chain that can enumerate its rules contributes them; the union concatenates
 * them, is incomplete when any part is, and joins their evaluation errors
 * (upstream's unionAuthzRulesHandler).
 */
import type { NonResourceRule, ResourceRule } from 'kubernetes-types/authorization/v1.js';
import type { UserInfo } from '../auth/types.js';

export type { NonResourceRule, ResourceRule };

export interface SubjectRules {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  /** Some authorizer could not list everything it might allow (the Node authorizer, webhooks). */
  incomplete: boolean;
  evaluationError?: string;
}

export type RulesResolver = (user: UserInfo, namespace: string) => SubjectRules | Promise<SubjectRules>;

/** AlwaysAllow's rules: everything (alwaysAllowAuthorizer.RulesFor). */
export const alwaysAllowRules: RulesResolver = () => ({
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  incomplete: false,
});

export function unionRulesResolver(resolvers: RulesResolver[]): RulesResolver {
  return async (user, namespace) => {
    const out: SubjectRules = { resourceRules: [], nonResourceRules: [], incomplete: false };
    const errors: string[] = [];
    for (const resolve of resolvers) {
      const r = await resolve(user, namespace);
      out.resourceRules.push(...r.resourceRules);
      out.nonResourceRules.push(...r.nonResourceRules);
      out.incomplete ||= r.incomplete;
      if (r.evaluationError) errors.push(r.evaluationError);
    }
    // utilerrors.NewAggregate: one error alone, several as `[a, b]`.
    if (errors.length) out.evaluationError = errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
    return out;
  };
}

/** AlwaysDeny's rules: nothing, and that is all of it. */
export const alwaysDenyRules: RulesResolver = () => ({ resourceRules: [], nonResourceRules: [], incomplete: false });

/**
 * The Node authorizer's RulesFor: a node's permissions follow from the pods
 * bound to it and cannot be listed, so a node's review is incomplete; anyone
 * else gets nothing from it.
 */
export const nodeRules: RulesResolver = (user) => {
  const isNode = user.name.startsWith('system:node:') && user.groups.includes('system:nodes');
  return isNode
    ? { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'node authorizer does not support user rule resolution' }
    : alwaysDenyRules(user, '');
};

/**
 * The rule resolvers of an --authorization-mode chain, in its order (the
 * system:masters authorizer in front of the chain has none, as upstream).
 */
export function rulesResolverFor(modes: readonly string[], resolvers: { rbac: RulesResolver; node?: RulesResolver }): RulesResolver {
  return unionRulesResolver(modes.map((m) => {
    switch (m) {
      case 'AlwaysAllow': return alwaysAllowRules;
      case 'Node': return resolvers.node ?? nodeRules;
      case 'RBAC': return resolvers.rbac;
      default: return alwaysDenyRules;
    }
  }));
}
