/**
 * What the CRI runtime knows of one pod (its sandboxes and every container
 * instance, as the last relist and its own actions saw them), and how that
 * becomes the agent's RuntimePodStatus (upstream: kubecontainer.PodStatus and
 * the kubelet's reason cache):
 *
 *  1. A container's current instance is the one with the highest attempt
 *     (restart count); the exited instance before it is its lastState.
 *  2. A container the runtime holds back (pull failure, back-off, create
 *     error) is reported waiting with that reason; if it ran before, the
 *     last instance's ID and exit are kept (CrashLoopBackOff shows both).
 *  3. The sandbox reported is the newest one; a hostNetwork pod's IP is the
 *     node's.
 *  4. Ephemeral containers are reported apart, as the spec lists them.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { RuntimeContainerStatus, RuntimePodStatus, RuntimeSandboxStatus } from '../runtime.js';
import type * as cri from './types.js';

export interface SandboxRecord {
  id: string;
  attempt: number;
  state: cri.PodSandboxState;
  createdAt: Date;
  ip?: string;
}

export interface ContainerRecord {
  id: string;
  name: string;
  attempt: number;
  sandboxId: string;
  state: cri.ContainerState;
  image: string;
  imageRef: string;
  createdAt: Date;
  startedAt?: Date;
  finishedAt?: Date;
  exitCode?: number;
  reason?: string;
  message?: string;
}

export interface PodEntry {
  uid: string;
  namespace: string;
  name: string;
  /** The pod as the agent last synced it; undefined for a pod adopted from the runtime and not synced yet. */
  pod?: Pod;
  sandboxes: SandboxRecord[];
  containers: ContainerRecord[];
  /** Why a container is held back, by container name. */
  waiting: Map<string, { reason: string; message?: string }>;
  /** Bumped by every change this runtime makes, so a relist that started before it does not overwrite it. */
  epoch: number;
  /** The parts of the pod a sync depends on, to tell a real change from our own status write echoing back. */
  specKey?: string;
  /** The next resync (back-off retry or periodic). */
  resyncTimer?: unknown;
  syncing: boolean;
  syncAgain: boolean;
  terminating: boolean;
  killing?: Promise<void>;
}

export const nsToDate = (ns: number) => new Date(Math.floor(ns / 1e6));

export function newPodEntry(uid: string, namespace: string, name: string): PodEntry {
  return { uid, namespace, name, sandboxes: [], containers: [], waiting: new Map(), epoch: 0, syncing: false, syncAgain: false, terminating: false };
}

/** Instances of one container, newest first. */
export function instances(p: PodEntry, name: string): ContainerRecord[] {
  return p.containers.filter((c) => c.name === name).sort((a, b) => b.attempt - a.attempt || b.createdAt.getTime() - a.createdAt.getTime());
}

export function latestSandbox(p: PodEntry): SandboxRecord | undefined {
  return [...p.sandboxes].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0];
}

const runtimeState = (s: cri.ContainerState): RuntimeContainerStatus['state'] =>
  s === 'CONTAINER_RUNNING' ? 'running' : s === 'CONTAINER_EXITED' ? 'exited' : s === 'CONTAINER_CREATED' ? 'created' : 'unknown';

const exitReason = (c: ContainerRecord) => c.reason || (c.exitCode ? 'Error' : 'Completed');

function containerStatus(p: PodEntry, name: string, image: string, scheme: string): RuntimeContainerStatus | undefined {
  const [latest, previous] = instances(p, name);
  const waiting = p.waiting.get(name);
  const id = (c: ContainerRecord) => `${scheme}://${c.id}`;
  const term = (c: ContainerRecord | undefined) => c && c.state === 'CONTAINER_EXITED'
    ? { id: id(c), exitCode: c.exitCode ?? 0, reason: exitReason(c), message: c.message || undefined, startedAt: c.startedAt, finishedAt: c.finishedAt }
    : undefined;
  if (waiting && (!latest || latest.state === 'CONTAINER_EXITED')) {
    return {
      name, id: latest ? id(latest) : '', image: latest?.image ?? image, imageID: latest?.imageRef ?? '', state: 'waiting',
      createdAt: latest?.createdAt ?? new Date(0), restartCount: latest?.attempt ?? 0, reason: waiting.reason, message: waiting.message,
      lastTermination: term(latest),
    };
  }
  if (!latest) return undefined;
  const exited = latest.state === 'CONTAINER_EXITED';
  return {
    name, id: id(latest), image: latest.image, imageID: latest.imageRef, state: runtimeState(latest.state),
    createdAt: latest.createdAt, startedAt: latest.startedAt, finishedAt: latest.finishedAt,
    ...(exited ? { exitCode: latest.exitCode ?? 0, reason: exitReason(latest), message: latest.message || undefined } : {}),
    restartCount: latest.attempt, lastTermination: term(previous),
  };
}

export function podStatus(p: PodEntry, scheme: string, hostIP: string): RuntimePodStatus {
  const spec = p.pod?.spec;
  const sb = latestSandbox(p);
  const sandbox: RuntimeSandboxStatus | undefined = sb && {
    id: sb.id, ready: sb.state === 'SANDBOX_READY', ip: spec?.hostNetwork ? hostIP : sb.ip, createdAt: sb.createdAt,
  };
  const pick = (list: { name: string; image?: string }[]) => list
    .map((c) => containerStatus(p, c.name, c.image ?? '', scheme))
    .filter((s): s is RuntimeContainerStatus => !!s);
  // An adopted pod not synced yet: report what the runtime has, by name.
  const names = [...new Set(p.containers.map((c) => c.name))].map((name) => ({ name }));
  return {
    uid: p.uid, namespace: p.namespace, name: p.name, sandbox,
    initContainers: spec ? pick(spec.initContainers ?? []) : [],
    containers: spec ? pick(spec.containers ?? []) : pick(names),
    ephemeralContainers: spec ? pick(spec.ephemeralContainers ?? []) : [],
  };
}
