/**
 * Type checking of a ValidatingAdmissionPolicy's expressions against the
 * schemas of the kinds it matches, as upstream's TypeChecker does for
 * status.typeChecking (plugin/policy/validating/typechecking.go): for each
 * kind named by matchConstraints.resourceRules (no wildcards, no
 * subresources, at most 10, sorted by group, version, kind), each
 * validation's expression and messageExpression is checked with `object`
 * and `oldObject` of that kind's schema and `params` of the paramKind's.
 *
 * What is checked here is the part of cel-go's checker that catches the
 * common mistake, a field name the schema does not have: a select (or
 * has()) on an object whose schema lists its properties and keeps no
 * unknown fields reports `undefined field 'NAME'` at the select, in
 * cel-go's words and positions. Types of operators and functions are not
 * checked (an expression they would reject still fails at runtime, as it
 * does upstream when type checking is skipped).
 */
import type { ExpressionWarning, ValidatingAdmissionPolicy } from 'kubernetes-types/admissionregistration/v1.js';
import type { OpenAPISchema } from '../schema/definitions.js';
import type { ResourceRule } from './types.js';
import { celIssue, children, type CelExpr, type ParsedCel, parseCel } from './cel-ast.js';

export interface Kind { group: string; version: string; kind: string }

export interface TypeCheckEnv {
  /** The kinds a group/version/resource names (a resource of a CRD included). */
  kindsFor(group: string, version: string, resource: string): Kind[];
  /** The OpenAPI schema of a kind, its $refs resolvable through `resolve`. */
  schemaOf(kind: Kind): OpenAPISchema | undefined;
  /** A `$ref` target (`#/components/schemas/NAME`). */
  resolve(ref: string): OpenAPISchema | undefined;
}

const maxTypesToCheck = 10;

/** The kinds to check: from resource rules without wildcards, subresources skipped, sorted by group, version, kind. */
export function typesToCheck(policy: ValidatingAdmissionPolicy, env: TypeCheckEnv): Kind[] {
  const out = new Map<string, Kind>();
  for (const rule of (policy.spec?.matchConstraints?.resourceRules ?? []) as ResourceRule[]) {
    const groups = rule.apiGroups ?? [];
    const versions = rule.apiVersions ?? [];
    if (groups.some((g) => g.includes('*')) || versions.some((v) => v.includes('*'))) continue;
    const resources = (rule.resources ?? []).filter((r) => !/[*/]/.test(r));
    for (const g of [...groups].sort()) for (const v of [...versions].sort()) for (const r of [...resources].sort()) {
      for (const k of env.kindsFor(g, v, r)) {
        out.set(`${k.group}/${k.version}/${k.kind}`, k);
        if (out.size === maxTypesToCheck) return sortKinds([...out.values()]);
      }
    }
  }
  return sortKinds([...out.values()]);
}

const sortKinds = (ks: Kind[]) => ks.sort((a, b) => a.group.localeCompare(b.group) || a.version.localeCompare(b.version) || a.kind.localeCompare(b.kind));

/** schema.GroupVersionKind's String(): `apps/v1, Kind=Deployment` (`/v1, Kind=Pod` for the core group). */
const gvkString = (k: Kind) => `${k.group}/${k.version}, Kind=${k.kind}`;

/** Follows $ref and a described ref's allOf to the schema that has the properties. */
function deref(s: OpenAPISchema | undefined, env: TypeCheckEnv): OpenAPISchema | undefined {
  for (let i = 0; s && i < 16; i++) {
    if (s.$ref) s = env.resolve(s.$ref);
    else if (s.allOf?.length === 1 && !s.properties) s = s.allOf[0];
    else return s;
  }
  return s;
}

/** A value's type as far as known: its schema, or undefined (dyn: anything goes). */
type Typed = OpenAPISchema | undefined;

function checkExpression(parsed: ParsedCel, roots: Record<string, Typed>, env: TypeCheckEnv): string[] {
  const issues: { at: number; text: string }[] = [];
  const typeOf = (e: CelExpr, scope: Record<string, Typed>): Typed => {
    const k = e.exprKind;
    switch (k.case) {
      case 'identExpr': return Object.hasOwn(scope, k.value.name) ? scope[k.value.name] : undefined;
      case 'selectExpr': {
        const operand = k.value.operand ? deref(typeOf(k.value.operand, scope), env) : undefined;
        if (!operand || operand['x-kubernetes-preserve-unknown-fields']) return undefined;
        if (operand.additionalProperties) return operand.additionalProperties;
        if (operand.type === 'object' && operand.properties) {
          const field = operand.properties[k.value.field];
          if (field) return field;
          issues.push({ at: parsed.positions.get(e.id) ?? 0, text: celIssue(parsed, e, `undefined field '${k.value.field}'`) });
        }
        return undefined;
      }
      case 'callExpr': {
        const kids = children(e).map((c) => typeOf(c, scope));
        if (k.value.function === '_[_]' && !k.value.target) {
          const container = deref(kids[0], env);
          if (container?.type === 'array') return container.items;
          if (container?.additionalProperties) return container.additionalProperties;
        }
        return undefined;
      }
      case 'comprehensionExpr': {
        const c = k.value;
        const range = c.iterRange ? deref(typeOf(c.iterRange, scope), env) : undefined;
        if (c.accuInit) typeOf(c.accuInit, scope);
        const inner: Record<string, Typed> = { ...scope, [c.accuVar]: undefined };
        if (range?.type === 'array') inner[c.iterVar] = range.items;
        else inner[c.iterVar] = range?.additionalProperties ? { type: 'string' } : undefined;
        if (c.iterVar2) inner[c.iterVar2] = range?.type === 'array' ? range.items : range?.additionalProperties;
        for (const x of [c.loopCondition, c.loopStep, c.result]) if (x) typeOf(x, inner);
        return undefined;
      }
      default:
        for (const c of children(e)) typeOf(c, scope);
        return undefined;
    }
  };
  typeOf(parsed.expr, roots);
  return issues.sort((a, b) => a.at - b.at).map((i) => i.text);
}

/** The warnings of status.typeChecking.expressionWarnings; empty when every expression checks. */
export function typeCheckPolicy(policy: ValidatingAdmissionPolicy, env: TypeCheckEnv): ExpressionWarning[] {
  const kinds = typesToCheck(policy, env).map((k) => ({ k, schema: env.schemaOf(k) })).filter((x) => x.schema);
  if (!kinds.length) return [];
  const pk = policy.spec?.paramKind;
  const paramGV = pk?.apiVersion?.split('/');
  const params = pk?.kind && paramGV ? env.schemaOf({ group: paramGV.length === 2 ? paramGV[0] : '', version: paramGV[paramGV.length - 1], kind: pk.kind }) : undefined;
  const warnings: ExpressionWarning[] = [];
  const check = (expr: string, fieldRef: string) => {
    let parsed: ParsedCel;
    try { parsed = parseCel(expr); } catch { return; } // validation reported it
    const results = kinds.map(({ k, schema }) => {
      const issues = checkExpression(parsed, { object: schema, oldObject: schema, params }, env);
      return issues.length ? `${gvkString(k)}: ${issues.join('\n')}\n` : '';
    }).filter(Boolean);
    if (results.length) warnings.push({ fieldRef, warning: results.join('\n') });
  };
  (policy.spec?.validations ?? []).forEach((v, i) => {
    if (v.expression) check(v.expression, `spec.validations[${i}].expression`);
    if (v.messageExpression) check(v.messageExpression, `spec.validations[${i}].messageExpression`);
  });
  return warnings;
}
