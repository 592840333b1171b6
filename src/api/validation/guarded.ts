import { FieldError, internal } from '../field-errors.js';

/** Runs a validator; a bug that throws becomes one internal field error instead of a crashed request. */
export function guarded(run: () => FieldError[]): FieldError[] {
  try {
    return run();
  } catch (e) {
    return [internal('', `validation failed: ${(e as Error).message}`)];
  }
}
