/**
 * EndpointSlices (discovery.k8s.io/v1), as upstream's ValidateEndpointSlice:
 * an address type of IPv4, IPv6 or FQDN (immutable), at most 1000 endpoints of
 * 1 to 100 addresses valid for that type, at most 100 ports with unique
 * names, supported protocols and valid numbers.
 */
import { FieldError, duplicate, invalid, notSupported, required } from '../field-errors.js';
import { isDNS1123Label, isDNS1123Subdomain, isValidPortNum, nameIsDNSSubdomain } from '../names.js';
import { supportedPortProtocols } from './container.js';
import { isIPv6String } from './ip.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { Obj, arr, child, has, immutable, index, obj, str } from './util.js';
import { appendAll } from '../append.js';

export const supportedAddressTypes = ['IPv4', 'IPv6', 'FQDN'];
const maxEndpoints = 1000;
const maxAddresses = 100;
const maxPorts = 100;
/** field.TooMany: `Too many: 101: must have at most 100 items`. */
const tooMany = (field: string, actual: number, max: number): FieldError =>
  ({ type: 'FieldValueTooMany', field, value: actual, detail: `must have at most ${max} items` });
const ipv4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function validateAddress(addressType: string, address: string, path: string): FieldError[] {
  if (addressType === 'IPv4' && !ipv4.test(address)) return [invalid(path, address, 'must be a valid IPv4 address')];
  if (addressType === 'IPv6' && !isIPv6String(address)) return [invalid(path, address, 'must be a valid IPv6 address')];
  if (addressType === 'FQDN') return isDNS1123Subdomain(address).map((m) => invalid(path, address, m));
  return [];
}

function validateEndpoint(ep: Obj, addressType: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const addresses = arr(ep.addresses);
  const ap = child(path, 'addresses');
  if (addresses.length === 0) errs.push(required(ap, 'must contain at least 1 address'));
  else if (addresses.length > maxAddresses) errs.push(tooMany(ap, addresses.length, maxAddresses));
  else addresses.forEach((a, i) => appendAll(errs, validateAddress(addressType, str(a), index(ap, i))));
  if (has(ep.hostname)) appendAll(errs, isDNS1123Label(str(ep.hostname)).map((m) => invalid(child(path, 'hostname'), str(ep.hostname), m)));
  return errs;
}

function validatePorts(ports: unknown[]): FieldError[] {
  const errs: FieldError[] = [];
  if (ports.length > maxPorts) return [tooMany('ports', ports.length, maxPorts)];
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const port = obj(p);
    const path = index('ports', i);
    const name = str(port.name);
    if (name) appendAll(errs, isDNS1123Label(name).map((m) => invalid(child(path, 'name'), name, m)));
    if (names.has(name)) errs.push(duplicate(child(path, 'name'), name));
    names.add(name);
    if (typeof port.port === 'number') appendAll(errs, isValidPortNum(port.port).map((m) => invalid(child(path, 'port'), port.port, m)));
    const protocol = str(port.protocol);
    if (!protocol) errs.push(required(child(path, 'protocol')));
    else if (!supportedPortProtocols.includes(protocol)) errs.push(notSupported(child(path, 'protocol'), protocol, supportedPortProtocols));
  });
  return errs;
}

export function validateEndpointSliceCreate(slice: Obj): FieldError[] {
  const errs = validateObjectMeta(slice.metadata, true, nameIsDNSSubdomain);
  const addressType = str(slice.addressType);
  if (!addressType) errs.push(required('addressType'));
  else if (!supportedAddressTypes.includes(addressType)) errs.push(notSupported('addressType', addressType, supportedAddressTypes));
  const endpoints = arr(slice.endpoints);
  if (endpoints.length > maxEndpoints) errs.push(tooMany('endpoints', endpoints.length, maxEndpoints));
  else endpoints.forEach((e, i) => appendAll(errs, validateEndpoint(obj(e), addressType, index('endpoints', i))));
  appendAll(errs, validatePorts(arr(slice.ports)));
  return errs;
}

export function validateEndpointSliceUpdate(slice: Obj, old: Obj): FieldError[] {
  return [
    ...validateObjectMetaUpdate(slice.metadata, old.metadata), ...validateEndpointSliceCreate(slice),
    ...immutable(slice.addressType, old.addressType, 'addressType'),
  ];
}
