/**
 * One node, two runtimes: the static pods of the manifest directory on one
 * (a kubeadm control plane's kube-apiserver, controller manager and
 * scheduler as host processes), every pod of the API on the other (a CRI
 * runtime, so a DaemonSet that tolerates the control-plane taint runs there
 * in a real container, as on a kubeadm control-plane node).
 *
 * The agent sees one PodRuntime. The choice is made per pod when it is first
 * synced, by its source (the `kubernetes.io/config.source: file`
 * annotation a static pod carries), and remembered by UID: every later call
 * for that pod (kill, remove, status, logs, exec, probes) goes to the runtime
 * that holds it. A pod the agent finds after a restart belongs to the runtime
 * that lists it. Node status reports the API pods' runtime (its version is
 * the node's containerRuntimeVersion).
 *
 * The route is a predicate: by default the static pods; the agent also sends
 * the add-on pods (every container on the k8ts image, addon-image.ts) of a
 * cri node to its process runtime this way.
 */
import type { Readable } from 'node:stream';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { ContainerLogOptions } from '../logs/options.js';
import { isStaticPod } from '../staticpods/manifest.js';
import type { PodRuntime, RuntimeContainerStats, RuntimePodStatus, StreamRequest } from './runtime.js';

export class SplitRuntime implements PodRuntime {
  readonly type: string;
  readonly version: string;
  private readonly owner = new Map<string, PodRuntime>();

  /** Usage of both runtimes' containers; absent when neither measures any (the stats provider then serves none). */
  readonly containerStats?: () => Promise<RuntimeContainerStats[]>;
  /** The node's podCIDR for both runtimes (the CRI's UpdateRuntimeConfig); absent when neither takes it. */
  readonly updatePodCIDR?: (podCIDRs: string[]) => Promise<void>;

  /** `staticPods` holds the pods `route` picks (the static pods unless told otherwise), `apiPods` the rest. */
  constructor(private readonly apiPods: PodRuntime, private readonly staticPods: PodRuntime, private readonly route: (pod: Pod) => boolean = isStaticPod) {
    this.type = apiPods.type;
    this.version = apiPods.version;
    // The node-wide optional calls exist on the split exactly when one of its runtimes has them, so
    // callers that test for a call (the stats provider, the podCIDR update) see what the node can do.
    const both = [apiPods, staticPods];
    if (both.some((r) => r.containerStats)) {
      this.containerStats = async () => (await Promise.all(both.map((r) => r.containerStats?.() ?? Promise.resolve([])))).flat();
    }
    if (both.some((r) => r.updatePodCIDR)) {
      this.updatePodCIDR = async (podCIDRs) => { await Promise.all(both.map((r) => r.updatePodCIDR?.(podCIDRs))); };
    }
  }

  /** The runtime holding pod `uid` (the API pods' runtime for a pod neither holds). */
  private of(uid: string): PodRuntime {
    return this.owner.get(uid) ?? (this.staticPods.pods().includes(uid) ? this.staticPods : this.apiPods);
  }

  /** The runtime whose container IDs carry `containerID`'s scheme (`<type>://`). */
  private ofContainer(containerID: string): PodRuntime {
    return containerID.startsWith(`${this.staticPods.type}://`) && this.staticPods.type !== this.apiPods.type ? this.staticPods : this.apiPods;
  }

  syncPod(pod: Pod): void {
    const uid = pod.metadata!.uid!;
    const runtime = this.owner.get(uid) ?? (this.route(pod) ? this.staticPods : this.apiPods);
    this.owner.set(uid, runtime);
    runtime.syncPod(pod);
  }

  killPod(uid: string, gracePeriodMs: number): Promise<void> { return this.of(uid).killPod(uid, gracePeriodMs); }

  removePod(uid: string): void {
    this.of(uid).removePod(uid);
    this.owner.delete(uid);
  }

  status(uid: string): RuntimePodStatus | undefined { return this.of(uid).status(uid); }
  recordsImageEvents(uid: string): boolean { return this.of(uid).recordsImageEvents?.(uid) ?? false; }

  pods(): string[] { return [...new Set([...this.apiPods.pods(), ...this.staticPods.pods()])]; }

  onPodEvent(listener: (uid: string) => void): void {
    this.apiPods.onPodEvent(listener);
    this.staticPods.onPodEvent(listener);
  }

  readLogs(uid: string, containerID: string, opts: ContainerLogOptions): Readable {
    const r = this.of(uid);
    if (!r.readLogs) throw new Error(`the ${r.type} container runtime does not serve container logs`);
    return r.readLogs(uid, containerID, opts);
  }

  execSync(containerID: string, cmd: string[], timeoutMs: number): Promise<{ exitCode: number; output: string; timedOut?: boolean }> {
    const r = this.ofContainer(containerID);
    if (!r.execSync) return Promise.resolve({ exitCode: -1, output: 'exec probes are not supported by this runtime' });
    return r.execSync(containerID, cmd, timeoutMs);
  }

  async killContainer(uid: string, containerID: string, gracePeriodMs: number): Promise<void> {
    await this.of(uid).killContainer?.(uid, containerID, gracePeriodMs);
  }

  async streamURL(uid: string, containerID: string, req: StreamRequest): Promise<string> {
    const r = this.of(uid);
    if (!r.streamURL) throw new Error(`the ${r.type} container runtime does not run exec or attach`);
    return r.streamURL(uid, containerID, req);
  }

  async portForwardURL(uid: string, ports: number[]): Promise<string> {
    const r = this.of(uid);
    if (!r.portForwardURL) throw new Error(`the ${r.type} container runtime does not forward ports`);
    return r.portForwardURL(uid, ports);
  }

  async close(): Promise<void> {
    await Promise.all([this.apiPods.close(), this.staticPods.close()]);
  }
}
