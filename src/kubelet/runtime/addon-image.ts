/**
 * The add-on convention of issue #21: a node add-on (kube-proxy, cluster DNS)
 * ships no image of its own; its pods name the image `k8ts.local/k8ts:<tag>`
 * and run the k8ts binary of the node's installation (`k8ts proxy`, `k8ts
 * dns`) as host processes, whatever runtime the node's other pods use. The
 * image is never pulled; the name only says "this installation's binary".
 */
import type { Container, Pod } from 'kubernetes-types/core/v1.js';

/** `k8ts.local/k8ts` with any tag or digest, or none. */
const addonImage = /^k8ts\.local\/k8ts(?::[\w][\w.-]*)?(?:@[\w:]+)?$/;

export function isAddonImage(image: string | undefined): boolean {
  return !!image && addonImage.test(image);
}

/** True when every container of the pod (init, regular, ephemeral) runs the k8ts image: such a pod goes to the process runtime. */
export function isAddonPod(pod: Pod): boolean {
  const spec = pod.spec;
  const all: Pick<Container, 'image'>[] = [...(spec?.initContainers ?? []), ...(spec?.containers ?? []), ...(spec?.ephemeralContainers ?? [])];
  return all.length > 0 && all.every((c) => isAddonImage(c.image));
}

/** The command name an add-on container uses for the k8ts binary. */
export const addonCommand = 'k8ts';
