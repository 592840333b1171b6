/**
 * Resource names and quantities (ResourceList validation): container resource
 * requirements, requests <= limits, integer-only and non-overcommittable
 * (extended, hugepages) resources, in upstream's words.
 */
import { FieldError, forbidden, invalid, required } from '../field-errors.js';
import { isQualifiedName } from '../names.js';
import { Quantity, compareQuantities, formatQuantity, milliValue, parseQuantityDetailed, quantitySign } from '../quantity.js';
import { goValue, key, obj, str } from './util.js';
import { appendAll } from '../append.js';

const standardResources = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods', 'resourcequotas', 'services',
  'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims', 'storage', 'requests.storage',
  'services.nodeports', 'services.loadbalancers',
]);
const integerResources = new Set(['pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps',
  'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers']);

export const isHugePageResourceName = (name: string) => name.startsWith('hugepages-');
const isStandardResourceName = (name: string) => standardResources.has(name) || name.startsWith('hugepages-') || name.startsWith('requests.hugepages-');
const isStandardContainerResourceName = (name: string) => ['cpu', 'memory', 'ephemeral-storage'].includes(name) || isHugePageResourceName(name);
export const isNativeResource = (name: string) => !name.includes('/') || name.includes('kubernetes.io/');
export const isExtendedResourceName = (name: string) =>
  !isNativeResource(name) && !name.startsWith('requests.') && isQualifiedName(`requests.${name}`).length === 0;
export const isOvercommitAllowed = (name: string) => isNativeResource(name) && !isHugePageResourceName(name);
const isIntegerResourceName = (name: string) => integerResources.has(name) || isExtendedResourceName(name);

/** validateResourceName: a qualified name, and if unprefixed a standard resource. */
export function validateResourceName(name: string, path: string): FieldError[] {
  const errs = isQualifiedName(name).map((msg) => invalid(path, name, msg));
  if (errs.length > 0) return errs;
  if (!name.includes('/') && !isStandardResourceName(name)) errs.push(invalid(path, name, 'must be a standard resource type or fully qualified'));
  return errs;
}

/** validateContainerResourceName. */
export function validateContainerResourceName(name: string, path: string): FieldError[] {
  const errs = validateResourceName(name, path);
  if (!name.includes('/')) {
    if (!isStandardContainerResourceName(name)) errs.push(invalid(path, name, 'must be a standard resource for containers'));
  } else if (!isNativeResource(name) && !isExtendedResourceName(name)) {
    errs.push(invalid(path, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

/** How upstream's `%#v` prints a resource.Quantity value (it has no value-receiver String()). */
export function goQuantity(input: unknown, q: Quantity): ReturnType<typeof goValue> {
  const canonical = formatQuantity(q);
  const s = typeof input === 'string' && input === canonical ? input : '';
  return goValue(`resource.Quantity{i:resource.int64Amount{value:${q.unscaled}, scale:${q.scale}}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:${JSON.stringify(s)}, Format:${JSON.stringify(q.format)}}`);
}

/** Parses a quantity field; a bad one is reported with upstream's decode message. */
export function parseQuantityField(input: unknown, path: string, errs: FieldError[]): Quantity | undefined {
  const { quantity, error } = parseQuantityDetailed(input);
  if (error) errs.push(invalid(path, typeof input === 'string' ? input : str(input), error));
  return quantity;
}

/** ValidateResourceQuantityValue: non-negative, and whole for integer resources. */
export function validateResourceQuantityValue(resource: string, input: unknown, q: Quantity, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (quantitySign(q) < 0) errs.push(invalid(path, formatQuantity(q), 'must be greater than or equal to 0'));
  if (isIntegerResourceName(resource) && milliValue(q) % 1000n !== 0n) errs.push(invalid(path, goQuantity(input, q), 'must be an integer'));
  return errs;
}

/** Parsed entries of a ResourceList, with name, quantity and bad-quantity errors. */
export function resourceList(list: unknown, path: string, errs: FieldError[]): Map<string, { input: unknown; q: Quantity }> {
  const out = new Map<string, { input: unknown; q: Quantity }>();
  for (const [name, input] of Object.entries(obj(list))) {
    const q = parseQuantityField(input, key(path, name), errs);
    if (q) out.set(name, { input, q });
  }
  return out;
}

/** Names validateContainerResourceName always accepts (qualified, standard, for containers): not checked again per pod. */
const isPlainContainerResource = (name: string) => name === 'cpu' || name === 'memory' || name === 'ephemeral-storage';

/**
 * ValidateContainerResourceRequirements (requests, limits; claims are not checked). Every pod
 * create runs it once per container, nearly always without an error: an entry's path is made
 * only when an error names it, the lists are walked in place (no entries, Map or spread lists),
 * and a quantity string is parsed from the shared cache each time it is read (quantity.ts).
 * Errors in upstream's order: bad quantities of limits, then of requests; then per limit its
 * name and value; then per request its name, value and its limit.
 */
export function validateResourceRequirements(requirements: unknown, path: string,
  nameFn: (name: string, path: string) => FieldError[] = validateContainerResourceName): FieldError[] {
  const r = obj(requirements);
  const errs: FieldError[] = [];
  const limits = obj(r.limits);
  const requests = obj(r.requests);
  quantityErrors(limits, path, '.limits', errs);
  quantityErrors(requests, path, '.requests', errs);
  let cpuOrMemory = false;
  let hugePages = false;
  for (const name in limits) {
    const q = parseQuantityDetailed(limits[name]).quantity;
    if (!q) continue;
    entryErrors(name, limits[name], q, path, '.limits', nameFn, errs);
    if (isHugePageResourceName(name)) hugePages = true;
    if (name === 'cpu' || name === 'memory') cpuOrMemory = true;
  }
  for (const name in requests) {
    const q = parseQuantityDetailed(requests[name]).quantity;
    if (!q) continue;
    entryErrors(name, requests[name], q, path, '.requests', nameFn, errs);
    const limit = Object.hasOwn(limits, name) ? parseQuantityDetailed(limits[name]).quantity : undefined;
    if (limit) {
      // Equal strings parse to the one cached quantity: equal without comparing.
      const cmp = q === limit ? 0 : compareQuantities(q, limit);
      if (cmp !== 0 && !isOvercommitAllowed(name)) {
        errs.push(invalid(`${path}.requests`, formatQuantity(q), `must be equal to ${name} limit of ${formatQuantity(limit)}`));
      } else if (cmp > 0) {
        errs.push(invalid(`${path}.requests`, formatQuantity(q), `must be less than or equal to ${name} limit of ${formatQuantity(limit)}`));
      }
    } else if (!isOvercommitAllowed(name)) {
      errs.push(required(`${path}.limits`, 'Limit must be set for non overcommitable resources'));
    }
    if (isHugePageResourceName(name)) hugePages = true;
    if (name === 'cpu' || name === 'memory') cpuOrMemory = true;
  }
  if (!cpuOrMemory && hugePages) errs.push(forbidden(path, 'HugePages require cpu or memory'));
  return errs;
}

/** resourceList's errors for a list at `${path}${member}`: each quantity that does not parse. */
function quantityErrors(list: Record<string, unknown>, path: string, member: string, errs: FieldError[]): void {
  for (const name in list) {
    const input = list[name];
    const { error } = parseQuantityDetailed(input);
    if (error) errs.push(invalid(`${path}${member}[${name}]`, typeof input === 'string' ? input : str(input), error));
  }
}

/** An entry's name and value errors; its path made only if one of them can be wrong. */
function entryErrors(name: string, input: unknown, q: Quantity, path: string, member: string,
  nameFn: (name: string, path: string) => FieldError[], errs: FieldError[]): void {
  const namesChecked = !(nameFn === validateContainerResourceName && isPlainContainerResource(name));
  // validateResourceQuantityValue finds nothing in a non-negative value of a resource that need not be whole.
  const valueChecked = quantitySign(q) < 0 || isIntegerResourceName(name);
  if (!namesChecked && !valueChecked) return;
  const at = `${path}${member}[${name}]`;
  if (namesChecked) appendAll(errs, nameFn(name, at));
  if (valueChecked) appendAll(errs, validateResourceQuantityValue(name, input, q, at));
}
