/**
 * The API objects a pod's spec names, as upstream's podutil visitors walk
 * them (VisitPodSecretNames, VisitPodConfigmapNames) over init, regular and
 * ephemeral containers and volumes, plus the PVCs its volumes claim (an
 * ephemeral volume's claim is `<pod>-<volume>`). The Node authorizer's graph
 * and admission of mirror pods both read a pod's references through these.
 */
import type { Container, EphemeralContainer, Pod, Volume } from 'kubernetes-types/core/v1.js';
import { appendAll } from './append.js';

const containersOf = (pod: Pod): Array<Container | EphemeralContainer> =>
  [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? []), ...(pod.spec?.ephemeralContainers ?? [])];

function volumeSecretNames(v: Volume): Array<string | undefined> {
  return [
    v.secret?.secretName, v.azureFile?.secretName, v.cephfs?.secretRef?.name, v.cinder?.secretRef?.name,
    v.flexVolume?.secretRef?.name, v.rbd?.secretRef?.name, v.scaleIO?.secretRef?.name, v.iscsi?.secretRef?.name,
    v.storageos?.secretRef?.name, v.csi?.nodePublishSecretRef?.name,
    ...(v.projected?.sources ?? []).map((s) => s.secret?.name),
  ];
}

const distinct = (names: Array<string | undefined>): string[] => [...new Set(names.filter((n): n is string => !!n))];

/** Secrets: image pull secrets, envFrom/env of every container, secret-bearing volume sources. */
export function podSecretNames(pod: Pod): string[] {
  const names: Array<string | undefined> = (pod.spec?.imagePullSecrets ?? []).map((s) => s.name);
  for (const c of containersOf(pod)) {
    for (const e of c.envFrom ?? []) names.push(e.secretRef?.name);
    for (const e of c.env ?? []) names.push(e.valueFrom?.secretKeyRef?.name);
  }
  for (const v of pod.spec?.volumes ?? []) appendAll(names, volumeSecretNames(v));
  return distinct(names);
}

/** ConfigMaps: envFrom/env of every container, configMap volumes and projected configMap sources. */
export function podConfigMapNames(pod: Pod): string[] {
  const names: Array<string | undefined> = [];
  for (const c of containersOf(pod)) {
    for (const e of c.envFrom ?? []) names.push(e.configMapRef?.name);
    for (const e of c.env ?? []) names.push(e.valueFrom?.configMapKeyRef?.name);
  }
  for (const v of pod.spec?.volumes ?? []) {
    names.push(v.configMap?.name, ...(v.projected?.sources ?? []).map((s) => s.configMap?.name));
  }
  return distinct(names);
}

/** PersistentVolumeClaims: claimed volumes, and the claims generic ephemeral volumes get (`<pod>-<volume>`). */
export function podClaimNames(pod: Pod): string[] {
  return distinct((pod.spec?.volumes ?? []).map((v) =>
    v.persistentVolumeClaim?.claimName ?? (v.ephemeral ? `${pod.metadata?.name}-${v.name}` : undefined)));
}
