/**
 * Pods: NAME READY STATUS RESTARTS AGE [IP NODE NOMINATED NODE READINESS GATES],
 * the cells computed as upstream's printPod does (printers.go, 1.32).
 */
import type { Container, ContainerStatus, Pod, PodCondition } from 'kubernetes-types/core/v1.js';
import { ageColumn, column, docColumn, nameColumn } from './columns.js';
import { humanDuration, parseTime, timestampSince } from './duration.js';
import type { KindPrinter, PrintContext, TableRow, TableRowCondition } from './types.js';

/** node.NodeUnreachablePodReason: set by the node lifecycle controller on pods of a lost node. */
const NODE_UNREACHABLE_POD_REASON = 'NodeLost';

const succeeded: TableRowCondition[] = [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
const failed: TableRowCondition[] = [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];

/** The running tally printPod keeps while it walks the container statuses. */
interface Tally {
  reason: string;
  ready: number;
  total: number;
  restarts: number;
  /** Latest lastState.terminated.finishedAt seen, ms since the epoch. */
  lastRestart?: number;
}

/** podutil.IsRestartableInitContainer: a sidecar, an init container with restartPolicy Always. */
const isRestartable = (c: Container | undefined) => c?.restartPolicy === 'Always';

const conditionTrue = (conds: PodCondition[] | undefined, type: string) =>
  (conds ?? []).some((c) => c.type === type && c.status === 'True');

function later(current: number | undefined, status: ContainerStatus): number | undefined {
  const t = parseTime(status.lastState?.terminated?.finishedAt);
  return t !== undefined && (current === undefined || current < t) ? t : current;
}

/**
 * The init containers' part: the first init container not done yet names the
 * status (Init:Error, Init:CrashLoopBackOff, Init:ExitCode:1, Init:Signal:9, Init:1/3);
 * started sidecars count as ready containers. Returns whether the pod is still initializing.
 */
function tallyInitContainers(pod: Pod, t: Tally, sidecar: { restarts: number; lastRestart?: number }): boolean {
  const specs = new Map((pod.spec?.initContainers ?? []).map((c) => [c.name, c]));
  const statuses = pod.status?.initContainerStatuses ?? [];
  for (let i = 0; i < statuses.length; i++) {
    const c = statuses[i];
    t.restarts += c.restartCount ?? 0;
    t.lastRestart = later(t.lastRestart, c);
    const restartable = isRestartable(specs.get(c.name));
    if (restartable) {
      sidecar.restarts += c.restartCount ?? 0;
      sidecar.lastRestart = later(sidecar.lastRestart, c);
    }
    const terminated = c.state?.terminated;
    const waiting = c.state?.waiting;
    if (terminated && (terminated.exitCode ?? 0) === 0) continue;
    if (restartable && c.started === true) {
      if (c.ready) t.ready++;
      continue;
    }
    if (terminated) {
      if (terminated.reason) t.reason = `Init:${terminated.reason}`;
      else t.reason = terminated.signal ? `Init:Signal:${terminated.signal}` : `Init:ExitCode:${terminated.exitCode ?? 0}`;
    } else if (waiting?.reason && waiting.reason !== 'PodInitializing') {
      t.reason = `Init:${waiting.reason}`;
    } else {
      t.reason = `Init:${i}/${pod.spec?.initContainers?.length ?? 0}`;
    }
    return true;
  }
  return false;
}

/**
 * The app containers' part, walked last to first so the first container's
 * waiting/terminated reason wins (CrashLoopBackOff, ErrImagePull, Completed,
 * Error, ExitCode:N, Signal:N); a Completed pod with a container still running
 * reads Running (pod Ready) or NotReady.
 */
function tallyContainers(pod: Pod, t: Tally): void {
  const statuses = pod.status?.containerStatuses ?? [];
  let hasRunning = false;
  for (let i = statuses.length - 1; i >= 0; i--) {
    const c = statuses[i];
    t.restarts += c.restartCount ?? 0;
    t.lastRestart = later(t.lastRestart, c);
    const { waiting, terminated, running } = c.state ?? {};
    if (waiting?.reason) t.reason = waiting.reason;
    else if (terminated?.reason) t.reason = terminated.reason;
    else if (terminated) t.reason = terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode ?? 0}`;
    else if (c.ready && running) {
      hasRunning = true;
      t.ready++;
    }
  }
  if (t.reason === 'Completed' && hasRunning) {
    t.reason = conditionTrue(pod.status?.conditions, 'Ready') ? 'Running' : 'NotReady';
  }
}

/** STATUS, READY and RESTARTS as printPod computes them. */
function tallyPod(pod: Pod): Tally {
  const phase = pod.status?.phase ?? '';
  const t: Tally = { reason: pod.status?.reason || phase, ready: 0, total: pod.spec?.containers?.length ?? 0, restarts: 0 };
  if ((pod.status?.conditions ?? []).some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) {
    t.reason = 'SchedulingGated';
  }
  t.total += (pod.spec?.initContainers ?? []).filter(isRestartable).length;
  const sidecar: { restarts: number; lastRestart?: number } = { restarts: 0 };
  const initializing = tallyInitContainers(pod, t, sidecar);
  if (!initializing || conditionTrue(pod.status?.conditions, 'Initialized')) {
    t.restarts = sidecar.restarts;
    t.lastRestart = sidecar.lastRestart;
    tallyContainers(pod, t);
  }
  if (pod.metadata?.deletionTimestamp && pod.status?.reason === NODE_UNREACHABLE_POD_REASON) t.reason = 'Unknown';
  else if (pod.metadata?.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed') t.reason = 'Terminating';
  return t;
}

/** READINESS GATES: "<none>", or true-conditions/gates. */
function readinessGates(pod: Pod): string {
  const gates = pod.spec?.readinessGates ?? [];
  if (gates.length === 0) return '<none>';
  const conds = pod.status?.conditions ?? [];
  const met = gates.filter((g) => conds.find((c) => c.type === g.conditionType)?.status === 'True').length;
  return `${met}/${gates.length}`;
}

function printPod(pod: Pod, ctx: PrintContext): TableRow {
  const t = tallyPod(pod);
  const restarts = t.restarts !== 0 && t.lastRestart !== undefined
    ? `${t.restarts} (${humanDuration(ctx.now.getTime() - t.lastRestart)} ago)`
    : String(t.restarts);
  const podIP = pod.status?.podIPs?.[0]?.ip || pod.status?.podIP || '<none>';
  const row: TableRow = {
    cells: [
      pod.metadata?.name ?? '', `${t.ready}/${t.total}`, t.reason, restarts, timestampSince(pod.metadata?.creationTimestamp, ctx.now),
      podIP, pod.spec?.nodeName || '<none>', pod.status?.nominatedNodeName || '<none>', readinessGates(pod),
    ],
  };
  if (pod.status?.phase === 'Succeeded') row.conditions = succeeded;
  else if (pod.status?.phase === 'Failed') row.conditions = failed;
  return row;
}

export const podPrinter: KindPrinter = {
  columns: [
    nameColumn(),
    column('Ready', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'The aggregate status of the containers in this pod.'),
    column('Restarts', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
    ageColumn(),
    docColumn('IP', 'corev1.PodStatus.podIP', { priority: 1 }),
    docColumn('Node', 'corev1.PodSpec.nodeName', { priority: 1 }),
    docColumn('Nominated Node', 'corev1.PodStatus.nominatedNodeName', { priority: 1 }),
    docColumn('Readiness Gates', 'corev1.PodSpec.readinessGates', { priority: 1 }),
  ],
  row: printPod,
};
