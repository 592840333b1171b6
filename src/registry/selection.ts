/** Label and field selectors of a list or watch request, compiled once per request. */
import type { ResourceInfo } from '../api/resources.js';
import { kindKey } from '../api/resources.js';
import { parseSelector, matchesSelector } from '../api/labels.js';
import { parseFieldSelector, matchesFieldSelector, fieldsForObject, checkFieldSelector } from '../api/fields.js';
import { badRequest } from '../api/status.js';

export interface Selection { matches(obj: any): boolean; everything: boolean }

export function compileSelection(info: ResourceInfo, opts: { labelSelector?: string; fieldSelector?: string }): Selection {
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
    const err = checkFieldSelector(key, fieldSel);
    if (err) throw badRequest(err);
  }
  const everything = !labelSel && !fieldSel;
  return {
    everything,
    matches(obj: any) {
      if (labelSel && !matchesSelector(labelSel, obj.metadata?.labels ?? {})) return false;
      if (fieldSel && !matchesFieldSelector(fieldSel, fieldsForObject(key, obj))) return false;
      return true;
    },
  };
}
