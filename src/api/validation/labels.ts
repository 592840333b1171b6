/**
 * Labels and label selectors (apimachinery meta/v1/validation and labels):
 * ValidateLabels, ValidateLabelName, ValidateLabelSelector and the matching
 * rules of LabelSelectorAsSelector used to check templates against selectors.
 */
import { FieldError, forbidden, invalid, required } from '../field-errors.js';
import { isQualifiedName, isValidLabelValue } from '../names.js';
import { arr, child, index, isObj, obj, str, strMap } from './util.js';
import { appendAll } from '../append.js';

/** ValidateLabelName: the key is a qualified name. */
export function validateLabelName(name: string, path: string): FieldError[] {
  return isQualifiedName(name).map((msg) => invalid(path, name, msg));
}

/** ValidateLabels: every error is reported at the map's path (not per key), as upstream does. */
export function validateLabels(labels: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  // strMap's values read in place, without its copy of the map.
  const map = obj(labels);
  for (const k in map) {
    if (!Object.hasOwn(map, k)) continue;
    const v = str(map[k]);
    appendAll(errs, validateLabelName(k, path));
    appendAll(errs, isValidLabelValue(v).map((msg) => invalid(path, v, msg)));
  }
  return errs;
}

/** ValidateLabelSelectorRequirement. */
function validateRequirement(r: unknown, path: string, allowInvalidValues: boolean): FieldError[] {
  const req = obj(r);
  const values = arr(req.values);
  const errs: FieldError[] = [];
  switch (req.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) errs.push(required(child(path, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) errs.push(forbidden(child(path, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    default:
      errs.push(invalid(child(path, 'operator'), str(req.operator), 'not a valid selector operator'));
  }
  appendAll(errs, validateLabelName(str(req.key), child(path, 'key')));
  if (!allowInvalidValues) {
    values.forEach((v, i) => appendAll(errs, isValidLabelValue(str(v)).map((msg) => invalid(index(child(path, 'values'), i), str(v), msg))));
  }
  return errs;
}

/** ValidateLabelSelector; a nil selector is valid here (callers decide whether it is required). */
export function validateLabelSelector(sel: unknown, path: string, allowInvalidValues = false): FieldError[] {
  if (!isObj(sel)) return [];
  const errs = validateLabels(sel.matchLabels, child(path, 'matchLabels'));
  arr(sel.matchExpressions).forEach((r, i) => appendAll(errs, validateRequirement(r, index(child(path, 'matchExpressions'), i), allowInvalidValues)));
  return errs;
}

/** A parsed selector: `empty` selects everything; absent selectors select nothing. */
export interface Selector { empty: boolean; matches(labels: Record<string, string>): boolean }

type Requirement = (labels: Record<string, string>) => boolean;

function requirement(keyName: string, op: string, values: string[]): Requirement | undefined {
  if (isQualifiedName(keyName).length > 0) return undefined;
  if (values.some((v) => isValidLabelValue(v).length > 0)) return undefined;
  switch (op) {
    case 'In': return values.length === 0 ? undefined : (l) => keyName in l && values.includes(l[keyName]);
    case 'NotIn': return values.length === 0 ? undefined : (l) => !(keyName in l) || !values.includes(l[keyName]);
    case 'Exists': return values.length > 0 ? undefined : (l) => keyName in l;
    case 'DoesNotExist': return values.length > 0 ? undefined : (l) => !(keyName in l);
    default: return undefined;
  }
}

/** LabelSelectorAsSelector: undefined when the selector cannot be parsed. */
export function labelSelectorAsSelector(sel: unknown): Selector | undefined {
  if (!isObj(sel)) return { empty: false, matches: () => false };
  const reqs: Requirement[] = [];
  for (const [k, v] of Object.entries(strMap(sel.matchLabels))) {
    const r = requirement(k, 'In', [v]);
    if (!r) return undefined;
    reqs.push(r);
  }
  for (const e of arr(sel.matchExpressions)) {
    const r = requirement(str(obj(e).key), str(obj(e).operator), arr(obj(e).values).map(str));
    if (!r) return undefined;
    reqs.push(r);
  }
  return { empty: reqs.length === 0, matches: (labels) => reqs.every((r) => r(labels)) };
}

/** Whether the selector has neither matchLabels nor matchExpressions. */
export const selectorIsEmpty = (sel: unknown) =>
  Object.keys(obj(obj(sel).matchLabels)).length + arr(obj(sel).matchExpressions).length === 0;
