/**
 * Builders for scheduler tests (upstream keeps the same in pkg/scheduler/testing):
 * nodes with allocatable and taints, pods with requests, tolerations,
 * affinity and host ports, NodeInfos and snapshots over them.
 */
import type {
  Affinity, Container, Node, NodeSpec as V1NodeSpec, NodeStatus, Pod, PodSchedulingGate, PodSpec, Taint, Toleration,
} from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { NodeInfo } from '../nodeinfo.js';
import type { NodeSnapshot } from '../runtime.js';

export interface NodeSpec {
  cpu?: string; memory?: string; pods?: string; labels?: Record<string, string>; taints?: Taint[]; unschedulable?: boolean;
  extra?: Record<string, string>;
}

/** What the builders return: the fields they always set are not optional. */
export type TestNode = Node & { metadata: ObjectMeta & { name: string }; spec: V1NodeSpec; status: NodeStatus };
export type TestPod = Pod & { metadata: ObjectMeta & { name: string; namespace: string; uid: string }; spec: PodSpec };

export function makeNode(name: string, s: NodeSpec = {}): TestNode {
  const allocatable = { cpu: s.cpu ?? '2', memory: s.memory ?? '4Gi', pods: s.pods ?? '110', ...(s.extra ?? {}) };
  return {
    apiVersion: 'v1', kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...(s.labels ?? {}) } },
    spec: { ...(s.taints ? { taints: s.taints } : {}), ...(s.unschedulable ? { unschedulable: true } : {}) },
    status: { capacity: allocatable, allocatable },
  };
}

export interface PodSpecOpts {
  cpu?: string; memory?: string; requests?: Record<string, string>; nodeName?: string; tolerations?: Toleration[];
  nodeSelector?: Record<string, string>; affinity?: Affinity; hostPorts?: { hostPort: number; protocol?: string; hostIP?: string }[];
  priority?: number; preemptionPolicy?: string; namespace?: string; schedulingGates?: PodSchedulingGate[]; labels?: Record<string, string>;
}

export function makePod(name: string, o: PodSpecOpts = {}): TestPod {
  const requests: Record<string, string> = { ...(o.cpu ? { cpu: o.cpu } : {}), ...(o.memory ? { memory: o.memory } : {}), ...(o.requests ?? {}) };
  const container: Container = { name: 'c', image: 'pause' };
  if (Object.keys(requests).length) container.resources = { requests };
  if (o.hostPorts) container.ports = o.hostPorts.map((p) => ({ containerPort: p.hostPort, ...p }));
  const spec: PodSpec = { containers: [container], schedulerName: 'default-scheduler' };
  if (o.nodeName) spec.nodeName = o.nodeName;
  if (o.tolerations) spec.tolerations = o.tolerations;
  if (o.nodeSelector) spec.nodeSelector = o.nodeSelector;
  if (o.affinity) spec.affinity = o.affinity;
  if (o.priority !== undefined) spec.priority = o.priority;
  if (o.preemptionPolicy) spec.preemptionPolicy = o.preemptionPolicy;
  if (o.schedulingGates) spec.schedulingGates = o.schedulingGates;
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, namespace: o.namespace ?? 'default', uid: `uid-${name}`, labels: o.labels ?? {} },
    spec, status: { phase: 'Pending' },
  };
}

export function nodeInfo(node: TestNode, pods: TestPod[] = []): NodeInfo {
  const info = new NodeInfo(node.metadata.name);
  info.setNode(node);
  for (const p of pods) info.addPod(`${p.metadata.namespace}/${p.metadata.name}`, { ...p, spec: { ...p.spec, nodeName: node.metadata.name } });
  return info;
}

export function snapshot(infos: NodeInfo[]): NodeSnapshot {
  const byName = new Map(infos.map((i) => [i.name, i]));
  return { list: infos, get: (n) => byName.get(n) };
}

export const controlPlaneTaint = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' };

/** A deterministic "random" for tie-breaking: always keeps the first best node. */
export const firstOfTies = () => 0.999;
