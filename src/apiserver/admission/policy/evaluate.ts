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
 * may take 500 ms of evaluation time, after which they answer the
 * out-of-budget error; each expression waits for its turn (turns.ts).
 */
import type { ValidatingAdmissionPolicy } from 'kubernetes-types/admissionregistration/v1.js';
import { isCelError, type CelResult } from '@bufbuild/cel';
import { compilePolicyExpression } from '../../../api/admissionregistration/policy-cel.js';
import { costLimitExceeded, metered, perCallLimit } from '../../../api/apiextensions/cel-runtime-cost.js';
import { takeTurn } from './turns.js';

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

/** The policy's cost left (RuntimeCELCostBudget) and the request's evaluation time left, in ms. */
export interface Meter { remaining: number; timeLeftMs: number }

class VariableFailed extends Error {}

/**
 * One call's evaluation time, at most (k8ts' bound): a call that has not
 * finished by then is cancelled as past its cost limit. Shorter than CRD
 * rules' 250 ms because a policy call holds the loop for every request, and
 * a bystander's request needs several turns of the loop (TLS, parse,
 * handler, write) between two calls (turns.ts).
 */
export const sliceMs = 50;

type Outcome = { value?: unknown; error?: string; outOfBudget?: boolean };

/** One expression in its turn on the loop (turns.ts). */
async function evaluate(expression: string, activation: Record<string, unknown>, meter: Meter): Promise<Outcome> {
  const release = await takeTurn();
  const started = performance.now();
  try {
    return evaluateNow(expression, activation, meter);
  } finally {
    release(performance.now() - started);
  }
}

/** Runs one expression under the meter; a CelError, a cancellation or a failed variable come back as `error`. */
function evaluateNow(expression: string, activation: Record<string, unknown>, meter: Meter): Outcome {
  const { program, error } = compilePolicyExpression(expression);
  if (!program) return { error };
  if (meter.remaining < 0 || meter.timeLeftMs <= 0) return { error: outOfBudget, outOfBudget: true };
  let run: { result: CelResult; cost: number; exceeded: boolean };
  const started = performance.now();
  try {
    run = metered(Math.min(perCallLimit, meter.remaining + 1), () => program(activation), started + Math.min(sliceMs, meter.timeLeftMs));
  } catch (e) {
    if (e instanceof VariableFailed) return { error: e.message };
    throw e;
  } finally {
    meter.timeLeftMs -= performance.now() - started;
  }
  meter.remaining -= run.cost;
  if (run.exceeded) {
    if (meter.remaining < 0 || meter.timeLeftMs <= 0) return { error: outOfBudget, outOfBudget: true };
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
        // Read inside another expression's evaluation, in its turn.
        done ??= evaluateNow(v.expression, activation, meter);
        if (done.error !== undefined) throw new VariableFailed(done.error);
        return done.value;
      },
    });
  }
  return vars;
}

const errorAction = (failurePolicy: string | undefined): Decision['action'] => (failurePolicy === 'Ignore' ? 'admit' : 'deny');

/** Evaluates `policy` in `base` (object, oldObject, request, params, namespaceObject). */
export async function evaluatePolicy(policy: ValidatingAdmissionPolicy, base: Record<string, unknown>, meter: Meter): Promise<Evaluation> {
  const spec = policy.spec ?? {};
  const activation: Record<string, unknown> = { ...base };
  activation.variables = lazyVariables(policy, activation, meter);
  const onError = errorAction(spec.failurePolicy);
  // matchConditions: a false one means the policy does not apply; errors are aggregated as upstream's matcher does.
  const conditionErrors: string[] = [];
  for (const c of spec.matchConditions ?? []) {
    const r = await evaluate(c.expression, activation, meter);
    if (r.error !== undefined) { conditionErrors.push(r.error); continue; }
    if (r.value === false) return { decisions: [], auditAnnotations: [] };
  }
  if (conditionErrors.length) {
    const message = conditionErrors.length === 1 ? conditionErrors[0] : `[${conditionErrors.join(', ')}]`;
    return { decisions: [{ action: onError, error: true, message, index: 0 }], auditAnnotations: [] };
  }
  const decisions: Decision[] = [];
  for (const [index, v] of (spec.validations ?? []).entries()) {
    const r = await evaluate(v.expression, activation, meter);
    if (r.error !== undefined) { decisions.push({ action: onError, error: true, message: r.error, index }); continue; }
    if (r.value === true) { decisions.push({ action: 'admit', message: '', index }); continue; }
    let message = '';
    if (v.messageExpression) {
      const m = await evaluate(v.messageExpression, activation, meter);
      if (m.outOfBudget) { decisions.push({ action: onError, error: true, message: `failed messageExpression: ${outOfBudget}`, index }); continue; }
      // upstream: a non-string, blank, multi-line or over-long (5,000 bytes) result falls back to message.
      if (typeof m.value === 'string') {
        const t = m.value.trim();
        if (!/\n/.test(t) && Buffer.byteLength(t) <= 5000) message = t;
      }
    }
    if (!message && v.message) message = v.message.trim();
    if (!message) message = `failed expression: ${v.expression.trim()}`;
    decisions.push({ action: 'deny', message, reason: v.reason ?? 'Invalid', index });
  }
  const auditAnnotations: Evaluation['auditAnnotations'] = [];
  for (const a of spec.auditAnnotations ?? []) {
    const r = await evaluate(a.valueExpression, activation, meter);
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
