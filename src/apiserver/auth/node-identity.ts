/**
 * Which node a request comes from (upstream's nodeidentifier): a user named
 * `system:node:<name>` in the `system:nodes` group. Anyone else is not a node;
 * `system:node:` with no name is a node we cannot name.
 */
import type { UserInfo } from './types.js';

export const nodesGroup = 'system:nodes';
export const nodeUserPrefix = 'system:node:';

export interface NodeIdentity { isNode: boolean; nodeName: string }

export function nodeIdentity(user: UserInfo | undefined): NodeIdentity {
  if (!user || !user.name.startsWith(nodeUserPrefix) || !user.groups.includes(nodesGroup)) return { isNode: false, nodeName: '' };
  return { isNode: true, nodeName: user.name.slice(nodeUserPrefix.length) };
}
