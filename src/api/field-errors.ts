/**
 * Field errors as upstream's apimachinery `field.Error`: a type (reason), a path
 * like `spec.template.spec.containers[0].image`, the bad value and a detail.
 * Validation returns these as values; the apiserver turns them into a 422 Status.
 */
export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueNotFound'
  | 'FieldValueDuplicate'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueTypeInvalid'
  | 'InternalError';

export interface FieldError {
  type: FieldErrorType;
  field: string;
  value?: unknown;
  detail?: string;
  /** For NotSupported: the allowed values. */
  supported?: string[];
}

const typeWords: Record<FieldErrorType, string> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueNotFound: 'Not found',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueTypeInvalid: 'Invalid value',
  InternalError: 'Internal error',
};

/**
 * A bad value already rendered the way Go's `%#v` prints it (maps, structs such as
 * `map[string]string{"app":"x"}` or `v1.LabelSelector{...}`); shown verbatim, as upstream does.
 */
export class GoValue {
  constructor(readonly text: string) {}
  toJSON(): string { return this.text; }
}

function showValue(v: unknown): string {
  if (v instanceof GoValue) return v.text;
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** Renders like upstream's `(*field.Error).Error()`: `spec.x: Invalid value: "v": detail`. */
export function fieldErrorMessage(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

/**
 * Upstream's `(*field.Error).ErrorBody()`, the text after `field: ` (a cause's
 * message). The bare words (a Required value without detail) are one shared
 * string, not a new one per error: a Pod of 1,000,000 containers has millions.
 */
export function fieldErrorBody(e: FieldError): string {
  let body = typeWords[e.type];
  const showsValue = e.type !== 'FieldValueRequired' && e.type !== 'FieldValueForbidden' && e.type !== 'FieldValueTooLong' && e.type !== 'InternalError';
  if (showsValue && e.value !== undefined) body += `: ${showValue(e.value)}`;
  if (e.type === 'FieldValueNotSupported' && e.supported) {
    body += `: supported values: ${e.supported.map((s) => JSON.stringify(s)).join(', ')}`;
  } else if (e.detail) {
    body += `: ${e.detail}`;
  }
  return body;
}

export const required = (field: string, detail = ''): FieldError => made({ type: 'FieldValueRequired', field, detail });
export const invalid = (field: string, value: unknown, detail: string): FieldError => made({ type: 'FieldValueInvalid', field, value, detail });
export const notSupported = (field: string, value: unknown, supported: string[]): FieldError => made({ type: 'FieldValueNotSupported', field, value, supported });
export const forbidden = (field: string, detail: string): FieldError => made({ type: 'FieldValueForbidden', field, detail });
export const duplicate = (field: string, value: unknown): FieldError => made({ type: 'FieldValueDuplicate', field, value });
export const notFound = (field: string, value: unknown): FieldError => made({ type: 'FieldValueNotFound', field, value });
/** Upstream 1.32 wording: `Too long: may not be more than 262144 bytes`. */
export const tooLong = (field: string, maxLength: number): FieldError =>
  made({ type: 'FieldValueTooLong', field, detail: `may not be more than ${maxLength} ${maxLength === 1 ? 'byte' : 'bytes'}` });
export const internal = (field: string, detail: string): FieldError => ({ type: 'InternalError', field, detail });

/**
 * How many field errors a 422 reports. Departure: upstream's NewInvalid keeps
 * every error as a cause and joins every text into the message, with no cap
 * (apimachinery has none, and its aggregate's Error() grows its string one
 * message at a time). A body under the 3 MiB limit can still hold millions of
 * errors (the hardening issue's protobuf Pod of 1,000,000 empty containers:
 * 2,999,999, a 430 MB Status, 10 s of CPU to find and write). k8ts reports the
 * first 1,000, in upstream's order and shape, and one last cause saying that
 * more were found, so the answer stays small and the validation stops early.
 */
export const maxReportedFieldErrors = 1000;

/**
 * Validation stops once this many field errors were made (more than are
 * reported, so that a validator that makes errors and drops them, while
 * trying alternatives, cannot turn a valid object into a refused one).
 */
export const fieldErrorLimit = 10 * maxReportedFieldErrors;

/** The errors a 422 reports: all of them, or the first maxReportedFieldErrors and a last one saying there were more. */
export function reportedFieldErrors(errors: readonly FieldError[]): FieldError[] {
  if (errors.length <= maxReportedFieldErrors) return errors as FieldError[];
  const kept = errors.slice(0, maxReportedFieldErrors);
  // Named after the top-level field of the last reported error (`spec`), the way a TooMany names its list.
  const top = kept[kept.length - 1].field.split(/[.[]/, 1)[0];
  kept.push({ type: 'FieldValueTooMany', field: top, detail: `more than ${maxReportedFieldErrors} errors; only the first ${maxReportedFieldErrors} are reported` });
  return kept;
}

/** Thrown by the error constructors once a limited validation made fieldErrorLimit errors. */
const limitReached = new Error('too many field errors');
let counting: { left: number; made: FieldError[] } | undefined;

function made(e: FieldError): FieldError {
  if (counting) {
    if (--counting.left < 0) throw limitReached;
    if (counting.made.length <= maxReportedFieldErrors) counting.made.push(e);
  }
  return e;
}

/** Whether `e` is the stop of a limited validation (a guard must let it through). */
export const isFieldErrorLimit = (e: unknown) => e === limitReached;

/**
 * Runs a validation that stops once it made fieldErrorLimit errors: then it
 * answers the first ones made (more than maxReportedFieldErrors, so the 422
 * says there were more). Validation is synchronous, so one counter is enough;
 * a nested call counts on its own and the outer one resumes after it.
 */
export function validateWithinLimit(run: () => FieldError[]): FieldError[] {
  const outer = counting;
  const mine = { left: fieldErrorLimit, made: [] as FieldError[] };
  counting = mine;
  try {
    return run();
  } catch (e) {
    if (e === limitReached) return mine.made;
    throw e;
  } finally {
    counting = outer;
  }
}
