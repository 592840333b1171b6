/**
 * Validation of ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding
 * (admissionregistration.k8s.io/v1), with upstream's paths and words
 * (pkg/apis/admissionregistration/validation/validation.go): every
 * expression must compile, the enums are closed, a binding's actions may
 * not repeat nor hold both Deny and Warn, paramRef names one param or
 * selects some (not both).
 */
import type {
  AuditAnnotation, MatchCondition, MatchResources, ParamKind, ParamRef, Validation, ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding, Variable,
} from 'kubernetes-types/admissionregistration/v1.js';
import { duplicate, FieldError, forbidden, GoValue, invalid, notSupported, required } from '../field-errors.js';
import { isDNS1123Subdomain, isQualifiedName, isValidPathSegmentName, nameIsDNSSubdomain } from '../names.js';
import { appendAll } from '../append.js';
import { validateLabelSelector } from '../validation/labels.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../validation/objectmeta.js';
import { compilePolicyExpression } from './policy-cel.js';
import type { ResourceRule } from './types.js';

const failurePolicies = ['Fail', 'Ignore'];
const matchPolicies = ['Equivalent', 'Exact'];
const operations = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const scopes = ['*', 'Cluster', 'Namespaced'];
export const validationReasons = ['Forbidden', 'Invalid', 'RequestEntityTooLarge', 'Unauthorized'];
const validationActions = ['Audit', 'Deny', 'Warn'];
const maxAuditAnnotations = 20;
const maxMatchConditions = 64;
const celIdentifier = /^[_a-zA-Z][_a-zA-Z0-9]*$/;

const arr = <T>(v: T[] | undefined | null): T[] => (Array.isArray(v) ? v : []);
const hasNewlines = (s: string) => /[\r\n]/.test(s);

/** An expression that must compile: Required when blank, else the compiler's words as Invalid. */
function expression(path: string, expr: string | undefined, what = 'expression'): FieldError[] {
  if (!expr?.trim()) return [required(path, `${what} is not specified`)];
  const { error } = compilePolicyExpression(expr);
  return error ? [invalid(path, expr, error)] : [];
}

function validateParamKind(pk: ParamKind, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!pk.apiVersion) errs.push(required(`${path}.apiVersion`, ''));
  else {
    const parts = pk.apiVersion.split('/');
    if (parts.length > 2 || parts.some((p) => !p)) errs.push(invalid(`${path}.apiVersion`, pk.apiVersion, `unexpected GroupVersion string: ${pk.apiVersion}`));
    else if (parts.length === 2) for (const msg of isDNS1123Subdomain(parts[0])) errs.push(invalid(`${path}.apiVersion`, pk.apiVersion, msg));
  }
  if (!pk.kind) errs.push(required(`${path}.kind`, ''));
  return errs;
}

/** validateRule's list rule: `*` stands alone. */
function starAlone(list: string[], path: string, what: string): FieldError[] {
  return list.length > 1 && list.includes('*') ? [invalid(path, list, `if '*' is present, must not specify other ${what}`)] : [];
}

function validateRule(rule: ResourceRule, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const ops = arr(rule.operations);
  if (ops.length === 0) errs.push(required(`${path}.operations`, ''));
  appendAll(errs, starAlone(ops, `${path}.operations`, 'operations'));
  ops.forEach((op, i) => { if (!operations.includes(op)) errs.push(notSupported(`${path}.operations[${i}]`, op, operations)); });
  const groups = arr(rule.apiGroups);
  if (groups.length === 0) errs.push(required(`${path}.apiGroups`, ''));
  appendAll(errs, starAlone(groups, `${path}.apiGroups`, 'API groups'));
  const versions = arr(rule.apiVersions);
  if (versions.length === 0) errs.push(required(`${path}.apiVersions`, ''));
  appendAll(errs, starAlone(versions, `${path}.apiVersions`, 'API versions'));
  versions.forEach((v, i) => { if (!v) errs.push(required(`${path}.apiVersions[${i}]`, 'version must not be empty')); });
  const res = arr(rule.resources);
  if (res.length === 0) errs.push(required(`${path}.resources`, ''));
  if (rule.scope !== undefined && !scopes.includes(rule.scope)) errs.push(notSupported(`${path}.scope`, rule.scope, scopes));
  arr(rule.resourceNames).forEach((n, i) => { for (const msg of isDNS1123Subdomain(n)) errs.push(invalid(`${path}.resourceNames[${i}]`, n, msg)); });
  return errs;
}

function validateMatchResources(m: MatchResources | undefined, path: string): FieldError[] {
  if (!m) return [];
  const errs: FieldError[] = [];
  if (m.matchPolicy !== undefined && !matchPolicies.includes(m.matchPolicy)) errs.push(notSupported(`${path}.matchPolicy`, m.matchPolicy, matchPolicies));
  appendAll(errs, validateLabelSelector(m.namespaceSelector, `${path}.namespaceSelector`));
  appendAll(errs, validateLabelSelector(m.objectSelector, `${path}.objectSelector`));
  arr(m.resourceRules).forEach((r, i) => appendAll(errs, validateRule(r, `${path}.resourceRules[${i}]`)));
  arr(m.excludeResourceRules).forEach((r, i) => appendAll(errs, validateRule(r, `${path}.excludeResourceRules[${i}]`)));
  return errs;
}

function validateMatchConditions(conds: MatchCondition[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (conds.length > maxMatchConditions) errs.push({ type: 'FieldValueTooMany', field: path, value: conds.length, detail: `must have at most ${maxMatchConditions} items` });
  const names = new Set<string>();
  conds.forEach((c, i) => {
    const at = `${path}[${i}]`;
    if (!c.name) errs.push(required(`${at}.name`, ''));
    else {
      for (const msg of isQualifiedName(c.name)) errs.push(invalid(`${at}.name`, c.name, msg));
      if (names.has(c.name)) errs.push(duplicate(`${at}.name`, c.name));
      names.add(c.name);
    }
    appendAll(errs, expression(`${at}.expression`, c.expression));
  });
  return errs;
}

function validateVariables(vars: Variable[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  vars.forEach((v, i) => {
    const at = `${path}[${i}]`;
    if (!v.name) errs.push(required(`${at}.name`, 'name is not specified'));
    else if (!celIdentifier.test(v.name)) errs.push(invalid(`${at}.name`, v.name, 'name is not a valid CEL identifier'));
    appendAll(errs, expression(`${at}.expression`, v.expression));
  });
  return errs;
}

function validateValidation(v: Validation, path: string): FieldError[] {
  const errs = expression(`${path}.expression`, v.expression);
  const msgExpr = v.messageExpression ?? '';
  if (msgExpr.length > 0 && !msgExpr.trim()) errs.push(invalid(`${path}.messageExpression`, msgExpr, 'must be non-empty if specified'));
  else if (msgExpr.trim()) appendAll(errs, expression(`${path}.messageExpression`, msgExpr, 'messageExpression'));
  const msg = v.message ?? '';
  if (msg.length > 0 && !msg.trim()) errs.push(invalid(`${path}.message`, msg, 'message must be non-empty if specified'));
  else if (hasNewlines(msg.trim())) errs.push(invalid(`${path}.message`, msg, 'message must not contain line breaks'));
  if (v.reason !== undefined && !validationReasons.includes(v.reason)) errs.push(notSupported(`${path}.reason`, v.reason, validationReasons));
  return errs;
}

function validateAuditAnnotation(policyName: string, a: AuditAnnotation, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!a.key) errs.push(required(`${path}.key`, ''));
  else for (const msg of isQualifiedName(`${policyName}/${a.key}`)) errs.push(invalid(`${path}.key`, a.key, msg));
  appendAll(errs, expression(`${path}.valueExpression`, a.valueExpression, 'valueExpression'));
  return errs;
}

function validatePolicySpec(p: ValidatingAdmissionPolicy): FieldError[] {
  const spec = p.spec ?? {};
  const errs: FieldError[] = [];
  if (spec.failurePolicy === undefined) errs.push(required('spec.failurePolicy', ''));
  else if (!failurePolicies.includes(spec.failurePolicy)) errs.push(notSupported('spec.failurePolicy', spec.failurePolicy, failurePolicies));
  if (spec.paramKind) appendAll(errs, validateParamKind(spec.paramKind, 'spec.paramKind'));
  if (!spec.matchConstraints) errs.push(required('spec.matchConstraints', ''));
  else {
    appendAll(errs, validateMatchResources(spec.matchConstraints, 'spec.matchConstraints'));
    // At least one resource rule, to give the expressions their types (upstream's comment).
    if (arr(spec.matchConstraints.resourceRules).length === 0) errs.push(required('spec.matchConstraints.resourceRules', ''));
  }
  appendAll(errs, validateMatchConditions(arr(spec.matchConditions), 'spec.matchConditions'));
  appendAll(errs, validateVariables(arr(spec.variables), 'spec.variables'));
  const validations = arr(spec.validations);
  const audits = arr(spec.auditAnnotations);
  if (validations.length === 0 && audits.length === 0) {
    errs.push(required('spec.validations', 'validations or auditAnnotations must contain at least one item'));
    errs.push(required('spec.auditAnnotations', 'validations or auditAnnotations must contain at least one item'));
    return errs;
  }
  validations.forEach((v, i) => appendAll(errs, validateValidation(v, `spec.validations[${i}]`)));
  if (audits.length > maxAuditAnnotations) errs.push(invalid('spec.auditAnnotations', audits, `must not have more than ${maxAuditAnnotations} auditAnnotations`));
  const keys = new Set<string>();
  audits.forEach((a, i) => {
    appendAll(errs, validateAuditAnnotation(p.metadata?.name ?? '', a, `spec.auditAnnotations[${i}]`));
    if (keys.has(a.key)) errs.push(duplicate(`spec.auditAnnotations[${i}].key`, a.key));
    keys.add(a.key);
  });
  return errs;
}

export function validatePolicyCreate(p: ValidatingAdmissionPolicy): FieldError[] {
  const errs = validateObjectMeta(p.metadata, false, nameIsDNSSubdomain);
  appendAll(errs, validatePolicySpec(p));
  return errs;
}

export function validatePolicyUpdate(p: ValidatingAdmissionPolicy, old: ValidatingAdmissionPolicy, subresource?: string): FieldError[] {
  const errs = validateObjectMetaUpdate(p.metadata, old.metadata);
  if (subresource !== 'status') appendAll(errs, validatePolicySpec(p));
  return errs;
}

function validateParamRef(pr: ParamRef | undefined, path: string): FieldError[] {
  if (!pr) return [];
  const errs: FieldError[] = [];
  if (pr.name) {
    for (const msg of isValidPathSegmentName(pr.name)) errs.push(invalid(`${path}.name`, pr.name, msg));
    if (pr.selector) errs.push(forbidden(`${path}.name`, 'name and selector are mutually exclusive'));
  }
  if (pr.namespace) for (const msg of isValidPathSegmentName(pr.namespace)) errs.push(invalid(`${path}.namespace`, pr.namespace, msg));
  if (!pr.parameterNotFoundAction) errs.push(required(`${path}.parameterNotFoundAction`, ''));
  else if (pr.parameterNotFoundAction !== 'Deny' && pr.parameterNotFoundAction !== 'Allow') {
    errs.push(notSupported(`${path}.parameterNotFoundAction`, pr.parameterNotFoundAction, ['Deny', 'Allow']));
  }
  if (pr.selector) {
    appendAll(errs, validateLabelSelector(pr.selector, `${path}.selector`));
    if (pr.name) errs.push(forbidden(`${path}.selector`, 'name and selector are mutually exclusive'));
  }
  if (!pr.name && !pr.selector) errs.push(required(path, 'one of name or selector must be specified'));
  return errs;
}

function validateActions(actions: string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    if (!validationActions.includes(a)) errs.push(notSupported(`${path}[${i}]`, a, validationActions));
    if (seen.has(a)) errs.push(duplicate(`${path}[${i}]`, a));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    // Go's %#v of the []ValidationAction (internal type) upstream passes.
    const shown = new GoValue(`[]admissionregistration.ValidationAction{${actions.map((a) => JSON.stringify(a)).join(', ')}}`);
    errs.push(invalid(path, shown, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  }
  if (seen.size === 0) errs.push(required(path, 'at least one validation action is required'));
  return errs;
}

function validateBindingSpec(b: ValidatingAdmissionPolicyBinding): FieldError[] {
  const spec = b.spec ?? {};
  const errs: FieldError[] = [];
  if (!spec.policyName) errs.push(required('spec.policyName', ''));
  else for (const msg of nameIsDNSSubdomain(spec.policyName, false)) errs.push(invalid('spec.policyName', spec.policyName, msg));
  appendAll(errs, validateParamRef(spec.paramRef, 'spec.paramRef'));
  // Upstream's path has this spelling (validateValidatingAdmissionPolicyBindingSpec).
  appendAll(errs, validateMatchResources(spec.matchResources, 'spec.matchResouces'));
  appendAll(errs, validateActions(arr(spec.validationActions), 'spec.validationActions'));
  return errs;
}

export function validateBindingCreate(b: ValidatingAdmissionPolicyBinding): FieldError[] {
  const errs = validateObjectMeta(b.metadata, false, nameIsDNSSubdomain);
  appendAll(errs, validateBindingSpec(b));
  return errs;
}

export function validateBindingUpdate(b: ValidatingAdmissionPolicyBinding, old: ValidatingAdmissionPolicyBinding): FieldError[] {
  const errs = validateObjectMetaUpdate(b.metadata, old.metadata);
  appendAll(errs, validateBindingSpec(b));
  return errs;
}
