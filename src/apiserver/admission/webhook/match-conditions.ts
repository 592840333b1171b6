/**
 * A webhook's matchConditions (CEL), as upstream's webhook/matchconditions
 * Matcher: every condition is evaluated with `object`, `oldObject` and `request`
 * (the AdmissionRequest); one that yields false skips the webhook, whatever the
 * others yield; otherwise an evaluation error fails the request (403) under
 * failurePolicy Fail and skips the webhook under Ignore.
 *
 * Bounded as the CRD rules are (docs/threads.md): each call under PerCallLimit and
 * the time limit of cel-runtime-cost.ts, all of a webhook's conditions under
 * RuntimeCELCostBudget, on the serving loop (the inputs are the request's own
 * object, already decoded and bounded by the 3 MiB body limit).
 */
import type { MatchCondition } from 'kubernetes-types/admissionregistration/v1.js';
import { isCelError } from '@bufbuild/cel';
import { compileRule } from '../../../api/apiextensions/cel.js';
import { costLimitExceeded, metered, perCallLimit, runtimeCELCostBudget } from '../../../api/apiextensions/cel-runtime-cost.js';

export type MatchResult = { matches: true } | { matches: false } | { error: string };

/** JSON as CEL sees it without a schema: whole numbers are ints (bigint), as upstream's unstructured conversion types them. */
export function toCelValue(v: unknown): unknown {
  if (v === null || v === undefined) return v ?? null;
  if (Array.isArray(v)) return v.map(toCelValue);
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = toCelValue(x);
    return out;
  }
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  return v;
}

export function evaluateMatchConditions(conditions: readonly MatchCondition[], vars: { object: unknown; oldObject: unknown; request: unknown }): MatchResult {
  const celVars = { object: toCelValue(vars.object), oldObject: toCelValue(vars.oldObject), request: toCelValue(vars.request) };
  const errors: string[] = [];
  let remaining = runtimeCELCostBudget;
  for (const c of conditions) {
    const { program, error } = compileRule(c.expression);
    if (!program) { errors.push(`compilation failed: ${error}`); continue; }
    if (remaining < 0) { errors.push(`${costLimitExceeded}`); break; }
    const run = metered(Math.min(perCallLimit, remaining), () => program(celVars));
    remaining -= run.cost;
    const r = run.result;
    if (r === false) return { matches: false };
    if (r === true) continue;
    const why = isCelError(r) ? (r as Error).message : 'must evaluate to bool';
    errors.push(`expression '${c.expression}' resulted in error: ${why}`);
  }
  return errors.length ? { error: errors.join(', ') } : { matches: true };
}
