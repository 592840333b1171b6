/**
 * Kinds whose status starts with a fixed value (PersistentVolume and claim:
 * Pending until bound; CSR: empty until approved and signed; Service: an
 * empty loadBalancer).
 */
import type { ResourceInfo } from '../../api/resources.js';
import type { Strategy } from '../strategy.js';
import { genericStrategy } from './generic.js';

export function initialStatusStrategy(info: ResourceInfo, initial: () => any, overrides: Partial<Strategy> = {}): Strategy {
  const base = genericStrategy(info, overrides);
  return {
    ...base,
    prepareForCreate(obj) {
      base.prepareForCreate(obj);
      obj.status = initial();
    },
  };
}
