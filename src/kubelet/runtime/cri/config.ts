/**
 * Pod and container → CRI configs, as the kubelet builds them
 * (pkg/kubelet/kuberuntime/kuberuntime_sandbox.go generatePodSandboxConfig,
 * kuberuntime_container.go generateContainerConfig, labels.go), v1.32:
 *
 *  1. Sandbox and container labels carry io.kubernetes.pod.{name,namespace,uid}
 *     (and io.kubernetes.container.name), plus k8ts.io/node-name so several
 *     kubelets sharing one containerd list and touch only their own pods.
 *  2. The sandbox logs under <pod logs dir>/<namespace>_<name>_<uid>; each
 *     container instance logs to <container>/<restartCount>.log in it.
 *  3. hostNetwork pods get network namespace NODE and no hostname (runc cannot
 *     set a hostname without a private UTS namespace); others get POD and the
 *     pod's hostname. PID is per container unless shareProcessNamespace
 *     (POD) or hostPID (NODE); IPC is the pod's unless hostIPC.
 *  4. $(VAR) in command and args expands from the container's env; $$(VAR)
 *     stays literal (upstream expansion.Expand).
 *  5. Env supports value and the downward-API fieldRefs the kubelet resolves
 *     itself; configMap/secret/resource refs are a CreateContainerConfigError
 *     here for now.
 */
import type { Container as APIContainer, EnvVar, Pod } from 'kubernetes-types/core/v1.js';
import type * as cri from './types.js';
import { podLogsDirectory } from '../../logs/index.js';

export const labelPodName = 'io.kubernetes.pod.name';
export const labelPodNamespace = 'io.kubernetes.pod.namespace';
export const labelPodUID = 'io.kubernetes.pod.uid';
export const labelContainerName = 'io.kubernetes.container.name';
/** k8ts: the node (kubelet) that owns the sandbox or container. */
export const labelNodeName = 'k8ts.io/node-name';
export const annotationRestartCount = 'io.kubernetes.container.restartCount';
export const annotationTerminationGracePeriod = 'io.kubernetes.pod.terminationGracePeriod';

export interface PodContext {
  nodeName: string;
  /** --pod-logs-dir (/var/log/pods). */
  podLogsDir: string;
  hostIP: string;
}

/** A configuration error that keeps the container from being created (CreateContainerConfigError). */
export class ContainerConfigError extends Error {}

export const podLogDirectory = (podLogsDir: string, pod: Pod) =>
  podLogsDirectory(podLogsDir, { namespace: pod.metadata!.namespace!, name: pod.metadata!.name!, uid: pod.metadata!.uid! });

export const containerLogPath = (containerName: string, restartCount: number) => `${containerName}/${restartCount}.log`;

function namespaceOptions(pod: Pod): cri.NamespaceOption {
  const spec = pod.spec ?? ({} as NonNullable<Pod['spec']>);
  return {
    network: spec.hostNetwork ? 'NODE' : 'POD',
    pid: spec.hostPID ? 'NODE' : spec.shareProcessNamespace ? 'POD' : 'CONTAINER',
    ipc: spec.hostIPC ? 'NODE' : 'POD',
  };
}

export function sandboxLabels(pod: Pod, nodeName: string): Record<string, string> {
  const m = pod.metadata!;
  return { ...(m.labels ?? {}), [labelPodName]: m.name!, [labelPodNamespace]: m.namespace!, [labelPodUID]: m.uid!, [labelNodeName]: nodeName };
}

export function podSandboxConfig(pod: Pod, ctx: PodContext, attempt: number): cri.PodSandboxConfig {
  const m = pod.metadata!;
  const spec = pod.spec ?? ({} as NonNullable<Pod['spec']>);
  const hostname = spec.hostNetwork ? '' : (spec.hostname ?? m.name!).slice(0, 63).replace(/[-.]+$/, '');
  return {
    metadata: { name: m.name!, uid: m.uid!, namespace: m.namespace!, attempt },
    hostname,
    logDirectory: podLogDirectory(ctx.podLogsDir, pod),
    labels: sandboxLabels(pod, ctx.nodeName),
    annotations: { ...(m.annotations ?? {}) },
    linux: { securityContext: { namespaceOptions: namespaceOptions(pod) } },
  };
}

function fieldRefValue(pod: Pod, path: string, ctx: PodContext, podIP: string | undefined): string {
  const m = pod.metadata!;
  switch (path) {
    case 'metadata.name': return m.name!;
    case 'metadata.namespace': return m.namespace!;
    case 'metadata.uid': return m.uid!;
    case 'spec.nodeName': return pod.spec?.nodeName ?? ctx.nodeName;
    case 'spec.serviceAccountName': return pod.spec?.serviceAccountName ?? '';
    case 'status.hostIP': return ctx.hostIP;
    case 'status.podIP': return podIP ?? '';
    default: {
      const label = /^metadata\.labels\['(.+)'\]$/.exec(path);
      if (label) return m.labels?.[label[1]] ?? '';
      const ann = /^metadata\.annotations\['(.+)'\]$/.exec(path);
      if (ann) return m.annotations?.[ann[1]] ?? '';
      throw new ContainerConfigError(`unsupported fieldRef ${path}`);
    }
  }
}

/** Upstream expansion.Expand: $(VAR) → value when defined, $$ → $, anything else literal. */
export function expandVars(input: string, env: Map<string, string>): string {
  return input.replace(/\$\$|\$\(([^)]*)\)/g, (whole, name: string | undefined) => {
    if (whole === '$$') return '$';
    return name !== undefined && env.has(name) ? env.get(name)! : whole;
  });
}

export function containerEnv(pod: Pod, c: APIContainer, ctx: PodContext, podIP?: string): { key: string; value: string }[] {
  const env = new Map<string, string>();
  for (const e of c.env ?? ([] as EnvVar[])) {
    if (e.valueFrom) {
      if (!e.valueFrom.fieldRef) throw new ContainerConfigError(`couldn't find key for env ${e.name}: only value and fieldRef are supported by this kubelet yet`);
      env.set(e.name, fieldRefValue(pod, e.valueFrom.fieldRef.fieldPath, ctx, podIP));
    } else {
      env.set(e.name, expandVars(e.value ?? '', env));
    }
  }
  return [...env].map(([key, value]) => ({ key, value }));
}

export interface ContainerConfigInput {
  pod: Pod;
  container: APIContainer;
  imageRef: string;
  restartCount: number;
  mounts: cri.Mount[];
  podIP?: string;
}

export function containerConfig(input: ContainerConfigInput, ctx: PodContext): cri.ContainerConfig {
  const { pod, container: c, restartCount } = input;
  const m = pod.metadata!;
  const envs = containerEnv(pod, c, ctx, input.podIP);
  const envMap = new Map(envs.map((e) => [e.key, e.value]));
  return {
    metadata: { name: c.name, attempt: restartCount },
    image: { image: input.imageRef, userSpecifiedImage: c.image },
    command: (c.command ?? []).map((s) => expandVars(s, envMap)),
    args: (c.args ?? []).map((s) => expandVars(s, envMap)),
    workingDir: c.workingDir ?? '',
    envs,
    mounts: input.mounts,
    labels: { [labelPodName]: m.name!, [labelPodNamespace]: m.namespace!, [labelPodUID]: m.uid!, [labelContainerName]: c.name, [labelNodeName]: ctx.nodeName },
    annotations: {
      [annotationRestartCount]: String(restartCount),
      [annotationTerminationGracePeriod]: String(pod.spec?.terminationGracePeriodSeconds ?? 30),
    },
    logPath: containerLogPath(c.name, restartCount),
    stdin: !!c.stdin, stdinOnce: !!c.stdinOnce, tty: !!c.tty,
    linux: { securityContext: { privileged: !!c.securityContext?.privileged, namespaceOptions: namespaceOptions(pod) } },
  };
}
