/**
 * Services (ValidateService): DNS-1035 names; ports required unless headless or
 * ExternalName; port names, numbers, protocols and target ports; selector labels;
 * session affinity; cluster IPs and IP families; type and traffic policies.
 * On update the cluster IPs, IP families and loadBalancerClass may not change.
 */
import { FieldError, duplicate, forbidden, invalid, notSupported, required } from '../field-errors.js';
import { isDNS1123Label, isQualifiedName, isValidPortNum, nameIsDNS1035Label, nameIsDNSSubdomain } from '../names.js';
import { supportedPortProtocols } from './container.js';
import { goJSON, goStringSlice } from './govalue.js';
import { isIPv6String, validateCIDR, validateIP } from './ip.js';
import { validateLabels } from './labels.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { validatePortNumOrName } from './probes.js';
import { Obj, arr, child, has, index, isObj, obj, str, validateName } from './util.js';
import { appendAll } from '../append.js';

const serviceTypes = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];

const clusterIPs = (spec: Obj) => arr(spec.clusterIPs).map(str);
const isHeadless = (spec: Obj) => clusterIPs(spec).length === 1 && clusterIPs(spec)[0] === 'None';
const externallyAccessible = (spec: Obj) =>
  spec.type === 'LoadBalancer' || spec.type === 'NodePort' || (spec.type === 'ClusterIP' && arr(spec.externalIPs).length > 0);

function validateServicePort(sp: Obj, requireName: boolean, names: Set<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(sp.name);
  if (requireName && !name) {
    errs.push(required(child(path, 'name')));
  } else if (name) {
    appendAll(errs, isDNS1123Label(name).map((msg) => invalid(child(path, 'name'), name, msg)));
    if (names.has(name)) errs.push(duplicate(child(path, 'name'), name));
    else names.add(name);
  }
  appendAll(errs, isValidPortNum(sp.port ?? 0).map((msg) => invalid(child(path, 'port'), sp.port ?? 0, msg)));
  const protocol = str(sp.protocol);
  if (!protocol) errs.push(required(child(path, 'protocol')));
  else if (!supportedPortProtocols.includes(protocol)) errs.push(notSupported(child(path, 'protocol'), protocol, supportedPortProtocols));
  appendAll(errs, validatePortNumOrName(sp.targetPort, child(path, 'targetPort')));
  if (has(sp.appProtocol)) appendAll(errs, isQualifiedName(str(sp.appProtocol)).map((msg) => invalid(child(path, 'appProtocol'), str(sp.appProtocol), msg)));
  return errs;
}

/** ValidateServiceClusterIPsRelatedFields. */
function validateClusterIPs(spec: Obj): FieldError[] {
  if (spec.type === 'ExternalName') return [];
  const errs: FieldError[] = [];
  const ips = clusterIPs(spec);
  const ipsPath = 'spec.clusterIPs';
  if (str(spec.clusterIP)) {
    if (ips.length === 0) errs.push(required(ipsPath));
    else if (ips[0] !== spec.clusterIP) errs.push(invalid(ipsPath, goStringSlice(ips), 'first value must match `clusterIP`'));
  } else if (ips.length > 0) {
    errs.push(invalid(ipsPath, goStringSlice(ips), 'must be empty when `clusterIP` is not specified'));
  }
  const families = arr(spec.ipFamilies).map(str);
  const seen = new Set<string>();
  families.forEach((f, i) => {
    if (!['IPv4', 'IPv6'].includes(f)) errs.push(notSupported(index('spec.ipFamilies', i), f, ['IPv4', 'IPv6']));
    if (seen.has(f)) errs.push(duplicate(index('spec.ipFamilies', i), f));
    seen.add(f);
  });
  const policies = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];
  if (has(spec.ipFamilyPolicy) && !policies.includes(str(spec.ipFamilyPolicy))) errs.push(notSupported('spec.ipFamilyPolicy', str(spec.ipFamilyPolicy), policies));
  let badIPs = false;
  ips.forEach((ip, i) => {
    if (i === 0 && ip === 'None') {
      if (ips.length > 1) {
        badIPs = true;
        errs.push(invalid(ipsPath, goStringSlice(ips), "'None' must be the first and only value"));
      }
      return;
    }
    const e = validateIP(index(ipsPath, i), ip);
    if (e.length > 0) badIPs = true;
    appendAll(errs, e);
  });
  if (ips.length > 2) errs.push(invalid(ipsPath, goStringSlice(ips), 'may only hold up to 2 values'));
  if (badIPs) return errs;
  if (ips.length > 1 && !(ips.some(isIPv6String) && ips.some((ip) => !isIPv6String(ip)))) {
    errs.push(invalid(ipsPath, goStringSlice(ips), 'may specify no more than one IP for each IP family'));
  }
  if (!isHeadless(spec)) {
    ips.slice(0, families.length).forEach((ip, i) => {
      if (families[i] === 'IPv4' && isIPv6String(ip)) errs.push(invalid(index(ipsPath, i), ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      if (families[i] === 'IPv6' && !isIPv6String(ip)) errs.push(invalid(index(ipsPath, i), ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
    });
  }
  return errs;
}

function validateTypeRules(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if ((spec.type === 'LoadBalancer' || spec.type === 'NodePort') && isHeadless(spec)) {
    errs.push(invalid('spec.clusterIPs[0]', 'None', `may not be set to 'None' for ${spec.type} services`));
  }
  if (spec.type === 'ExternalName') {
    if (clusterIPs(spec).length > 0) errs.push(forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
    if (arr(spec.ipFamilies).length > 0) errs.push(forbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
    if (has(spec.ipFamilyPolicy)) errs.push(forbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
    const cname = str(spec.externalName).replace(/\.$/, '');
    if (cname) appendAll(errs, validateName(cname, 'spec.externalName', nameIsDNSSubdomain));
    else errs.push(required('spec.externalName'));
  }
  return errs;
}

function validateSessionAffinity(spec: Obj): FieldError[] {
  const affinity = str(spec.sessionAffinity);
  if (!affinity) return [required('spec.sessionAffinity')];
  if (!['ClientIP', 'None'].includes(affinity)) return [notSupported('spec.sessionAffinity', affinity, ['ClientIP', 'None'])];
  const path = 'spec.sessionAffinityConfig';
  if (affinity === 'None') return isObj(spec.sessionAffinityConfig) ? [forbidden(path, 'must not be set when session affinity is None')] : [];
  const cfg = spec.sessionAffinityConfig;
  if (!isObj(cfg)) return [required(path, 'when session affinity type is ClientIP')];
  if (!isObj(cfg.clientIP)) return [required(child(path, 'clientIP'), 'when session affinity type is ClientIP')];
  const t = cfg.clientIP.timeoutSeconds;
  if (!has(t)) return [required(`${path}.clientIP.timeoutSeconds`, 'when session affinity type is ClientIP')];
  return t <= 0 || t > 86400 ? [invalid(`${path}.clientIP.timeoutSeconds`, t, 'must be greater than 0 and less than 86400')] : [];
}

function validatePortsAndNodePorts(spec: Obj): FieldError[] {
  const ports = arr(spec.ports).map(obj);
  const errs: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((p, i) => appendAll(errs, validateServicePort(p, ports.length > 1, names, index('spec.ports', i))));
  return errs;
}

function validateDuplicatePorts(spec: Obj): FieldError[] {
  const ports = arr(spec.ports).map(obj);
  const errs: FieldError[] = [];
  if (spec.type === 'ClusterIP') {
    ports.forEach((p, i) => { if (p.nodePort) errs.push(forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'")); });
  }
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    if (!p.nodePort) return;
    const id = `${str(p.protocol)}/${p.nodePort}`;
    if (nodePorts.has(id)) errs.push(duplicate(`spec.ports[${i}].nodePort`, p.nodePort));
    nodePorts.add(id);
  });
  const seen = new Set<string>();
  ports.forEach((p, i) => {
    const id = `${str(p.protocol)}/${p.port}`;
    if (seen.has(id)) errs.push(duplicate(index('spec.ports', i), goJSON({ protocol: str(p.protocol), port: p.port ?? 0 })));
    seen.add(id);
  });
  return errs;
}

function validateTrafficPolicies(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if (!externallyAccessible(spec)) {
    if (str(spec.externalTrafficPolicy)) errs.push(invalid('spec.externalTrafficPolicy', str(spec.externalTrafficPolicy), 'may only be set for externally-accessible services'));
  } else if (!str(spec.externalTrafficPolicy)) {
    errs.push(required('spec.externalTrafficPolicy'));
  } else if (!['Cluster', 'Local'].includes(str(spec.externalTrafficPolicy))) {
    errs.push(notSupported('spec.externalTrafficPolicy', str(spec.externalTrafficPolicy), ['Cluster', 'Local']));
  }
  const needsHealthCheck = spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';
  if (!needsHealthCheck && spec.healthCheckNodePort) {
    errs.push(invalid('spec.healthCheckNodePort', spec.healthCheckNodePort, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
  }
  if (!has(spec.internalTrafficPolicy) && ['NodePort', 'LoadBalancer', 'ClusterIP'].includes(str(spec.type))) errs.push(required('spec.internalTrafficPolicy'));
  if (has(spec.internalTrafficPolicy) && !['Cluster', 'Local'].includes(str(spec.internalTrafficPolicy))) {
    errs.push(notSupported('spec.internalTrafficPolicy', str(spec.internalTrafficPolicy), ['Cluster', 'Local']));
  }
  if (has(spec.trafficDistribution) && spec.trafficDistribution !== 'PreferClose') errs.push(notSupported('spec.trafficDistribution', str(spec.trafficDistribution), ['PreferClose']));
  return errs;
}

function validateLoadBalancerFields(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const lb = spec.type === 'LoadBalancer';
  const ranges = arr(spec.loadBalancerSourceRanges).map(str);
  if (ranges.length > 0) {
    if (!lb) errs.push(forbidden('spec.LoadBalancerSourceRanges', "may only be used when `type` is 'LoadBalancer'"));
    ranges.forEach((r, i) => appendAll(errs, validateCIDR(index('spec.LoadBalancerSourceRanges', i), r.trim())));
  }
  if (has(spec.allocateLoadBalancerNodePorts) && !lb) errs.push(forbidden('spec.allocateLoadBalancerNodePorts', "may only be used when `type` is 'LoadBalancer'"));
  if (lb && !has(spec.allocateLoadBalancerNodePorts)) errs.push(required('allocateLoadBalancerNodePorts'));
  if (has(spec.loadBalancerClass)) {
    if (lb) appendAll(errs, isQualifiedName(str(spec.loadBalancerClass)).map((msg) => invalid('spec.loadBalancerClass', str(spec.loadBalancerClass), msg)));
    else errs.push(forbidden('spec.loadBalancerClass', "may only be used when `type` is 'LoadBalancer'"));
  }
  return errs;
}

/** ValidateService. */
export function validateServiceCreate(svc: Obj): FieldError[] {
  const spec = obj(svc.spec);
  const errs = validateObjectMeta(svc.metadata, true, nameIsDNS1035Label);
  if (arr(spec.ports).length === 0 && !isHeadless(spec) && spec.type !== 'ExternalName') errs.push(required('spec.ports'));
  appendAll(errs, validateTypeRules(spec));
  appendAll(errs, validatePortsAndNodePorts(spec));
  if (isObj(spec.selector)) appendAll(errs, validateLabels(spec.selector, 'spec.selector'));
  appendAll(errs, validateSessionAffinity(spec));
  appendAll(errs, validateClusterIPs(spec));
  arr(spec.externalIPs).forEach((ip, i) => appendAll(errs, validateIP(index('spec.externalIPs', i), str(ip))));
  if (!str(spec.type)) errs.push(required('spec.type'));
  else if (!serviceTypes.includes(str(spec.type))) errs.push(notSupported('spec.type', str(spec.type), serviceTypes));
  appendAll(errs, validateDuplicatePorts(spec));
  appendAll(errs, validateLoadBalancerFields(spec));
  appendAll(errs, validateTrafficPolicies(spec));
  return errs;
}

function validateClusterIPsUpdate(n: Obj, o: Obj): FieldError[] {
  if (n.type === 'ExternalName' || o.type === 'ExternalName' || (isHeadless(n) && isHeadless(o))) return [];
  const newIPs = clusterIPs(n);
  const oldIPs = clusterIPs(o);
  const errs: FieldError[] = [];
  const shown = goStringSlice(newIPs);
  if (newIPs.length === oldIPs.length) {
    oldIPs.forEach((ip, i) => { if (ip !== newIPs[i]) errs.push(invalid(`spec.clusterIPs[${i}]`, shown, 'may not change once set')); });
  } else if (oldIPs.length > newIPs.length) {
    if (newIPs.length === 0) errs.push(invalid('spec.clusterIPs[0]', shown, 'primary clusterIP can not be unset'));
    if (newIPs.length > 0 && newIPs[0] !== oldIPs[0]) errs.push(invalid('spec.clusterIPs[0]', shown, 'may not change once set'));
    if (newIPs.length === 1 && n.ipFamilyPolicy !== 'SingleStack') {
      errs.push(invalid('spec.ipFamilyPolicy', str(n.ipFamilyPolicy) || 'null', "must be set to 'SingleStack' when releasing the secondary clusterIP"));
    }
  } else if (oldIPs.length > 0 && newIPs[0] !== oldIPs[0]) {
    errs.push(invalid('spec.clusterIPs[0]', shown, 'may not change once set'));
  }
  return errs;
}

function validateIPFamiliesUpdate(n: Obj, o: Obj): FieldError[] {
  if (n.type === 'ExternalName' || o.type === 'ExternalName' || isHeadless(n) || isHeadless(o)) return [];
  const nf = arr(n.ipFamilies).map(str);
  const of = arr(o.ipFamilies).map(str);
  const shown = goStringSlice(nf, '[]core.IPFamily');
  if (nf.length === of.length) return of.some((f, i) => f !== nf[i]) ? [invalid('spec.ipFamilies[0]', shown, 'may not change once set')] : [];
  if (nf.length > 0 && of.length > 0 && nf[0] !== of[0]) return [invalid('spec.ipFamilies[0]', goStringSlice(clusterIPs(n)), 'may not change once set')];
  if (of.length > nf.length && nf.length === 1 && n.ipFamilyPolicy !== 'SingleStack') {
    return [invalid('spec.ipFamilyPolicy', str(n.ipFamilyPolicy) || 'null', "must be set to 'SingleStack' when releasing the secondary ipFamily")];
  }
  return [];
}

/** ValidateServiceUpdate. */
export function validateServiceUpdate(svc: Obj, old: Obj): FieldError[] {
  const n = obj(svc.spec);
  const o = obj(old.spec);
  const errs = [...validateObjectMetaUpdate(svc.metadata, old.metadata), ...validateClusterIPsUpdate(n, o), ...validateIPFamiliesUpdate(n, o)];
  if (n.type === 'LoadBalancer' && o.type === 'LoadBalancer' && str(n.loadBalancerClass) !== str(o.loadBalancerClass)) {
    errs.push(invalid('spec.loadBalancerClass', str(n.loadBalancerClass) || 'null', 'may not change once set'));
  }
  if (n.type === 'LoadBalancer' && o.type === 'LoadBalancer' && n.externalTrafficPolicy === 'Local' && o.externalTrafficPolicy === 'Local'
    && n.healthCheckNodePort !== o.healthCheckNodePort) {
    errs.push(forbidden('spec.healthCheckNodePort', 'field is immutable'));
  }
  return [...errs, ...validateServiceCreate(svc)];
}
