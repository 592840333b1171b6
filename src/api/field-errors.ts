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

export const required = (field: string, detail = ''): FieldError => ({ type: 'FieldValueRequired', field, detail });
export const invalid = (field: string, value: unknown, detail: string): FieldError => ({ type: 'FieldValueInvalid', field, value, detail });
export const notSupported = (field: string, value: unknown, supported: string[]): FieldError => ({ type: 'FieldValueNotSupported', field, value, supported });
export const forbidden = (field: string, detail: string): FieldError => ({ type: 'FieldValueForbidden', field, detail });
export const duplicate = (field: string, value: unknown): FieldError => ({ type: 'FieldValueDuplicate', field, value });
export const notFound = (field: string, value: unknown): FieldError => ({ type: 'FieldValueNotFound', field, value });
/** Upstream 1.32 wording: `Too long: may not be more than 262144 bytes`. */
export const tooLong = (field: string, maxLength: number): FieldError =>
  ({ type: 'FieldValueTooLong', field, detail: `may not be more than ${maxLength} ${maxLength === 1 ? 'byte' : 'bytes'}` });
export const internal = (field: string, detail: string): FieldError => ({ type: 'InternalError', field, detail });
