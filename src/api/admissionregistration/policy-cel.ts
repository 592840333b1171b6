/**
 * CEL for ValidatingAdmissionPolicies: the variables upstream declares for
 * them (k8s.io/apiserver/pkg/admission/plugin/cel: object, oldObject,
 * request, params, namespaceObject, variables, authorizer), compiled once
 * per expression with the same environment and cost meter as CRD rules
 * (../apiextensions/cel.ts). A reference to anything else fails to compile
 * with cel-go's `undeclared reference` error, as upstream's checker does.
 */
import { compileRule } from '../apiextensions/cel.js';
import { celIssue, freeIdentifiers, parseCel } from './cel-ast.js';
import type { CelResult } from '@bufbuild/cel';

/** The variables every policy expression may read. */
export const policyVariables = ['object', 'oldObject', 'request', 'params', 'namespaceObject', 'variables', 'authorizer'] as const;
const declared = new Set<string>(policyVariables);

export type PolicyProgram = (activation: Record<string, unknown>) => CelResult;

const cache = new Map<string, { program?: PolicyProgram; error?: string }>();

/**
 * Compiles a policy expression; `error` is upstream's detail
 * (`compilation failed: ERROR: <input>:1:1: ...`) when it does not compile.
 */
export function compilePolicyExpression(expression: string): { program?: PolicyProgram; error?: string } {
  let c = cache.get(expression);
  if (c) return c;
  const { program, error } = compileRule(expression);
  if (!program) c = { error: `compilation failed: ERROR: ${error ?? 'invalid expression'}` };
  else {
    const parsed = parseCel(expression);
    const undeclared = [...freeIdentifiers(parsed.expr)].filter(([name]) => !declared.has(name));
    c = undeclared.length
      ? { error: `compilation failed: ${undeclared.map(([name, node]) => celIssue(parsed, node, `undeclared reference to '${name}' (in container '')`)).join('\n')}` }
      : { program: program as PolicyProgram };
  }
  // Policies are few and their expressions change rarely; bound the cache anyway (a client can write many).
  if (cache.size > 10_000) cache.clear();
  cache.set(expression, c);
  return c;
}
