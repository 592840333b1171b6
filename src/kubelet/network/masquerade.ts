/**
 * Pod-to-outside traffic leaves with the node's address; pod-to-pod traffic
 * keeps the pod's (the Kubernetes network model: pods reach pods without
 * NAT). One nftables table of our own, `ip k8ts-podnet`, replaced whole in
 * one transaction (`add table; delete table; table {...}`), never the rest of
 * the ruleset. The set holds every node's podCIDR, this node's included.
 */
import { ignoreAbsent, type CommandRunner } from './commands.js';

export const masqueradeTable = 'k8ts-podnet';

export function masqueradeRuleset(localPodCIDR: string, clusterPodCIDRs: string[]): string {
  const all = [...new Set([localPodCIDR, ...clusterPodCIDRs])].sort();
  return `add table ip ${masqueradeTable}
delete table ip ${masqueradeTable}
table ip ${masqueradeTable} {
  set pod-cidrs {
    type ipv4_addr
    flags interval
    auto-merge
    elements = { ${all.join(', ')} }
  }
  chain postrouting {
    type nat hook postrouting priority srcnat; policy accept;
    ip saddr ${localPodCIDR} ip daddr != @pod-cidrs masquerade
  }
}
`;
}

export async function applyMasquerade(r: CommandRunner, localPodCIDR: string, clusterPodCIDRs: string[]): Promise<void> {
  await r.run('nft', ['-f', '-'], masqueradeRuleset(localPodCIDR, clusterPodCIDRs));
}

export const deleteMasquerade = (r: CommandRunner) => ignoreAbsent(r.run('nft', ['delete', 'table', 'ip', masqueradeTable]));
