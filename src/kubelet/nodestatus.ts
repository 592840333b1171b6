/**
 * The Node object a kubelet registers and the status it keeps posting
 * (pkg/kubelet/kubelet_node_status.go initialNode, registerWithAPIServer,
 * updateDefaultLabels; pkg/kubelet/nodestatus/setters.go), v1.32:
 *
 *  1. Registration creates the Node with the default labels (hostname, os,
 *     arch and their beta twins, instance type when known), the user's labels
 *     and taints (--node-labels, --register-with-taints: applied at creation
 *     only), and a full status.
 *  2. If the Node already exists, only the default labels are reconciled; the
 *     existing taints and user labels are left alone.
 *  3. Status setters run in upstream's order: addresses, capacity and
 *     allocatable (capacity keeps entries others added; allocatable follows
 *     all of capacity), nodeInfo, daemon endpoints, then the conditions
 *     MemoryPressure, DiskPressure, PIDPressure and Ready (Ready last). Every
 *     condition gets lastHeartbeatTime = now; lastTransitionTime moves only
 *     when its status changes (a new pressure condition starts Unknown, so it
 *     transitions at once).
 *     MemoryPressure and DiskPressure are True while the agent reports that
 *     pressure (a real node measures it: pressure.ts); the simulated node
 *     never has any.
 *  4. Ready is True, reason KubeletReady, "kubelet is posting ready status",
 *     unless the agent reports a problem (False, KubeletNotReady) or a
 *     required capacity (cpu, memory, pods, ephemeral-storage) is missing.
 *  5. The status is posted when it changed (ignoring heartbeat times) or when
 *     nodeStatusReportFrequency (5 min) has passed since the last post.
 */
import type { Node, NodeCondition, NodeSpec, NodeStatus } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { Writable } from '../api/writable.js';
import { rfc3339 } from '../util/clock.js';
import type { Taint } from '../api/taints.js';
import { semanticEqual } from './equal.js';
import { isExtendedResourceName } from '../api/resource-helpers.js';

export { kubernetesVersion as kubeletVersion } from '../util/kube-version.js';
export const labelHostname = 'kubernetes.io/hostname';
export const labelOS = 'kubernetes.io/os';
export const labelArch = 'kubernetes.io/arch';
export const labelInstanceType = 'node.kubernetes.io/instance-type';
export const labelControlPlane = 'node-role.kubernetes.io/control-plane';
export const labelExcludeFromLB = 'node.kubernetes.io/exclude-from-external-load-balancers';
export const annotationSimulated = 'k8ts.io/simulated';
export const controlPlaneTaint: Taint = { key: labelControlPlane, effect: 'NoSchedule' };

export interface NodeConfig {
  nodeName: string;
  /** User labels (--node-labels); applied at registration only. */
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** --register-with-taints; applied at registration only. */
  taints: Taint[];
  instanceType?: string;
  os: string;
  arch: string;
  internalIP: string;
  podCIDR?: string;
  /** cpu, memory, pods, ephemeral-storage (+ hugepages); allocatable equals capacity unless given. */
  capacity: Record<string, string>;
  allocatable?: Record<string, string>;
  nodeInfo: NodeInfo;
  kubeletPort: number;
}

export interface NodeInfo {
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  containerRuntimeVersion: string;
  kubeletVersion: string;
  kubeProxyVersion: string;
  operatingSystem: string;
  architecture: string;
}

/** What the agent knows about its own health, fed to the Ready setter. */
export interface NodeHealth {
  /** Runtime or network errors; empty when healthy. */
  errors: string[];
  /** Memory and disk pressure as measured (absent: none). */
  pressure?: { memory: boolean; disk: boolean };
}

/** A status the setters filled: the fields the kubelet owns are all present. */
export type KubeletNodeStatus = NodeStatus & Required<Pick<NodeStatus, 'addresses' | 'capacity' | 'allocatable' | 'nodeInfo' | 'daemonEndpoints'>> & { conditions: NodeCondition[] };

export type RecordNodeEvent = (type: 'Normal' | 'Warning', reason: string) => void;

/** Upstream's default labels (kubelet_node_status.go updateDefaultLabels' list). */
export function defaultNodeLabels(cfg: Pick<NodeConfig, 'nodeName' | 'os' | 'arch' | 'instanceType'>): Record<string, string> {
  const labels: Record<string, string> = {
    'beta.kubernetes.io/arch': cfg.arch,
    'beta.kubernetes.io/os': cfg.os,
    [labelArch]: cfg.arch,
    [labelHostname]: cfg.nodeName,
    [labelOS]: cfg.os,
  };
  if (cfg.instanceType) {
    labels[labelInstanceType] = cfg.instanceType;
    labels['beta.kubernetes.io/instance-type'] = cfg.instanceType;
  }
  return labels;
}

/** The Node to create at registration, with its first status. */
/** The Node registration creates: every part it fills is present. */
export type RegisteredNode = Node & {
  metadata: ObjectMeta & { name: string; labels: Record<string, string>; annotations: Record<string, string> };
  spec: NodeSpec;
  status: KubeletNodeStatus;
};

export function initialNode(cfg: NodeConfig, health: NodeHealth, now: Date, record?: RecordNodeEvent): RegisteredNode {
  const node: Writable<Omit<RegisteredNode, 'status'>> & { status?: KubeletNodeStatus } = {
    apiVersion: 'v1', kind: 'Node',
    metadata: {
      name: cfg.nodeName,
      labels: { ...cfg.labels, ...defaultNodeLabels(cfg) },
      annotations: { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true', ...cfg.annotations },
    },
    spec: {
      ...(cfg.podCIDR ? { podCIDR: cfg.podCIDR, podCIDRs: [cfg.podCIDR] } : {}),
      ...(cfg.taints.length ? { taints: cfg.taints.map((t) => ({ ...t })) } : {}),
    },
  };
  node.status = nodeStatus(node, cfg, health, now, record);
  return node as RegisteredNode;
}

/** Labels to patch onto an existing Node so its default labels match (upstream updateDefaultLabels), or undefined. */
export function reconcileDefaultLabels(existing: Node | undefined, cfg: NodeConfig): Record<string, string> | undefined {
  const want = defaultNodeLabels(cfg);
  const have: Record<string, string> = existing?.metadata?.labels ?? {};
  const patch: Record<string, string> = {};
  for (const [k, v] of Object.entries(want)) if (have[k] !== v) patch[k] = v;
  return Object.keys(patch).length ? patch : undefined;
}

/** Runs the status setters over (a copy of) node.status and returns the new status. */
export function nodeStatus(node: Node | undefined, cfg: NodeConfig, health: NodeHealth, now: Date, record?: RecordNodeEvent): KubeletNodeStatus {
  const prev: NodeStatus = node?.status ?? {};
  const capacity = { ...prev.capacity, ...cfg.capacity };
  const status: KubeletNodeStatus = {
    ...prev,
    addresses: [{ type: 'InternalIP', address: cfg.internalIP }, { type: 'Hostname', address: cfg.nodeName }],
    capacity,
    allocatable: allocatableOf(prev.allocatable, capacity, cfg.allocatable),
    nodeInfo: { ...cfg.nodeInfo },
    daemonEndpoints: { kubeletEndpoint: { Port: cfg.kubeletPort } },
    conditions: (prev.conditions ?? []).map((c) => ({ ...c })),
  };
  const ts = rfc3339(now);
  const ev: RecordNodeEvent = record ?? (() => {});
  setPressureCondition(status, 'MemoryPressure', ts, !!health.pressure?.memory, pressureWords.memory, ev);
  setPressureCondition(status, 'DiskPressure', ts, !!health.pressure?.disk, pressureWords.disk, ev);
  setPressureCondition(status, 'PIDPressure', ts, false, pressureWords.pid, ev);
  setReadyCondition(status, health, ts, ev);
  return status;
}

/**
 * Upstream's MachineInfo setter keeps what others wrote into capacity (the
 * extended resources an administrator advertises with a PATCH of
 * nodes/NAME/status, `example.com/dongle`) and derives allocatable from the
 * whole of capacity: an extended resource removed from capacity leaves
 * allocatable too, and every capacity entry is allocatable less what the node
 * reserves (`reserved`: the agent's own allocatable, where it has one).
 */
function allocatableOf(prev: Record<string, string> | undefined, capacity: Record<string, string>, reserved: Record<string, string> | undefined): Record<string, string> {
  const allocatable: Record<string, string> = {};
  for (const [k, v] of Object.entries(prev ?? {})) if (k in capacity || !isExtendedResourceName(k)) allocatable[k] = v;
  for (const [k, v] of Object.entries(capacity)) allocatable[k] = reserved?.[k] ?? v;
  return allocatable;
}

/** Reason, message and event of each pressure condition, [when False, when True] (upstream setters.go). */
type Words = [string, string, string];

const pressureWords: Record<'memory' | 'disk' | 'pid', [Words, Words]> = {
  memory: [['KubeletHasSufficientMemory', 'kubelet has sufficient memory available', 'NodeHasSufficientMemory'],
    ['KubeletHasInsufficientMemory', 'kubelet has insufficient memory available', 'NodeHasInsufficientMemory']],
  disk: [['KubeletHasNoDiskPressure', 'kubelet has no disk pressure', 'NodeHasNoDiskPressure'],
    ['KubeletHasDiskPressure', 'kubelet has disk pressure', 'NodeHasDiskPressure']],
  pid: [['KubeletHasSufficientPID', 'kubelet has sufficient PID available', 'NodeHasSufficientPID'],
    ['KubeletHasInsufficientPID', 'kubelet has insufficient PID available', 'NodeHasInsufficientPID']],
};

/** A pressure condition: True or False with upstream's reason and message; the event on each transition. */
function setPressureCondition(status: KubeletNodeStatus, type: string, ts: string, under: boolean, words: [Words, Words], record: RecordNodeEvent): void {
  let c = status.conditions.find((x) => x.type === type);
  if (!c) {
    c = { type, status: 'Unknown' };
    status.conditions.push(c);
  }
  c.lastHeartbeatTime = ts;
  const want = under ? 'True' : 'False';
  if (c.status !== want) {
    const [reason, message, event] = words[under ? 1 : 0];
    Object.assign(c, { status: want, reason, message, lastTransitionTime: ts });
    record('Normal', event);
  }
}

const requiredCapacities = ['cpu', 'memory', 'pods', 'ephemeral-storage'];

function setReadyCondition(status: KubeletNodeStatus, health: NodeHealth, ts: string, record: RecordNodeEvent): void {
  const errors = [...health.errors];
  const missing = requiredCapacities.filter((r) => status.capacity?.[r] === undefined);
  if (missing.length) errors.push(`Missing node capacity for resources: ${missing.join(', ')}`);
  const next: NodeCondition = errors.length
    ? { type: 'Ready', status: 'False', reason: 'KubeletNotReady', message: errors.join(','), lastHeartbeatTime: ts }
    : { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: ts };
  const i = status.conditions.findIndex((x) => x.type === 'Ready');
  if (i < 0) {
    status.conditions.push({ ...next, lastTransitionTime: ts });
    return;
  }
  const prev = status.conditions[i];
  if (prev.status === next.status && prev.lastTransitionTime) {
    next.lastTransitionTime = prev.lastTransitionTime;
  } else {
    next.lastTransitionTime = ts;
    record('Normal', next.status === 'True' ? 'NodeReady' : 'NodeNotReady');
  }
  status.conditions[i] = next;
}

/** Upstream nodeStatusHasChanged: any difference but the conditions' heartbeat times. */
export function nodeStatusHasChanged(original: NodeStatus | undefined, status: NodeStatus | undefined): boolean {
  const strip = (s: NodeStatus) => ({ ...s, conditions: (s.conditions ?? []).map((c) => ({ ...c, lastHeartbeatTime: undefined })) });
  return !semanticEqual(strip(original ?? {}), strip(status ?? {}));
}

/**
 * The strategic merge patch for nodes/<name>/status carrying the fields the
 * kubelet owns; an allocatable entry the setters dropped since `prev` is
 * deleted with null (upstream sends the two-way patch from the Node it read).
 */
export function nodeStatusPatch(status: NodeStatus, prev?: NodeStatus): { status: NodeStatus } {
  const { addresses, capacity, nodeInfo, daemonEndpoints, conditions } = status;
  const allocatable: Record<string, string | null> = { ...status.allocatable };
  for (const k of Object.keys(prev?.allocatable ?? {})) if (!(k in allocatable)) allocatable[k] = null;
  return { status: { addresses, capacity, allocatable: allocatable as NodeStatus['allocatable'], nodeInfo, daemonEndpoints, conditions } };
}
