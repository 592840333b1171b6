/**
 * DNS name helpers shared by the cluster zone and the server: names are
 * compared lower-cased without the trailing dot (DNS names are
 * case-insensitive, RFC 4343), reverse names follow RFC 1035 3.5
 * (in-addr.arpa) and RFC 3596 2.5 (ip6.arpa, one label a nibble).
 */
import { isIPv4, isIPv6 } from 'node:net';

/** `Web-0.Nginx.default.svc.cluster.local.` -> `web-0.nginx.default.svc.cluster.local`. */
export function canonicalName(name: string): string {
  const n = name.endsWith('.') ? name.slice(0, -1) : name;
  return n.toLowerCase();
}

/** True when `name` is `zone` or below it (both canonical). */
export function inZone(name: string, zone: string): boolean {
  return name === zone || name.endsWith('.' + zone);
}

/** The 8 groups of an IPv6 address, each 4 hex digits. */
export function expandIPv6(ip: string): string[] {
  const [head, tail] = ip.includes('::') ? ip.split('::') : [ip, undefined];
  const parse = (s: string | undefined) => (s ? s.split(':') : []);
  const h = parse(head);
  const t = parse(tail);
  const last = (t.length ? t : h).at(-1);
  // An embedded IPv4 tail (::ffff:1.2.3.4) counts as two groups.
  const v4 = last && isIPv4(last) ? last : undefined;
  const v4groups = v4 ? (() => { const b = v4.split('.').map(Number); return [((b[0] << 8) | b[1]).toString(16), ((b[2] << 8) | b[3]).toString(16)]; })() : [];
  if (v4) (t.length ? t : h).pop();
  const fill = tail === undefined ? [] : new Array(8 - h.length - t.length - v4groups.length).fill('0');
  return [...h, ...fill, ...t, ...v4groups].map((g) => g.padStart(4, '0').toLowerCase());
}

/** The PTR owner name of an address: `10.96.0.10` -> `10.0.96.10.in-addr.arpa`. */
export function reverseName(ip: string): string | undefined {
  if (isIPv4(ip)) return ip.split('.').reverse().join('.') + '.in-addr.arpa';
  if (isIPv6(ip)) return expandIPv6(ip).join('').split('').reverse().join('.') + '.ip6.arpa';
  return undefined;
}

/**
 * The label CoreDNS gives an endpoint without a hostname, and the label of
 * the pods zone: the address with `.` (or `:`) replaced by `-`
 * (`10-244-1-5`; IPv6 in full: `fd00-0-0-0-0-0-0-1` as CoreDNS writes it).
 */
export function dashedIP(ip: string): string {
  if (isIPv4(ip)) return ip.replace(/\./g, '-');
  return expandIPv6(ip).map((g) => g.replace(/^0+(?=.)/, '')).join('-');
}

/** The address of a pods-zone label (`a-b-c-d` or dashed IPv6), or undefined if it is none. */
export function ipOfDashed(label: string): string | undefined {
  const v4 = label.replace(/-/g, '.');
  if (isIPv4(v4)) return v4;
  const v6 = label.replace(/-/g, ':');
  return isIPv6(v6) ? v6 : undefined;
}
