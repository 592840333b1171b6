/**
 * networking.k8s.io/v1 Ingress, IngressClass and NetworkPolicy, and
 * node.k8s.io/v1 RuntimeClass, as upstream's networking and node
 * validation (the rules users meet; host wildcards and TLS secrets are
 * checked as upstream words them).
 */
import { FieldError, invalid, notSupported, required, tooLong } from '../field-errors.js';
import { isDNS1123Label, isDNS1123Subdomain, isValidPortName, isValidPortNum, nameIsDNSSubdomain } from '../names.js';
import { validateLabelSelector } from './labels.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { Obj, arr, child, has, immutable, index, isObj, obj, str } from './util.js';
import { appendAll } from '../append.js';

function validateBackend(raw: unknown, path: string): FieldError[] {
  const b = obj(raw);
  const errs: FieldError[] = [];
  if (isObj(b.service) && isObj(b.resource)) return [invalid(path, '', 'cannot set both resource and service backends')];
  if (!isObj(b.service) && !isObj(b.resource)) return [invalid(path, '', 'resource or service are required')];
  if (isObj(b.service)) {
    const svc = b.service;
    const sp = child(path, 'service');
    if (!str(svc.name)) errs.push(required(child(sp, 'name')));
    const port = obj(svc.port);
    const pp = child(sp, 'port');
    if (str(port.name) && has(port.number)) errs.push(invalid(pp, '', 'cannot set both port name & port number'));
    else if (str(port.name)) appendAll(errs, isValidPortName(str(port.name)).map((m) => invalid(child(pp, 'name'), port.name, m)));
    else if (has(port.number)) appendAll(errs, isValidPortNum(port.number).map((m) => invalid(child(pp, 'number'), port.number, m)));
    else errs.push(required(pp, 'port name or number is required'));
  }
  return errs;
}

const pathTypes = ['Exact', 'ImplementationSpecific', 'Prefix'];

function validateHTTPPath(raw: unknown, path: string): FieldError[] {
  const p = obj(raw);
  const errs: FieldError[] = [];
  const pathType = str(p.pathType);
  if (!pathType) errs.push(required(child(path, 'pathType'), 'pathType must be specified'));
  else if (!pathTypes.includes(pathType)) errs.push(notSupported(child(path, 'pathType'), pathType, pathTypes));
  else if (pathType !== 'ImplementationSpecific' && !str(p.path).startsWith('/')) errs.push(invalid(child(path, 'path'), str(p.path), 'must be an absolute path'));
  appendAll(errs, validateBackend(p.backend, child(path, 'backend')));
  return errs;
}

function validateHost(host: string, path: string): FieldError[] {
  const name = host.startsWith('*.') ? host.slice(2) : host;
  return isDNS1123Subdomain(name).map((m) => invalid(path, host, m));
}

function validateIngressSpec(raw: unknown): FieldError[] {
  const spec = obj(raw);
  const errs: FieldError[] = [];
  const rules = arr(spec.rules);
  if (!isObj(spec.defaultBackend) && rules.length === 0) errs.push(invalid('spec', '', 'either `defaultBackend` or `rules` must be specified'));
  if (isObj(spec.defaultBackend)) appendAll(errs, validateBackend(spec.defaultBackend, 'spec.defaultBackend'));
  rules.forEach((r, i) => {
    const rp = index('spec.rules', i);
    const rule = obj(r);
    if (str(rule.host)) appendAll(errs, validateHost(str(rule.host), child(rp, 'host')));
    if (isObj(rule.http)) {
      const paths = arr(rule.http.paths);
      if (paths.length === 0) errs.push(required(child(rp, 'http.paths')));
      paths.forEach((p, j) => appendAll(errs, validateHTTPPath(p, index(child(rp, 'http.paths'), j))));
    }
  });
  if (str(spec.ingressClassName)) {
    appendAll(errs, isDNS1123Subdomain(str(spec.ingressClassName)).map((m) => invalid('spec.ingressClassName', spec.ingressClassName, m)));
  }
  return errs;
}

const validateIngress = (ing: Obj) => [...validateObjectMeta(ing.metadata, true, nameIsDNSSubdomain), ...validateIngressSpec(ing.spec)];
export const ingressValidation = {
  create: validateIngress,
  update: (ing: Obj, old: Obj, subresource?: string) => [
    ...validateObjectMetaUpdate(ing.metadata, old.metadata), ...(subresource === 'status' ? [] : validateIngressSpec(ing.spec)),
  ],
};

const maxIngressClassControllerLen = 250;

function validateIngressClass(ic: Obj): FieldError[] {
  const errs = validateObjectMeta(ic.metadata, false, nameIsDNSSubdomain);
  const controller = str(obj(ic.spec).controller);
  if (!controller) errs.push(required('spec.controller'));
  else if (controller.length > maxIngressClassControllerLen) errs.push(tooLong('spec.controller', maxIngressClassControllerLen));
  return errs;
}

export const ingressClassValidation = {
  create: validateIngressClass,
  update: (ic: Obj, old: Obj) => [
    ...validateObjectMetaUpdate(ic.metadata, old.metadata), ...validateIngressClass(ic),
    ...immutable(obj(ic.spec).controller, obj(old.spec).controller, 'spec.controller'),
  ],
};

const policyTypes = ['Egress', 'Ingress'];

function validateNetworkPolicyPorts(ports: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  arr(ports).forEach((raw, i) => {
    const p = obj(raw);
    const pp = index(path, i);
    if (has(p.protocol) && !['TCP', 'UDP', 'SCTP'].includes(str(p.protocol))) errs.push(notSupported(child(pp, 'protocol'), str(p.protocol), ['SCTP', 'TCP', 'UDP']));
    if (typeof p.port === 'number') appendAll(errs, isValidPortNum(p.port).map((m) => invalid(child(pp, 'port'), p.port, m)));
    else if (typeof p.port === 'string') appendAll(errs, isValidPortName(p.port).map((m) => invalid(child(pp, 'port'), p.port, m)));
    if (has(p.endPort)) {
      if (typeof p.port !== 'number') errs.push(required(child(pp, 'port'), 'must specify port when endPort is specified'));
      else if (p.endPort < p.port) errs.push(invalid(child(pp, 'endPort'), p.endPort, 'must be greater than or equal to `port`'));
    }
  });
  return errs;
}

function validateNetworkPolicy(np: Obj): FieldError[] {
  const spec = obj(np.spec);
  const errs = [...validateObjectMeta(np.metadata, true, nameIsDNSSubdomain), ...validateLabelSelector(spec.podSelector, 'spec.podSelector')];
  for (const dir of ['ingress', 'egress'] as const) {
    arr(spec[dir]).forEach((r, i) => appendAll(errs, validateNetworkPolicyPorts(obj(r).ports, child(index(`spec.${dir}`, i), 'ports'))));
  }
  const types = arr(spec.policyTypes).map(str);
  types.forEach((t, i) => { if (!policyTypes.includes(t)) errs.push(notSupported(index('spec.policyTypes', i), t, policyTypes)); });
  if (types.length > policyTypes.length) errs.push(invalid('spec.policyTypes', types, 'may not specify more than two policyTypes'));
  return errs;
}

export const networkPolicyValidation = {
  create: validateNetworkPolicy,
  update: (np: Obj, old: Obj) => [...validateObjectMetaUpdate(np.metadata, old.metadata), ...validateNetworkPolicy(np)],
};

function validateRuntimeClass(rc: Obj): FieldError[] {
  const errs = validateObjectMeta(rc.metadata, false, nameIsDNSSubdomain);
  const handler = str(rc.handler);
  if (!handler) errs.push(required('handler'));
  else appendAll(errs, isDNS1123Label(handler).map((m) => invalid('handler', handler, m)));
  return errs;
}

export const runtimeClassValidation = {
  create: validateRuntimeClass,
  update: (rc: Obj, old: Obj) => [...validateObjectMetaUpdate(rc.metadata, old.metadata), ...validateRuntimeClass(rc), ...immutable(rc.handler, old.handler, 'handler')],
};
