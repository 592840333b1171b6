/**
 * CPU of the planning a DaemonSet sync repeats over every node (issue #20): the pods grouped by
 * node, then manage's plan (planManage), the rolling update's (planRollingUpdate) and the status
 * numbers (computeStatus), each pass over the same cached nodes and pods, as syncDaemonSet runs
 * them (src/controllers/daemonset/controller.ts). The cluster is a rollout's middle: 5,000 nodes
 * (the scale) as the simulator registers them, half with a Running and Ready daemon pod of
 * the current revision, the rest with none. In a fresh process per build and round, without a server:
 * `--batches` batches of `--batch` syncs, the first five unmeasured; CPU (process.cpuUsage) per
 * sync, median of the batches, then of the rounds. With `--baseline-dist` another build's
 * planning runs the same rounds, interleaved with this one's.
 *
 *   node dist/bench/ds-sync-plan.js [--rounds 5] [--batches 15] [--batch 20] [--baseline-dist /tmp/base/dist]
 *
 * Prints a Markdown table; results are copied into bench/RESULTS.md by hand.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { daemonSetPod } from './lib/pods.js';
import { median } from './lib/stats.js';
import { buildRoundsMain } from './lib/builds-in-children.js';

interface PlanModule {
  groupByNode(pods: readonly Pod[], target: (p: Pod) => string | undefined): Map<string, Pod[]>;
  targetNodeName(pod: Pod): string | undefined;
  planManage(nodes: readonly Node[], byNode: Map<string, Pod[]>, ctx: object): unknown;
  planRollingUpdate(nodes: readonly Node[], byNode: Map<string, Pod[]>, ctx: object): unknown;
  computeStatus(nodes: readonly Node[], byNode: Map<string, Pod[]>, ctx: object): unknown;
}

const hash = '6d5f7c9b8d';
const nodes = 5000;

/** The DaemonSet the pods of bench/lib/pods.ts belong to (its template's tolerations: control-plane nodes). */
function daemonSet(): DaemonSet {
  const labels = { 'app.kubernetes.io/name': 'node-exporter', 'app.kubernetes.io/part-of': 'monitoring' };
  return {
    apiVersion: 'apps/v1', kind: 'DaemonSet',
    metadata: { name: 'node-exporter', namespace: 'monitoring', uid: '3f1c2a7e-8b1d-4c55-9d0e-5a6b7c8d9e0f', generation: 1, annotations: { 'deprecated.daemonset.template.generation': '1' } },
    spec: {
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'node-exporter', image: 'quay.io/prometheus/node-exporter:v1.8.2' }], tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }] } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
    },
  };
}

/** A simulated node as its agent registers it (labels of agent.ts's initialNode). */
function node(i: number): Node {
  const name = `node-${i}`;
  return {
    apiVersion: 'v1', kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/os': 'linux', 'beta.kubernetes.io/arch': 'amd64' } },
    spec: { podCIDR: `10.244.${i % 256}.0/24` },
  };
}

/** A daemon pod bound to its node, Running and Ready. */
function runningPod(i: number): Pod {
  const pod = daemonSetPod('monitoring', `node-exporter-${i}`, `node-${i}`) as Pod;
  return {
    ...pod, metadata: { ...pod.metadata, creationTimestamp: '2026-12-05T21:00:00Z' }, spec: { ...pod.spec!, nodeName: `node-${i}` },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-12-05T21:00:01Z' }] },
  };
}

/** One round in this process: µs of CPU per sync's planning, the median of the measured batches. */
async function child(dist: string, batches: number, batch: number): Promise<number> {
  const m = await import(pathToFileURL(join(dist, 'src', 'controllers', 'daemonset', 'index.js')).href) as PlanModule;
  // Parsed, as an informer's objects are.
  const nodeList = JSON.parse(JSON.stringify(Array.from({ length: nodes }, (_, i) => node(i)))) as Node[];
  const pods = JSON.parse(JSON.stringify(Array.from({ length: Math.floor(nodes / 2) }, (_, i) => runningPod(2 * i)))) as Pod[];
  const ctx = { ds: daemonSet(), hash, now: new Date('2026-12-05T21:01:00Z') };
  const sync = () => {
    m.planManage(nodeList, m.groupByNode(pods, m.targetNodeName), ctx);
    m.planRollingUpdate(nodeList, m.groupByNode(pods, m.targetNodeName), ctx);
    m.computeStatus(nodeList, m.groupByNode(pods, m.targetNodeName), ctx);
  };
  const perSync: number[] = [];
  for (let b = 0; b < batches; b++) {
    const t0 = process.cpuUsage();
    for (let i = 0; i < batch; i++) sync();
    const t = process.cpuUsage(t0);
    if (b >= 5) perSync.push((t.user + t.system) / batch);
  }
  return median(perSync);
}

await buildRoundsMain({
  script: import.meta.url, description: 'CPU of a DaemonSet sync\'s planning passes over every node (manage, rolling update, status), in a fresh process per build and round.',
  defaults: { rounds: '5', batches: '15', batch: '20' }, child,
  title: `ds-sync-plan (${nodes} nodes, half with a daemon pod)`, column: 'CPU µs per sync (median)', digits: 0, unit: 'syncs',
});
