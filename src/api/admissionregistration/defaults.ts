/**
 * Upstream's v1 defaults (k8s.io/kubernetes/pkg/apis/admissionregistration/v1/defaults.go):
 * failurePolicy Fail; matchResources' matchPolicy Equivalent and empty
 * (match-all) namespace and object selectors; a rule's scope `*`. A
 * paramRef's parameterNotFoundAction has no v1 default (only v1alpha1's): it is required.
 */
import type { MatchResources, ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from 'kubernetes-types/admissionregistration/v1.js';
import type { ResourceRule } from './types.js';

function defaultMatchResources(m: MatchResources | undefined): void {
  if (!m || typeof m !== 'object') return;
  m.matchPolicy ??= 'Equivalent';
  m.namespaceSelector ??= {};
  m.objectSelector ??= {};
  for (const r of [...(m.resourceRules ?? []), ...(m.excludeResourceRules ?? [])]) if (r && typeof r === 'object') (r as ResourceRule).scope ??= '*';
}

export function defaultValidatingAdmissionPolicy(p: ValidatingAdmissionPolicy): void {
  if (!p.spec || typeof p.spec !== 'object') return;
  p.spec.failurePolicy ??= 'Fail';
  defaultMatchResources(p.spec.matchConstraints);
}

export function defaultValidatingAdmissionPolicyBinding(b: ValidatingAdmissionPolicyBinding): void {
  if (!b.spec || typeof b.spec !== 'object') return;
  defaultMatchResources(b.spec.matchResources);
}
