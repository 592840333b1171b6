/**
 * What kube-apiserver's APF configuration producer decides for one bootstrap
 * object it finds stored (k8s.io/apiserver's flowcontrol ensurer): mandatory
 * objects (`exempt`, `catch-all`) always get the bootstrap spec back;
 * suggested ones only while `apf.kubernetes.io/autoupdate-spec` says "true"
 * (or, without a valid value, while generation is 1: nobody changed the spec),
 * and the annotation is set to that decision. A stored object annotated
 * "true" that the bootstrap no longer names is deleted (an upgrade dropped
 * it); one without the annotation, or "false", is the operator's and stays.
 */
import type { FlowSchema, PriorityLevelConfiguration } from 'kubernetes-types/flowcontrol/v1.js';
import { deepEqual } from '../validation/util.js';
import { autoUpdateAnnotation, exemptName } from './bootstrap.js';

export type ConfigurationObject = FlowSchema | PriorityLevelConfiguration;

/** Go's strconv.ParseBool. */
function parseBool(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

function shouldUpdateSpec(current: ConfigurationObject): boolean {
  return parseBool(current.metadata?.annotations?.[autoUpdateAnnotation]) ?? current.metadata?.generation === 1;
}

/**
 * The bootstrap objects are written as defaulting leaves them, so comparing
 * specs is upstream's SpecEqualish. The exempt level's shares and lendable
 * percent are the operator's to tune (upstream keeps them).
 */
function specEqualish(bootstrap: ConfigurationObject, current: ConfigurationObject): boolean {
  const want: Record<string, unknown> = { ...structuredClone(bootstrap.spec) };
  if (bootstrap.metadata?.name === exemptName && 'exempt' in want) {
    const have = (current.spec as PriorityLevelConfiguration['spec'])?.exempt;
    if (!have) return false;
    want.exempt = { ...(want.exempt as object), nominalConcurrencyShares: have.nominalConcurrencyShares, lendablePercent: have.lendablePercent };
  }
  return deepEqual(want, current.spec);
}

/** The object to write back, or undefined when the stored one is as it should be. */
export function reviseIfNeeded<T extends ConfigurationObject>(current: T, bootstrap: T, mandatory: boolean): T | undefined {
  const autoUpdate = mandatory || shouldUpdateSpec(current);
  const annotationRight = parseBool(current.metadata?.annotations?.[autoUpdateAnnotation]) === autoUpdate;
  const specChanged = autoUpdate && !specEqualish(bootstrap, current);
  if (annotationRight && !specChanged) return undefined;
  const revised = structuredClone(current);
  if (specChanged) Object.assign(revised, { spec: structuredClone(bootstrap.spec) });
  if (!annotationRight) revised.metadata = { ...revised.metadata, annotations: { ...revised.metadata?.annotations, [autoUpdateAnnotation]: String(autoUpdate) } };
  return revised;
}

/** RemoveUnwantedObjects: annotated "true" and no longer a bootstrap object. */
export function isUnwanted(current: ConfigurationObject, bootstrapNames: ReadonlySet<string>): boolean {
  if (bootstrapNames.has(current.metadata?.name ?? '')) return false;
  return parseBool(current.metadata?.annotations?.[autoUpdateAnnotation]) === true;
}
