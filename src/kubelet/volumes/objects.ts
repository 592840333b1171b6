/**
 * The API objects a pod's volumes and environment refer to, read through the
 * agent's clients: claims and their volumes, ConfigMaps and Secrets. A
 * standalone kubelet (no API server) has none, and pods that need them wait
 * with the reason.
 */
import type { ConfigMap, PersistentVolume, PersistentVolumeClaim, Secret, Service } from 'kubernetes-types/core/v1.js';
import type { TokenRequest } from 'kubernetes-types/authentication/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';

export interface PodObjectGetter {
  claim(namespace: string, name: string): Promise<PersistentVolumeClaim>;
  volume(name: string): Promise<PersistentVolume>;
  configMap(namespace: string, name: string): Promise<ConfigMap>;
  secret(namespace: string, name: string): Promise<Secret>;
  /** A Service (the master service `kubernetes`, for containers' environment). */
  service?(namespace: string, name: string): Promise<Service>;
  /** The Services of a namespace (service links: containers' environment). */
  services?(namespace: string): Promise<Service[]>;
  /** The EndpointSlices of a Service (a simulated container's nslookup answers from them, runtime/simulated/pod-network.ts). */
  endpointSlices?(namespace: string, service: string): Promise<EndpointSlice[]>;
  /** The NetworkPolicies and namespace labels a simulated pod's connections are checked against (runtime/simulated/network-policy.ts). */
  networkPolicies?(): Promise<{ policies(namespace: string): NetworkPolicy[]; namespaceLabels(name: string): Record<string, string> | undefined }>;
  /** A token of the pod's service account (through the kubelet's token cache, token/manager.ts). */
  serviceAccountToken?(namespace: string, serviceAccount: string, tr: TokenRequest): Promise<TokenRequest>;
  /** Drops the cached tokens of a pod that is gone (token/manager.ts forgetPod). */
  forgetPodTokens?(uid: string): void;
}

/** Setting up a volume failed; the container waits in ContainerCreating with this message (upstream FailedMount). */
export class MountError extends Error {}

/** A referenced object that does not exist is `undefined`; any other failure is thrown. */
export async function getOptional<T>(get: () => Promise<T>): Promise<T | undefined> {
  try {
    return await get();
  } catch (e) {
    if ((e as { code?: number }).code === 404) return undefined;
    throw e;
  }
}
