/**
 * x-kubernetes-validations: CEL rules with `self` (and `oldSelf` for
 * transition rules), evaluated with @bufbuild/cel at the schema node that
 * declares them, as upstream's apiextensions-apiserver celvalidation does.
 * Integers of the schema become CEL ints (bigint), as upstream types them.
 */
import type { CelResult } from '@bufbuild/cel';
import { lazyRequire } from '../../util/lazy-require.js';
import { FieldError, forbidden, invalid, required } from '../field-errors.js';
import { additionalSchema, isObject, type Schema, type ValidationRule } from './types.js';

/** Upstream's CRD environment includes the strings extension library. */
// Loaded with the first rule compiled: a cluster without CEL rules never loads the CEL library.
const cel = lazyRequire<typeof import('@bufbuild/cel')>('@bufbuild/cel');
const celExt = lazyRequire<typeof import('@bufbuild/cel/ext')>('@bufbuild/cel/ext');
let env: ReturnType<typeof import('@bufbuild/cel').celEnv> | undefined;
const celEnvironment = () => env ??= cel().celEnv({ funcs: celExt().strings });
type Program = (ctx: Record<string, unknown>) => CelResult;
const compiled = new Map<string, { program?: Program; error?: string }>();

/** Parses and plans a rule once; `error` holds the compiler's words when it fails. */
export function compileRule(rule: string): { program?: Program; error?: string } {
  let c = compiled.get(rule);
  if (!c) {
    try {
      c = { program: cel().plan(celEnvironment(), cel().parse(rule)) as unknown as Program };
    } catch (e) {
      c = { error: (e as Error).message.replace(/^.*?<input>:/, '<input>:') };
    }
    compiled.set(rule, c);
  }
  return c;
}

/** Whether a rule reads oldSelf: a transition rule, checked only on update where an old value exists. */
export const isTransitionRule = (rule: string) => /\boldSelf\b/.test(rule);

/** The value as CEL sees it: integers as int (bigint) where the schema says integer. */
export function toCel(schema: Schema | undefined, v: unknown): unknown {
  if (v === null || v === undefined) return v ?? null;
  if (Array.isArray(v)) return v.map((x) => toCel(schema?.items, x));
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = toCel(schema?.properties?.[k] ?? (schema ? additionalSchema(schema) : undefined), x);
    return out;
  }
  if (typeof v === 'number' && Number.isInteger(v) && (schema?.type === 'integer' || schema?.['x-kubernetes-int-or-string'])) return BigInt(v);
  return v;
}

function truthy(r: CelResult): boolean | string {
  if (cel().isCelError(r)) return `${(r as Error).message}`;
  if (typeof r === 'boolean') return r;
  return 'rule did not evaluate to a boolean';
}

/**
 * Evaluates every rule of `schema` (and of its children) on `value`; `old`
 * is the value before an update (undefined on create), matched by field name
 * and by map key as upstream correlates them (list items are not correlated).
 */
export function validateRules(schema: Schema, value: unknown, old: unknown, path: string): FieldError[] {
  if (value === undefined || value === null) return [];
  const errs: FieldError[] = [];
  const rules = schema['x-kubernetes-validations'] ?? [];
  if (rules.length) {
    const self = toCel(schema, value);
    const oldSelf = old === undefined ? undefined : toCel(schema, old);
    for (const rule of rules) {
      const transition = isTransitionRule(rule.rule);
      if (transition && oldSelf === undefined && !rule.optionalOldSelf) continue;
      const { program, error } = compileRule(rule.rule);
      if (!program) { errs.push(invalid(path, schema.type ?? '', `compilation failed: ${error}`)); continue; }
      const vars = transition ? { self, oldSelf: oldSelf ?? null } : { self };
      const ok = truthy(program(vars));
      if (ok === true) continue;
      errs.push(ruleError({ ...rule, message: messageOf(rule, vars) }, schema, path, ok === false ? undefined : ok));
    }
  }
  if (Array.isArray(value) && schema.items) value.forEach((x, i) => errs.push(...validateRules(schema.items!, x, undefined, `${path}[${i}]`)));
  if (isObject(value)) {
    const o = isObject(old) ? old : undefined;
    for (const [k, x] of Object.entries(value)) {
      const sub = schema.properties?.[k];
      if (sub) errs.push(...validateRules(sub, x, o?.[k], path ? `${path}.${k}` : k));
      else if (additionalSchema(schema)) errs.push(...validateRules(additionalSchema(schema)!, x, o?.[k], `${path}[${k}]`));
    }
  }
  return errs;
}

/** messageExpression's string when it yields a non-empty one (upstream falls back to message otherwise). */
function messageOf(rule: ValidationRule, vars: Record<string, unknown>): string | undefined {
  if (!rule.messageExpression) return rule.message;
  const { program } = compileRule(rule.messageExpression);
  const r = program?.(vars);
  return typeof r === 'string' && r.trim() && !/[\r\n]/.test(r) ? r : rule.message;
}

/** A failed rule as upstream reports it: its reason, at path + fieldPath, with the message or `failed rule: <rule>`. */
function ruleError(rule: ValidationRule, schema: Schema, path: string, evalError?: string): FieldError {
  const at = rule.fieldPath ? `${path}${rule.fieldPath}` : path;
  if (evalError) return invalid(at, schema.type ?? '', evalError);
  const message = rule.message || `failed rule: ${rule.rule}`;
  switch (rule.reason) {
    case 'FieldValueRequired': return required(at, message);
    case 'FieldValueForbidden': return forbidden(at, message);
    case 'FieldValueDuplicate': return { type: 'FieldValueDuplicate', field: at, value: schema.type ?? '', detail: message };
    default: return invalid(at, schema.type ?? '', message);
  }
}
