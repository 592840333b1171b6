/**
 * Validation of a custom resource against its version's structural schema,
 * in the words go-openapi's validator gives and upstream's
 * kubeOpenAPIResultToFieldErrors turns into field errors:
 * `spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`.
 */
import { FieldError, invalid, notSupported, required, tooLong } from '../field-errors.js';
import { additionalSchema, isObject, type Schema } from './types.js';
import { checkFormat } from './formats.js';
import { patternMatches } from './re2.js';

const join = (path: string, k: string) => (path ? `${path}.${k}` : k);

/** The JSON type name go-openapi reports for a value. */
function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(s: Schema, v: unknown): boolean {
  if (s['x-kubernetes-int-or-string']) return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
  switch (s.type) {
    case undefined: case '': return true;
    case 'object': return isObject(v);
    case 'array': return Array.isArray(v);
    case 'integer': return typeof v === 'number' && Number.isInteger(v);
    case 'number': return typeof v === 'number';
    default: return typeof v === s.type;
  }
}

/** Every schema error of `v` at `path` (the root object's path is ''). */
export function validateValue(s: Schema, v: unknown, path: string): FieldError[] {
  const name = path || '.';
  if (v === null) {
    if (s.nullable || (!s.type && !s['x-kubernetes-int-or-string'])) return [];
    return [{ type: 'FieldValueTypeInvalid', field: path, value: 'null', detail: `${name} in body must be of type ${s.type ?? 'integer'}: "null"` }];
  }
  if (!typeMatches(s, v)) {
    const want = s['x-kubernetes-int-or-string'] ? 'integer,string' : s.type;
    return [{ type: 'FieldValueTypeInvalid', field: path, value: typeName(v), detail: `${name} in body must be of type ${want}: "${typeName(v)}"` }];
  }
  const errs = validateScalar(s, v, path, name);
  for (const sub of s.allOf ?? []) errs.push(...validateValue(sub, v, path));
  if (Array.isArray(v)) errs.push(...validateArray(s, v, path, name));
  if (isObject(v)) errs.push(...validateObject(s, v, path, name));
  return errs;
}

function validateScalar(s: Schema, v: unknown, path: string, name: string): FieldError[] {
  const errs: FieldError[] = [];
  if (s.enum && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
    errs.push(notSupported(path, v, s.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)))));
  }
  if (typeof v === 'number') {
    if (s.minimum !== undefined && (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum)) {
      errs.push(invalid(path, v, `${name} in body should be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${s.minimum}`));
    }
    if (s.maximum !== undefined && (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum)) {
      errs.push(invalid(path, v, `${name} in body should be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${s.maximum}`));
    }
    if (s.multipleOf && v % s.multipleOf !== 0) errs.push(invalid(path, v, `${name} in body should be a multiple of ${s.multipleOf}`));
  }
  if (typeof v === 'string') {
    const length = [...v].length;
    if (s.maxLength !== undefined && length > s.maxLength) errs.push(tooLong(path, s.maxLength));
    if (s.minLength !== undefined && length < s.minLength) errs.push(invalid(path, v, `${name} in body should be at least ${s.minLength} chars long`));
    if (s.pattern !== undefined && !patternMatches(s.pattern, v)) errs.push(invalid(path, v, `${name} in body should match '${s.pattern}'`));
    if (s.format && !checkFormat(s.format, v)) {
      errs.push({ type: 'FieldValueTypeInvalid', field: path, value: v, detail: `${name} in body must be of type ${s.format}: ${JSON.stringify(v)}` });
    }
  }
  return errs;
}

function validateArray(s: Schema, v: unknown[], path: string, name: string): FieldError[] {
  const errs: FieldError[] = [];
  if (s.maxItems !== undefined && v.length > s.maxItems) {
    errs.push({ type: 'FieldValueTooMany', field: path, value: v.length, detail: `must have at most ${s.maxItems} items` });
  }
  if (s.minItems !== undefined && v.length < s.minItems) errs.push(invalid(path, v.length, `${name} in body should have at least ${s.minItems} items`));
  if (s.items) v.forEach((x, i) => errs.push(...validateValue(s.items!, x, `${path}[${i}]`)));
  return errs;
}

function validateObject(s: Schema, v: Record<string, unknown>, path: string, name: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const r of s.required ?? []) if (!(r in v)) errs.push(required(join(path, r)));
  const n = Object.keys(v).length;
  if (s.maxProperties !== undefined && n > s.maxProperties) {
    errs.push({ type: 'FieldValueTooMany', field: path, value: n, detail: `must have at most ${s.maxProperties} items` });
  }
  if (s.minProperties !== undefined && n < s.minProperties) errs.push(invalid(path, n, `${name} in body should have at least ${s.minProperties} properties`));
  if (path && s['x-kubernetes-embedded-resource']) errs.push(...validateEmbeddedTypeMeta(v, path));
  // metadata of the root and of embedded resources is ObjectMeta, validated as such elsewhere.
  const skipMeta = !path || s['x-kubernetes-embedded-resource'];
  for (const [k, x] of Object.entries(v)) {
    if (skipMeta && k === 'metadata') continue;
    const sub = s.properties?.[k] ?? additionalSchema(s);
    if (sub) errs.push(...validateValue(sub, x, join(path, k)));
  }
  return errs;
}

/** An embedded resource needs apiVersion and kind, as upstream's objectmeta validateEmbeddedResource says. */
function validateEmbeddedTypeMeta(v: Record<string, unknown>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of ['apiVersion', 'kind']) {
    const x = v[k];
    if (!(k in v)) errs.push(required(join(path, k)));
    else if (typeof x !== 'string') errs.push(invalid(join(path, k), x, 'must be a string'));
    else if (!x) errs.push(invalid(join(path, k), x, 'must not be empty'));
  }
  return errs;
}
