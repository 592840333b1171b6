/**
 * Deployments (upstream pkg/registry/apps/deployment/strategy.go): an update
 * bumps the generation when the spec or the annotations change, because
 * annotations are copied from a Deployment to its ReplicaSets (a new
 * kubernetes.io/change-cause must be observed by the controller).
 */
import type { ResourceInfo } from '../../api/resources.js';
import type { Strategy } from '../strategy.js';
import { genericStrategy } from './generic.js';
import { specOf, stableStringify } from '../meta.js';

export function deploymentStrategy(info: ResourceInfo): Strategy {
  const base = genericStrategy(info);
  return {
    ...base,
    prepareForUpdate(obj, old) {
      base.prepareForUpdate(obj, old);
      const oldGen = old.metadata.generation ?? 1;
      const annotationsChanged = stableStringify(obj.metadata.annotations ?? {}) !== stableStringify(old.metadata.annotations ?? {});
      if (annotationsChanged && specOf(obj) === specOf(old)) obj.metadata.generation = oldGen + 1;
    },
  };
}
