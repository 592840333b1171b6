/**
 * ResourceQuotas and LimitRanges (core/v1), as upstream's
 * ValidateResourceQuota and ValidateLimitRange: standard resource names,
 * non-negative quantities, valid and non-conflicting scopes, and a
 * LimitRange's min <= defaultRequest <= default <= max.
 */
import { FieldError, duplicate, forbidden, invalid, required } from '../field-errors.js';
import { nameIsDNSSubdomain } from '../names.js';
import { Quantity, compareQuantities, formatQuantity, milliValue } from '../quantity.js';
import { goStringSlice } from './govalue.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { resourceList, validateResourceName, validateResourceQuantityValue } from './resources.js';
import { Obj, arr, child, index, key, obj, str } from './util.js';
import { appendAll } from '../append.js';

const standardQuotaResources = new Set([
  'pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'configmaps', 'persistentvolumeclaims',
  'services.nodeports', 'services.loadbalancers', 'requests.cpu', 'requests.memory', 'requests.storage',
  'requests.ephemeral-storage', 'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'cpu', 'memory', 'ephemeral-storage',
]);
const isStandardQuotaResourceName = (n: string) => standardQuotaResources.has(n) || n.startsWith('requests.hugepages-');

/** Resources the pod scopes (Terminating, NotTerminating, NotBestEffort, PriorityClass) may limit; BestEffort limits pods only. */
const podComputeQuotaResources = new Set(['pods', 'cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);
export const standardQuotaScopes = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity'];

function scopeValidForResource(scope: string, resource: string): boolean {
  if (scope === 'BestEffort' || scope === 'CrossNamespacePodAffinity') return resource === 'pods';
  return podComputeQuotaResources.has(resource) || resource.startsWith('requests.hugepages-');
}

function validateQuotaResourceList(list: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [name, { input, q }] of resourceList(list, path, errs)) {
    const p = key(path, name);
    const nameErrs = validateResourceName(name, p);
    if (!name.includes('/') && !isStandardQuotaResourceName(name)) nameErrs.push(invalid(p, name, 'must be a standard resource for quota'));
    errs.push(...nameErrs, ...validateResourceQuantityValue(name, input, q, p));
  }
  return errs;
}

function validateScopes(spec: Obj): FieldError[] {
  const scopes = arr(spec.scopes).map(str);
  if (scopes.length === 0) return [];
  const errs: FieldError[] = [];
  const shown = goStringSlice(scopes, '[]core.ResourceQuotaScope');
  const hard = Object.keys(obj(spec.hard)).sort();
  for (const scope of scopes) {
    if (!standardQuotaScopes.includes(scope)) errs.push(invalid('spec.scopes', shown, 'unsupported scope'));
    for (const r of hard) {
      if (isStandardQuotaResourceName(r) && !scopeValidForResource(scope, r)) errs.push(invalid('spec.scopes', shown, 'unsupported scope applied to resource'));
    }
  }
  const conflicting = [['BestEffort', 'NotBestEffort'], ['Terminating', 'NotTerminating']];
  for (const pair of conflicting) if (pair.every((s) => scopes.includes(s))) errs.push(invalid('spec.scopes', shown, 'conflicting scopes'));
  return errs;
}

function validateResourceQuota(rq: Obj): FieldError[] {
  const spec = obj(rq.spec);
  const status = obj(rq.status);
  return [
    ...validateObjectMeta(rq.metadata, true, nameIsDNSSubdomain),
    ...validateQuotaResourceList(spec.hard, 'spec.hard'),
    ...validateScopes(spec),
    ...validateQuotaResourceList(status.hard, 'status.hard'),
    ...validateQuotaResourceList(status.used, 'status.used'),
  ];
}

export const resourceQuotaValidation = {
  create: validateResourceQuota,
  update: (rq: Obj, old: Obj) => [...validateObjectMetaUpdate(rq.metadata, old.metadata), ...validateResourceQuota(rq)],
};

type Parsed = Map<string, { input: unknown; q: Quantity }>;

/** The ordering checks of one resource across min, defaultRequest, default and max. */
function limitOrderErrors(name: string, item: Record<string, Parsed>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const [min, max, def, defReq] = ['min', 'max', 'default', 'defaultRequest'].map((f) => item[f].get(name)?.q);
  const s = formatQuantity;
  const gt = (a?: Quantity, b?: Quantity) => !!a && !!b && compareQuantities(a, b) > 0;
  if (gt(min, max)) errs.push(invalid(key(child(path, 'min'), name), s(min!), `min value ${s(min!)} is greater than max value ${s(max!)}`));
  if (gt(min, defReq)) errs.push(invalid(key(child(path, 'defaultRequest'), name), s(defReq!), `min value ${s(min!)} is greater than default request value ${s(defReq!)}`));
  if (gt(defReq, max)) errs.push(invalid(key(child(path, 'defaultRequest'), name), s(defReq!), `default request value ${s(defReq!)} is greater than max value ${s(max!)}`));
  if (gt(defReq, def)) errs.push(invalid(key(child(path, 'defaultRequest'), name), s(defReq!), `default request value ${s(defReq!)} is greater than default limit value ${s(def!)}`));
  if (gt(min, def)) errs.push(invalid(key(child(path, 'default'), name), s(def!), `min value ${s(min!)} is greater than default value ${s(def!)}`));
  if (gt(def, max)) errs.push(invalid(key(child(path, 'default'), name), s(def!), `default value ${s(def!)} is greater than max value ${s(max!)}`));
  const ratio = item.maxLimitRequestRatio.get(name)?.q;
  if (ratio) {
    const p = key(child(path, 'maxLimitRequestRatio'), name);
    if (milliValue(ratio) < 1000n) errs.push(invalid(p, s(ratio), `ratio ${s(ratio)} is less than 1`));
    if (min && max && milliValue(min) > 0n) {
      const maxRatio = Number(milliValue(max)) / Number(milliValue(min));
      if (Number(milliValue(ratio)) / 1000 > maxRatio) errs.push(invalid(p, s(ratio), `ratio ${s(ratio)} is greater than max/min = ${maxRatio.toFixed(6)}`));
    }
  }
  return errs;
}

function validateLimitRangeItem(itemRaw: unknown, path: string, seen: Set<string>): FieldError[] {
  const item = obj(itemRaw);
  const type = str(item.type);
  const errs: FieldError[] = [];
  if (seen.has(type)) errs.push(duplicate(child(path, 'type'), type));
  seen.add(type);
  const parsed: Record<string, Parsed> = {};
  for (const f of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio']) {
    parsed[f] = resourceList(item[f], child(path, f), errs);
    for (const [name, { input, q }] of parsed[f]) {
      const p = key(child(path, f), name);
      errs.push(...validateResourceName(name, p), ...validateResourceQuantityValue(name, input, q, p));
    }
  }
  if (type === 'Pod') {
    if (parsed.default.size) errs.push(forbidden(child(path, 'default'), "may not be specified when `type` is 'Pod'"));
    if (parsed.defaultRequest.size) errs.push(forbidden(child(path, 'defaultRequest'), "may not be specified when `type` is 'Pod'"));
  }
  if (type === 'PersistentVolumeClaim' && !parsed.min.has('storage') && !parsed.max.has('storage')) {
    errs.push(required(child(path, 'limits'), 'either minimum or maximum storage value is required, but neither was provided'));
  }
  const names = new Set(Object.values(parsed).flatMap((m) => [...m.keys()]));
  for (const name of names) appendAll(errs, limitOrderErrors(name, parsed, path));
  return errs;
}

function validateLimitRange(lr: Obj): FieldError[] {
  const errs = validateObjectMeta(lr.metadata, true, nameIsDNSSubdomain);
  const seen = new Set<string>();
  arr(obj(lr.spec).limits).forEach((item, i) => {
    const path = index('spec.limits', i);
    if (!str(obj(item).type)) errs.push(required(child(path, 'type')));
    appendAll(errs, validateLimitRangeItem(item, path, seen));
  });
  return errs;
}

export const limitRangeValidation = {
  create: validateLimitRange,
  update: (lr: Obj, old: Obj) => [...validateObjectMetaUpdate(lr.metadata, old.metadata), ...validateLimitRange(lr)],
};
