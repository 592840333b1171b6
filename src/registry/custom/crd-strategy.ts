/**
 * The CustomResourceDefinition strategy (upstream's customresourcedefinition
 * strategy and etcd.go): status is the establishing controller's, validation
 * is crd-validation.ts, and a delete first marks the CRD Terminating with the
 * customresourcecleanup finalizer, so its objects are removed before it goes.
 */
import type { ResourceInfo } from '../../api/resources.js';
import { validateCRDCreate, validateCRDUpdate } from '../../api/apiextensions/crd-validation.js';
import { customResourceCleanupFinalizer } from '../../api/apiextensions/types.js';
import { rfc3339 } from '../../util/clock.js';
import { genericStrategy } from '../strategies/generic.js';
import type { Strategy } from '../strategy.js';
import { setCondition } from './conditions.js';

export function crdStrategy(info: ResourceInfo, now: () => Date): Strategy {
  const generic = genericStrategy(info);
  return genericStrategy(info, {
    prepareForUpdate(crd, old) {
      generic.prepareForUpdate(crd, old);
      // Upstream's PrepareForUpdate: a new storage version joins
      // status.storedVersions (objects will be written in it from now on).
      const storage = crd.spec?.versions?.find?.((v: { storage?: boolean }) => v.storage)?.name;
      if (!storage || !crd.status) return;
      const stored: string[] = crd.status.storedVersions ?? [];
      if (!stored.includes(storage)) crd.status = { ...crd.status, storedVersions: [...stored, storage] };
    },
    applyDefaults(crd) {
      const spec = crd.spec;
      if (!spec || typeof spec !== 'object') return;
      spec.conversion ??= { strategy: 'None' };
      if (spec.names && typeof spec.names === 'object') {
        if (!spec.names.singular && typeof spec.names.kind === 'string') spec.names.singular = spec.names.kind.toLowerCase();
        if (!spec.names.listKind && typeof spec.names.kind === 'string') spec.names.listKind = `${spec.names.kind}List`;
      }
    },
    prepareForCreate(crd) {
      crd.status = { acceptedNames: { plural: '', kind: '' }, conditions: [], storedVersions: [] };
      const storage = crd.spec?.versions?.find?.((v: { storage?: boolean }) => v.storage)?.name;
      if (storage) crd.status.storedVersions = [storage];
      crd.metadata.generation = 1;
    },
    validate: (crd) => validateCRDCreate(crd),
    validateUpdate: (crd, old, sub) => (sub === 'status' ? [] : validateCRDUpdate(crd, old)),
    holdDeletion(crd) {
      // Only the first delete adds the finalizer; once it is removed the CRD goes.
      if (crd.metadata.deletionTimestamp) return false;
      crd.metadata.finalizers = [...(crd.metadata.finalizers ?? []), customResourceCleanupFinalizer];
      crd.status ??= {};
      setCondition(crd, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionPending', message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon' }, rfc3339(now()));
      return true;
    },
  });
}
