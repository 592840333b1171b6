/**
 * Whether to call a webhook for a request, in upstream's order
 * (generic/webhook.go ShouldCallHook): rules, then namespaceSelector and
 * objectSelector, then matchConditions. A matchConditions error fails the
 * request with 403 under failurePolicy Fail (upstream: NewForbidden with the
 * error, "failing closed") and skips the webhook under Ignore.
 */
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import type { MatchCondition } from 'kubernetes-types/admissionregistration/v1.js';
import { forbiddenStatus } from '../../../api/status.js';
import type { AdmissionAttributes } from './attributes.js';
import { rulesMatch, type WebhookRule } from './rules.js';
import { namespaceSelectorMatches, objectSelectorMatches, type NamespaceGetter } from './selectors.js';
import { evaluateMatchConditions } from './match-conditions.js';

export interface MatchableWebhook {
  rules?: WebhookRule[];
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  matchConditions?: MatchCondition[];
  failurePolicy?: string;
}

/** True to call; false to skip; throws the 403 of a failed matchConditions evaluation under Fail. */
export function shouldCallHook(hook: MatchableWebhook, a: AdmissionAttributes, request: () => Record<string, unknown>, getNamespace: NamespaceGetter): boolean {
  if (!rulesMatch(hook.rules, a)) return false;
  if (!namespaceSelectorMatches(hook.namespaceSelector, a, getNamespace)) return false;
  if (!objectSelectorMatches(hook.objectSelector, a)) return false;
  if (!hook.matchConditions?.length) return true;
  const result = evaluateMatchConditions(hook.matchConditions, { object: a.object ?? null, oldObject: a.oldObject ?? null, request: request() });
  if ('error' in result) {
    if (hook.failurePolicy === 'Ignore') return false;
    throw forbiddenStatus(result.error, { group: a.info.group, resource: a.info.plural }, a.name);
  }
  return result.matches;
}
