/**
 * Reconciling the default RBAC policy with what is stored (upstream
 * pkg/registry/rbac/reconciliation, as kube-apiserver's rbac/bootstrap-roles
 * hook runs it at every start, without removing anything):
 *  1. labels and annotations the default has are added; the stored values win,
 *     so `rbac.authorization.kubernetes.io/autoupdate: "false"` stays;
 *  2. a ClusterRole gets the rules it misses (appended as atomic rules, as
 *     upstream's Covers reports them) and the aggregation selectors it misses;
 *     a ClusterRoleBinding gets the subjects it misses, and is recreated when
 *     its roleRef differs (a roleRef cannot be updated);
 *  3. an object whose autoupdate annotation is "false" is protected: the
 *     change is reported, not made.
 * Extra rules and subjects a user added are kept.
 */
import type { AggregationRule, ClusterRole, ClusterRoleBinding, PolicyRule, Subject } from 'kubernetes-types/rbac/v1.js';
import { covers } from './covers.js';

export const autoUpdateAnnotation = 'rbac.authorization.kubernetes.io/autoupdate';

export type ReconcileOperation = 'none' | 'update' | 'recreate';

export interface ReconciledClusterRole {
  role: ClusterRole;
  operation: ReconcileOperation;
  protected: boolean;
  missingRules: PolicyRule[];
}

export interface ReconciledClusterRoleBinding {
  binding: ClusterRoleBinding;
  operation: ReconcileOperation;
  protected: boolean;
  missingSubjects: Subject[];
}

const isProtected = (o: { metadata?: { annotations?: Record<string, string> } }) => o.metadata?.annotations?.[autoUpdateAnnotation] === 'false';

/** The default's labels and annotations under the stored ones; changed tells whether anything was added. */
function mergedMetadata<T extends ClusterRole | ClusterRoleBinding>(existing: T, expected: T): { object: T; changed: boolean } {
  const object = structuredClone(existing);
  const meta = object.metadata ??= {};
  const labels = { ...expected.metadata?.labels, ...meta.labels };
  const annotations = { ...expected.metadata?.annotations, ...meta.annotations };
  const changed = Object.keys(labels).length !== Object.keys(meta.labels ?? {}).length
    || Object.keys(annotations).length !== Object.keys(meta.annotations ?? {}).length;
  if (Object.keys(labels).length) meta.labels = labels;
  if (Object.keys(annotations).length) meta.annotations = annotations;
  return { object, changed };
}

const selectorKey = (s: unknown) => JSON.stringify(s);

function missingSelectors(existing: AggregationRule | undefined, expected: AggregationRule | undefined) {
  const have = new Set((existing?.clusterRoleSelectors ?? []).map(selectorKey));
  return (expected?.clusterRoleSelectors ?? []).filter((s) => !have.has(selectorKey(s)));
}

export function reconcileClusterRole(existing: ClusterRole, expected: ClusterRole): ReconciledClusterRole {
  const { object: role, changed } = mergedMetadata(existing, expected);
  const { missing: missingRules } = covers(existing.rules ?? [], expected.rules ?? []);
  if (missingRules.length) role.rules = [...(role.rules ?? []), ...missingRules];
  const selectors = missingSelectors(existing.aggregationRule, expected.aggregationRule);
  if (selectors.length) role.aggregationRule = { clusterRoleSelectors: [...(role.aggregationRule?.clusterRoleSelectors ?? []), ...selectors] };
  const operation = changed || missingRules.length || selectors.length ? 'update' : 'none';
  return { role, operation, protected: isProtected(existing), missingRules };
}

const subjectKey = (s: Subject) => `${s.kind}/${s.apiGroup ?? ''}/${s.namespace ?? ''}/${s.name}`;

export function reconcileClusterRoleBinding(existing: ClusterRoleBinding, expected: ClusterRoleBinding): ReconciledClusterRoleBinding {
  const { object: binding, changed } = mergedMetadata(existing, expected);
  const have = new Set((existing.subjects ?? []).map(subjectKey));
  const missingSubjects = (expected.subjects ?? []).filter((s) => !have.has(subjectKey(s)));
  if (missingSubjects.length) binding.subjects = [...(binding.subjects ?? []), ...missingSubjects];
  const ref = (b: ClusterRoleBinding) => `${b.roleRef.apiGroup}/${b.roleRef.kind}/${b.roleRef.name}`;
  let operation: ReconcileOperation = changed || missingSubjects.length ? 'update' : 'none';
  if (ref(existing) !== ref(expected)) {
    binding.roleRef = expected.roleRef;
    operation = 'recreate';
  }
  return { binding, operation, protected: isProtected(existing), missingSubjects };
}
