/** Endpoints: each subset has addresses; addresses are valid, non-special IPs; ports as for services. */
import { FieldError, invalid, notSupported, required } from '../field-errors.js';
import { isDNS1123Label, isQualifiedName, isValidPortNum, nameIsDNSSubdomain } from '../names.js';
import { supportedPortProtocols } from './container.js';
import { isIP, validateIP } from './ip.js';
import { ipClass } from '../ip-address.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { Obj, arr, child, has, index, obj, str, validateName } from './util.js';
import { appendAll } from '../append.js';

/**
 * ValidateNonSpecialIP: not unspecified, loopback or link-local (the Endpoints controller leaves such pod IPs out),
 * judged on the parsed address as Go's net.IP is (`0::1` and `::ffff:127.0.0.1` are loopback; api/ip-address.ts).
 */
export function validateNonSpecialIP(ip: string, path: string): FieldError[] {
  if (!isIP(ip)) return [invalid(path, ip, 'must be a valid IP address')];
  // ParseIPSloppy reads IPv4 octets with leading zeros as decimal.
  const parsed = ip.includes(':') ? ip : ip.split('.').map(Number).join('.');
  switch (ipClass(parsed)) {
    case 'unspecified': return [invalid(path, ip, `may not be unspecified (${ip})`)];
    case 'loopback': return [invalid(path, ip, 'may not be in the loopback range (127.0.0.0/8, ::1/128)')];
    case 'link-local': return [invalid(path, ip, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)')];
    case 'link-local-multicast': return [invalid(path, ip, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)')];
    default: return [];
  }
}

function validateAddress(a: unknown, path: string): FieldError[] {
  const addr = obj(a);
  const errs = validateIP(child(path, 'ip'), str(addr.ip));
  if (str(addr.hostname)) appendAll(errs, isDNS1123Label(str(addr.hostname)).map((msg) => invalid(child(path, 'hostname'), str(addr.hostname), msg)));
  if (has(addr.nodeName)) appendAll(errs, validateName(str(addr.nodeName), child(path, 'nodeName'), nameIsDNSSubdomain));
  appendAll(errs, validateNonSpecialIP(str(addr.ip), child(path, 'ip')));
  return errs;
}

function validatePort(p: unknown, requireName: boolean, path: string): FieldError[] {
  const port = obj(p);
  const errs: FieldError[] = [];
  if (requireName && !str(port.name)) errs.push(required(child(path, 'name')));
  else if (str(port.name)) appendAll(errs, isDNS1123Label(str(port.name)).map((msg) => invalid(child(path, 'name'), str(port.name), msg)));
  appendAll(errs, isValidPortNum(port.port ?? 0).map((msg) => invalid(child(path, 'port'), port.port ?? 0, msg)));
  if (!str(port.protocol)) errs.push(required(child(path, 'protocol')));
  else if (!supportedPortProtocols.includes(str(port.protocol))) errs.push(notSupported(child(path, 'protocol'), str(port.protocol), supportedPortProtocols));
  if (has(port.appProtocol)) appendAll(errs, isQualifiedName(str(port.appProtocol)).map((msg) => invalid(child(path, 'appProtocol'), str(port.appProtocol), msg)));
  return errs;
}

export function validateEndpointsCreate(ep: Obj): FieldError[] {
  const errs = validateObjectMeta(ep.metadata, true, nameIsDNSSubdomain);
  arr(ep.subsets).forEach((raw, i) => {
    const ss = obj(raw);
    const p = index('subsets', i);
    if (arr(ss.addresses).length === 0 && arr(ss.notReadyAddresses).length === 0) errs.push(required(p, 'must specify `addresses` or `notReadyAddresses`'));
    arr(ss.addresses).forEach((a, j) => appendAll(errs, validateAddress(a, index(child(p, 'addresses'), j))));
    arr(ss.notReadyAddresses).forEach((a, j) => appendAll(errs, validateAddress(a, index(child(p, 'notReadyAddresses'), j))));
    arr(ss.ports).forEach((port, j) => appendAll(errs, validatePort(port, arr(ss.ports).length > 1, index(child(p, 'ports'), j))));
  });
  return errs;
}

export const validateEndpointsUpdate = (ep: Obj, old: Obj) => [...validateObjectMetaUpdate(ep.metadata, old.metadata), ...validateEndpointsCreate(ep)];
