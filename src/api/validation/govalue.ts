/**
 * Renders bad values the way upstream's field errors print them with Go's `%#v`
 * (apimachinery ErrorBody falls back to `%#v` for maps and structs), so messages
 * such as `Invalid value: map[string]string{"app":"x"}` read exactly like upstream.
 */
import { GoValue } from '../field-errors.js';
import { arr, goQuote, isObj, obj, str, strMap } from './util.js';

const gv = (text: string) => new GoValue(text);

/** `map[string]string{"a":"1", "b":"2"}` (keys sorted, as Go's fmt does), or `map[string]string(nil)`. */
export function goStringMapText(m: unknown, type = 'map[string]string'): string {
  if (!isObj(m)) return `${type}(nil)`;
  const entries = Object.entries(strMap(m)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${type}{${entries.map(([k, v]) => `${goQuote(k)}:${goQuote(v)}`).join(', ')}}`;
}
export const goStringMap = (m: unknown, type?: string) => gv(goStringMapText(m, type));

/** `[]string{"a", "b"}` or `[]string(nil)`. */
export function goStringSliceText(a: unknown, type = '[]string'): string {
  if (!Array.isArray(a)) return `${type}(nil)`;
  return `${type}{${a.map((v) => goQuote(str(v))).join(', ')}}`;
}
export const goStringSlice = (a: unknown, type?: string) => gv(goStringSliceText(a, type));

function requirementText(r: unknown): string {
  const o = obj(r);
  return `v1.LabelSelectorRequirement{Key:${goQuote(str(o.key))}, Operator:${goQuote(str(o.operator))}, Values:${goStringSliceText(o.values)}}`;
}

/** `v1.LabelSelector{MatchLabels:..., MatchExpressions:...}` for a (dereferenced) selector. */
export function goLabelSelectorText(sel: unknown): string {
  const s = obj(sel);
  const exprs = Array.isArray(s.matchExpressions)
    ? `[]v1.LabelSelectorRequirement{${arr(s.matchExpressions).map(requirementText).join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return `v1.LabelSelector{MatchLabels:${goStringMapText(s.matchLabels)}, MatchExpressions:${exprs}}`;
}
export const goLabelSelector = (sel: unknown) => gv(goLabelSelectorText(sel));

/** `intstr.IntOrString{Type:0, IntVal:1, StrVal:""}`; absent is the zero value. */
export function goIntOrStringText(v: unknown): string {
  if (typeof v === 'string') return `intstr.IntOrString{Type:1, IntVal:0, StrVal:${goQuote(v)}}`;
  const n = typeof v === 'number' ? v : 0;
  return `intstr.IntOrString{Type:0, IntVal:${n}, StrVal:""}`;
}
export const goIntOrString = (v: unknown) => gv(goIntOrStringText(v));

/** `core.Taint{Key:"k", Value:"v", Effect:"NoSchedule", TimeAdded:(*v1.Time)(nil)}`. */
export function goTaint(t: unknown): GoValue {
  const o = obj(t);
  const added = o.timeAdded ? `time.Date(${goQuote(str(o.timeAdded))})` : '(*v1.Time)(nil)';
  return gv(`core.Taint{Key:${goQuote(str(o.key))}, Value:${goQuote(str(o.value))}, Effect:${goQuote(str(o.effect))}, TimeAdded:${added}}`);
}

/** A struct with only string fields, e.g. `apps.DaemonSetUpdateStrategy{Type:"X", RollingUpdate:(*apps.RollingUpdateDaemonSet)(nil)}`. */
export function goStruct(type: string, fields: [string, string][]): GoValue {
  return gv(`${type}{${fields.map(([k, v]) => `${k}:${v}`).join(', ')}}`);
}

/** A pointer field: `(*T)(nil)` when absent, else an opaque address as Go prints it. */
export const goPointer = (type: string, v: unknown) => (v === undefined || v === null ? `(*${type})(nil)` : `(*${type})(0xc000010000)`);

/** Go's time.Time String(): `2006-01-02 15:04:05 +0000 UTC`. */
export function goTime(v: unknown): GoValue {
  const d = typeof v === 'string' ? new Date(v) : undefined;
  if (!d || Number.isNaN(d.getTime())) return gv('0001-01-01 00:00:00 +0000 UTC');
  return gv(`${d.toISOString().slice(0, 19).replace('T', ' ')} +0000 UTC`);
}

/** Fallback for other composite values: JSON text, unquoted. */
export const goJSON = (v: unknown) => gv(JSON.stringify(v) ?? 'null');
