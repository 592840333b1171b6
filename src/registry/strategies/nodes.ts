/**
 * Nodes: upstream lets a registering kubelet set status on create, and its v1
 * conversion keeps the legacy spec.podCIDR and spec.podCIDRs in step (a
 * client that sets one reads both back).
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import type { ResourceInfo } from '../../api/resources.js';
import type { Strategy } from '../strategy.js';
import { genericStrategy } from './generic.js';

function syncPodCIDRs(node: Node): void {
  const spec = node.spec;
  if (!spec) return;
  if (spec.podCIDR && !spec.podCIDRs?.length) spec.podCIDRs = [spec.podCIDR];
  else if (!spec.podCIDR && spec.podCIDRs?.length) spec.podCIDR = spec.podCIDRs[0];
}

export function nodeStrategy(info: ResourceInfo): Strategy {
  const base = genericStrategy(info);
  return {
    ...base,
    applyDefaults(obj) {
      base.applyDefaults(obj);
      syncPodCIDRs(obj);
    },
    prepareForCreate(obj) {
      const status = obj.status;
      base.prepareForCreate(obj);
      if (status !== undefined) obj.status = status;
    },
  };
}
