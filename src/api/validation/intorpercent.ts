/** Int-or-percent fields of rolling updates (maxUnavailable, maxSurge). */
import { FieldError, invalid } from '../field-errors.js';
import { isValidPercent } from '../names.js';
import { goIntOrString } from './govalue.js';
import { isNegativeErrorMsg } from './util.js';

function percentValue(v: unknown): number | undefined {
  return typeof v === 'string' && isValidPercent(v).length === 0 ? Number(v.slice(0, -1)) : undefined;
}

/** getIntOrPercentValue: the number, the percentage, or 0 for anything else. */
export function intOrPercentValue(v: unknown): number {
  const pct = percentValue(v);
  if (pct !== undefined) return pct;
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^-?[0-9]+$/.test(v)) return Number(v);
  return 0;
}

/** ValidatePositiveIntOrPercent. */
export function validatePositiveIntOrPercent(v: unknown, path: string): FieldError[] {
  if (typeof v === 'string') return isValidPercent(v).map((msg) => invalid(path, goIntOrString(v), msg));
  if (typeof v === 'number' && v < 0) return [invalid(path, v, isNegativeErrorMsg)];
  return [];
}

/** IsNotMoreThan100Percent. */
export function isNotMoreThan100Percent(v: unknown, path: string): FieldError[] {
  const pct = percentValue(v);
  return pct !== undefined && pct > 100 ? [invalid(path, goIntOrString(v), 'must not be greater than 100%')] : [];
}
