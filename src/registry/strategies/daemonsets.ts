/**
 * DaemonSets keep `deprecated.daemonset.template.generation` in step with the
 * generation at which the template last changed (upstream's daemonset strategy),
 * which the controller uses for the pod-template-generation label.
 */
import type { Unstructured } from '../../api/unstructured.js';
import type { ResourceInfo } from '../../api/resources.js';
import type { Strategy } from '../strategy.js';
import { genericStrategy } from './generic.js';
import { semanticStringify } from '../meta.js';

const templateGeneration = 'deprecated.daemonset.template.generation';

export function daemonSetStrategy(info: ResourceInfo): Strategy {
  const base = genericStrategy(info);
  const set = (obj: Unstructured, gen: number) => {
    const meta = obj.metadata!;
    meta.annotations = { ...(meta.annotations ?? {}), [templateGeneration]: String(gen) };
  };
  return {
    ...base,
    prepareForCreate(obj) {
      base.prepareForCreate(obj);
      set(obj, obj.metadata.generation);
    },
    prepareForUpdate(obj, old) {
      base.prepareForUpdate(obj, old);
      const changed = semanticStringify(obj.spec?.template) !== semanticStringify(old.spec?.template);
      const oldGen = old.metadata.annotations?.[templateGeneration];
      if (changed || oldGen === undefined) set(obj, changed ? obj.metadata.generation : old.metadata.generation ?? 1);
      else set(obj, Number(oldGen));
    },
  };
}
