/**
 * Mutating and ValidatingWebhookConfigurations (admissionregistration.k8s.io/v1), as
 * upstream's pkg/apis/admissionregistration/validation: each webhook's name is a fully
 * qualified domain name, unique in its configuration; rules name operations, groups,
 * versions and resources (with upstream's wildcard rules) and a known scope;
 * failurePolicy, matchPolicy, sideEffects (None or NoneOnDryRun on create),
 * reinvocationPolicy are from their sets; timeoutSeconds is 1-30; selectors are valid;
 * admissionReviewVersions include a known version; matchConditions are named, unique,
 * at most 64, and compile; clientConfig is checked in webhook-client-config.ts.
 * On update, the relaxed checks apply only where the old object already broke them
 * (ValidateValidatingWebhookConfigurationUpdate's options).
 */
import { FieldError, duplicate, invalid, notSupported, required } from '../field-errors.js';
import { isDNS1035Label, isDNS1123Subdomain, isQualifiedName, nameIsDNSSubdomain } from '../names.js';
import { compileRule } from '../apiextensions/cel.js';
import { appendAll } from '../append.js';
import { validateLabelSelector } from './labels.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { validateWebhookClientConfig } from './webhook-client-config.js';
import { Obj, arr, goValue, has, isObj, str } from './util.js';

/** A list as Go's %#v prints it in a field error: `[]string{"*", "pods"}`. */
const goList = (type: string, values: unknown[]) => goValue(`[]${type}{${values.map((v) => JSON.stringify(str(v))).join(', ')}}`);

const acceptedReviewVersions = ['v1', 'v1beta1'];
const failurePolicies = ['Fail', 'Ignore'];
const matchPolicies = ['Equivalent', 'Exact'];
const noSideEffectClasses = ['None', 'NoneOnDryRun'];
const sideEffectClasses = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const operations = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const reinvocationPolicies = ['IfNeeded', 'Never'];
const scopes = ['*', 'Cluster', 'Namespaced'];
const maxMatchConditions = 64;

interface Options { requireNoSideEffects: boolean; requireRecognizedVersion: boolean; requireUniqueNames: boolean }
const strict: Options = { requireNoSideEffects: true, requireRecognizedVersion: true, requireUniqueNames: true };

export const validateMutatingWebhookConfigurationCreate = (c: Obj) => validateConfiguration(c, true, strict);
export const validateValidatingWebhookConfigurationCreate = (c: Obj) => validateConfiguration(c, false, strict);
export const validateMutatingWebhookConfigurationUpdate = (c: Obj, old: Obj) => validateUpdate(c, old, true);
export const validateValidatingWebhookConfigurationUpdate = (c: Obj, old: Obj) => validateUpdate(c, old, false);

function validateUpdate(c: Obj, old: Obj, mutating: boolean): FieldError[] {
  const hooks = arr(old.webhooks).filter(isObj);
  const names = hooks.map((h) => str(h.name));
  const opts: Options = {
    requireNoSideEffects: hooks.every((h) => noSideEffectClasses.includes(str(h.sideEffects))),
    requireRecognizedVersion: hooks.every((h) => !arr(h.admissionReviewVersions).length || arr(h.admissionReviewVersions).some((v) => acceptedReviewVersions.includes(str(v)))),
    requireUniqueNames: new Set(names).size === names.length,
  };
  const errs = validateObjectMetaUpdate(c.metadata, old.metadata);
  appendAll(errs, validateConfiguration(c, mutating, opts, false));
  return errs;
}

function validateConfiguration(c: Obj, mutating: boolean, opts: Options, withMeta = true): FieldError[] {
  const errs = withMeta ? validateObjectMeta(c.metadata, false, nameIsDNSSubdomain) : [];
  const seen = new Set<string>();
  arr(c.webhooks).forEach((h, i) => {
    const hook = isObj(h) ? h : {};
    const path = `webhooks[${i}]`;
    appendAll(errs, validateWebhook(hook, mutating, opts, path));
    appendAll(errs, validateAdmissionReviewVersions(arr(hook.admissionReviewVersions), opts.requireRecognizedVersion, `${path}.admissionReviewVersions`));
    const name = str(hook.name);
    if (opts.requireUniqueNames && name) {
      if (seen.has(name)) errs.push(duplicate(`${path}.name`, name));
      seen.add(name);
    }
  });
  return errs;
}

function validateWebhook(hook: Obj, mutating: boolean, opts: Options, path: string): FieldError[] {
  const errs = isFullyQualifiedName(str(hook.name), `${path}.name`);
  arr(hook.rules).forEach((r, i) => appendAll(errs, validateRuleWithOperations(isObj(r) ? r : {}, `${path}.rules[${i}]`)));
  oneOf(errs, hook.failurePolicy, failurePolicies, `${path}.failurePolicy`);
  oneOf(errs, hook.matchPolicy, matchPolicies, `${path}.matchPolicy`);
  const allowed = opts.requireNoSideEffects ? noSideEffectClasses : sideEffectClasses;
  if (!has(hook.sideEffects)) errs.push(required(`${path}.sideEffects`, `must specify one of ${allowed.join(', ')}`));
  else oneOf(errs, hook.sideEffects, allowed, `${path}.sideEffects`);
  const timeout = hook.timeoutSeconds;
  if (typeof timeout === 'number' && (timeout > 30 || timeout < 1)) {
    errs.push(invalid(`${path}.timeoutSeconds`, timeout, 'the timeout value must be between 1 and 30 seconds'));
  }
  appendAll(errs, validateLabelSelector(hook.namespaceSelector, `${path}.namespaceSelector`));
  appendAll(errs, validateLabelSelector(hook.objectSelector, `${path}.objectSelector`));
  if (mutating) oneOf(errs, hook.reinvocationPolicy, reinvocationPolicies, `${path}.reinvocationPolicy`);
  appendAll(errs, validateMatchConditions(arr(hook.matchConditions), `${path}.matchConditions`));
  appendAll(errs, validateWebhookClientConfig(hook.clientConfig, `${path}.clientConfig`));
  return errs;
}

function oneOf(errs: FieldError[], value: unknown, supported: string[], path: string): void {
  if (has(value) && !supported.includes(str(value))) errs.push(notSupported(path, value, supported));
}

/** utilvalidation.IsFullyQualifiedName. */
function isFullyQualifiedName(name: string, path: string): FieldError[] {
  if (!name) return [required(path, '')];
  const errs = isDNS1123Subdomain(name);
  if (errs.length) return [invalid(path, name, errs.join(','))];
  if (name.split('.').length < 3) return [invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

function validateRuleWithOperations(rule: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const ops = arr(rule.operations).map(str);
  if (!ops.length) errs.push(required(`${path}.operations`, ''));
  if (ops.length > 1 && ops.includes('*')) errs.push(invalid(`${path}.operations`, goList('admissionregistration.OperationType', ops), "if '*' is present, must not specify other operations"));
  ops.forEach((op, i) => oneOf(errs, op, operations, `${path}.operations[${i}]`));
  appendAll(errs, validateRule(rule, path));
  return errs;
}

function validateRule(rule: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const groups = arr(rule.apiGroups).map(str);
  const versions = arr(rule.apiVersions).map(str);
  if (!groups.length) errs.push(required(`${path}.apiGroups`, ''));
  if (groups.length > 1 && groups.includes('*')) errs.push(invalid(`${path}.apiGroups`, goList('string', groups), "if '*' is present, must not specify other API groups"));
  if (!versions.length) errs.push(required(`${path}.apiVersions`, ''));
  if (versions.length > 1 && versions.includes('*')) errs.push(invalid(`${path}.apiVersions`, goList('string', versions), "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => { if (!v) errs.push(required(`${path}.apiVersions[${i}]`, '')); });
  appendAll(errs, validateResources(arr(rule.resources).map(str), `${path}.resources`));
  oneOf(errs, rule.scope, scopes, `${path}.scope`);
  return errs;
}

/** validateResources: `x/*` and `* /x` exclude their narrower forms; `* / *` and `*` stand alone. */
function validateResources(resources: string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!resources.length) errs.push(required(path, ''));
  const wildSub = new Set<string>();
  const wildRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let plain = false;
  resources.forEach((rs, i) => {
    if (!rs) { errs.push(required(`${path}[${i}]`, '')); return; }
    if (rs === '*/*') doubleWildcard = true;
    if (rs === '*') singleWildcard = true;
    const slash = rs.indexOf('/');
    if (slash < 0) { plain = rs !== '*'; return; }
    const [res, sub] = [rs.slice(0, slash), rs.slice(slash + 1)];
    if (wildSub.has(res)) errs.push(invalid(`${path}[${i}]`, rs, `if '${res}/*' is present, must not specify ${rs}`));
    if (wildRes.has(sub)) errs.push(invalid(`${path}[${i}]`, rs, `if '*/${sub}' is present, must not specify ${rs}`));
    if (sub === '*') wildSub.add(res);
    if (res === '*') wildRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errs.push(invalid(path, goList('string', resources), "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && plain) errs.push(invalid(path, goList('string', resources), "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

function validateAdmissionReviewVersions(versions: unknown[], requireRecognized: boolean, path: string): FieldError[] {
  if (!versions.length) return [required(path, `must specify one of ${acceptedReviewVersions.join(', ')}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  versions.map(str).forEach((v, i) => {
    if (seen.has(v)) { errs.push(invalid(`${path}[${i}]`, v, 'duplicate version')); return; }
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(invalid(`${path}[${i}]`, v, msg));
  });
  if (requireRecognized && ![...seen].some((v) => acceptedReviewVersions.includes(v))) {
    errs.push(invalid(path, goList('string', versions), `must include at least one of ${acceptedReviewVersions.join(', ')}`));
  }
  return errs;
}

/** validateMatchConditions: upstream compiles each expression with the admission CEL environment. */
function validateMatchConditions(conditions: unknown[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (conditions.length > maxMatchConditions) errs.push({ type: 'FieldValueTooMany', field: path, value: conditions.length, detail: `must have at most ${maxMatchConditions} items` });
  const names = new Set<string>();
  conditions.forEach((c, i) => {
    const mc = isObj(c) ? c : {};
    const name = str(mc.name);
    const p = `${path}[${i}]`;
    if (!name) errs.push(required(`${p}.name`, ''));
    else for (const msg of isQualifiedName(name)) errs.push(invalid(`${p}.name`, name, msg));
    if (name && names.has(name)) errs.push(duplicate(`${p}.name`, name));
    names.add(name);
    const expression = str(mc.expression);
    if (!expression.trim()) { errs.push(required(`${p}.expression`, '')); return; }
    const compiled = compileRule(expression);
    if (compiled.error) errs.push(invalid(`${p}.expression`, expression, `compilation failed: ${compiled.error}`));
  });
  return errs;
}
