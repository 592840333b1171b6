/**
 * Nodes: NAME STATUS ROLES AGE VERSION [INTERNAL-IP EXTERNAL-IP OS-IMAGE
 * KERNEL-VERSION CONTAINER-RUNTIME], as upstream's printNode.
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import { ageColumn, column, docColumn, nameColumn } from './columns.js';
import { timestampSince } from './duration.js';
import type { KindPrinter, PrintContext, TableRow } from './types.js';

const LABEL_NODE_ROLE_PREFIX = 'node-role.kubernetes.io/';
const NODE_LABEL_ROLE = 'kubernetes.io/role';

/**
 * STATUS: "Ready" when the Ready condition is True, "NotReady" when it is False
 * or Unknown, "Unknown" when there is none; ",SchedulingDisabled" when cordoned.
 * Taints do not show here.
 */
export function nodeStatus(node: Node): string {
  let ready: string | undefined;
  for (const c of node.status?.conditions ?? []) if (c.type === 'Ready') ready = c.status; // the last one wins, as in upstream's map
  const status = [ready === undefined ? 'Unknown' : ready === 'True' ? 'Ready' : 'NotReady'];
  if (node.spec?.unschedulable) status.push('SchedulingDisabled');
  return status.join(',');
}

/**
 * findNodeRoles: every `node-role.kubernetes.io/<role>` label key (any value)
 * and the value of a non-empty `kubernetes.io/role` label, de-duplicated and sorted.
 */
export function findNodeRoles(node: Node): string[] {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(node.metadata?.labels ?? {})) {
    if (k.startsWith(LABEL_NODE_ROLE_PREFIX)) {
      const role = k.slice(LABEL_NODE_ROLE_PREFIX.length);
      if (role.length > 0) roles.add(role);
    } else if (k === NODE_LABEL_ROLE && v !== '') {
      roles.add(v);
    }
  }
  return [...roles].sort();
}

const address = (node: Node, type: string) =>
  (node.status?.addresses ?? []).find((a) => a.type === type)?.address ?? '<none>';

function printNode(node: Node, ctx: PrintContext): TableRow {
  const info = node.status?.nodeInfo;
  const roles = findNodeRoles(node).join(',') || '<none>';
  return {
    cells: [
      node.metadata?.name ?? '', nodeStatus(node), roles, timestampSince(node.metadata?.creationTimestamp, ctx.now), info?.kubeletVersion ?? '',
      address(node, 'InternalIP'), address(node, 'ExternalIP'),
      info?.osImage || '<unknown>', info?.kernelVersion || '<unknown>', info?.containerRuntimeVersion || '<unknown>',
    ],
  };
}

export const nodePrinter: KindPrinter = {
  columns: [
    nameColumn(),
    column('Status', 'The status of the node'),
    column('Roles', 'The roles of the node'),
    ageColumn(),
    docColumn('Version', 'corev1.NodeSystemInfo.kubeletVersion'),
    docColumn('Internal-IP', 'corev1.NodeStatus.addresses', { priority: 1 }),
    docColumn('External-IP', 'corev1.NodeStatus.addresses', { priority: 1 }),
    docColumn('OS-Image', 'corev1.NodeSystemInfo.osImage', { priority: 1 }),
    docColumn('Kernel-Version', 'corev1.NodeSystemInfo.kernelVersion', { priority: 1 }),
    docColumn('Container-Runtime', 'corev1.NodeSystemInfo.containerRuntimeVersion', { priority: 1 }),
  ],
  row: printNode,
};
