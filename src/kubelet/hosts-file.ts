/**
 * The /etc/hosts the kubelet writes for each container (pkg/kubelet/kubelet_pods.go
 * managedHostsFileContent, nodeHostsFileContent, hostsEntriesFromHostAliases), v1.32:
 *
 *  1. A pod on the pod network gets the IPv4 and IPv6 boilerplate, then its
 *     IP and hostname; a pod with a subdomain (a StatefulSet's) gets its FQDN
 *     `host.subdomain.ns.svc.DOMAIN` before the hostname.
 *  2. A hostNetwork pod gets the node's own /etc/hosts.
 *  3. Either way the pod's spec.hostAliases follow under the heading
 *     `# Entries added by HostAliases.`, after a blank line: one line per IP,
 *     its hostnames tab-separated.
 */
import type { HostAlias } from 'kubernetes-types/core/v1.js';

/** What the hosts file says of the pod beyond its IP: its domain and its spec.hostAliases. */
export interface PodHosts {
  /** `subdomain.ns.svc.DOMAIN` of a pod with a subdomain. */
  domain?: string;
  aliases?: HostAlias[];
}

/** Rule 1 and 3. */
export function managedHostsFile(podIP: string | undefined, hostname: string, hosts: PodHosts = {}): string {
  const lines = ['# Kubernetes-managed hosts file.', '127.0.0.1\tlocalhost', '::1\tlocalhost ip6-localhost ip6-loopback',
    'fe00::0\tip6-localnet', 'fe00::0\tip6-mcastprefix', 'fe00::1\tip6-allnodes', 'fe00::2\tip6-allrouters'];
  if (podIP) lines.push(hosts.domain ? `${podIP}\t${hostname}.${hosts.domain}\t${hostname}` : `${podIP}\t${hostname}`);
  return `${lines.join('\n')}\n${hostAliasEntries(hosts.aliases)}`;
}

/** Rule 2 and 3: the node's hosts file as read, then the aliases. */
export function nodeHostsFile(nodeHosts: string, aliases: HostAlias[] | undefined): string {
  return `${nodeHosts}${hostAliasEntries(aliases)}`;
}

function hostAliasEntries(aliases: HostAlias[] | undefined): string {
  if (!aliases?.length) return '';
  return `\n# Entries added by HostAliases.\n${aliases.map((a) => `${a.ip}\t${(a.hostnames ?? []).join('\t')}\n`).join('')}`;
}

/** The pod's hostname and domain as the kubelet derives them (GeneratePodHostNameAndDomain), cut to a DNS label. */
export function podHostnameAndDomain(pod: { metadata?: { name?: string; namespace?: string }; spec?: { hostname?: string; subdomain?: string } }, clusterDomain: string): { hostname: string; domain?: string } {
  const hostname = (pod.spec?.hostname || pod.metadata?.name || '').slice(0, 63).replace(/[-.]+$/, '');
  const sub = pod.spec?.subdomain;
  return { hostname, ...(sub ? { domain: `${sub}.${pod.metadata?.namespace}.svc.${clusterDomain}` } : {}) };
}
