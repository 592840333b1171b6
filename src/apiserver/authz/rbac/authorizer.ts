/**
 * The RBAC authorizer (plugin/pkg/auth/authorizer/rbac): allowed when a rule
 * of some binding that applies to the user allows the request; otherwise no
 * opinion (the chain then denies), with the rule-resolution errors as reason.
 */
import type { NonResourceRule } from 'kubernetes-types/authorization/v1.js';
import type { UserInfo } from '../../auth/types.js';
import { allow, noOpinion, type Authorizer } from '../types.js';
import type { PolicyGetter } from './policy-cache.js';
import { rulesFor as resolveRules, visitRulesFor, type RuleSource } from './resolver.js';
import { ruleAllows } from './rules.js';

/** utilerrors.NewAggregate's wording: one error as itself, several as `[a, b]`. */
export function aggregateMessage(errors: Error[]): string {
  return errors.length === 1 ? errors[0]!.message : `[${errors.map((e) => e.message).join(', ')}]`;
}

export function rbacAuthorizer(policy: PolicyGetter): Authorizer {
  return (attrs) => {
    let allowedBy: RuleSource | undefined;
    const errors: Error[] = [];
    visitRulesFor(policy, attrs.user, attrs.namespace, (source, rule, err) => {
      if (err) errors.push(err);
      if (rule && ruleAllows(attrs, rule)) { allowedBy = source; return false; }
      return true;
    });
    if (allowedBy) return allow(`RBAC: allowed by ${allowedBy()}`);
    return noOpinion(errors.length ? `RBAC: ${aggregateMessage(errors)}` : '');
  };
}

/** authorization/v1 ResourceRule (the kubernetes-types declaration lacks verbs and resources). */
export interface ResourceRule { verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[] }

export interface SubjectRules {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  /** Some binding could not be resolved: the lists may miss rules (SelfSubjectRulesReview status.incomplete). */
  incomplete: boolean;
  evaluationError?: string;
}

/** What a user may do in a namespace, as SelfSubjectRulesReview reports it (rules without nonResourceURLs are resource rules). */
export function rulesFor(policy: PolicyGetter, user: UserInfo, namespace: string): SubjectRules {
  const { rules, errors } = resolveRules(policy, user, namespace);
  const resourceRules: ResourceRule[] = [];
  const nonResourceRules: NonResourceRule[] = [];
  for (const r of rules) {
    if (r.nonResourceURLs?.length) nonResourceRules.push({ verbs: [...r.verbs], nonResourceURLs: [...r.nonResourceURLs] });
    else {
      resourceRules.push({
        verbs: [...r.verbs], apiGroups: [...(r.apiGroups ?? [])], resources: [...(r.resources ?? [])],
        ...(r.resourceNames?.length ? { resourceNames: [...r.resourceNames] } : {}),
      });
    }
  }
  return { resourceRules, nonResourceRules, incomplete: errors.length > 0, ...(errors.length ? { evaluationError: aggregateMessage(errors) } : {}) };
}
