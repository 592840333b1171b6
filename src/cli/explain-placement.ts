/**
 * `k8ts explain-placement POD [-n NS] [--kubeconfig F]`: the verdict of each
 * scheduler filter on each node for a pod, as a table; the same computation
 * (src/dashboard/placement.ts) the dashboard shows, read with the
 * kubeconfig's credentials so RBAC applies.
 */
import { parseArgs } from 'node:util';
import { Clientset, ApiError, loadKubeconfig } from '../client/index.js';
import { readPlacement } from '../dashboard/read-placement.js';
import type { Placement } from '../dashboard/placement.js';

export const explainPlacementHelp = `Show why a pod is (or is not) placed on each node: every scheduler filter's verdict on every node.

Usage:
  k8ts explain-placement POD [-n NAMESPACE] [--kubeconfig FILE]

The filters are the scheduler's own (NodeUnschedulable, NodeName, TaintToleration,
NodeAffinity, NodePorts, NodeResourcesFit), run on every node with the pod taken
off its own node, and their reasons are upstream's words
(e.g. "node(s) had untolerated taint {key: value}", "Insufficient cpu").
--kubeconfig defaults to $KUBECONFIG, then ./.k8ts/admin.conf.`;

export async function runExplainPlacement(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args, strict: true, allowPositionals: true,
    options: { namespace: { type: 'string', short: 'n', default: 'default' }, kubeconfig: { type: 'string' } },
  });
  if (positionals.length !== 1) { console.error('Error: exactly one pod name is required\nUsage: k8ts explain-placement POD [-n NAMESPACE]'); return 1; }
  const kubeconfig = values.kubeconfig ?? process.env.KUBECONFIG ?? '.k8ts/admin.conf';
  const clients = new Clientset(loadKubeconfig(kubeconfig), { userAgent: 'k8ts-explain-placement' });
  try {
    console.log(placementTable(await readPlacement(clients, values.namespace!, positionals[0])));
    return 0;
  } catch (err) {
    // The API's words, as kubectl prints them.
    if (err instanceof ApiError) { console.error(`Error from server (${err.reason || err.code}): ${err.message}`); return 1; }
    throw err;
  } finally {
    clients.close();
  }
}

/** One row per node and filter, kubectl-style columns padded to their widest cell. */
export function placementTable(p: Placement): string {
  const rows = [['NODE', 'FILTER', 'VERDICT', 'REASON']];
  for (const n of p.nodes) {
    for (const f of n.filters) rows.push([n.node + (n.node === p.pod.nodeName ? ' (current)' : ''), f.filter, f.verdict, f.reasons.join(', ') || '-']);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const lines = rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] + 3))).join('').trimEnd());
  const fits = p.nodes.filter((n) => n.fits).map((n) => n.node);
  lines.push('', `pod ${p.pod.namespace}/${p.pod.name} fits ${fits.length}/${p.nodes.length} nodes${fits.length ? `: ${fits.join(', ')}` : ''}`);
  return lines.join('\n');
}
