/**
 * Node health as the node lifecycle controller judges it (upstream
 * `node_lifecycle_controller.go`, tryUpdateNodeHealth). Pure: the controller
 * keeps the returned NodeHealth and writes `update` through nodes/status.
 *
 * The controller never trusts the kubelet's clock: it records, on its own
 * clock, when it last saw the node's health signal change (probeTimestamp):
 *  1. A node first seen, or whose Ready condition first appears: probe time
 *     is now. A node that never posted Ready is judged from its
 *     creationTimestamp (or the last probe time) with the startup grace period.
 *  2. A Ready condition whose lastHeartbeatTime changed: probe time is now
 *     (and the ready-transition time too when lastTransitionTime changed).
 *  3. A Lease in kube-node-lease renewed since the last one seen: probe time
 *     is now.
 *  4. When now is past probe time + grace period (node-monitor-grace-period,
 *     or node-startup-grace-period for a node without Ready), Ready,
 *     MemoryPressure, DiskPressure and PIDPressure become Unknown with reason
 *     NodeStatusUnknown "Kubelet stopped posting node status." (missing ones
 *     are added with NodeStatusNeverUpdated "Kubelet never posted node
 *     status."); NetworkUnavailable is left alone. The node is written only
 *     when its Ready condition changed.
 */
import { rfc3339 } from '../../util/clock.js';
import type { Node, NodeStatus } from 'kubernetes-types/core/v1.js';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Writable } from '../../api/writable.js';

export interface NodeCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
}

export interface NodeHealth {
  /** Local time (ms) the health signal was last seen to change. */
  probeTimestamp: number;
  readyTransitionTimestamp: number;
  status: NodeStatus | undefined;
  lease?: Lease;
}

export interface HealthConfig { nodeMonitorGracePeriodMs: number; nodeStartupGracePeriodMs: number }

export interface HealthResult {
  health: NodeHealth;
  gracePeriodMs: number;
  /** The Ready condition as the node had it (a made-up Unknown one when it had none). */
  observedReady: NodeCondition;
  /** The Ready condition after this check (undefined when the node has none and nothing was set). */
  currentReady?: NodeCondition;
  /** A copy of the node with conditions set to Unknown, to write via /status. */
  update?: Node;
}

export const conditionsSetUnknown = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];

export function getNodeCondition(status: NodeStatus | undefined, type: string): NodeCondition | undefined {
  return (status?.conditions ?? []).find((c: NodeCondition) => c.type === type);
}

const ms = (t: string | undefined) => (t ? Date.parse(t) : 0);

/** metav1.MicroTime.Before, to the microsecond; false when either is absent. */
export function microTimeBefore(a: string | undefined, b: string | undefined): boolean {
  // The same text is the same time: the 5-second health pass asks this of every node whose Lease
  // did not change since the last pass, and the parse below costs a regular expression and two dates.
  if (!a || !b || a === b) return false;
  const micros = (t: string) => {
    const m = /\.(\d+)/.exec(t);
    return Math.floor(Date.parse(t) / 1000) * 1_000_000 + Number(((m?.[1] ?? '') + '000000').slice(0, 6));
  };
  return micros(a) < micros(b);
}

/** The rules of the file comment, in their order. */
export function tryUpdateNodeHealth(node: Node, saved: NodeHealth | undefined, lease: Lease | undefined, now: Date, cfg: HealthConfig): HealthResult {
  const nowMs = now.getTime();
  const created = ms(node.metadata?.creationTimestamp);
  const current = getNodeCondition(node.status, 'Ready');
  let health = saved;
  let gracePeriodMs: number;
  let observedReady: NodeCondition;
  if (!current) {
    observedReady = { type: 'Ready', status: 'Unknown', lastHeartbeatTime: node.metadata?.creationTimestamp, lastTransitionTime: node.metadata?.creationTimestamp };
    gracePeriodMs = cfg.nodeStartupGracePeriodMs;
    health = health ? { ...health, status: node.status } : { status: node.status, probeTimestamp: created, readyTransitionTimestamp: created };
  } else {
    observedReady = { ...current };
    gracePeriodMs = cfg.nodeMonitorGracePeriodMs;
  }
  // Read after the block above, as upstream does: a node without Ready keeps its probe time.
  const savedReady = health ? getNodeCondition(health.status, 'Ready') : undefined;
  const savedLease = health?.lease;
  if (!health) { // 1
    health = { status: node.status, probeTimestamp: nowMs, readyTransitionTimestamp: nowMs };
  } else if ((!savedReady && current) || (savedReady && !current)) { // 1
    health = { status: node.status, probeTimestamp: nowMs, readyTransitionTimestamp: nowMs };
  } else if (savedReady && current && savedReady.lastHeartbeatTime !== current.lastHeartbeatTime) { // 2
    const transition = savedReady.lastTransitionTime !== current.lastTransitionTime ? nowMs : health.readyTransitionTimestamp;
    health = { status: node.status, probeTimestamp: nowMs, readyTransitionTimestamp: transition };
  }
  if (lease && lease !== savedLease && (!savedLease || microTimeBefore(savedLease.spec?.renewTime, lease.spec?.renewTime))) { // 3
    health = { ...health, lease, probeTimestamp: nowMs };
  }
  if (nowMs <= health.probeTimestamp + gracePeriodMs) return { health, gracePeriodMs, observedReady, currentReady: current };
  const update: Writable<Node> = structuredClone(node); // 4
  const stamp = rfc3339(now);
  update.status ??= {};
  update.status.conditions ??= [];
  for (const type of conditionsSetUnknown) {
    const c = getNodeCondition(update.status, type);
    if (!c) {
      update.status.conditions.push({
        type, status: 'Unknown', reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.',
        lastHeartbeatTime: node.metadata?.creationTimestamp, lastTransitionTime: stamp,
      });
    } else if (c.status !== 'Unknown') {
      Object.assign(c, { status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: stamp });
    }
  }
  const currentReady = getNodeCondition(update.status, 'Ready');
  if (conditionEqual(currentReady, observedReady)) return { health, gracePeriodMs, observedReady, currentReady };
  return { health, gracePeriodMs, observedReady, currentReady, update };
}

function conditionEqual(a: NodeCondition | undefined, b: NodeCondition): boolean {
  if (!a) return false;
  return a.status === b.status && (a.reason ?? '') === (b.reason ?? '') && (a.message ?? '') === (b.message ?? '')
    && ms(a.lastHeartbeatTime) === ms(b.lastHeartbeatTime) && ms(a.lastTransitionTime) === ms(b.lastTransitionTime);
}

/** Nodes with this label are left out of zone disruption checks. */
export const labelNodeDisruptionExclusion = 'node.kubernetes.io/exclude-disruption';

/** nodetopology.GetZoneKey: region and zone (GA labels, else beta), "" when neither. */
export function getZoneKey(node: Node): string {
  const l = node.metadata?.labels ?? {};
  const zone = l['topology.kubernetes.io/zone'] ?? l['failure-domain.beta.kubernetes.io/zone'] ?? '';
  const region = l['topology.kubernetes.io/region'] ?? l['failure-domain.beta.kubernetes.io/region'] ?? '';
  if (!region && !zone) return '';
  return `${region}:\x00:${zone}`;
}

export type ZoneState = 'Initial' | 'Normal' | 'FullDisruption' | 'PartialDisruption';

/**
 * ComputeZoneState: FullDisruption when no node is Ready (and some is not);
 * PartialDisruption when more than two are not Ready and they are at least
 * unhealthyZoneThreshold of the zone; Normal otherwise. Returns the not-Ready count too.
 */
export function computeZoneState(readyConditions: readonly (NodeCondition | undefined)[], unhealthyZoneThreshold: number): [number, ZoneState] {
  let ready = 0;
  let notReady = 0;
  for (const c of readyConditions) if (c?.status === 'True') ready++; else notReady++;
  if (ready === 0 && notReady > 0) return [notReady, 'FullDisruption'];
  if (notReady > 2 && notReady / (notReady + ready) >= unhealthyZoneThreshold) return [notReady, 'PartialDisruption'];
  return [notReady, 'Normal'];
}

/**
 * reconcileNodeLabels: the beta OS and arch labels follow the stable ones
 * (kubernetes.io/os → beta.kubernetes.io/os, kubernetes.io/arch →
 * beta.kubernetes.io/arch), added when missing. Returns the labels to set.
 */
export function labelsToReconcile(labels: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!labels) return out;
  for (const [primary, secondary] of [['kubernetes.io/os', 'beta.kubernetes.io/os'], ['kubernetes.io/arch', 'beta.kubernetes.io/arch']]) {
    if (!(primary in labels)) continue;
    if (labels[secondary] !== labels[primary]) out[secondary] = labels[primary];
  }
  return out;
}
