/**
 * A pod's resolv.conf, as the kubelet decides it (upstream
 * pkg/kubelet/network/dns/dns.go, v1.32), handed to the runtime as the
 * sandbox's DNSConfig:
 *
 *  1. The policy picks a base (getPodDNSType): `None` starts empty;
 *     `ClusterFirstWithHostNet` is cluster DNS; `ClusterFirst` is cluster DNS
 *     unless the pod uses the host network, then `Default`; `Default` is the
 *     node's resolver (--resolv-conf, /etc/resolv.conf).
 *  2. Cluster DNS: the --cluster-dns servers, the searches
 *     `NS.svc.DOMAIN svc.DOMAIN DOMAIN` then the node's, and `ndots:5`. A
 *     kubelet without --cluster-dns cannot: it falls back to `Default` and
 *     says so (Warning MissingClusterDNS).
 *  3. `Default` with --resolv-conf "" (no file): nameserver 127.0.0.1
 *     (::1 on IPv6 nodes) and search ".", which resolves nothing, as upstream.
 *  4. spec.dnsConfig is appended: nameservers and searches after the base's,
 *     duplicates dropped; options merged by name, the pod's value winning.
 *  5. Limits: at most 3 nameservers, 32 search paths of at most 253
 *     characters, 2,048 characters of search line; what is cut is reported
 *     (Warning DNSConfigForming).
 */
import type { Pod, PodDNSConfigOption } from 'kubernetes-types/core/v1.js';

export interface DNSConfig { servers: string[]; searches: string[]; options: string[] }

export interface KubeletDNSOptions {
  /** --cluster-dns (kubelet configuration clusterDNS): the cluster's DNS Service addresses. */
  clusterDNS: string[];
  /** --cluster-domain (clusterDomain), cluster.local by kubeadm's default. */
  clusterDomain: string;
  /** The node's resolver configuration: --resolv-conf's contents, or undefined for --resolv-conf "". */
  hostResolvConf?: string;
  /** The node's addresses, for the loopback fallback of rule 3. */
  nodeIPs?: string[];
}

export interface DNSWarning { reason: 'MissingClusterDNS' | 'DNSConfigForming'; message: string }

export const maxDNSNameservers = 3;
export const maxDNSSearchPaths = 32;
export const maxDNSSearchListChars = 2048;
const defaultDNSOptions = ['ndots:5'];

/** nameserver, search and options lines of a resolv.conf, as upstream's parseResolvConf reads them. */
export function parseResolvConf(text: string): DNSConfig {
  const out: DNSConfig = { servers: [], searches: [], options: [] };
  for (const raw of text.split('\n')) {
    const line = raw.replace(/[#;].*$/, '');
    const fields = line.trim().split(/\s+/).filter(Boolean);
    if (fields.length === 0) continue;
    if (fields[0] === 'nameserver' && fields.length >= 2) out.servers.push(fields[1]!);
    // The same domain with and without its trailing dot counts once; "." is no search path.
    if (fields[0] === 'search') out.searches = fields.slice(1).filter((s) => s !== '.').map((s) => s.replace(/\.$/, ''));
    if (fields[0] === 'options') out.options = mergeOptions(out.options, fields.slice(1).map(optionOf));
  }
  return out;
}

type DNSType = 'cluster' | 'host' | 'none';

function podDNSType(pod: Pod): DNSType {
  const hostNetwork = !!pod.spec?.hostNetwork;
  switch (pod.spec?.dnsPolicy ?? 'ClusterFirst') {
    case 'None': return 'none';
    case 'ClusterFirstWithHostNet': return 'cluster';
    case 'ClusterFirst': return hostNetwork ? 'host' : 'cluster';
    default: return 'host';
  }
}

/** The pod's DNS configuration and what the kubelet reports about it. */
export function podDNSConfig(pod: Pod, opts: KubeletDNSOptions): { config: DNSConfig; warnings: DNSWarning[] } {
  const warnings: DNSWarning[] = [];
  let type = podDNSType(pod);
  if (type === 'cluster' && opts.clusterDNS.length === 0) {
    warnings.push({
      reason: 'MissingClusterDNS',
      message: `pod: "${podRef(pod)}". kubelet does not have ClusterDNS IP configured and cannot create Pod using "ClusterFirst" policy. Falling back to "Default" policy.`,
    });
    type = 'host';
  }
  const host = opts.hostResolvConf === undefined ? { servers: [], searches: [], options: [] } : parseResolvConf(opts.hostResolvConf);
  let config: DNSConfig;
  if (type === 'none') config = { servers: [], searches: [], options: [] };
  else if (type === 'cluster') config = { servers: [...opts.clusterDNS], searches: clusterSearches(pod, opts.clusterDomain, host.searches), options: [...defaultDNSOptions] };
  else if (opts.hostResolvConf === undefined) config = { servers: loopbackServers(opts.nodeIPs), searches: ['.'], options: [] };
  else config = host;
  const extra = pod.spec?.dnsConfig;
  if (extra) {
    config = {
      servers: unique([...config.servers, ...(extra.nameservers ?? [])]),
      searches: unique([...config.searches, ...(extra.searches ?? [])]),
      options: mergeOptions(config.options, (extra.options ?? []).map((o) => [o.name ?? '', o.value] as const)),
    };
  }
  return { config: fitLimits(config, warnings), warnings };
}

function clusterSearches(pod: Pod, domain: string, hostSearches: string[]): string[] {
  if (!domain) return hostSearches;
  const ns = pod.metadata?.namespace ?? 'default';
  return unique([`${ns}.svc.${domain}`, `svc.${domain}`, domain, ...hostSearches]);
}

function loopbackServers(nodeIPs: string[] = []): string[] {
  const servers = nodeIPs.map((ip) => (ip.includes(':') ? '::1' : '127.0.0.1'));
  return servers.length ? servers : ['127.0.0.1'];
}

function fitLimits(config: DNSConfig, warnings: DNSWarning[]): DNSConfig {
  let { servers, searches } = config;
  if (servers.length > maxDNSNameservers) {
    servers = servers.slice(0, maxDNSNameservers);
    warnings.push({ reason: 'DNSConfigForming', message: `Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: ${servers.join(' ')}` });
  }
  const fitted = fitSearches(searches);
  if (fitted.length !== searches.length) {
    warnings.push({ reason: 'DNSConfigForming', message: `Search Line limits were exceeded, some search paths have been omitted, the applied search line is: ${fitted.join(' ')}` });
  }
  searches = fitted;
  return { servers, searches, options: config.options };
}

/**
 * Upstream formDNSSearchFitsLimits: at most 32 paths; none longer than a DNS
 * subdomain (253), which makes some resolvers (glibc 2.28) abort; and as many
 * as fit in 2,048 characters with their spaces.
 */
function fitSearches(searches: string[]): string[] {
  let out = searches.slice(0, maxDNSSearchPaths).filter((s) => s.length <= 253);
  while (out.length && out.join(' ').length > maxDNSSearchListChars) out = out.slice(0, -1);
  return out;
}

const optionOf = (field: string): readonly [string, string | undefined] => {
  const at = field.indexOf(':');
  return at < 0 ? [field, undefined] : [field.slice(0, at), field.slice(at + 1)];
};

/** Options by name, later ones replacing earlier ones in place; `name` or `name:value`. */
function mergeOptions(existing: string[], more: ReadonlyArray<readonly [string, PodDNSConfigOption['value'] | undefined]>): string[] {
  const byName = new Map<string, string | undefined>(existing.map(optionOf));
  for (const [name, value] of more) byName.set(name, value);
  return [...byName].map(([name, value]) => (value ? `${name}:${value}` : name));
}

const unique = (xs: string[]) => [...new Set(xs)];

/** format.Pod: name_namespace(uid). */
const podRef = (pod: Pod) => `${pod.metadata?.name ?? ''}_${pod.metadata?.namespace ?? ''}(${pod.metadata?.uid ?? ''})`;

/**
 * The resolv.conf the runtime writes into the sandbox from a DNSConfig, as
 * containerd's parseDNSOptions: the search line, a nameserver line per
 * server, the options line; a line with nothing to say is left out.
 */
export function resolvConfText(config: DNSConfig): string {
  let text = '';
  if (config.searches.length) text += `search ${config.searches.join(' ')}\n`;
  for (const server of config.servers) text += `nameserver ${server}\n`;
  if (config.options.length) text += `options ${config.options.join(' ')}\n`;
  return text;
}
