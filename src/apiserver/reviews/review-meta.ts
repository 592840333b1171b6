/**
 * The metadata of a review: reviews are never stored, so their metadata must
 * be empty (managedFields aside; a LocalSubjectAccessReview may name its
 * namespace). Empty is apimachinery's semantic equality with a zero
 * ObjectMeta, where null, "", 0 and empty lists or maps are all zero.
 */
import { GoValue, invalid, type FieldError } from '../../api/field-errors.js';

const isZero = (v: unknown): boolean =>
  v === undefined || v === null || v === '' || v === 0 ||
  (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0);

export function metadataErrors(meta: Record<string, unknown> | undefined, detail: string, shown = meta): FieldError[] {
  const { managedFields: _ignored, ...rest } = meta ?? {};
  if (Object.values(rest).every(isZero)) return [];
  return [invalid('metadata', new GoValue(goObjectMeta(shown ?? {})), detail)];
}

const goString = (v: unknown) => JSON.stringify(typeof v === 'string' ? v : '');

function goStringMap(v: unknown): string {
  if (!v || typeof v !== 'object' || Object.keys(v).length === 0) return 'map[string]string(nil)';
  const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
  return `map[string]string{${entries.map(([k, x]) => `${JSON.stringify(k)}:${goString(x)}`).join(', ')}}`;
}

const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** time.Time's GoString, in UTC (what a decoded RFC 3339 timestamp with Z is). */
function goTime(v: unknown): string {
  const d = v ? new Date(String(v)) : undefined;
  if (!d || Number.isNaN(d.getTime())) return 'time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)';
  return `time.Date(${d.getUTCFullYear()}, time.${months[d.getUTCMonth()]}, ${d.getUTCDate()}, ${d.getUTCHours()}, ${d.getUTCMinutes()}, ${d.getUTCSeconds()}, 0, time.UTC)`;
}

/**
 * Go's %#v of a metav1.ObjectMeta, as upstream's "must be empty" error shows
 * it: exact for the fields a review body carries (names, labels,
 * annotations, finalizers); lists of structs are summarized by length.
 */
export function goObjectMeta(m: Record<string, any>): string {
  const list = (v: unknown, type: string) => (Array.isArray(v) && v.length ? `[]${type}{/* ${v.length} */}` : `[]${type}(nil)`);
  const finalizers = Array.isArray(m.finalizers) && m.finalizers.length ? `[]string{${m.finalizers.map(goString).join(', ')}}` : '[]string(nil)';
  return 'v1.ObjectMeta{' + [
    `Name:${goString(m.name)}`, `GenerateName:${goString(m.generateName)}`, `Namespace:${goString(m.namespace)}`, `SelfLink:${goString(m.selfLink)}`,
    `UID:${goString(m.uid)}`, `ResourceVersion:${goString(m.resourceVersion)}`, `Generation:${Number(m.generation ?? 0)}`,
    `CreationTimestamp:${goTime(m.creationTimestamp)}`, `DeletionTimestamp:${m.deletionTimestamp ? `&v1.Time{Time:${goTime(m.deletionTimestamp)}}` : '(*v1.Time)(nil)'}`,
    `DeletionGracePeriodSeconds:${m.deletionGracePeriodSeconds === undefined || m.deletionGracePeriodSeconds === null ? '(*int64)(nil)' : `(*int64)(${m.deletionGracePeriodSeconds})`}`,
    `Labels:${goStringMap(m.labels)}`, `Annotations:${goStringMap(m.annotations)}`, `OwnerReferences:${list(m.ownerReferences, 'v1.OwnerReference')}`,
    `Finalizers:${finalizers}`, `ManagedFields:${list(m.managedFields, 'v1.ManagedFieldsEntry')}`,
  ].join(', ') + '}';
}
