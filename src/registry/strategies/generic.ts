/**
 * The strategy most kinds use: upstream defaulting and validation from src/api,
 * status owned by /status when the kind has one, generation bumped only when
 * the spec changes.
 */
import type { ResourceInfo } from '../../api/resources.js';
import { kindKey } from '../../api/resources.js';
import { applyDefaults } from '../../api/defaults/index.js';
import { validateCreate, validateUpdate } from '../../api/validation/index.js';
import type { Strategy } from '../strategy.js';
import { specOf } from '../meta.js';

export function genericStrategy(info: ResourceInfo, overrides: Partial<Strategy> = {}): Strategy {
  const key = kindKey(info);
  const hasStatus = info.subresources.some((s) => s.name === 'status');
  const base: Strategy = {
    hasStatus,
    applyDefaults: (obj) => applyDefaults(key, obj),
    prepareForCreate(obj) {
      if (hasStatus) delete obj.status;
      obj.metadata.generation = 1;
    },
    prepareForUpdate(obj, old) {
      if (hasStatus) {
        if (old.status === undefined) delete obj.status; else obj.status = old.status;
      }
      const oldGen = old.metadata.generation ?? 1;
      obj.metadata.generation = specOf(obj) === specOf(old) ? oldGen : oldGen + 1;
    },
    prepareForStatusUpdate(obj, old) {
      for (const k of Object.keys(obj)) if (!['metadata', 'status', 'apiVersion', 'kind'].includes(k)) delete obj[k];
      for (const k of Object.keys(old)) if (!['metadata', 'status', 'apiVersion', 'kind'].includes(k)) obj[k] = old[k];
      obj.metadata.generation = old.metadata.generation;
    },
    validate: (obj) => validateCreate(key, obj),
    validateUpdate: (obj, old, subresource) => validateUpdate(key, obj, old, subresource),
  };
  return { ...base, ...overrides };
}
