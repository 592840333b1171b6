/**
 * IP and CIDR checks with upstream's sloppy parsing (IPv4 octets may carry
 * leading zeros) and messages from apimachinery util/validation (v1.32).
 */
import { isIPv6 } from 'node:net';
import { FieldError, invalid } from '../field-errors.js';

function isIPv4Sloppy(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => /^[0-9]{1,3}$/.test(p) && Number(p) <= 255);
}

/** ParseIPSloppy succeeds. */
export const isIP = (s: string) => isIPv4Sloppy(s) || isIPv6(s);
export const isIPv6String = (s: string) => !isIPv4Sloppy(s) && isIPv6(s);

/** ParseCIDRSloppy succeeds. */
export function isCIDR(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!/^[0-9]{1,3}$/.test(bits)) return false;
  if (isIPv4Sloppy(ip)) return Number(bits) <= 32;
  return isIPv6(ip) && Number(bits) <= 128;
}

export const isCIDRv6 = (s: string) => isCIDR(s) && isIPv6String(s.slice(0, s.indexOf('/')));

/** IsValidIP. */
export function validateIP(path: string, value: string): FieldError[] {
  return isIP(value) ? [] : [invalid(path, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')];
}

/** IsValidCIDR. */
export function validateCIDR(path: string, value: string): FieldError[] {
  return isCIDR(value) ? [] : [invalid(path, value, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)')];
}

/** IsDualStack: exactly one of each family among the given values. */
export function isDualStack(values: string[], v6: (s: string) => boolean): boolean {
  const six = values.filter(v6).length;
  return six >= 1 && values.length - six >= 1;
}
