/**
 * "Why here, why not there": the verdict of every scheduler filter plugin on
 * every node for one pod, computed with the scheduler's own plugins (the
 * default profile, src/scheduler/profile.ts), so it cannot disagree with the
 * scheduler. Upstream folds these verdicts into one FitError message
 * (`0/3 nodes are available: 1 node(s) had untolerated taint {...}, ...`);
 * here each node keeps its own list, and every filter runs on every node
 * (the scheduler stops at a node's first rejection; a user wants them all).
 *
 * A pod already on a node is judged as if it were pending again: its own
 * requests and host ports are taken out of its node's totals, and its
 * spec.nodeName (the binding's result) is cleared, so NodeName does not
 * reject every other node. A pod created with spec.nodeName never met the
 * scheduler; its verdicts say where the scheduler would have allowed it.
 */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { CycleState, isRejected, type Status } from '../scheduler/framework.js';
import { NodeInfo } from '../scheduler/nodeinfo.js';
import { defaultProfile } from '../scheduler/profile.js';

export type Verdict = 'Pass' | 'Fail' | 'Skip' | 'Error';

export interface FilterVerdict {
  /** The plugin's upstream name (TaintToleration, NodeResourcesFit, ...). */
  readonly filter: string;
  readonly verdict: Verdict;
  /** Upstream's reason texts for a Fail (`Insufficient cpu`), the message of an Error. */
  readonly reasons: readonly string[];
}

export interface NodePlacement {
  readonly node: string;
  /** True when every filter passes: the scheduler may pick this node. */
  readonly fits: boolean;
  readonly filters: readonly FilterVerdict[];
}

export interface Placement {
  readonly pod: { readonly namespace: string; readonly name: string; readonly nodeName?: string };
  readonly nodes: readonly NodePlacement[];
}

const podKey = (p: Pod) => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`;

/** NodeInfos as the scheduler cache would hold them, without `pod` itself. */
export function nodeInfosFor(pod: Pod, nodes: readonly Node[], assigned: readonly Pod[]): NodeInfo[] {
  const byName = new Map<string, NodeInfo>();
  for (const n of nodes) {
    const info = new NodeInfo(n.metadata!.name!);
    info.setNode(n);
    byName.set(info.name, info);
  }
  const self = podKey(pod);
  for (const p of assigned) {
    const key = podKey(p);
    // Pods that have finished hold no resources (the scheduler cache drops them too).
    if (key === self || p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') continue;
    byName.get(p.spec?.nodeName ?? '')?.addPod(key, p);
  }
  return [...byName.values()];
}

const verdictOf = (filter: string, s: Status): FilterVerdict => {
  if (isRejected(s)) return { filter, verdict: 'Fail', reasons: s.reasons };
  if (s.code === 'Error') return { filter, verdict: 'Error', reasons: [s.message] };
  return { filter, verdict: s.code === 'Skip' ? 'Skip' : 'Pass', reasons: [] };
};

/**
 * Runs the profile's PreFilter plugins once, then every Filter plugin on
 * every node. A PreFilter that rejects the pod is that plugin's verdict on
 * every node (upstream gives every node the PreFilter's status); one that
 * answers Skip makes its Filter a Skip (upstream skips it).
 */
export function explainPlacement(bound: Pod, nodes: readonly Node[], assigned: readonly Pod[]): Placement {
  const { plugins } = defaultProfile();
  const pod: Pod = { ...bound, spec: { ...bound.spec!, nodeName: undefined } };
  const state = new CycleState();
  const preRejected = new Map<string, Status>();
  const infos = nodeInfosFor(pod, nodes, assigned);
  for (const p of plugins.preFilter) {
    const { status } = p.preFilter(state, pod, { list: infos });
    if (status.code === 'Skip') state.skipFilter.add(p.name);
    else if (status.code !== 'Success') preRejected.set(p.name, status);
  }
  const placements = infos.map((info): NodePlacement => {
    const filters = plugins.filter.map((f) => {
      if (state.skipFilter.has(f.name)) return verdictOf(f.name, { code: 'Skip' });
      return verdictOf(f.name, preRejected.get(f.name) ?? f.filter(state, pod, info));
    });
    return { node: info.name, fits: filters.every((v) => v.verdict === 'Pass' || v.verdict === 'Skip'), filters };
  });
  const meta = bound.metadata ?? {};
  return { pod: { namespace: meta.namespace ?? '', name: meta.name ?? '', nodeName: bound.spec?.nodeName || undefined }, nodes: placements };
}
