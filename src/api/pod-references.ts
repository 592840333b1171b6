/**
 * The API objects a pod's spec names, as upstream's podutil visitors walk
 * them (VisitPodSecretNames, VisitPodConfigmapNames) over init, regular and
 * ephemeral containers and volumes, plus the PVCs its volumes claim (an
 * ephemeral volume's claim is `<pod>-<volume>`). The Node authorizer's graph
 * and admission of mirror pods both read a pod's references through these.
 */
import type { Container, EphemeralContainer, Pod, Volume } from 'kubernetes-types/core/v1.js';

/**
 * The distinct non-empty names met, in the order first met (a Set's order). A pod names a few
 * objects, so a short list is searched; past `setFrom` names a Set answers, so a pod whose body
 * names thousands stays linear. Walks without the intermediate arrays of the spread and map
 * versions: the Node authorizer's graph reads every bound pod's references on the serving thread.
 */
class Names {
  readonly list: string[] = [];
  private seen?: Set<string>;
  private static readonly setFrom = 16;
  add(name: string | undefined): void {
    if (!name) return;
    if (this.seen) {
      if (this.seen.has(name)) return;
      this.seen.add(name);
    } else if (this.list.includes(name)) return;
    else if (this.list.length === Names.setFrom) this.seen = new Set([...this.list, name]);
    this.list.push(name);
  }
}

type AnyContainer = Container | EphemeralContainer;

/** Each container of the pod: init, regular, then ephemeral ones (upstream's visitors' order). */
function eachContainer(pod: Pod, visit: (c: AnyContainer) => void): void {
  const spec = pod.spec;
  if (!spec) return;
  for (const list of [spec.initContainers, spec.containers, spec.ephemeralContainers]) {
    if (list) for (let i = 0; i < list.length; i++) visit(list[i]!);
  }
}

function addVolumeSecretNames(names: Names, v: Volume): void {
  names.add(v.secret?.secretName); names.add(v.azureFile?.secretName); names.add(v.cephfs?.secretRef?.name); names.add(v.cinder?.secretRef?.name);
  names.add(v.flexVolume?.secretRef?.name); names.add(v.rbd?.secretRef?.name); names.add(v.scaleIO?.secretRef?.name); names.add(v.iscsi?.secretRef?.name);
  names.add(v.storageos?.secretRef?.name); names.add(v.csi?.nodePublishSecretRef?.name);
  const sources = v.projected?.sources;
  if (sources) for (let i = 0; i < sources.length; i++) names.add(sources[i]!.secret?.name);
}

/** Secrets: image pull secrets, envFrom/env of every container, secret-bearing volume sources. */
export function podSecretNames(pod: Pod): string[] {
  const names = new Names();
  for (const s of pod.spec?.imagePullSecrets ?? []) names.add(s.name);
  eachContainer(pod, (c) => {
    if (c.envFrom) for (const e of c.envFrom) names.add(e.secretRef?.name);
    if (c.env) for (const e of c.env) names.add(e.valueFrom?.secretKeyRef?.name);
  });
  for (const v of pod.spec?.volumes ?? []) addVolumeSecretNames(names, v);
  return names.list;
}

/** ConfigMaps: envFrom/env of every container, configMap volumes and projected configMap sources. */
export function podConfigMapNames(pod: Pod): string[] {
  const names = new Names();
  eachContainer(pod, (c) => {
    if (c.envFrom) for (const e of c.envFrom) names.add(e.configMapRef?.name);
    if (c.env) for (const e of c.env) names.add(e.valueFrom?.configMapKeyRef?.name);
  });
  for (const v of pod.spec?.volumes ?? []) {
    names.add(v.configMap?.name);
    const sources = v.projected?.sources;
    if (sources) for (let i = 0; i < sources.length; i++) names.add(sources[i]!.configMap?.name);
  }
  return names.list;
}

/** PersistentVolumeClaims: claimed volumes, and the claims generic ephemeral volumes get (`<pod>-<volume>`). */
export function podClaimNames(pod: Pod): string[] {
  const names = new Names();
  for (const v of pod.spec?.volumes ?? []) names.add(v.persistentVolumeClaim?.claimName ?? (v.ephemeral ? `${pod.metadata?.name}-${v.name}` : undefined));
  return names.list;
}
