import { FieldError, internal, validateWithinLimit } from '../field-errors.js';

/**
 * Runs a validator, stopped once it made too many errors (field-errors.ts,
 * fieldErrorLimit: a body can hold millions); a bug that throws becomes one
 * internal field error instead of a crashed request.
 */
export function guarded(run: () => FieldError[]): FieldError[] {
  try {
    return validateWithinLimit(run);
  } catch (e) {
    return [internal('', `validation failed: ${(e as Error).message}`)];
  }
}
