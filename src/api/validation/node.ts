/**
 * Nodes: taints (valid key and value, a supported effect, unique by key and
 * effect; upstream reports them under `metadata.taints`), podCIDRs (valid, one per
 * family, no duplicates; set once), providerID (set once), capacity quantities.
 */
import { FieldError, duplicate, forbidden, invalid } from '../field-errors.js';
import { isValidLabelValue, nameIsDNSSubdomain } from '../names.js';
import { goJSON, goTaint } from './govalue.js';
import { isCIDRv6, isDualStack, validateCIDR } from './ip.js';
import { validateLabelName } from './labels.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { resourceList, validateResourceQuantityValue } from './resources.js';
import { validateTaintEffect } from './tolerations.js';
import { Obj, arr, child, index, obj, str } from './util.js';
import { appendAll } from '../append.js';

/** validateNodeTaints. */
export function validateNodeTaints(taints: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const unique = new Map<string, Set<string>>();
  arr(taints).forEach((raw, i) => {
    const t = obj(raw);
    const p = index(path, i);
    const keyName = str(t.key);
    const effect = str(t.effect);
    appendAll(errs, validateLabelName(keyName, child(p, 'key')));
    const msgs = isValidLabelValue(str(t.value));
    if (msgs.length > 0) errs.push(invalid(child(p, 'value'), str(t.value), msgs.join(';')));
    appendAll(errs, validateTaintEffect(effect, false, child(p, 'effect')));
    const keys = unique.get(effect) ?? new Set<string>();
    if (keys.has(keyName)) {
      errs.push({ ...duplicate(p, goTaint(t)), detail: 'taints must be unique by key and effect pair' });
      return;
    }
    keys.add(keyName);
    unique.set(effect, keys);
  });
  return errs;
}

/** Spec.podCIDRs, or the legacy podCIDR as its only element (v1 conversion does the same). */
const podCIDRs = (spec: Obj): string[] => (arr(spec.podCIDRs).length > 0 ? arr(spec.podCIDRs).map(str) : str(spec.podCIDR) ? [str(spec.podCIDR)] : []);

function validatePodCIDRs(spec: Obj): FieldError[] {
  const cidrs = podCIDRs(spec);
  const path = 'spec.podCIDRs';
  const errs = cidrs.flatMap((c, i) => validateCIDR(index(path, i), c));
  if (cidrs.length > 1 && errs.length === 0) {
    if (!isDualStack(cidrs, isCIDRv6) || cidrs.length > 2) errs.push(invalid(path, goJSON(cidrs), 'may specify no more than one CIDR for each IP family'));
    const seen = new Set<string>();
    cidrs.forEach((c, i) => {
      if (seen.has(c)) errs.push(duplicate(index(path, i), c));
      seen.add(c);
    });
  }
  return errs;
}

/** ValidateNodeResources: capacity and allocatable quantities. */
function validateNodeResources(node: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const status = obj(node.status);
  for (const field of ['capacity', 'allocatable']) {
    const base = `status.${field}`;
    for (const [name, { input, q }] of resourceList(status[field], base, errs)) {
      appendAll(errs, validateResourceQuantityValue(name, input, q, `${base}.${name}`));
    }
  }
  return errs;
}

export function validateNodeCreate(node: Obj): FieldError[] {
  const spec = obj(node.spec);
  return [
    ...validateObjectMeta(node.metadata, false, nameIsDNSSubdomain),
    ...validateNodeTaints(spec.taints, 'metadata.taints'),
    ...validateNodeResources(node),
    ...validatePodCIDRs(spec),
  ];
}

export function validateNodeUpdate(node: Obj, old: Obj): FieldError[] {
  const spec = obj(node.spec);
  const oldSpec = obj(old.spec);
  const errs = [...validateNodeCreate(node), ...validateObjectMetaUpdate(node.metadata, old.metadata)];
  const addresses = new Set<string>();
  arr(obj(node.status).addresses).forEach((a, i) => {
    const id = `${str(obj(a).type)}/${str(obj(a).address)}`;
    if (addresses.has(id)) errs.push(duplicate(`status.addresses[${i}]`, goJSON(a)));
    addresses.add(id);
  });
  const oldCIDRs = podCIDRs(oldSpec);
  const newCIDRs = podCIDRs(spec);
  if (oldCIDRs.length > 0) {
    const msg = 'node updates may not change podCIDR except from "" to valid';
    if (oldCIDRs.length !== newCIDRs.length) errs.push(forbidden('spec.podCIDRs', msg));
    else oldCIDRs.forEach((c, i) => { if (c !== newCIDRs[i]) errs.push(forbidden('spec.podCIDRs', msg)); });
  }
  if (str(oldSpec.providerID) && oldSpec.providerID !== spec.providerID) {
    errs.push(forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
  }
  if (str(spec.externalID) !== str(oldSpec.externalID)) errs.push(forbidden('spec.externalID', 'may not be updated'));
  return errs;
}
