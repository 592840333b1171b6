/**
 * Downward API selectors: fieldRef (ConvertDownwardAPIFieldLabel, then the
 * allowed expressions for env vars or volume files) and resourceFieldRef.
 */
import { FieldError, invalid, notSupported, required } from '../field-errors.js';
import { canonicalQuantity } from '../quantity.js';
import { validateLabelName } from './labels.js';
import { child, has, obj, str } from './util.js';
import { appendAll } from '../append.js';

export const envFieldPaths = ['metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName',
  'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs'];
export const volumeFieldPaths = ['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid'];
const convertible = new Set(['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid',
  'spec.nodeName', 'spec.restartPolicy', 'spec.serviceAccountName', 'spec.schedulerName', 'status.phase', 'status.hostIP',
  'status.hostIPs', 'status.podIP', 'status.podIPs']);
const resourcePaths = ['limits.cpu', 'limits.ephemeral-storage', 'limits.memory', 'requests.cpu', 'requests.ephemeral-storage', 'requests.memory'];

/** SplitMaybeSubscriptedPath: `metadata.labels['x']` -> ['metadata.labels', 'x']. */
function splitSubscript(fieldPath: string): [string, string] | undefined {
  if (!fieldPath.endsWith("']")) return undefined;
  const s = fieldPath.slice(0, -2);
  const at = s.indexOf("['");
  if (at <= 0) return undefined;
  return [s.slice(0, at), s.slice(at + 2)];
}

/** ConvertDownwardAPIFieldLabel for v1; returns the internal path or an error message. */
function convertFieldLabel(apiVersion: string, label: string): { path?: string; error?: string } {
  if (apiVersion !== 'v1') return { error: `unsupported pod version: ${apiVersion}` };
  const sub = splitSubscript(label);
  if (sub) {
    return sub[0] === 'metadata.annotations' || sub[0] === 'metadata.labels' ? { path: label } : { error: `field label does not support subscript: ${label}` };
  }
  if (label === 'spec.host') return { path: 'spec.nodeName' };
  return convertible.has(label) ? { path: label } : { error: `field label not supported: ${label}` };
}

/** validateObjectFieldSelector. */
export function validateObjectFieldSelector(ref: unknown, expressions: string[], path: string): FieldError[] {
  const fs = obj(ref);
  if (!str(fs.apiVersion)) return [required(child(path, 'apiVersion'))];
  if (!str(fs.fieldPath)) return [required(child(path, 'fieldPath'))];
  const converted = convertFieldLabel(str(fs.apiVersion), str(fs.fieldPath));
  if (converted.error) return [invalid(child(path, 'fieldPath'), str(fs.fieldPath), `error converting fieldPath: ${converted.error}`)];
  const internal = converted.path ?? '';
  const sub = splitSubscript(internal);
  if (sub) {
    if (sub[0] === 'metadata.annotations') return validateLabelName(sub[1].toLowerCase(), path);
    if (sub[0] === 'metadata.labels') return validateLabelName(sub[1], path);
    return [invalid(path, sub[0], 'does not support subscript')];
  }
  return expressions.includes(internal) ? [] : [notSupported(child(path, 'fieldPath'), internal, expressions)];
}

const cpuDivisors = ['1m', '1'];
const byteDivisors = ['1', '1k', '1M', '1G', '1T', '1P', '1E', '1Ki', '1Mi', '1Gi', '1Ti', '1Pi', '1Ei'];

function validateDivisor(resource: string, divisor: unknown, path: string): FieldError[] {
  if (!has(divisor)) return [];
  const d = canonicalQuantity(divisor) ?? '';
  if (d === '0') return [];
  const p = child(path, 'divisor');
  const byteMsg = (what: string) => `only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the ${what} resource`;
  if ((resource === 'limits.cpu' || resource === 'requests.cpu') && !cpuDivisors.includes(d)) {
    return [invalid(p, resource, "only divisor's values 1m and 1 are supported with the cpu resource")];
  }
  if ((resource === 'limits.memory' || resource === 'requests.memory') && !byteDivisors.includes(d)) return [invalid(p, resource, byteMsg('memory'))];
  if ((resource === 'limits.ephemeral-storage' || resource === 'requests.ephemeral-storage') && !byteDivisors.includes(d)) {
    return [invalid(p, resource, byteMsg('local ephemeral storage'))];
  }
  if ((resource.startsWith('requests.hugepages-') || resource.startsWith('limits.hugepages-')) && !byteDivisors.includes(d)) {
    return [invalid(p, resource, byteMsg('hugepages'))];
  }
  return [];
}

/** validateContainerResourceFieldSelector; volume files also need the container name. */
export function validateResourceFieldSelector(ref: unknown, path: string, volume: boolean): FieldError[] {
  const fs = obj(ref);
  const resource = str(fs.resource);
  const errs: FieldError[] = [];
  if (volume && !str(fs.containerName)) {
    errs.push(required(child(path, 'containerName')));
  } else if (!resource) {
    errs.push(required(child(path, 'resource')));
  } else if (!resourcePaths.includes(resource) && !resource.startsWith('requests.hugepages-') && !resource.startsWith('limits.hugepages-')) {
    errs.push(notSupported(child(path, 'resource'), resource, resourcePaths));
  }
  appendAll(errs, validateDivisor(resource, fs.divisor, path));
  return errs;
}
