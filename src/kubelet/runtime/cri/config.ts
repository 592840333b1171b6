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
 *  5. Resources become cgroup limits and oom_score_adj (resources.ts), against
 *     the host's memory as the memory capacity.
 *  6. Env: envFrom, then env with value, downward-API fieldRefs,
 *     resourceFieldRefs and ConfigMap/Secret keys (containerEnv).
 *  6. Every container port of the app containers becomes a sandbox port
 *     mapping (MakePortMappings); the runtime's CNI portmap plugin publishes
 *     the ones with a hostPort on the node.
 *  7. The sandbox's DNSConfig (its resolv.conf) follows the pod's dnsPolicy
 *     and dnsConfig (../../dns.ts), when the kubelet has DNS options.
 */
import { cpus, totalmem } from 'node:os';
import type { Container as APIContainer, EnvVar, Pod } from 'kubernetes-types/core/v1.js';
import type * as cri from './types.js';
import type { EnvSources } from '../../envsources.js';
import { podFieldValue, resourceFieldValue, type NodeAllocatable } from '../../volumes/downward.js';
import { podLogsDirectory } from '../../logs/index.js';
import { linuxContainerResources } from './resources.js';
import { podDNSConfig, type KubeletDNSOptions } from '../../dns.js';
import { normalizeSysctlName } from '../../sysctl.js';

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
  /** What an unset limit means to the downward API (default: the host's CPUs and memory). */
  allocatable?: NodeAllocatable;
  /** --pod-logs-dir (/var/log/pods). */
  podLogsDir: string;
  hostIP: string;
  /** How pods resolve names (--cluster-dns, --cluster-domain, --resolv-conf); absent: the runtime's default (the host's resolv.conf). */
  dns?: KubeletDNSOptions;
}

/** A configuration error that keeps the container from being created (CreateContainerConfigError). */
export class ContainerConfigError extends Error {}

export const podLogDirectory = (podLogsDir: string, pod: Pod) =>
  podLogsDirectory(podLogsDir, { namespace: pod.metadata!.namespace!, name: pod.metadata!.name!, uid: pod.metadata!.uid! });

export const containerLogPath = (containerName: string, restartCount: number) => `${containerName}/${restartCount}.log`;

/**
 * Upstream namespacesForPod; `pidTargetId` is an ephemeral container's target
 * (kuberuntime's nsTarget): a container that would have a PID namespace of its
 * own joins the target's instead, so its processes see the target's.
 */
function namespaceOptions(pod: Pod, pidTargetId?: string): cri.NamespaceOption {
  const spec = pod.spec ?? ({} as NonNullable<Pod['spec']>);
  const pid: cri.NamespaceMode = spec.hostPID ? 'NODE' : spec.shareProcessNamespace ? 'POD' : 'CONTAINER';
  return {
    network: spec.hostNetwork ? 'NODE' : 'POD',
    ...(pid === 'CONTAINER' && pidTargetId ? { pid: 'TARGET', targetId: pidTargetId } : { pid }),
    ipc: spec.hostIPC ? 'NODE' : 'POD',
  };
}

export function sandboxLabels(pod: Pod, nodeName: string): Record<string, string> {
  const m = pod.metadata!;
  return { ...(m.labels ?? {}), [labelPodName]: m.name!, [labelPodNamespace]: m.namespace!, [labelPodUID]: m.uid!, [labelNodeName]: nodeName };
}

/**
 * The pod's sysctls for the sandbox (upstream's generatePodSandboxLinuxConfig), names in the dotted
 * form as the kubelet converts them: the runtime sets them in the pod's namespaces, which its
 * containers share. Admission (kubelet/sysctl.ts) has already refused any the node does not allow.
 */
function sandboxSysctls(pod: Pod): { sysctls?: Record<string, string> } {
  const list = pod.spec?.securityContext?.sysctls;
  if (!list?.length) return {};
  return { sysctls: Object.fromEntries(list.map((s) => [normalizeSysctlName(s.name), s.value])) };
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
    portMappings: portMappings(pod),
    linux: { securityContext: { namespaceOptions: namespaceOptions(pod) }, ...sandboxSysctls(pod) },
    ...(ctx.dns ? { dnsConfig: podDNSConfig(pod, ctx.dns).config } : {}),
  };
}

/**
 * Upstream MakePortMappings over spec.containers (not init containers): the
 * protocol defaults to TCP, and a port whose name repeats one already seen
 * is left out (upstream logs "Port name conflicted").
 */
export function portMappings(pod: Pod): cri.PortMapping[] {
  const out: cri.PortMapping[] = [];
  for (const c of pod.spec?.containers ?? []) {
    const names = new Set<string>();
    for (const p of c.ports ?? []) {
      if (p.name) {
        if (names.has(p.name)) continue;
        names.add(p.name);
      }
      out.push({ protocol: (p.protocol ?? 'TCP') as cri.PortMapping['protocol'], containerPort: p.containerPort, hostPort: p.hostPort ?? 0, hostIp: p.hostIP ?? '' });
    }
  }
  return out;
}

function fieldRefValue(pod: Pod, path: string, ctx: PodContext, podIP: string | undefined): string {
  switch (path) {
    case 'spec.nodeName': return pod.spec?.nodeName ?? ctx.nodeName;
    case 'spec.serviceAccountName': return pod.spec?.serviceAccountName ?? '';
    case 'status.hostIP': return ctx.hostIP;
    case 'status.podIP': return podIP ?? '';
  }
  // Whole label and annotation maps are for volumes only (API validation keeps them out of env).
  const value = path === 'metadata.labels' || path === 'metadata.annotations' ? undefined : podFieldValue(pod, path);
  if (value === undefined) throw new ContainerConfigError(`unsupported fieldRef ${path}`);
  return value;
}

/** Upstream expansion.Expand: $(VAR) → value when defined, $$ → $, anything else literal. */
export function expandVars(input: string, env: Map<string, string>): string {
  return input.replace(/\$\$|\$\(([^)]*)\)/g, (whole, name: string | undefined) => {
    if (whole === '$$') return '$';
    return name !== undefined && env.has(name) ? env.get(name)! : whole;
  });
}

/** v1.32 (RelaxedEnvironmentVariableValidation, beta and on): any printable ASCII but '='; other envFrom keys are skipped. */
const envNameOK = (k: string) => /^[\x20-\x3c\x3e-\x7e]+$/.test(k);

const decoded = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');

/**
 * The container's environment, in upstream's order: envFrom sources first
 * (later ones win, each key with the source's prefix), then env, where
 * $(VAR) expands from what is defined so far and valueFrom reads the
 * downward API, a resource, or a key of a ConfigMap or Secret that
 * `sources` holds (fetched beforehand: envsources.ts). The master
 * service's variables (KUBERNETES_SERVICE_HOST ...) expand too and come
 * last, for names the container does not define.
 */
export function containerEnv(pod: Pod, c: APIContainer, ctx: PodContext, podIP?: string, sources: EnvSources = noSources): { key: string; value: string }[] {
  const env = new Map<string, string>();
  const ns = pod.metadata!.namespace!;
  for (const f of c.envFrom ?? []) {
    const prefix = f.prefix ?? '';
    const values = f.configMapRef ? Object.entries(sources.configMaps.get(f.configMapRef.name ?? '')?.data ?? {})
      : f.secretRef ? Object.entries(sources.secrets.get(f.secretRef.name ?? '')?.data ?? {}).map(([k, v]) => [k, decoded(v)] as [string, string]) : [];
    for (const [k, v] of values) if (envNameOK(prefix + k)) env.set(prefix + k, v);
  }
  for (const e of c.env ?? ([] as EnvVar[])) {
    const from = e.valueFrom;
    if (!from) { env.set(e.name, expandVars(e.value ?? '', sources.services ? new Map([...sources.services, ...env]) : env)); continue; }
    if (from.fieldRef) env.set(e.name, fieldRefValue(pod, from.fieldRef.fieldPath, ctx, podIP));
    else if (from.resourceFieldRef) {
      const r = from.resourceFieldRef;
      const target = r.containerName ? [...pod.spec!.containers, ...(pod.spec!.initContainers ?? [])].find((x) => x.name === r.containerName) : c;
      if (!target) throw new ContainerConfigError(`container ${r.containerName} not found`);
      env.set(e.name, resourceFieldValue(target, r.resource, r.divisor, ctx.allocatable ?? hostAllocatable()));
    } else if (from.configMapKeyRef) {
      const ref = from.configMapKeyRef;
      const cm = sources.configMaps.get(ref.name ?? '');
      const v = cm?.data?.[ref.key] ?? (cm?.binaryData?.[ref.key] !== undefined ? decoded(cm.binaryData[ref.key]) : undefined);
      if (v !== undefined) env.set(e.name, v);
      else if (!ref.optional) throw new ContainerConfigError(`couldn't find key ${ref.key} in ConfigMap ${ns}/${ref.name}`);
    } else if (from.secretKeyRef) {
      const ref = from.secretKeyRef;
      const v = sources.secrets.get(ref.name ?? '')?.data?.[ref.key];
      if (v !== undefined) env.set(e.name, decoded(v));
      else if (!ref.optional) throw new ContainerConfigError(`couldn't find key ${ref.key} in Secret ${ns}/${ref.name}`);
    }
  }
  for (const [k, v] of sources.services ?? []) if (!env.has(k)) env.set(k, v);
  return [...env].map(([key, value]) => ({ key, value }));
}

const noSources: EnvSources = { configMaps: new Map(), secrets: new Map() };

/** The host's CPUs and memory: a CRI node's capacity, and what an unset limit means to the downward API. */
export function hostAllocatable(): NodeAllocatable {
  return { cpu: String(cpus().length), memory: String(totalmem()) };
}

export interface ContainerConfigInput {
  pod: Pod;
  container: APIContainer;
  imageRef: string;
  restartCount: number;
  mounts: cri.Mount[];
  podIP?: string;
  /** The ConfigMaps and Secrets the environment names (envsources.ts). */
  envSources?: EnvSources;
  /** For an ephemeral container with a targetContainerName: the CRI ID of the target's instance. */
  pidTargetId?: string;
}

export function containerConfig(input: ContainerConfigInput, ctx: PodContext): cri.ContainerConfig {
  const { pod, container: c, restartCount } = input;
  const m = pod.metadata!;
  const envs = containerEnv(pod, c, ctx, input.podIP, input.envSources);
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
    linux: {
      resources: linuxContainerResources(pod, c, totalmem()),
      securityContext: { privileged: !!c.securityContext?.privileged, namespaceOptions: namespaceOptions(pod, input.pidTargetId) },
    },
  };
}
