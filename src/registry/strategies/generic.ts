/**
 * The strategy most kinds use: upstream defaulting and validation from src/api,
 * status owned by /status when the kind has one, generation bumped only when
 * the spec changes.
 */
import type { Unstructured } from '../../api/unstructured.js';
import type { Writable } from '../../api/writable.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { ResourceInfo } from '../../api/resources.js';
import { kindKey } from '../../api/resources.js';
import { applyDefaults } from '../../api/defaults/index.js';
import { validateCreate, validateUpdate } from '../../api/validation/index.js';
import type { Strategy } from '../strategy.js';
import { specOf } from '../meta.js';
import { tracksGeneration } from './generation.js';
import { dropDisabledFields } from '../../api/disabled-fields.js';
import { warningsOnCreate, warningsOnUpdate } from '../../api/warnings/index.js';

/** The applyDefaults of generic strategies: the kind's defaults (src/api) and nothing else. */
const kindDefaults = new WeakSet<Strategy['applyDefaults']>();

/**
 * The strategy defaults objects exactly as src/api's applyDefaults does for its kind (a strategy that
 * overrides applyDefaults, as the Node strategy does, is not), so what was computed from an object
 * defaulted that way elsewhere (the heavy lane's managedFields) holds for it.
 */
export function defaultsAsTheKind(strategy: Strategy): boolean {
  return kindDefaults.has(strategy.applyDefaults);
}

export function genericStrategy(info: ResourceInfo, overrides: Partial<Strategy> = {}): Strategy {
  const key = kindKey(info);
  const hasStatus = info.subresources.some((s) => s.name === 'status');
  const generation = tracksGeneration(info);
  const defaults: Strategy['applyDefaults'] = (obj) => applyDefaults(key, obj);
  kindDefaults.add(defaults);
  const base: Strategy = {
    hasStatus,
    applyDefaults: defaults,
    prepareForCreate(obj) {
      if (hasStatus) delete obj.status;
      if (generation) obj.metadata.generation = 1;
      dropDisabledFields(key, obj);
    },
    prepareForUpdate(obj, old) {
      dropDisabledFields(key, obj, old);
      if (hasStatus) {
        if (old.status === undefined) delete obj.status; else obj.status = old.status;
      }
      keepGeneration(obj, old);
      if (generation && specOf(obj) !== specOf(old)) obj.metadata.generation = (old.metadata.generation ?? 1) + 1;
    },
    prepareForStatusUpdate(obj, old) {
      for (const k of Object.keys(obj)) if (!['metadata', 'status', 'apiVersion', 'kind'].includes(k)) delete obj[k];
      for (const k of Object.keys(old)) if (!['metadata', 'status', 'apiVersion', 'kind'].includes(k)) obj[k] = old[k];
      keepGeneration(obj, old);
    },
    validate: (obj) => validateCreate(key, obj),
    validateUpdate: (obj, old, subresource) => validateUpdate(key, obj, old, subresource),
    warningsOnCreate: (obj) => warningsOnCreate(key, obj),
    warningsOnUpdate: (obj, old) => warningsOnUpdate(key, obj, old),
  };
  return { ...base, ...overrides };
}

/** rest.BeforeUpdate: requests cannot change the generation, only the strategy's bump can. */
function keepGeneration(obj: Unstructured, old: Unstructured): void {
  const meta: Writable<ObjectMeta> = obj.metadata!;
  if (old.metadata!.generation === undefined) delete meta.generation;
  else meta.generation = old.metadata!.generation;
}
