/** intstr.IntOrString helpers (k8s.io/apimachinery/pkg/util/intstr), shared by the workload controllers. */

export type IntOrString = number | string;
export type Scaled = { value: number } | { error: string };

/**
 * intstr.GetScaledValueFromIntOrPercent: a number as is; "N%" of total,
 * rounded up or down; any other string is an error worded as upstream.
 */
export function scaledValueFromIntOrPercent(v: IntOrString | null | undefined, total: number, roundUp: boolean): Scaled {
  if (v === null || v === undefined) return { error: 'nil value for IntOrString' };
  if (typeof v === 'number') return { value: Math.trunc(v) };
  if (!v.endsWith('%')) return { error: 'invalid value for IntOrString: invalid type: string is not a percentage' };
  const s = v.slice(0, -1);
  if (!/^[+-]?\d+$/.test(s)) return { error: `invalid value for IntOrString: invalid value "${v}": strconv.Atoi: parsing "${s}": invalid syntax` };
  const pct = Number(s);
  const raw = (pct * total) / 100;
  return { value: roundUp ? Math.ceil(raw) : Math.floor(raw) };
}
