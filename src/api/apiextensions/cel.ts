/**
 * x-kubernetes-validations: CEL rules with `self` (and `oldSelf` for
 * transition rules), evaluated with @bufbuild/cel at the schema node that
 * declares them, as upstream's apiextensions-apiserver celvalidation does.
 * Integers of the schema become CEL ints (bigint), as upstream types them.
 */
import { celEnv, parse, plan, isCelError, type CelResult } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { FieldError, forbidden, invalid, required } from '../field-errors.js';
import { additionalSchema, isObject, type Schema, type ValidationRule } from './types.js';
import { costLimitExceeded, metered, perCallLimit, runtimeCELCostBudget } from './cel-runtime-cost.js';

/** An object's rules stop after this much evaluation time in all, as after RuntimeCELCostBudget (see cel-runtime-cost.ts). */
export const objectTimeLimitMs = 500;
import { boundedFuncs } from './cel-bounded-funcs.js';
import { appendAll } from '../append.js';

/**
 * Upstream's CRD environment includes the strings extension library; the
 * bounded overrides come last, so they replace @bufbuild/cel's versions.
 */
const env = celEnv({ funcs: [...strings, ...boundedFuncs] });
type Program = (ctx: Record<string, unknown>) => CelResult;
const compiled = new Map<string, { program?: Program; error?: string }>();

/** Parses and plans a rule once; `error` holds the compiler's words when it fails. */
export function compileRule(rule: string): { program?: Program; error?: string } {
  let c = compiled.get(rule);
  if (!c) {
    try {
      c = { program: plan(env, parse(rule)) as unknown as Program };
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
  if (isCelError(r)) return `${(r as Error).message}`;
  if (typeof r === 'boolean') return r;
  return 'rule did not evaluate to a boolean';
}

/**
 * What is left of RuntimeCELCostBudget for one object (-1 once validation
 * stopped), and of its evaluation time: only time spent evaluating counts,
 * not compiling a rule or converting the object, so a rule's first use on a
 * loaded machine is not cut off before it ran (the cost bound is upstream's;
 * the time bound only stands in for it).
 */
interface Budget { remaining: number; msLeft: number }

/** Runs one metered call within the object's time left, and charges the time it took. */
function meteredCall(budget: Budget, evaluate: () => CelResult): ReturnType<typeof metered> {
  const started = performance.now();
  const run = metered(perCallLimit, evaluate, started + budget.msLeft);
  budget.msLeft -= performance.now() - started;
  return run;
}

/**
 * Evaluates every rule of `schema` (and of its children) on `value`; `old`
 * is the value before an update (undefined on create), matched by field name
 * and by map key as upstream correlates them (list items are not correlated).
 * Each call may cost PerCallLimit and the object RuntimeCELCostBudget in all,
 * as upstream's celvalidation counts them; past either, no further rule runs.
 */
export function validateRules(schema: Schema, value: unknown, old: unknown, path: string): FieldError[] {
  return walkRules(schema, value, old, path, { remaining: runtimeCELCostBudget, msLeft: objectTimeLimitMs });
}

function walkRules(schema: Schema, value: unknown, old: unknown, path: string, budget: Budget): FieldError[] {
  if (value === undefined || value === null || budget.remaining < 0) return [];
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
      if (budget.msLeft <= 0) return stop(errs, budget, invalid(path, schema.type ?? '', outOfBudget));
      const run = meteredCall(budget, () => program(vars));
      if (run.cost > budget.remaining) return stop(errs, budget, invalid(path, schema.type ?? '', outOfBudget));
      budget.remaining -= run.cost;
      if (run.exceeded) {
        return stop(errs, budget, invalid(path, schema.type ?? '', `'${costLimitExceeded}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleText(rule)}`));
      }
      const ok = truthy(run.result);
      if (ok === true) continue;
      if (ok !== false) { errs.push(invalid(path, schema.type ?? '', `${ok} evaluating rule: ${ruleText(rule)}`)); continue; }
      const message = messageOf(rule, vars, budget);
      if (typeof message === 'object') return stop(errs, budget, invalid(path, schema.type ?? '', message.stopped));
      errs.push(ruleError({ ...rule, message }, schema, path));
    }
  }
  if (Array.isArray(value) && schema.items) {
    for (let i = 0; i < value.length && budget.remaining >= 0; i++) appendAll(errs, walkRules(schema.items, value[i], undefined, `${path}[${i}]`, budget));
  }
  if (isObject(value)) {
    const o = isObject(old) ? old : undefined;
    for (const [k, x] of Object.entries(value)) {
      if (budget.remaining < 0) break;
      const sub = schema.properties?.[k];
      if (sub) appendAll(errs, walkRules(sub, x, o?.[k], path ? `${path}.${k}` : k, budget));
      else if (additionalSchema(schema)) appendAll(errs, walkRules(additionalSchema(schema)!, x, o?.[k], `${path}[${k}]`, budget));
    }
  }
  return errs;
}

const outOfBudget = 'validation failed due to running out of cost budget, no further validation rules will be run';

function stop(errs: FieldError[], budget: Budget, err: FieldError): FieldError[] {
  budget.remaining = -1;
  errs.push(err);
  return errs;
}

/** Upstream's ruleErrorString: the message when there is one, else the rule. */
const ruleText = (rule: ValidationRule) => (rule.message ? rule.message.trim() : rule.rule.trim());

/** messageExpression's string when it yields a non-empty one (upstream falls back to message otherwise). */
function messageOf(rule: ValidationRule, vars: Record<string, unknown>, budget: Budget): string | undefined | { stopped: string } {
  if (!rule.messageExpression) return rule.message;
  const { program } = compileRule(rule.messageExpression);
  if (!program) return rule.message;
  const run = meteredCall(budget, () => program(vars));
  // Upstream's evalMessageExpression words, for the object's budget and for the call's limit.
  if (run.cost > budget.remaining) return { stopped: 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run' };
  if (run.exceeded) return { stopped: `messageExpression evaluation failed due to: ${costLimitExceeded}` };
  budget.remaining -= run.cost;
  const r = run.result;
  return typeof r === 'string' && r.trim() && !/[\r\n]/.test(r) ? r : rule.message;
}

/** A failed rule as upstream reports it: its reason, at path + fieldPath, with the message or `failed rule: <rule>`. */
function ruleError(rule: ValidationRule, schema: Schema, path: string): FieldError {
  const at = rule.fieldPath ? `${path}${rule.fieldPath}` : path;
  const message = rule.message || `failed rule: ${rule.rule}`;
  switch (rule.reason) {
    case 'FieldValueRequired': return required(at, message);
    case 'FieldValueForbidden': return forbidden(at, message);
    case 'FieldValueDuplicate': return { type: 'FieldValueDuplicate', field: at, value: schema.type ?? '', detail: message };
    default: return invalid(at, schema.type ?? '', message);
  }
}

/** Whether any node of the schema declares x-kubernetes-validations (upstream builds a CEL validator only then). */
export function schemaHasRules(s: Schema | undefined): boolean {
  if (!s) return false;
  if (s['x-kubernetes-validations']?.length) return true;
  const values = additionalSchema(s);
  return schemaHasRules(s.items) || (values !== undefined && schemaHasRules(values)) || Object.values(s.properties ?? {}).some(schemaHasRules);
}
