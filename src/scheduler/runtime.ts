/**
 * The framework runtime: runs one pod's scheduling cycle through the
 * extension points of framework.ts over the cache's NodeInfos (upstream
 * `schedule_one.go` schedulePod/findNodesThatFitPod/prioritizeNodes and
 * `framework/runtime`). Synchronous: nothing else runs during a cycle, so
 * the NodeInfos are a consistent snapshot without copying them.
 *
 *  1. No nodes: unschedulable, "no nodes available to schedule pods".
 *  2. PreFilter: a rejection applies to every node; NodeNames narrow the
 *     nodes, the rest counting as "node(s) didn't satisfy plugin(s) [..]".
 *  3. Filter: from a rotating start index, each node through the filters
 *     until the first rejection, stopping early once enough nodes are
 *     feasible (numFeasibleNodesToFind). (Evaluated in chunks of nodes and
 *     through the plugins' batch forms where they have them; the outcome is
 *     the node-by-node one.)
 *  4. None feasible: PostFilter (preemption's diagnosis) and the FitError
 *     message.
 *  5. One feasible node is taken as is; otherwise PreScore, Score,
 *     NormalizeScore, the weighted sum, and the highest total wins, ties
 *     broken uniformly at random.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  CycleState, isRejected, statusMessage, success, unresolvable, type Diagnosis, type FilterPlugin, type NodeBatch, type NodeScore,
  type Nomination, type PostFilterPlugin, type PreFilterPlugin, type PreScorePlugin, type Rejected, type RejectedCode, type ScorePlugin, type Status,
} from './framework.js';
import { fitErrorMessage, noNodesAvailableMsg } from './fiterror.js';
import { hotFields, NodeTable, type NodeInfo } from './nodeinfo.js';

export interface WeightedScorePlugin { readonly plugin: ScorePlugin; readonly weight: number }

export interface PluginSet {
  readonly preFilter: readonly PreFilterPlugin[];
  readonly filter: readonly FilterPlugin[];
  readonly postFilter: readonly PostFilterPlugin[];
  readonly preScore: readonly PreScorePlugin[];
  readonly score: readonly WeightedScorePlugin[];
}

export type ScheduleResult =
  | { readonly kind: 'Scheduled'; readonly node: NodeInfo; readonly evaluatedNodes: number; readonly feasibleNodes: number }
  | {
    readonly kind: 'Unschedulable'; readonly code: RejectedCode; readonly message: string; readonly unschedulablePlugins: ReadonlySet<string>;
    /** Preemption's choice: the node to nominate and the victims to evict there. */
    readonly nomination?: Nomination;
  }
  | { readonly kind: 'Error'; readonly message: string };

/**
 * The nodes the cycle sees: all of them in a stable order, and lookup by
 * name. A snapshot whose nodes share one NodeTable gives it, with each list
 * entry's slot (the cache does); otherwise the cycle copies the rows.
 */
export interface NodeSnapshot {
  readonly list: readonly NodeInfo[];
  get(name: string): NodeInfo | undefined;
  readonly table?: NodeTable;
  readonly slots?: readonly number[];
}

/** Nodes with their Hot rows in one table: the snapshot's own, or a copy. */
interface Rows { readonly nodes: readonly NodeInfo[]; readonly slots: ArrayLike<number>; readonly data: Float64Array }

function rowsOf(nodes: readonly NodeInfo[], snapshot: NodeSnapshot, full: boolean): Rows {
  const table = snapshot.table;
  if (table && full && snapshot.slots) return { nodes, slots: snapshot.slots, data: table.data };
  if (table && nodes.every((n) => n.table === table)) return { nodes, slots: nodes.map((n) => n.slot), data: table.data };
  const copy = new NodeTable(nodes.length);
  const slots = nodes.map((n) => {
    const slot = copy.alloc();
    for (let f = 0; f < hotFields; f++) copy.data[slot * hotFields + f] = n.hot(f);
    return slot;
  });
  return { nodes, slots, data: copy.data };
}

export const minFeasibleNodesToFind = 100;
const filterChunk = 32;
export const minFeasibleNodesPercentageToFind = 5;

/**
 * numFeasibleNodesToFind: all nodes below 100; else the percentage (adaptive
 * when 0: 50 - nodes/125, at least 5) of the nodes, at least 100.
 */
export function numFeasibleNodesToFind(percentageOfNodesToScore: number, numAllNodes: number): number {
  if (numAllNodes < minFeasibleNodesToFind) return numAllNodes;
  let percentage = percentageOfNodesToScore;
  if (percentage <= 0) percentage = Math.max(minFeasibleNodesPercentageToFind, 50 - Math.trunc(numAllNodes / 125));
  if (percentage >= 100) return numAllNodes;
  const n = Math.trunc((numAllNodes * percentage) / 100);
  return n < minFeasibleNodesToFind ? minFeasibleNodesToFind : n;
}

export interface FrameworkOptions {
  /** 0 (default): adaptive, as upstream. */
  percentageOfNodesToScore?: number;
  /** Tie-breaking among equal best scores; Math.random by default. */
  random?: () => number;
  /** Pending pods nominated to nodes by preemption (their room is kept for them). */
  nominated?: NominatedPods;
}

/** The pods preemption nominated, by node. */
export interface NominatedPods {
  readonly size: number;
  podsOn(nodeName: string): readonly Pod[];
}

class PooledNodeScore implements NodeScore {
  score = 0;
  constructor(private readonly owner: Framework, private readonly index: number) {}
  get name(): string { return this.owner.scoredNodes[this.index].name; }
}

const newDiagnosis = (): Diagnosis => ({ nodeToStatus: new Map(), unschedulablePlugins: new Set(), preFilterMsg: '', postFilterMsg: '' });

export class Framework {
  private nextStartNodeIndex = 0;
  private readonly scorePool: NodeScore[] = [];
  /** The nodes the pooled NodeScores of the current cycle stand for. */
  scoredNodes: readonly NodeInfo[] = [];
  /** Scratch space of the filter loop, reused from cycle to cycle. */
  private readonly filterBuffers = {
    chunk: new Array<NodeInfo>(filterChunk), chunkSlots: new Int32Array(filterChunk),
    standing: new Array<NodeInfo>(filterChunk), standingSlots: new Int32Array(filterChunk),
    index: new Int32Array(filterChunk), rejectedBy: new Int32Array(filterChunk),
    statuses: new Array<Status>(filterChunk).fill(success), out: new Array<Status>(filterChunk).fill(success),
  };
  /**
   * The NodeBatch handed to each filterNodes call, its members set per call: an object literal
   * per plugin and chunk was about 3.5 KB of garbage a pod at 5,000 nodes (16 chunks of 32, four
   * batched filters), a tenth of the cycle's allocation. Plugins read a batch during the call only.
   */
  private readonly chunkBatch: { nodes: readonly NodeInfo[]; slots: Int32Array; data: Float64Array; count: number } = {
    nodes: [], slots: new Int32Array(0), data: new Float64Array(0), count: 0,
  };
  /**
   * The feasible nodes' rows and the score arrays of a cycle, reused from cycle to cycle (a cycle
   * is synchronous and hands on only the chosen NodeInfo); grown to the largest cycle seen.
   */
  private feasibleSlots: Int32Array = new Int32Array(minFeasibleNodesToFind);
  private readonly feasibleNodes: NodeInfo[] = [];
  private totals = new Float64Array(minFeasibleNodesToFind);
  private raw = new Float64Array(minFeasibleNodesToFind);
  private readonly percentage: number;
  private readonly random: () => number;
  private readonly nominated?: NominatedPods;

  constructor(readonly plugins: PluginSet, opts: FrameworkOptions = {}) {
    this.percentage = opts.percentageOfNodesToScore ?? 0;
    this.random = opts.random ?? Math.random;
    this.nominated = opts.nominated;
  }

  schedulePod(pod: Pod, nodes: NodeSnapshot): ScheduleResult {
    const all = nodes.list;
    if (all.length === 0) return { kind: 'Unschedulable', code: 'UnschedulableAndUnresolvable', message: noNodesAvailableMsg, unschedulablePlugins: new Set() }; // 1
    const state = new CycleState();
    const diagnosis = newDiagnosis();
    const pre = this.runPreFilter(state, pod, nodes, diagnosis); // 2
    if (pre.kind === 'Error') return pre;
    let feasible: NodeInfo[] = [];
    let feasibleSlots: Int32Array = this.feasibleSlots;
    let data: Float64Array | undefined;
    let evaluated = 0;
    if (pre.kind === 'Nodes') {
      const filters = this.plugins.filter.filter((p) => !state.skipFilter.has(p.name));
      const rows = rowsOf(pre.nodes, nodes, pre.nodes === all);
      const r = this.findNodesThatPassFilters(state, pod, rows, all.length, filters, diagnosis); // 3
      if ('error' in r) return { kind: 'Error', message: r.error };
      ({ feasible, feasibleSlots, evaluated } = r);
      data = rows.data;
    }
    if (this.nominated?.size && feasible.length > 0) ({ feasible, feasibleSlots } = this.keepRoomForNominated(state, pod, feasible, feasibleSlots, diagnosis));
    if (feasible.length === 0 || !data) return this.fitError(state, pod, all, diagnosis); // 4
    if (feasible.length === 1) return { kind: 'Scheduled', node: feasible[0], evaluatedNodes: evaluated, feasibleNodes: 1 }; // 5
    const chosen = this.prioritize(state, pod, nodes, { nodes: feasible, slots: feasibleSlots, data, count: feasible.length });
    return { kind: 'Scheduled', node: chosen, evaluatedNodes: evaluated, feasibleNodes: feasible.length };
  }

  /** Runs the filters on one node as a cycle would (also preemption's dry run). */
  runFilters(state: CycleState, pod: Pod, node: NodeInfo, filters: readonly FilterPlugin[] = this.plugins.filter): { status: Status; plugin?: string } {
    for (const p of filters) {
      if (state.skipFilter.has(p.name)) continue;
      const s = p.filter(state, pod, node);
      if (s.code !== 'Success') return { status: s, plugin: p.name };
    }
    return { status: success };
  }

  private runPreFilter(state: CycleState, pod: Pod, nodes: NodeSnapshot, d: Diagnosis):
    { kind: 'Nodes'; nodes: readonly NodeInfo[] } | { kind: 'Rejected' } | { kind: 'Error'; message: string } {
    let names: Set<string> | undefined;
    const narrowing: string[] = [];
    for (const p of this.plugins.preFilter) {
      const { status, result } = p.preFilter(state, pod, nodes);
      if (status.code === 'Skip') { state.skipFilter.add(p.name); continue; }
      if (status.code === 'Error') return { kind: 'Error', message: `running PreFilter plugin "${p.name}": ${status.message}` };
      if (isRejected(status)) return this.preFilterRejected(d, status, [p.name]);
      if (!result?.nodeNames) continue;
      narrowing.push(p.name);
      names = names ? new Set([...names].filter((n) => result.nodeNames!.has(n))) : new Set(result.nodeNames);
      if (names.size === 0) {
        const msg = narrowing.length === 1 ? `node(s) didn't satisfy plugin ${narrowing[0]}` : `node(s) didn't satisfy plugin(s) [${narrowing.join(' ')}] simultaneously`;
        return this.preFilterRejected(d, unresolvable(msg), narrowing);
      }
    }
    if (!names) return { kind: 'Nodes', nodes: nodes.list };
    const list: NodeInfo[] = [];
    for (const n of names) {
      const info = nodes.get(n);
      if (info?.node) list.push(info);
    }
    const sorted = [...narrowing].sort();
    d.absentNodesStatus = { status: unresolvable(`node(s) didn't satisfy plugin(s) [${sorted.join(' ')}]`), plugin: sorted.join(',') };
    for (const n of narrowing) d.unschedulablePlugins.add(n);
    return { kind: 'Nodes', nodes: list };
  }

  /** Every node gets the PreFilter's status; its message replaces the per-node histogram. */
  private preFilterRejected(d: Diagnosis, status: Rejected, plugins: string[]): { kind: 'Rejected' } {
    d.absentNodesStatus = { status, plugin: plugins.join(',') };
    d.preFilterMsg = statusMessage(status);
    for (const p of plugins) d.unschedulablePlugins.add(p);
    return { kind: 'Rejected' };
  }

  /**
   * The filter loop. Nodes are taken in chunks of 32 from the rotating start
   * index; each filter runs over the chunk's nodes still standing (batched
   * through filterNodes when the plugin has it), so a node's status is that
   * of the first filter rejecting it, exactly as node-by-node evaluation
   * gives. Feasible nodes are then taken in node order until enough are
   * found; nodes after that point in the last chunk are not counted.
   * While no filter has rejected a node of the chunk (the common case) the
   * chunk is what stands: the bookkeeping of rejections starts at the first one.
   */
  private findNodesThatPassFilters(state: CycleState, pod: Pod, rows: Rows, numAll: number, filters: readonly FilterPlugin[], d: Diagnosis):
    { feasible: NodeInfo[]; feasibleSlots: Int32Array; evaluated: number } | { error: string } {
    const { nodes, slots } = rows;
    const n = nodes.length;
    const toFind = numFeasibleNodesToFind(this.percentage, n);
    // The array of the last cycle, written from the start and cut to the count at the end: built by push
    // it grew its backing store seven times to 500 nodes, about 15 KB of garbage per pod (a third of the
    // scheduler's allocation in bench/scheduler.ts) and of young-generation collections.
    const feasible = this.feasibleNodes;
    let count = 0;
    if (this.feasibleSlots.length < toFind) this.feasibleSlots = new Int32Array(toFind);
    const feasibleSlots = this.feasibleSlots;
    const start = this.nextStartNodeIndex;
    const b = this.filterBuffers;
    let processed = 0;
    let at = start % Math.max(1, n);
    outer: for (let i = 0; i < n && count < toFind; i += filterChunk) {
      const m = Math.min(filterChunk, n - i);
      for (let k = 0; k < m; k++) {
        b.chunk[k] = nodes[at];
        b.chunkSlots[k] = slots[at];
        if (++at === n) at = 0;
      }
      const alive = this.filterChunk(state, pod, rows.data, filters, m);
      if (alive === m && b.rejectedBy[0] === -2) { // nothing rejected in the chunk: every node of it is feasible
        for (let k = 0; k < m; k++) {
          processed++;
          feasibleSlots[count] = b.chunkSlots[k];
          feasible[count++] = b.chunk[k];
          if (count >= toFind) break outer;
        }
        continue;
      }
      for (let k = 0; k < m; k++) {
        processed++;
        const j = b.rejectedBy[k];
        if (j < 0) {
          feasibleSlots[count] = b.chunkSlots[k];
          feasible[count++] = b.chunk[k];
          if (count >= toFind) break outer;
          continue;
        }
        const status = b.statuses[k];
        const plugin = filters[j].name;
        if (status.code === 'Error') return { error: `running "${plugin}" filter plugin: ${status.message}` };
        if (!isRejected(status)) continue;
        d.nodeToStatus.set(b.chunk[k].name, { status, plugin });
        d.unschedulablePlugins.add(plugin);
      }
    }
    this.nextStartNodeIndex = numAll ? (start + processed) % numAll : 0;
    feasible.length = count;
    return { feasible, feasibleSlots, evaluated: processed };
  }

  /**
   * Runs the filters over the chunk's m nodes (filterBuffers.chunk/chunkSlots) and returns how
   * many passed them all. rejectedBy[0] is -2 when none was rejected (rejectedBy and statuses
   * are then not written); otherwise rejectedBy[k] is the index of the filter that rejected
   * node k (-1: none) and statuses[k] its status.
   */
  private filterChunk(state: CycleState, pod: Pod, data: Float64Array, filters: readonly FilterPlugin[], m: number): number {
    const b = this.filterBuffers;
    let nodes = b.chunk;
    let slots = b.chunkSlots;
    let alive = m;
    let tracking = false;
    for (let j = 0; j < filters.length && alive > 0; j++) {
      const f = filters[j];
      let rejected = 0;
      if (f.filterNodes) {
        const batch = this.chunkBatch;
        batch.nodes = nodes; batch.slots = slots; batch.data = data; batch.count = alive;
        rejected = f.filterNodes(state, pod, batch, b.out);
      } else {
        for (let a = 0; a < alive; a++) {
          const s = f.filter(state, pod, nodes[a]);
          b.out[a] = s;
          if (s.code !== 'Success') rejected++;
        }
      }
      if (rejected === 0) continue; // all passed: nothing to compact
      if (!tracking) { // the chunk's first rejection: standing nodes are tracked from here on
        tracking = true;
        for (let k = 0; k < m; k++) { b.index[k] = k; b.rejectedBy[k] = -1; }
      }
      let w = 0;
      for (let a = 0; a < alive; a++) {
        const s = b.out[a];
        if (s.code === 'Success') {
          b.standing[w] = nodes[a];
          b.standingSlots[w] = slots[a];
          b.index[w++] = b.index[a];
          continue;
        }
        b.rejectedBy[b.index[a]] = j;
        b.statuses[b.index[a]] = s;
      }
      nodes = b.standing;
      slots = b.standingSlots;
      alive = w;
    }
    if (!tracking) b.rejectedBy[0] = -2;
    return alive;
  }

  /**
   * RunFilterPluginsWithNominatedPods, second pass: a node still fits only if
   * the pod also fits beside the pods nominated there with a priority at
   * least its own, so a preemptor's room is not taken by lesser pods.
   */
  private keepRoomForNominated(state: CycleState, pod: Pod, feasible: NodeInfo[], slots: Int32Array, d: Diagnosis): { feasible: NodeInfo[]; feasibleSlots: Int32Array } {
    const priority = pod.spec?.priority ?? 0;
    const out = { feasible: [] as NodeInfo[], feasibleSlots: new Int32Array(feasible.length) };
    feasible.forEach((node, i) => {
      const others = this.nominated!.podsOn(node.name).filter((p) => p.metadata!.uid !== pod.metadata?.uid && (p.spec?.priority ?? 0) >= priority);
      if (others.length > 0) {
        const copy = node.clone();
        for (const p of others) copy.addPod(`${p.metadata!.namespace}/${p.metadata!.name}`, p);
        const r = this.runFilters(state, pod, copy);
        if (isRejected(r.status)) { d.nodeToStatus.set(node.name, { status: r.status, plugin: r.plugin ?? '' }); return; }
      }
      out.feasibleSlots[out.feasible.length] = slots[i];
      out.feasible.push(node);
    });
    return out;
  }

  private fitError(state: CycleState, pod: Pod, all: readonly NodeInfo[], d: Diagnosis): ScheduleResult {
    let nomination: Nomination | undefined;
    for (const p of this.plugins.postFilter) {
      const r = p.postFilter(pod, d, all, (pd, node) => this.runFilters(state, pd, node).status);
      const s = r.status;
      if (s.code === 'Success') { nomination = r.nomination; break; }
      if (s.code === 'Error') return { kind: 'Error', message: `running PostFilter plugin "${p.name}": ${s.message}` };
      const msg = statusMessage(s);
      if (msg) d.postFilterMsg = msg;
    }
    return { kind: 'Unschedulable', code: 'Unschedulable', message: fitErrorMessage(all.length, d), unschedulablePlugins: d.unschedulablePlugins, nomination };
  }

  /**
   * prioritizeNodes + selectHost: per plugin the raw scores (batched when the
   * plugin offers scoreNodes), normalized when it has NormalizeScore, then
   * added to the totals with its weight.
   */
  private prioritize(state: CycleState, pod: Pod, all: NodeSnapshot, batch: NodeBatch): NodeInfo {
    const feasible = batch.nodes;
    for (const p of this.plugins.preScore) {
      if (p.preScore(state, pod, feasible, all).code === 'Skip') state.skipScore.add(p.name);
    }
    const n = batch.count;
    if (this.totals.length < n) { this.totals = new Float64Array(n); this.raw = new Float64Array(n); }
    const totals = this.totals.fill(0, 0, n);
    const raw = this.raw;
    let scores: NodeScore[] | undefined;
    for (const { plugin, weight } of this.plugins.score) {
      if (state.skipScore.has(plugin.name)) continue;
      if (plugin.scoreNodes) plugin.scoreNodes(state, pod, batch, raw);
      else for (let i = 0; i < n; i++) raw[i] = plugin.score(state, pod, feasible[i]);
      if (plugin.normalizeScores) plugin.normalizeScores(state, pod, raw, n);
      else if (plugin.normalizeScore) {
        scores ??= this.nodeScores(feasible);
        for (let i = 0; i < n; i++) scores[i].score = raw[i];
        plugin.normalizeScore(state, pod, scores);
        for (let i = 0; i < n; i++) raw[i] = scores[i].score;
      }
      for (let i = 0; i < n; i++) totals[i] += raw[i] * weight;
    }
    return feasible[this.selectHost(totals, n)];
  }

  /**
   * NodeScore entries for the nodes, reused from cycle to cycle (scoring
   * allocates nothing per node); an entry's name is looked up only if asked.
   */
  private nodeScores(nodes: readonly NodeInfo[]): NodeScore[] {
    this.scoredNodes = nodes;
    while (this.scorePool.length < nodes.length) this.scorePool.push(new PooledNodeScore(this, this.scorePool.length));
    return this.scorePool.length === nodes.length ? this.scorePool : this.scorePool.slice(0, nodes.length);
  }

  /**
   * The index of the highest of totals[0..n); among equal ones each is equally likely, as
   * upstream's reservoir sampling gives, with one random draw: the ties are counted, then the
   * draw picks one of them. A draw r picks what the reservoir picks when every draw is r
   * (0 the last tie, just under 1 the first), so a fixed `random` chooses as before.
   */
  private selectHost(totals: Float64Array, n: number): number {
    let max = totals[0];
    let ties = 1;
    for (let i = 1; i < n; i++) {
      const t = totals[i];
      if (t > max) { max = t; ties = 1; } else if (t === max) ties++;
    }
    let skip = ties - 1 - Math.floor(this.random() * ties); // ties to pass over before the chosen one
    for (let i = 0; i < n; i++) {
      if (totals[i] !== max) continue;
      if (skip-- === 0) return i;
    }
    return 0;
  }
}
