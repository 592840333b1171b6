/**
 * Mirror pods at admission (upstream plugin/pkg/admission/serviceaccount,
 * v1.32): a pod with the `kubernetes.io/config.mirror` annotation is the API
 * view of a kubelet's static pod, so the ServiceAccount plugin does not
 * mutate it (no default service account) and refuses it when it references
 * API objects the static pod could never have had:
 *  1. a service account: "a mirror pod may not reference service accounts";
 *  2. any secret (podutil.VisitPodSecretNames: image pull secrets, env and
 *     envFrom of every container, secret-bearing volume sources):
 *     "a mirror pod may not reference secrets";
 *  3. a projected service account token:
 *     "a mirror pod may not use ServiceAccountToken volume projections".
 * ConfigMaps and PVCs are refused only by NodeRestriction, for node
 * identities (noderestriction.ts).
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { forbiddenStatus } from '../../api/status.js';
import { podSecretNames } from '../../api/pod-references.js';

export const mirrorPodAnnotation = 'kubernetes.io/config.mirror';

export const isMirrorPod = (pod: Pod) => !!pod.metadata?.annotations && mirrorPodAnnotation in pod.metadata.annotations;

export const podReferencesSecrets = (pod: Pod): boolean => podSecretNames(pod).length > 0;

/** Throws upstream's Forbidden when a mirror pod references what it may not. */
export function validateMirrorPodReferences(pod: Pod): void {
  const refuse = (why: string) => forbiddenStatus(why, { group: '', resource: 'pods' }, pod.metadata?.name);
  if (pod.spec?.serviceAccountName) throw refuse('a mirror pod may not reference service accounts');
  if (podReferencesSecrets(pod)) throw refuse('a mirror pod may not reference secrets');
  if ((pod.spec?.volumes ?? []).some((v) => (v.projected?.sources ?? []).some((s) => s.serviceAccountToken))) {
    throw refuse('a mirror pod may not use ServiceAccountToken volume projections');
  }
}
