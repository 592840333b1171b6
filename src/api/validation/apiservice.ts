/**
 * APIServices (apiregistration.k8s.io/v1), as kube-aggregator's
 * ValidateAPIService: the name is `<version>.<group>`; only v1 may have an
 * empty group; priorities in range; a local APIService (no service) has no
 * caBundle nor insecureSkipTLSVerify; a service needs its namespace, name
 * and a valid port, and caBundle excludes insecureSkipTLSVerify.
 */
import { FieldError, invalid, required } from '../field-errors.js';
import { isDNS1035Label, isDNS1123Subdomain, isValidPathSegmentName, isValidPortNum } from '../names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import type { Obj } from './util.js';

function nameValidator(spec: Obj) {
  const requiredName = `${spec.version ?? ''}.${spec.group ?? ''}`;
  return (name: string): string[] => {
    const segment = isValidPathSegmentName(name);
    if (segment.length) return segment;
    return name === requiredName ? [] : [`must be \`spec.version+"."+spec.group\`: "${requiredName}"`];
  };
}

function validateService(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const svc = spec.service as Obj;
  if (!svc.namespace) errs.push(required('spec.service.namespace'));
  if (!svc.name) errs.push(required('spec.service.name'));
  const portErrs = isValidPortNum(Number(svc.port));
  if (portErrs.length) errs.push(invalid('spec.service.port', svc.port, `port is not valid: ${portErrs.join(', ')}`));
  if (spec.insecureSkipTLSVerify === true && typeof spec.caBundle === 'string' && spec.caBundle.length > 0) {
    errs.push(invalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  }
  return errs;
}

export function validateAPIServiceCreate(svc: Obj): FieldError[] {
  const spec = (svc.spec ?? {}) as Obj;
  const errs = validateObjectMeta(svc.metadata, false, nameValidator(spec));
  const group = typeof spec.group === 'string' ? spec.group : '';
  const version = typeof spec.version === 'string' ? spec.version : '';
  if (!group && version !== 'v1') errs.push(required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group) for (const e of isDNS1123Subdomain(group)) errs.push(invalid('spec.group', group, e));
  for (const e of isDNS1035Label(version)) errs.push(invalid('spec.version', version, e));
  const gpm = Number(spec.groupPriorityMinimum ?? 0);
  if (!(gpm > 0 && gpm <= 20000)) errs.push(invalid('spec.groupPriorityMinimum', spec.groupPriorityMinimum ?? 0, 'must be positive and less than 20000'));
  const vp = Number(spec.versionPriority ?? 0);
  if (!(vp > 0 && vp <= 1000)) errs.push(invalid('spec.versionPriority', spec.versionPriority ?? 0, 'must be positive and less than 1000'));
  if (spec.service == null) {
    const ca = typeof spec.caBundle === 'string' ? Buffer.from(spec.caBundle, 'base64').length : 0;
    if (ca) errs.push(invalid('spec.caBundle', `${ca} bytes`, 'local APIServices may not have a caBundle'));
    if (spec.insecureSkipTLSVerify === true) errs.push(invalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
    return errs;
  }
  return [...errs, ...validateService(spec)];
}

export function validateAPIServiceUpdate(svc: Obj, old: Obj, subresource?: string): FieldError[] {
  if (subresource === 'status') return validateObjectMetaUpdate(svc.metadata, old.metadata);
  return [...validateObjectMetaUpdate(svc.metadata, old.metadata), ...validateAPIServiceCreate(svc)];
}

/** SetDefaults_ServiceReference: the port is 443 unless given. */
export function defaultAPIService(svc: Obj): void {
  const spec = svc.spec as Obj | undefined;
  const service = spec?.service as Obj | undefined;
  if (service && typeof service === 'object' && service.port === undefined) service.port = 443;
}
