/**
 * Whether a request matches a policy's matchConstraints or a binding's
 * matchResources, as upstream's policy matcher decides
 * (plugin/policy/matching/matching.go): the namespaceSelector on the
 * namespace's labels (cluster-scoped objects match it; a Namespace is
 * matched on its own labels), the objectSelector on the new or the old
 * object's labels, then a resource rule that matches and no exclude rule
 * that does.
 */
import type { MatchResources } from 'kubernetes-types/admissionregistration/v1.js';
import type { ResourceRule } from '../../../api/admissionregistration/types.js';
import { labelSelectorAsSelector } from '../../../api/validation/labels.js';
import type { PolicyRequest } from './request.js';

/** A rule's resource entry against `resource[/subresource]`: `*`, `*​/*`, `pods/*`, `*​/scale`, exact. */
function resourceMatches(entry: string, resource: string, subresource: string): boolean {
  const [r, s = ''] = entry.split('/', 2);
  const hasSub = entry.includes('/');
  if (!hasSub) return subresource === '' && (r === '*' || r === resource);
  return (r === '*' || r === resource) && (s === '*' || s === subresource);
}

export function ruleMatches(rule: ResourceRule, req: PolicyRequest): boolean {
  const ops = rule.operations ?? [];
  if (!ops.includes('*') && !ops.includes(req.operation)) return false;
  if (!(rule.apiGroups ?? []).some((g) => g === '*' || g === req.group)) return false;
  if (!(rule.apiVersions ?? []).some((v) => v === '*' || v === req.version)) return false;
  if (!(rule.resources ?? []).some((r) => resourceMatches(r, req.resource, req.subresource))) return false;
  const scope = rule.scope ?? '*';
  // A Namespace is cluster-scoped for rules (upstream: "Namespace API objects are cluster-scoped").
  if (scope === 'Cluster' && req.namespaced) return false;
  if (scope === 'Namespaced' && !req.namespaced) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(req.name);
}

const labelsOf = (o: unknown): Record<string, string> => ((o as { metadata?: { labels?: Record<string, string> } } | null)?.metadata?.labels ?? {});

function selectorMatches(selector: unknown, labels: Record<string, string>): boolean {
  const sel = labelSelectorAsSelector(selector ?? {});
  return sel !== undefined && (sel.empty || sel.matches(labels));
}

/**
 * Whether `m` selects the request. `namespaceLabels` gives the labels of
 * the request's namespace (undefined when it does not exist).
 */
export function matchResources(m: MatchResources | undefined, req: PolicyRequest, namespaceLabels: () => Record<string, string> | undefined): boolean {
  if (!m) return true;
  if (m.namespaceSelector && Object.keys(m.namespaceSelector).length) {
    const isNamespace = req.group === '' && req.resource === 'namespaces';
    if (isNamespace) {
      if (!selectorMatches(m.namespaceSelector, labelsOf(req.object ?? req.oldObject))) return false;
    } else if (req.namespaced) {
      const labels = namespaceLabels();
      if (!labels || !selectorMatches(m.namespaceSelector, labels)) return false;
    }
  }
  if (m.objectSelector && Object.keys(m.objectSelector).length) {
    const matchesNew = req.object !== null && selectorMatches(m.objectSelector, labelsOf(req.object));
    const matchesOld = req.oldObject !== null && selectorMatches(m.objectSelector, labelsOf(req.oldObject));
    if (!matchesNew && !matchesOld) return false;
  }
  const rules = (m.resourceRules ?? []) as ResourceRule[];
  // A binding without resourceRules leaves the choice of resources to its policy.
  if (rules.length && !rules.some((r) => ruleMatches(r, req))) return false;
  return !((m.excludeResourceRules ?? []) as ResourceRule[]).some((r) => ruleMatches(r, req));
}
