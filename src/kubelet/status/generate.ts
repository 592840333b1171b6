/**
 * API pod status from runtime status, as the kubelet generates it
 * (pkg/kubelet/kubelet_pods.go generateAPIPodStatus, getPhase,
 * convertToAPIContainerStatuses; pkg/kubelet/status/generate.go; the status
 * manager's mergePodStatus and updateLastTransitionTime), v1.32:
 *
 *  1. Container statuses follow the spec order. A container the runtime does
 *     not have yet is waiting: ContainerCreating, or PodInitializing when the
 *     pod has init containers.
 *  2. Phase (getPhase): a failed init container with restartPolicy Never →
 *     Failed; init containers still to finish → Pending; any container
 *     waiting → Pending; some running and none unknown → Running; all stopped
 *     → Running under restartPolicy Always, Succeeded when all exited 0,
 *     Failed under Never, else Running; otherwise Pending. A runtime-decided
 *     terminal phase wins, and a terminal phase is never left.
 *  3. Kubelet-owned conditions, in this order: PodReadyToStartContainers
 *     (sandbox ready), Initialized, Ready, ContainersReady, PodScheduled=True.
 *     Conditions owned by others (readiness gates, DisruptionTarget) are kept
 *     ahead of them; Ready also needs every readiness gate condition True.
 *  4. lastTransitionTime moves only when a condition's status changes;
 *     startTime is set once; qosClass is kept; pod IPs, once known, stay.
 *  5. Ephemeral containers get ephemeralContainerStatuses in spec order, as
 *     containers do (waiting until the runtime starts them), but are never
 *     ready, carry no `started`, and count for neither phase nor conditions.
 */
import type { Container, ContainerState, ContainerStatus, Pod, PodCondition, PodSpec, PodStatus, VolumeMountStatus } from 'kubernetes-types/core/v1.js';
import type { RuntimeContainerStatus, RuntimePodStatus } from '../runtime/runtime.js';
import { rfc3339 } from '../../util/clock.js';

export const kubeletConditionTypes: ReadonlySet<string> = new Set(['PodScheduled', 'Ready', 'Initialized', 'ContainersReady', 'PodReadyToStartContainers']);

export interface StatusContext {
  hostIP: string;
  now: Date;
}

/** Go's %s on a []string. */
const goList = (names: string[]) => `[${names.join(' ')}]`;
const isSidecar = (c: Container | undefined) => c?.restartPolicy === 'Always';
const isTerminalPhase = (p: unknown) => p === 'Succeeded' || p === 'Failed';

/** volumeMounts of a started container, left out when it mounts nothing. */
function setVolumeMounts(out: APIContainerStatus, spec: Container): void {
  const mounts = (spec.volumeMounts ?? []).map((m): VolumeMountStatus => ({
    name: m.name, mountPath: m.mountPath, ...(m.readOnly ? { readOnly: true, recursiveReadOnly: 'Disabled' } : {}),
  }));
  if (mounts.length) out.volumeMounts = mounts;
}

/** One containerStatuses entry (upstream convertContainerStatus). */
export function containerStatus(spec: Container, rc: RuntimeContainerStatus | undefined, defaultWaiting: string, isInit = false): APIContainerStatus {
  if (!rc) {
    return {
      name: spec.name, image: spec.image!, imageID: '', lastState: {}, ready: false, restartCount: 0, started: false,
      state: { waiting: { reason: defaultWaiting } },
    };
  }
  // Assigned onto the containerID literal, not spread before the members: a member added after a
  // spread makes a new hidden class on every call (util/with-members.ts), 9.5 µs a call here.
  const out: APIContainerStatus = Object.assign(rc.id ? { containerID: rc.id } : {}, {
    image: rc.image || spec.image!, imageID: rc.imageID, lastState: lastState(rc), name: spec.name,
    ready: false, restartCount: rc.restartCount, started: false, state: {},
  });
  switch (rc.state) {
    case 'running':
      out.state = { running: { startedAt: rfc3339(rc.startedAt ?? rc.createdAt) } };
      // A startup probe holds both back until it succeeds (upstream: not ready before started).
      out.started = rc.started ?? true;
      out.ready = out.started! && (rc.ready ?? true);
      setVolumeMounts(out, spec);
      break;
    case 'exited':
      out.state = {
        terminated: {
          containerID: rc.id, exitCode: rc.exitCode ?? 0, reason: rc.reason ?? (rc.exitCode ? 'Error' : 'Completed'),
          ...(rc.message ? { message: rc.message } : {}),
          startedAt: rfc3339(rc.startedAt ?? rc.createdAt), finishedAt: rfc3339(rc.finishedAt ?? rc.createdAt),
        },
      };
      setVolumeMounts(out, spec);
      break;
    case 'created':
      out.state = { waiting: { reason: 'ContainerCreating' } };
      break;
    case 'waiting':
      out.state = { waiting: { reason: rc.reason ?? defaultWaiting, ...(rc.message ? { message: rc.message } : {}) } };
      break;
    default:
      out.state = { waiting: {} };
  }
  // A regular init container is ready once it exited 0 (upstream convertToAPIContainerStatuses).
  if (isInit && !isSidecar(spec)) out.ready = out.state.terminated?.exitCode === 0;
  return out;
}

function lastState(rc: RuntimeContainerStatus): ContainerState {
  const t = rc.lastTermination;
  if (!t) return {};
  return {
    terminated: {
      containerID: t.id, exitCode: t.exitCode, reason: t.reason, ...(t.message ? { message: t.message } : {}),
      ...(t.startedAt ? { startedAt: rfc3339(t.startedAt) } : {}), ...(t.finishedAt ? { finishedAt: rfc3339(t.finishedAt) } : {}),
    },
  };
}

function byName(statuses: readonly ContainerStatus[], name: string): ContainerStatus | undefined {
  return statuses.find((s) => s.name === name);
}

/** Upstream getPhase (pkg/kubelet/kubelet_pods.go), without the podIsTerminal shortcut. */
export function getPhase(spec: PodSpec, initStatuses: readonly ContainerStatus[], statuses: readonly ContainerStatus[]): string {
  const restartPolicy = spec.restartPolicy ?? 'Always';
  let pendingInit = 0;
  let failedInit = 0;
  for (const c of spec.initContainers ?? []) {
    const s = byName(initStatuses, c.name);
    if (isSidecar(c)) { if (!s?.state?.running) pendingInit++; continue; }
    if (!s) { pendingInit++; continue; }
    const t = s.state?.terminated;
    if (s.state?.running) pendingInit++;
    else if (t && t.exitCode === 0) { /* done */ } else if (t) { pendingInit++; failedInit++; } else if (s.state?.waiting) {
      const last = s.lastState?.terminated;
      if (!last) pendingInit++;
      else if (last.exitCode !== 0) { pendingInit++; failedInit++; }
    } else pendingInit++;
  }
  let unknown = 0; let running = 0; let waiting = 0; let stopped = 0; let succeeded = 0;
  for (const c of spec.containers ?? []) {
    const s = byName(statuses, c.name);
    if (!s) { unknown++; continue; }
    if (s.state?.running) running++;
    else if (s.state?.terminated) { stopped++; if (s.state.terminated.exitCode === 0) succeeded++; } else if (s.state?.waiting) {
      if (s.lastState?.terminated) stopped++; else waiting++;
    } else unknown++;
  }
  if (failedInit > 0 && restartPolicy === 'Never') return 'Failed';
  if (pendingInit > 0 && (restartPolicy !== 'Never' || failedInit === 0)) return 'Pending';
  if (waiting > 0) return 'Pending';
  if (running > 0 && unknown === 0) return 'Running';
  if (running === 0 && stopped > 0 && unknown === 0) {
    if (restartPolicy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    if (restartPolicy === 'Never') return 'Failed';
    return 'Running';
  }
  return 'Pending';
}

type Condition = { type: string; status: 'True' | 'False' | 'Unknown'; reason?: string; message?: string };

/** Go marshals a zero metav1.Time as null; kubernetes-types' Time has no null, so the wire value is cast once here. */
const zeroTime = null as unknown as string;

/** The status generatePodStatus writes; its kubelet-owned conditions carry lastProbeTime null. */
export type GeneratedPodStatus = PodStatus & { conditions: PodCondition[]; containerStatuses: APIContainerStatus[] };

/** A container status as generated: state and lastState are always set. */
export type APIContainerStatus = ContainerStatus & { state: ContainerState; lastState: ContainerState };

/** ContainersReady (upstream GenerateContainersReadyCondition). */
export function containersReadyCondition(spec: PodSpec, statuses: readonly ContainerStatus[], initStatuses: readonly ContainerStatus[], phase: string): Condition {
  if (phase === 'Succeeded') return { type: 'ContainersReady', status: 'False', reason: 'PodCompleted' };
  if (phase === 'Failed') return { type: 'ContainersReady', status: 'False', reason: 'PodFailed' };
  const unknown: string[] = [];
  const unready: string[] = [];
  const check = (c: Container, list: readonly ContainerStatus[]) => {
    const s = byName(list, c.name);
    if (!s) unknown.push(c.name); else if (!s.ready) unready.push(c.name);
  };
  for (const c of spec.initContainers ?? []) if (isSidecar(c)) check(c, initStatuses);
  for (const c of spec.containers ?? []) check(c, statuses);
  const msgs: string[] = [];
  if (unknown.length) msgs.push(`containers with unknown status: ${goList(unknown)}`);
  if (unready.length) msgs.push(`containers with unready status: ${goList(unready)}`);
  if (msgs.length) return { type: 'ContainersReady', status: 'False', reason: 'ContainersNotReady', message: msgs.join(', ') };
  return { type: 'ContainersReady', status: 'True' };
}

/** Ready (upstream GeneratePodReadyCondition): ContainersReady plus every readiness gate True. */
export function podReadyCondition(spec: PodSpec, conditions: readonly PodCondition[], containersReady: Condition): Condition {
  if (containersReady.status !== 'True') return { ...containersReady, type: 'Ready' };
  const msgs: string[] = [];
  for (const gate of spec.readinessGates ?? []) {
    const c = conditions.find((x) => x.type === gate.conditionType);
    if (!c) msgs.push(`corresponding condition of pod readiness gate "${gate.conditionType}" does not exist.`);
    else if (c.status !== 'True') msgs.push(`the status of pod readiness gate "${gate.conditionType}" is not "True", but ${c.status}`);
  }
  if (msgs.length) return { type: 'Ready', status: 'False', reason: 'ReadinessGatesNotReady', message: msgs.join(', ') };
  return { type: 'Ready', status: 'True' };
}

/** Initialized (upstream GeneratePodInitializedCondition). */
export function initializedCondition(spec: PodSpec, initStatuses: readonly ContainerStatus[], statuses: readonly ContainerStatus[], phase: string): Condition {
  if (phase === 'Succeeded') return { type: 'Initialized', status: 'True', reason: 'PodCompleted' };
  // Once a regular container has started the pod has been initialized, even while sidecars restart.
  if (statuses.some((s) => s.state?.running || s.state?.terminated)) return { type: 'Initialized', status: 'True' };
  const unknown: string[] = [];
  const incomplete: string[] = [];
  for (const c of spec.initContainers ?? []) {
    const s = byName(initStatuses, c.name);
    if (!s) unknown.push(c.name);
    else if (!(isSidecar(c) ? s.started === true : s.ready === true)) incomplete.push(c.name);
  }
  const msgs: string[] = [];
  if (unknown.length) msgs.push(`containers with unknown status: ${goList(unknown)}`);
  if (incomplete.length) msgs.push(`containers with incomplete status: ${goList(incomplete)}`);
  if (msgs.length) return { type: 'Initialized', status: 'False', reason: 'ContainersNotInitialized', message: msgs.join(', ') };
  return { type: 'Initialized', status: 'True' };
}

/**
 * The status the kubelet would write for `pod` (whose current API status is
 * pod.status) given what the runtime reports. Pure; `now` stamps transitions.
 */
export function generatePodStatus(pod: Pod, rs: RuntimePodStatus | undefined, ctx: StatusContext): GeneratedPodStatus {
  const spec: PodSpec = pod.spec ?? { containers: [] };
  const old: PodStatus = pod.status ?? {};
  const hasInit = (spec.initContainers ?? []).length > 0;
  const defaultWaiting = hasInit ? 'PodInitializing' : 'ContainerCreating';
  const initStatuses = (spec.initContainers ?? []).map((c) => containerStatus(c, rs?.initContainers.find((x) => x.name === c.name), defaultWaiting, true));
  const statuses = (spec.containers ?? []).map((c) => containerStatus(c, rs?.containers.find((x) => x.name === c.name), defaultWaiting));
  const ephemeralStatuses = ephemeralContainerStatuses(spec, rs, defaultWaiting);
  let phase = rs?.terminalPhase ?? getPhase(spec, initStatuses, statuses);
  if (isTerminalPhase(old.phase)) phase = old.phase!;

  const foreign = (old.conditions ?? []).filter((c) => !kubeletConditionTypes.has(c.type));
  const containersReady = containersReadyCondition(spec, statuses, initStatuses, phase);
  const owned: Condition[] = [
    { type: 'PodReadyToStartContainers', status: rs?.sandbox?.ready ? 'True' : 'False' },
    initializedCondition(spec, initStatuses, statuses, phase),
    podReadyCondition(spec, foreign, containersReady),
    containersReady,
    { type: 'PodScheduled', status: 'True' },
  ];
  const conditions = [...foreign, ...owned.map((c) => withTransitionTime(c, old.conditions ?? [], ctx.now))];

  const podIP = rs?.sandbox?.ip ?? old.podIP;
  // Members set in order rather than spread in (util/with-members.ts: a member after a spread is a new hidden class a call).
  const status = { phase, conditions, hostIP: ctx.hostIP, hostIPs: [{ ip: ctx.hostIP }] } as PodStatus as GeneratedPodStatus;
  if (podIP) { status.podIP = podIP; status.podIPs = [{ ip: podIP }]; }
  status.startTime = old.startTime ?? rfc3339(ctx.now);
  if (hasInit) status.initContainerStatuses = initStatuses;
  status.containerStatuses = statuses;
  if (old.qosClass) status.qosClass = old.qosClass;
  if (ephemeralStatuses.length) status.ephemeralContainerStatuses = ephemeralStatuses;
  if (rs?.terminalPhase && rs.reason) status.reason = rs.reason;
  if (rs?.terminalPhase && rs.message) status.message = rs.message;
  if (old.nominatedNodeName) status.nominatedNodeName = old.nominatedNodeName;
  return status;
}

/** Rule 5: upstream's convertToAPIContainerStatuses over spec.ephemeralContainers; readiness is only probed for the others. */
function ephemeralContainerStatuses(spec: PodSpec, rs: RuntimePodStatus | undefined, defaultWaiting: string): APIContainerStatus[] {
  return (spec.ephemeralContainers ?? []).map((ec) => {
    const s = containerStatus(ec as Container, rs?.ephemeralContainers?.find((x) => x.name === ec.name), defaultWaiting);
    delete s.started;
    return { ...s, ready: false };
  });
}

function withTransitionTime(c: Condition, oldConditions: readonly PodCondition[], now: Date): PodCondition {
  const prev = oldConditions.find((o) => o.type === c.type);
  const lastTransitionTime = prev && prev.status === c.status && prev.lastTransitionTime ? prev.lastTransitionTime : rfc3339(now);
  return { type: c.type, status: c.status, lastProbeTime: zeroTime, lastTransitionTime, ...(c.reason ? { reason: c.reason } : {}), ...(c.message ? { message: c.message } : {}) };
}

/** The status of a pod the kubelet refused to run (upstream rejectPod): Failed with the admission reason. */
export function rejectedPodStatus(pod: Pod, reason: string, message: string, now: Date): PodStatus {
  const old: PodStatus = pod.status ?? {};
  return { ...old, phase: 'Failed', reason, message: `Pod was rejected: ${message}`, startTime: old.startTime ?? rfc3339(now) };
}
