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
 * identities, which k8ts does not authenticate yet.
 */
import type { Container, EphemeralContainer, Pod, Volume } from 'kubernetes-types/core/v1.js';
import { forbiddenStatus } from '../../api/status.js';

export const mirrorPodAnnotation = 'kubernetes.io/config.mirror';

export const isMirrorPod = (pod: Pod) => !!pod.metadata?.annotations && mirrorPodAnnotation in pod.metadata.annotations;

function containerReferencesSecret(c: Container | EphemeralContainer): boolean {
  if ((c.envFrom ?? []).some((e) => e.secretRef?.name)) return true;
  return (c.env ?? []).some((e) => e.valueFrom?.secretKeyRef?.name);
}

/** The volume sources VisitPodSecretNames walks. */
function volumeReferencesSecret(v: Volume): boolean {
  return !!(v.secret?.secretName || v.azureFile?.secretName || v.cephfs?.secretRef?.name || v.cinder?.secretRef?.name
    || v.flexVolume?.secretRef?.name || v.rbd?.secretRef?.name || v.scaleIO?.secretRef?.name || v.iscsi?.secretRef?.name
    || v.storageos?.secretRef?.name || v.csi?.nodePublishSecretRef?.name
    || (v.projected?.sources ?? []).some((s) => s.secret?.name));
}

export function podReferencesSecrets(pod: Pod): boolean {
  const spec = pod.spec;
  if (!spec) return false;
  if ((spec.imagePullSecrets ?? []).some((s) => s.name)) return true;
  const containers = [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])];
  return containers.some(containerReferencesSecret) || (spec.volumes ?? []).some(volumeReferencesSecret);
}

/** Throws upstream's Forbidden when a mirror pod references what it may not. */
export function validateMirrorPodReferences(pod: Pod): void {
  const refuse = (why: string) => forbiddenStatus(why, { group: '', resource: 'pods' }, pod.metadata?.name);
  if (pod.spec?.serviceAccountName) throw refuse('a mirror pod may not reference service accounts');
  if (podReferencesSecrets(pod)) throw refuse('a mirror pod may not reference secrets');
  if ((pod.spec?.volumes ?? []).some((v) => (v.projected?.sources ?? []).some((s) => s.serviceAccountToken))) {
    throw refuse('a mirror pod may not use ServiceAccountToken volume projections');
  }
}
