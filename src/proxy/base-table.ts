/**
 * The fixed part of table `ip kube-proxy`, as upstream's nftables proxier
 * sets it up (setupNFTables in pkg/proxy/nftables/proxier.go): the maps and
 * sets every Service adds elements to, the base chains on the netfilter
 * hooks, and the helper chains. Every statement is an `add`, which nft
 * accepts for an object that already exists, so a restarted proxy re-runs it
 * without disturbing traffic.
 */
import { table } from './names.js';

/** The mark of connections to masquerade (upstream's --masquerade-bit 14). */
export const masqueradeMark = '0x00004000';

/** Chains whose rules this file owns; a full sync flushes and rewrites them. */
export const baseChainRules: [string, string | undefined, string[]][] = [
  // [name, hook spec, rules]
  ['filter-prerouting', 'type filter hook prerouting priority -110 ;', []],
  ['filter-input', 'type filter hook input priority -110 ;', [
    'ct state new jump nodeport-endpoints-check', 'ct state new jump service-endpoints-check']],
  ['filter-forward', 'type filter hook forward priority -110 ;', [
    'ct state new jump service-endpoints-check', 'ct state new jump cluster-ips-check']],
  ['filter-output', 'type filter hook output priority -110 ;', ['ct state new jump service-endpoints-check']],
  ['filter-output-post-dnat', 'type filter hook output priority -90 ;', ['ct state new jump cluster-ips-check']],
  ['nat-prerouting', 'type nat hook prerouting priority -100 ;', ['jump services']],
  ['nat-output', 'type nat hook output priority -100 ;', ['jump services']],
  ['nat-postrouting', 'type nat hook postrouting priority 100 ;', ['jump masquerading']],
  ['mark-for-masquerade', undefined, [`mark set mark or ${masqueradeMark}`]],
  ['masquerading', undefined, [
    `mark and ${masqueradeMark} == 0 return`, `mark set mark xor ${masqueradeMark}`, 'masquerade fully-random']],
  ['reject-chain', undefined, ['reject']],
  ['services', undefined, [
    'ip daddr . meta l4proto . th dport vmap @service-ips',
    'ip daddr @nodeport-ips meta l4proto . th dport vmap @service-nodeports']],
  ['service-endpoints-check', undefined, ['ip daddr . meta l4proto . th dport vmap @no-endpoint-services']],
  ['nodeport-endpoints-check', undefined, ['ip daddr @nodeport-ips meta l4proto . th dport vmap @no-endpoint-nodeports']],
  ['cluster-ips-check', undefined, ['ip daddr @cluster-ips reject comment "Reject traffic to invalid ports of ClusterIPs"']],
];

export const baseMaps: [string, string, string][] = [
  ['cluster-ips', 'type ipv4_addr ;', 'Active ClusterIPs'],
  ['nodeport-ips', 'type ipv4_addr ;', 'IPs that accept NodePort traffic'],
  ['no-endpoint-services', 'type ipv4_addr . inet_proto . inet_service : verdict ;', 'vmap to drop or reject packets to services with no endpoints'],
  ['no-endpoint-nodeports', 'type inet_proto . inet_service : verdict ;', 'vmap to drop or reject packets to service nodeports with no endpoints'],
  ['service-ips', 'type ipv4_addr . inet_proto . inet_service : verdict ;', 'ClusterIP, ExternalIP and LoadBalancer IP traffic'],
  ['service-nodeports', 'type inet_proto . inet_service : verdict ;', 'NodePort traffic'],
];

/** Maps are `map`, the two address sets are `set`. */
export const isSet = (name: string) => name === 'cluster-ips' || name === 'nodeport-ips';

/**
 * The statements that create the table and its fixed objects (idempotent).
 * Chains are written with their rules in a block, never with `add rule`, so
 * nft 1.0.6 reads no cache for them (statements.ts): a restarted proxy's
 * full sync does not first dump the 10,000-Service table it replaces.
 */
export function baseTableStatements(): string[] {
  const out = [`add table ${table} { comment "rules for kube-proxy" ; }`];
  for (const [name, type, comment] of baseMaps) {
    out.push(`add ${isSet(name) ? 'set' : 'map'} ${table} ${name} { ${type} comment "${comment}" ; }`);
  }
  for (const [name, hook] of baseChainRules) out.push(`add chain ${table} ${name}${hook ? ` { ${hook} }` : ''}`);
  for (const [name, , rules] of baseChainRules) {
    out.push(`flush chain ${table} ${name}`);
    if (rules.length) out.push(`add chain ${table} ${name} { ${rules.join(' ; ')} ; }`);
  }
  return out;
}
