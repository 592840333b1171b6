/**
 * Namespaces: phase Active at creation; deletion moves them to Terminating and
 * they stay until spec.finalizers is empty (the namespace lifecycle empties it
 * after removing the content).
 */
import type { Namespace } from 'kubernetes-types/core/v1.js';
import type { ResourceInfo } from '../../api/resources.js';
import type { Strategy } from '../strategy.js';
import { genericStrategy } from './generic.js';

export function namespaceStrategy(info: ResourceInfo): Strategy {
  const base = genericStrategy(info);
  return {
    ...base,
    prepareForCreate(obj) {
      base.prepareForCreate(obj);
      obj.status = { phase: 'Active' };
      nameLabel(obj);
    },
    prepareForUpdate(obj, old) {
      base.prepareForUpdate(obj, old);
      nameLabel(obj);
    },
    holdDeletion(obj) {
      if (!(obj.spec?.finalizers?.length)) return false;
      obj.status = { ...(obj.status ?? {}), phase: 'Terminating' };
      return true;
    },
  };
}

/** PUT namespaces/x/finalize changes spec.finalizers only. */
export function prepareFinalize(obj: Namespace | undefined, old: Namespace): Namespace {
  const next = structuredClone(old);
  next.spec = { ...(old.spec ?? {}), finalizers: obj?.spec?.finalizers ?? [] };
  return next;
}

/** Upstream labels every namespace with its own name (kubernetes.io/metadata.name). */
function nameLabel(obj: Namespace): void {
  const meta = obj.metadata!;
  meta.labels = { ...(meta.labels ?? {}), 'kubernetes.io/metadata.name': meta.name! };
}
