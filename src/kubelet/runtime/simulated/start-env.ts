/**
 * The environment a container instance started with. The kubelet builds a
 * container's environment once, when it creates the container (upstream
 * kubelet_pods.go makeEnvironmentVariables, called from generateContainerConfig):
 * a Service created later, or a ConfigMap edited later, is not in the
 * environment of a container already running ("Connecting Applications
 * with Services": the pods created before `kubectl expose` have no
 * MY_NGINX_SERVICE_HOST until they are recreated). So the sources are read
 * when the instance starts and every later exec, probe or command of that
 * instance sees the same ones.
 */
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { fetchEnvSources, type EnvSources } from '../../envsources.js';
import type { PodObjectGetter } from '../../volumes/objects.js';

export class StartEnvironments {
  /** Container instance ID → its sources as read at its start (undefined: they could not be read then). */
  private readonly byInstance = new Map<string, Promise<EnvSources | undefined>>();

  /**
   * Reads the sources of a starting instance, or takes `checked`: those its
   * start check just read (start-checks.ts), so they are not read twice.
   * `live` says which instance IDs still exist (the others are forgotten).
   */
  capture(id: string, pod: Pod, spec: Container, objects: PodObjectGetter | undefined, live: (id: string) => boolean, checked?: EnvSources): void {
    for (const old of this.byInstance.keys()) if (!live(old)) this.byInstance.delete(old);
    if (this.byInstance.has(id)) return;
    // A read that fails (a missing ConfigMap the agent let through as optional, the API server away) is read again by whoever asks.
    this.byInstance.set(id, checked ? Promise.resolve(checked) : fetchEnvSources(pod.metadata!.namespace!, spec, objects, pod.spec?.enableServiceLinks ?? true).catch(() => undefined));
  }

  /** The sources the instance started with, or undefined (the caller reads them now) for an instance not captured. */
  async of(id: string): Promise<EnvSources | undefined> {
    return this.byInstance.get(id);
  }
}
