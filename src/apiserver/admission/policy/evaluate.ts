/**
 * One policy's evaluation for one binding and one param, as upstream's
 * validator (plugin/policy/validating/validator.go): matchConditions first
 * (all true, or the policy does not apply; an error follows failurePolicy),
 * then each validation, its message (messageExpression's string when it is
 * one non-empty line, else message, else `failed expression: EXPR`) and
 * reason, then the auditAnnotations. Variables are evaluated lazily, once,
 * when an expression first reads them.
 *
 * Every expression runs under the CEL cost meter of CRD rules: a call may
 * cost PerCallLimit, the policy evaluation RuntimeCELCostBudget in all, and
 * (k8ts' bound, docs/threads.md) the request's policy evaluations together
 * stop at a deadline, after which they answer the out-of-budget error.
 */
import type { ValidatingAdmissionPolicy } from 'kubernetes-types/admissionregistration/v1.js';
import { isCelError, type CelResult } from '@bufbuild/cel';
import { compilePolicyExpression } from '../../../api/admissionregistration/policy-cel.js';
import { costLimitExceeded, metered, perCallLimit } from '../../../api/apiextensions/cel-runtime-cost.js';

export const outOfBudget = 'validation failed due to running out of cost budget, no further validation rules will be run';

export interface Decision {
  action: 'admit' | 'deny';
  /** An evaluation error (failurePolicy decides), not a failed validation. */
  error?: boolean;
  message: string;
  reason?: string;
  index: number;
}

export interface Evaluation {
  decisions: Decision[];
  auditAnnotations: { key: string; value: string }[];
}

export interface Meter { remaining: number; deadline: number }

class VariableFailed extends Error {}

/** Runs one expression under the meter; a CelError, a cancellation or a failed variable come back as `error`. */
function evaluate(expression: string, activation: Record<string, unknown>, meter: Meter): { value?: unknown; error?: string; outOfBudget?: boolean } {
  const { program, error } = compilePolicyExpression(expression);
  if (!program) return { error };
  if (meter.remaining < 0 || performance.now() > meter.deadline) return { error: outOfBudget, outOfBudget: true };
  let run: { result: CelResult; cost: number; exceeded: boolean };
  try {
    run = metered(Math.min(perCallLimit, meter.remaining + 1), () => program(activation), meter.deadline);
  } catch (e) {
    if (e instanceof VariableFailed) return { error: e.message };
    throw e;
  }
  meter.remaining -= run.cost;
  if (run.exceeded) {
    if (meter.remaining < 0 || performance.now() > meter.deadline) return { error: outOfBudget, outOfBudget: true };
    return { error: `expression '${expression}' resulted in error: ${costLimitExceeded}` };
  }
  if (isCelError(run.result)) return { error: `expression '${expression}' resulted in error: ${(run.result as Error).message}` };
  return { value: run.result };
}

/** `variables`: each evaluated on first read, in the policy's activation. */
function lazyVariables(policy: ValidatingAdmissionPolicy, activation: Record<string, unknown>, meter: Meter): Record<string, unknown> {
  const vars: Record<string, unknown> = {};
  for (const v of policy.spec?.variables ?? []) {
    let done: { value?: unknown; error?: string } | undefined;
    Object.defineProperty(vars, v.name, {
      enumerable: true,
      get() {
        done ??= evaluate(v.expression, activation, meter);
        if (done.error !== undefined) throw new VariableFailed(done.error);
        return done.value;
      },
    });
  }
  return vars;
}

const errorAction = (failurePolicy: string | undefined): Decision['action'] => (failurePolicy === 'Ignore' ? 'admit' : 'deny');

/** Evaluates `policy` in `base` (object, oldObject, request, params, namespaceObject). */
export function evaluatePolicy(policy: ValidatingAdmissionPolicy, base: Record<string, unknown>, meter: Meter): Evaluation {
  const spec = policy.spec ?? {};
  const activation: Record<string, unknown> = { ...base };
  activation.variables = lazyVariables(policy, activation, meter);
  const onError = errorAction(spec.failurePolicy);
  // matchConditions: a false one means the policy does not apply; errors are aggregated as upstream's matcher does.
  const conditionErrors: string[] = [];
  for (const c of spec.matchConditions ?? []) {
    const r = evaluate(c.expression, activation, meter);
    if (r.error !== undefined) { conditionErrors.push(r.error); continue; }
    if (r.value === false) return { decisions: [], auditAnnotations: [] };
  }
  if (conditionErrors.length) {
    const message = conditionErrors.length === 1 ? conditionErrors[0] : `[${conditionErrors.join(', ')}]`;
    return { decisions: [{ action: onError, error: true, message, index: 0 }], auditAnnotations: [] };
  }
  const decisions: Decision[] = [];
  (spec.validations ?? []).forEach((v, index) => {
    const r = evaluate(v.expression, activation, meter);
    if (r.error !== undefined) { decisions.push({ action: onError, error: true, message: r.error, index }); return; }
    if (r.value === true) { decisions.push({ action: 'admit', message: '', index }); return; }
    let message = '';
    if (v.messageExpression) {
      const m = evaluate(v.messageExpression, activation, meter);
      if (m.outOfBudget) { decisions.push({ action: onError, error: true, message: `failed messageExpression: ${outOfBudget}`, index }); return; }
      // upstream: a non-string, blank, multi-line or over-long (5,000 bytes) result falls back to message.
      if (typeof m.value === 'string') {
        const t = m.value.trim();
        if (!/\n/.test(t) && Buffer.byteLength(t) <= 5000) message = t;
      }
    }
    if (!message && v.message) message = v.message.trim();
    if (!message) message = `failed expression: ${v.expression.trim()}`;
    decisions.push({ action: 'deny', message, reason: v.reason ?? 'Invalid', index });
  });
  const auditAnnotations: Evaluation['auditAnnotations'] = [];
  for (const a of spec.auditAnnotations ?? []) {
    const r = evaluate(a.valueExpression, activation, meter);
    if (r.error !== undefined) {
      if (onError === 'deny') decisions.push({ action: 'deny', error: true, message: r.error, index: decisions.length });
      continue;
    }
    if (r.value === null) continue;
    if (typeof r.value !== 'string') {
      decisions.push({ action: 'deny', error: true, index: decisions.length,
        message: `valueExpression '${a.valueExpression}' resulted in unsupported return type: ${typeof r.value}. Return type must be either string or null.` });
      continue;
    }
    const value = r.value.trim();
    if (value) auditAnnotations.push({ key: a.key, value: value.slice(0, 10 * 1024) });
  }
  return { decisions, auditAnnotations };
}
