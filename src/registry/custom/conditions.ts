/** CRD status conditions, set as upstream's SetCRDCondition does: lastTransitionTime moves only when status changes. */
import type { CustomResourceDefinition, CustomResourceDefinitionCondition } from '../../api/apiextensions/types.js';

export function setCondition(crd: CustomResourceDefinition, c: Omit<CustomResourceDefinitionCondition, 'lastTransitionTime'>, now: string): void {
  const status = (crd.status ??= {});
  const conditions = (status.conditions ??= []);
  const i = conditions.findIndex((x) => x.type === c.type);
  const prev = i >= 0 ? conditions[i] : undefined;
  const next = { ...c, lastTransitionTime: prev && prev.status === c.status ? prev.lastTransitionTime : now };
  if (i >= 0) conditions[i] = next; else conditions.push(next);
}

export function conditionTrue(crd: CustomResourceDefinition, type: string): boolean {
  return crd.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
}
