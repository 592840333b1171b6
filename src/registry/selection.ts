/** Label and field selectors of a list or watch request, compiled once per request. */
import type { ResourceInfo } from '../api/resources.js';
import { kindKey } from '../api/resources.js';
import { parseSelector, matchesSelector } from '../api/labels.js';
import { parseFieldSelector, matchesFieldSelector, fieldsForObject, checkFieldSelector } from '../api/fields.js';
import { badRequest } from '../api/status.js';

export interface Selection { matches(obj: any): boolean; everything: boolean }

/** A custom resource's selectableFields, beside metadata.name and metadata.namespace. */
export interface ExtraFields { fields: string[]; get(obj: any, field: string): string }

export function compileSelection(info: ResourceInfo, opts: { labelSelector?: string; fieldSelector?: string }, extra?: ExtraFields): Selection {
  const key = kindKey(info);
  let labelSel: ReturnType<typeof parseSelector> | undefined;
  let fieldSel: ReturnType<typeof parseFieldSelector> | undefined;
  try {
    if (opts.labelSelector) labelSel = parseSelector(opts.labelSelector);
    if (opts.fieldSelector) fieldSel = parseFieldSelector(opts.fieldSelector);
  } catch (e) {
    throw badRequest((e as Error).message);
  }
  if (fieldSel) {
    // Reject unsupported field labels up front, as upstream's conversion funcs do.
    const err = checkFieldSelector(key, { requirements: fieldSel.requirements.filter((r) => !extra?.fields.includes(r.field)) });
    if (err) throw badRequest(err);
  }
  const everything = !labelSel && !fieldSel;
  const fieldsOf = (obj: any) => {
    const fields = fieldsForObject(key, obj);
    for (const f of extra?.fields ?? []) fields[f] = extra!.get(obj, f);
    return fields;
  };
  return {
    everything,
    matches(obj: any) {
      if (labelSel && !matchesSelector(labelSel, obj.metadata?.labels ?? {})) return false;
      if (fieldSel && !matchesFieldSelector(fieldSel, fieldsOf(obj))) return false;
      return true;
    },
  };
}
