/**
 * Go's net.IP classification (IsUnspecified, IsLoopback, IsLinkLocalUnicast,
 * IsLinkLocalMulticast, IsMulticast, IsGlobalUnicast) on an address's value,
 * not its spelling: Go parses `0::1`, `0:0:0:0:0:0:0:1` and
 * `::ffff:7f00:1` to the same bytes as `::1` and `127.0.0.1`, so they are
 * loopback too. Matching the text instead let such spellings through the
 * proxy's "address not allowed" and Endpoints' non-special check while the
 * dialer still reached the loopback.
 */
import { BlockList, isIP } from 'node:net';

export type IPClass = 'unspecified' | 'loopback' | 'link-local' | 'link-local-multicast' | 'interface-local-multicast' | 'multicast' | 'broadcast';

/** One BlockList a class; an IPv4 rule also matches its IPv4-mapped IPv6 form (::ffff:a.b.c.d). */
function ranges(v4: [string, number][], v6: [string, number][]): BlockList {
  const list = new BlockList();
  for (const [net, bits] of v4) list.addSubnet(net, bits, 'ipv4');
  for (const [net, bits] of v6) list.addSubnet(net, bits, 'ipv6');
  return list;
}

// In the order the checks below ask: the narrower multicast scopes before multicast.
const classes: [IPClass, BlockList][] = [
  ['unspecified', ranges([['0.0.0.0', 32]], [['::', 128]])],
  ['loopback', ranges([['127.0.0.0', 8]], [['::1', 128]])],
  ['link-local', ranges([['169.254.0.0', 16]], [['fe80::', 10]])],
  ['link-local-multicast', ranges([['224.0.0.0', 24]], [['ff02::', 16]])],
  ['interface-local-multicast', ranges([], [['ff01::', 16]])],
  ['multicast', ranges([['224.0.0.0', 4]], [['ff00::', 8]])],
  ['broadcast', ranges([['255.255.255.255', 32]], [])],
];

/**
 * The special class of an address Node can dial as written (net.isIP), or
 * undefined for a unicast address that is none of them. Callers first make
 * sure the text is an IP address.
 */
export function ipClass(ip: string): IPClass | undefined {
  const family = isIP(ip) === 4 ? 'ipv4' : 'ipv6';
  for (const [name, list] of classes) if (list.check(ip, family)) return name;
  return undefined;
}

/**
 * Go's net.IP.IsGlobalUnicast of an address written as Node dials it: not
 * unspecified, loopback, multicast, link-local or the IPv4 broadcast. Text
 * Node would not take as an address (`0177.0.0.1`, which the resolver reads
 * as octal 127.0.0.1; a name) is not one.
 */
export function isGlobalUnicast(ip: string): boolean {
  return isIP(ip) !== 0 && ipClass(ip) === undefined;
}
