/** Nodes: upstream lets a registering kubelet set status on create. */
import type { ResourceInfo } from '../../api/resources.js';
import type { Strategy } from '../strategy.js';
import { genericStrategy } from './generic.js';

export function nodeStrategy(info: ResourceInfo): Strategy {
  const base = genericStrategy(info);
  return {
    ...base,
    prepareForCreate(obj) {
      const status = obj.status;
      base.prepareForCreate(obj);
      if (status !== undefined) obj.status = status;
    },
  };
}
