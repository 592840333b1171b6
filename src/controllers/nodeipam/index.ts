/** The node IPAM controller's factory: idle unless --allocate-node-cidrs, as upstream. */
import type { Controller, ControllerFactory } from '../types.js';
import { NodeIPAMController } from './controller.js';
import { CIDRSet } from './cidrset.js';

export { NodeIPAMController, controllerName } from './controller.js';
export { CIDRSet, parseCIDR, formatCIDR } from './cidrset.js';

/** One subnet set per cluster CIDR (dual stack: one IPv4, one IPv6), each cut by its family's mask size. */
export function clusterCIDRSets(clusterCIDRs: string[], maskIPv4: number, maskIPv6: number): CIDRSet[] {
  return clusterCIDRs.map((c) => new CIDRSet(c, c.includes(':') ? maskIPv6 : maskIPv4));
}

export const nodeIPAMController: ControllerFactory = (ctx): Controller => {
  const { allocateNodeCIDRs, clusterCIDRs, nodeCIDRMaskSizeIPv4, nodeCIDRMaskSizeIPv6 } = ctx.config;
  if (!allocateNodeCIDRs || clusterCIDRs.length === 0) return { name: 'nodeipam', run: () => {}, stop: () => {} };
  return new NodeIPAMController(ctx, clusterCIDRSets(clusterCIDRs, nodeCIDRMaskSizeIPv4, nodeCIDRMaskSizeIPv6));
};
