/**
 * The kube-root-ca.crt ConfigMap every namespace carries (upstream's
 * pkg/controller/certificates/rootcacertpublisher): key ca.crt holds the
 * cluster's root CA bundle, so in-cluster clients can verify the API server,
 * and one annotation says what it is for. Anything else a user put on it is
 * kept; the data and the annotation are put back when changed.
 */
import type { ConfigMap } from 'kubernetes-types/core/v1.js';

export const rootCACertConfigMapName = 'kube-root-ca.crt';
export const descriptionAnnotation = 'kubernetes.io/description';
export const description = 'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

export type RootCAAction = { create: ConfigMap } | { update: ConfigMap } | undefined;

/** What to write so that `current` (absent: not there) becomes the published ConfigMap; undefined when it already is. */
export function planRootCAConfigMap(current: ConfigMap | undefined, rootCA: string): RootCAAction {
  const data = { 'ca.crt': rootCA };
  if (!current) {
    return { create: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: rootCACertConfigMapName, annotations: { [descriptionAnnotation]: description } }, data } };
  }
  const dataMatches = Object.keys(current.data ?? {}).length === 1 && current.data?.['ca.crt'] === rootCA;
  if (dataMatches && current.metadata?.annotations?.[descriptionAnnotation]) return undefined;
  const next: ConfigMap = structuredClone(current);
  next.data = data;
  next.metadata = { ...next.metadata, annotations: { ...(next.metadata?.annotations ?? {}), [descriptionAnnotation]: description } };
  return { update: next };
}
