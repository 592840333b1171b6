/** Label and field selectors of a list or watch request, compiled once per request. */
import type { Unstructured } from '../api/unstructured.js';
import type { ResourceInfo } from '../api/resources.js';
import { kindKey } from '../api/resources.js';
import { parseSelector, matchesSelector } from '../api/labels.js';
import { parseFieldSelector, matchesFieldSelector, fieldsForObject, checkFieldSelector, type FieldSelector } from '../api/fields.js';
import { badRequest } from '../api/status.js';

export interface Selection {
  matches(obj: Unstructured): boolean;
  everything: boolean;
  /** The one name a `metadata.name=` field selector allows (a cache looks the key up instead of scanning). */
  name?: string;
  /**
   * Pods: the one spec.nodeName a `spec.nodeName=` field selector allows ('' for unscheduled pods). Every
   * match has it, so a watch cache delivers a pod's events only to the watchers of its node (a kubelet's
   * watch), not to every node's watcher.
   */
  nodeName?: string;
}

/** A custom resource's selectableFields, beside metadata.name and metadata.namespace. */
export interface ExtraFields { fields: string[]; get(obj: Unstructured, field: string): string }

/** Upstream's crConverter.ConvertFieldLabel: metadata.name, metadata.namespace when namespaced, the selectable fields. */
function customFieldLabelError(info: ResourceInfo, extra: ExtraFields, sel: FieldSelector): string | undefined {
  const known = new Set(['metadata.name', ...(info.namespaced ? ['metadata.namespace'] : []), ...extra.fields]);
  const bad = sel.requirements.find((r) => !known.has(r.field));
  return bad && `field label not supported: ${bad.field}`;
}

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
    const err = extra ? customFieldLabelError(info, extra, fieldSel) : checkFieldSelector(key, fieldSel);
    if (err) throw badRequest(err);
  }
  const everything = !labelSel && !fieldSel;
  const fieldsOf = (obj: Unstructured) => {
    const fields = fieldsForObject(key, obj);
    for (const f of extra?.fields ?? []) fields[f] = extra!.get(obj, f);
    return fields;
  };
  return {
    everything,
    name: fieldSel?.requirements.find((r) => r.field === 'metadata.name' && r.operator === '=')?.value,
    nodeName: key === 'v1/Pod' ? fieldSel?.requirements.find((r) => r.field === 'spec.nodeName' && r.operator === '=')?.value : undefined,
    matches(obj: Unstructured) {
      if (labelSel && !matchesSelector(labelSel, obj.metadata?.labels ?? {})) return false;
      if (fieldSel && !matchesFieldSelector(fieldSel, fieldsOf(obj))) return false;
      return true;
    },
  };
}
