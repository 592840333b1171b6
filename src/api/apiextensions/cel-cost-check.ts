/**
 * The CEL cost checks of CRD create and update, as upstream's apiextensions
 * validation (validation.go, cel_validation.go) makes them per version
 * schema: each rule's estimated cost times the number of times its node can
 * occur (the product of the enclosing maxItems/maxProperties, or when one is
 * unbounded the count of the node's minimal values that fit in 3 MiB) must
 * stay within StaticEstimatedCostLimit, each messageExpression's cost too,
 * and the sum over the schema within StaticEstimatedCRDCostLimit. On update,
 * a version whose schema is unchanged skips the per-rule limits (upstream's
 * suppressPerExpressionCost), so stored CRDs keep working.
 */
import { forbidden, type FieldError } from '../field-errors.js';
import { additionalSchema, type Schema } from './types.js';
import {
  costErrorMessage, estimateRuleCost, maxRequestSizeBytes, minSerializedSize, staticEstimatedCRDCostLimit, staticEstimatedCostLimit,
} from './cel-cost.js';

interface RuleCost { path: string; cost: number }
interface Total { total: number; mostExpensive: RuleCost[] }

/** Upstream's extractMaxElements: how many times a node's children can occur per occurrence of the node. */
function maxElements(s: Schema): number | undefined {
  if (s.type === 'object') return additionalSchema(s) || s.additionalProperties === true ? s.maxProperties : 1;
  if (s.type === 'array') return s.maxItems;
  return 1;
}

/** ObserveExpressionCost: the total, and the four most expensive rules of at least 1% of the CRD limit. */
function observe(total: Total, path: string, cost: number): void {
  total.total += cost;
  if (cost < staticEstimatedCRDCostLimit / 100) return;
  total.mostExpensive.push({ path, cost });
  total.mostExpensive.sort((a, b) => b.cost - a.cost);
  total.mostExpensive.length = Math.min(total.mostExpensive.length, 4);
}

function walk(s: Schema, path: string, cardinality: number | undefined, total: Total, perRule: boolean, errs: FieldError[]): void {
  (s['x-kubernetes-validations'] ?? []).forEach((rule, i) => {
    const at = `${path}.x-kubernetes-validations[${i}]`;
    const base = rule.rule ? estimateRuleCost(rule.rule, s) : undefined;
    if (base !== undefined) {
      const times = cardinality ?? Math.floor(maxRequestSizeBytes / (minSerializedSize(s) + 1));
      const cost = base * times;
      if (perRule && cost > staticEstimatedCostLimit) errs.push(forbidden(`${at}.rule`, costErrorMessage('estimated rule cost', cost, staticEstimatedCostLimit)));
      observe(total, `${at}.rule`, cost);
    }
    const message = rule.messageExpression ? estimateRuleCost(rule.messageExpression, s) : undefined;
    if (message !== undefined) {
      if (perRule && message > staticEstimatedCostLimit) errs.push(forbidden(`${at}.messageExpression`, costErrorMessage('estimated messageExpression cost', message, staticEstimatedCostLimit)));
      observe(total, `${at}.messageExpression`, message);
    }
  });
  const factor = maxElements(s);
  const child = cardinality === undefined || factor === undefined ? undefined : cardinality * factor;
  const values = additionalSchema(s);
  if (values) walk(values, `${path}.additionalProperties`, child, total, perRule, errs);
  for (const [k, v] of Object.entries(s.properties ?? {})) walk(v, `${path}.properties[${k}]`, child, total, perRule, errs);
  if (s.items && !Array.isArray(s.items)) walk(s.items, `${path}.items`, child, total, perRule, errs);
}

/**
 * The cost errors of one version's schema at `path` (its openAPIV3Schema);
 * `unchanged` when an update leaves this version's schema as it was.
 */
export function validateSchemaCost(schema: Schema, path: string, unchanged = false): FieldError[] {
  const errs: FieldError[] = [];
  const total: Total = { total: 0, mostExpensive: [] };
  walk(schema, path, 1, total, !unchanged, errs);
  if (total.total > staticEstimatedCRDCostLimit) {
    for (const r of total.mostExpensive) errs.push(forbidden(r.path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'));
    errs.push(forbidden(path, costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', total.total, staticEstimatedCRDCostLimit)));
  }
  return errs;
}
