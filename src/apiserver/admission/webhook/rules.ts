/**
 * Whether a webhook's rules match a request, as upstream's
 * admission/plugin/webhook/predicates/rules (Matcher.Matches): some rule whose
 * operations, apiGroups, apiVersions, resources and scope all match.
 *  1. operations: '*' or the request's operation;
 *  2. apiGroups and apiVersions: '*' or the request's;
 *  3. resources: "res/sub" splits in two; each half is '*' or equal, and a rule
 *     without a subresource ("pods", "*") matches only requests without one;
 *  4. scope: '*' (default) all; "Cluster" cluster-scoped requests and namespaces
 *     themselves; "Namespaced" namespaced requests other than namespaces.
 */
import type { RuleWithOperations } from 'kubernetes-types/admissionregistration/v1.js';
import type { AdmissionAttributes } from './attributes.js';

/** kubernetes-types leaves out the fields RuleWithOperations embeds from Rule. */
export type WebhookRule = RuleWithOperations & { resources?: string[]; scope?: string };

const anyOrEqual = (list: readonly string[] | undefined, v: string) => !!list && (list.includes('*') || list.includes(v));

function resourceMatches(resources: readonly string[] | undefined, resource: string, subresource: string): boolean {
  for (const r of resources ?? []) {
    const slash = r.indexOf('/');
    const [res, sub] = slash < 0 ? [r, ''] : [r.slice(0, slash), r.slice(slash + 1)];
    if ((res === '*' || res === resource) && (sub === '*' || sub === subresource)) return true;
  }
  return false;
}

function scopeMatches(scope: string | undefined, a: AdmissionAttributes): boolean {
  const isNamespace = a.info.group === '' && a.info.plural === 'namespaces';
  if (!scope || scope === '*') return true;
  if (scope === 'Namespaced') return !isNamespace && a.info.namespaced;
  if (scope === 'Cluster') return isNamespace || !a.info.namespaced;
  return false;
}

export function ruleMatches(rule: WebhookRule, a: AdmissionAttributes): boolean {
  return anyOrEqual(rule.operations, a.operation)
    && anyOrEqual(rule.apiGroups, a.info.group)
    && anyOrEqual(rule.apiVersions, a.info.version)
    && resourceMatches(rule.resources, a.info.plural, a.subresource)
    && scopeMatches(rule.scope, a);
}

export const rulesMatch = (rules: readonly WebhookRule[] | undefined, a: AdmissionAttributes) =>
  (rules ?? []).some((r) => ruleMatches(r, a));
