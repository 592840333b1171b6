/**
 * SelfSubjectRulesReview (pkg/registry/authorization/selfsubjectrulesreview):
 * the rules the requesting user has in spec.namespace, from the authorizers'
 * rule resolvers; what `kubectl auth can-i --list` prints. The answer is a
 * new review carrying only the status (upstream does not echo the spec).
 * Without an authorizer (AlwaysAllow) the user may do everything.
 */
import type { SelfSubjectRulesReview } from 'kubernetes-types/authorization/v1.js';
import { badRequest } from '../../api/status.js';
import type { UserInfo } from '../auth/types.js';
import { alwaysAllowRules, type RulesResolver } from '../authz/rules.js';

/** A chain that cannot enumerate its rules says so (the union of no rule resolvers). */
const noRules: RulesResolver = () => ({ resourceRules: [], nonResourceRules: [], incomplete: true });

export async function reviewRules(review: SelfSubjectRulesReview, ctx: { requestor: UserInfo; authorizing: boolean; rulesResolver?: RulesResolver }): Promise<SelfSubjectRulesReview> {
  const namespace = review.spec?.namespace ?? '';
  if (!namespace) throw badRequest('no namespace on request');
  const resolve = ctx.rulesResolver ?? (ctx.authorizing ? noRules : alwaysAllowRules);
  const rules = await resolve(ctx.requestor, namespace);
  const status: SelfSubjectRulesReview['status'] = {
    resourceRules: rules.resourceRules, nonResourceRules: rules.nonResourceRules, incomplete: rules.incomplete,
  };
  if (rules.evaluationError) status.evaluationError = rules.evaluationError;
  return { apiVersion: review.apiVersion, kind: review.kind, metadata: { creationTimestamp: null } as any, spec: {}, status };
}
