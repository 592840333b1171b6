/**
 * podFailurePolicy (upstream pkg/controller/job/pod_failure_policy.go): the
 * rules are checked in order against a failed pod and the first match decides:
 *   1. onExitCodes matches when a container (containers first, then init
 *      containers; only the named one when containerName is set) terminated
 *      with a non-zero exit code that is In (or NotIn) the values;
 *   2. onPodConditions matches when the pod has a condition of that type and status;
 *   3. FailJob fails the Job at once, FailIndex fails the pod's index, Ignore
 *      does not count the failure, Count counts it as usual.
 * A failure no rule matches is counted.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { JobSpec, PodFailurePolicyOnExitCodesRequirement, PodFailurePolicyRule } from 'kubernetes-types/batch/v1.js';

export type FailureAction = 'FailJob' | 'FailIndex' | 'Ignore' | 'Count';

export interface FailurePolicyMatch {
  action: FailureAction;
  /** FailJob's message, the Failed condition's message. */
  message?: string;
}

function matchingExitCode(pod: Pod, req: PodFailurePolicyOnExitCodesRequirement): { name: string; code: number } | undefined {
  const statuses = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])];
  for (const cs of statuses) {
    if (req.containerName && cs.name !== req.containerName) continue;
    const code = cs.state?.terminated?.exitCode;
    if (code === undefined || code === 0) continue;
    const listed = (req.values ?? []).includes(code);
    if (req.operator === 'In' ? listed : !listed) return { name: cs.name, code };
  }
  return undefined;
}

function matchRule(pod: Pod, rule: PodFailurePolicyRule, i: number): FailurePolicyMatch | undefined {
  const ns = pod.metadata?.namespace ?? '';
  const name = pod.metadata?.name ?? '';
  const action = rule.action as FailureAction;
  if (rule.onExitCodes) {
    const hit = matchingExitCode(pod, rule.onExitCodes);
    if (!hit) return undefined;
    return { action, message: `Container ${hit.name} for pod ${ns}/${name} failed with exit code ${hit.code} matching ${action} rule at index ${i}` };
  }
  for (const pattern of rule.onPodConditions ?? []) {
    const cond = (pod.status?.conditions ?? []).find((c) => c.type === pattern.type && c.status === (pattern.status || 'True'));
    if (cond) return { action, message: `Pod ${ns}/${name} has condition ${cond.type} matching ${action} rule at index ${i}` };
  }
  return undefined;
}

/** matchPodFailurePolicy: the first matching rule's action, or undefined (count the failure). */
export function matchPodFailurePolicy(spec: JobSpec | undefined, pod: Pod): FailurePolicyMatch | undefined {
  const rules = spec?.podFailurePolicy?.rules ?? [];
  for (let i = 0; i < rules.length; i++) {
    const m = matchRule(pod, rules[i], i);
    if (m) return m.action === 'FailJob' ? m : { action: m.action };
  }
  return undefined;
}
