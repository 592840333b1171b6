/**
 * `nslookup NAME` in the simulated shell, as busybox 1.28's (the image of
 * the DNS examples, `busybox:1.28`) prints it (networking/nslookup.c: the
 * resolver's view through getaddrinfo, then a reverse lookup per address):
 *
 *     Server:    10.96.0.10
 *     Address 1: 10.96.0.10 kube-dns.kube-system.svc.cluster.local
 *
 *     Name:      web-0.nginx
 *     Address 1: 10.244.1.6 web-0.nginx.default.svc.cluster.local
 *
 * A name that does not resolve prints `nslookup: can't resolve 'NAME'` on
 * stderr after the server block, and exits 1. Resolution is the libc
 * resolver's: /etc/hosts first, then the pod's resolv.conf (cluster search
 * path `NS.svc.cluster.local svc.cluster.local cluster.local`, ndots 5);
 * the answers come from the runtime's `dns` hook, which asks the cluster's
 * records as the cluster DNS computes them. Names outside the cluster do not
 * resolve (no network).
 *
 * In the dnsutils images (the DNS debugging page's
 * registry.k8s.io/e2e-test-images/jessie-dnsutils, Debian with BIND's
 * tools) nslookup is BIND 9's, which asks the nameserver itself (no /etc/hosts)
 * through the search path and prints the name that answered:
 *
 *     Server:		10.96.0.10
 *     Address:	10.96.0.10#53
 *
 *     Name:	kubernetes.default.svc.cluster.local
 *     Address: 10.96.0.1
 *
 * and for a miss `** server can't find NAME: NXDOMAIN`, exit 1.
 */
import { isIP } from 'node:net';
import { reverseName } from '../../../api/dns/names.js';
import type { ShellContext } from './shell.js';

/** Images whose nslookup is BIND's (dnsutils); the others print busybox's format. */
const bindImages = /(^|\/)[\w-]*dnsutils(:|@|$)/;

/** The resolver of a pod: its nameserver, search path and ndots, and the cluster's answers (none for a miss). */
export interface PodResolver {
  server: string;
  search: string[];
  ndots: number;
  query(name: string, type: 'A' | 'PTR'): Promise<string[]>;
}

type Out = (stream: 'stdout' | 'stderr', text: string) => void;

/** /etc/hosts as the resolver reads it: address → names, in order. */
function hostsEntries(text: string | undefined): { ip: string; names: string[] }[] {
  return (text ?? '').split('\n').map((l) => l.replace(/#.*/, '').trim().split(/\s+/)).filter((f) => f.length > 1 && isIP(f[0]!)).map(([ip, ...names]) => ({ ip: ip!, names }));
}

/** The names the resolver tries, in order (resolv.conf(5): ndots, search). */
export function candidateNames(name: string, search: string[], ndots: number): string[] {
  if (name.endsWith('.')) return [name.slice(0, -1)];
  const searched = search.map((s) => `${name}.${s}`);
  return name.split('.').length - 1 >= ndots ? [name, ...searched] : [...searched, name];
}

/** The addresses of a host as the container's libc finds them (curl and wget resolve through it). */
export async function resolveHost(host: string, files: Pick<ShellContext, 'readFile'>, dns: () => Promise<PodResolver>): Promise<string[]> {
  return addresses(host, files, await dns().catch(() => undefined));
}

/** getaddrinfo: the IPv4 addresses of a name (k8ts's simulated pods have no IPv6). */
async function addresses(name: string, ctx: Pick<ShellContext, 'readFile'>, r: PodResolver | undefined): Promise<string[]> {
  if (isIP(name)) return [name];
  const hosts = hostsEntries(ctx.readFile('/etc/hosts')).filter((e) => isIP(e.ip) === 4 && e.names.some((n) => n.toLowerCase() === name.toLowerCase()));
  if (hosts.length) return hosts.map((e) => e.ip);
  for (const candidate of r ? candidateNames(name, r.search, r.ndots) : []) {
    const found = await r!.query(candidate, 'A');
    if (found.length) return found;
  }
  return [];
}

/** getnameinfo with a name required: /etc/hosts, then the PTR record. */
async function reverse(ip: string, ctx: ShellContext, r: PodResolver | undefined): Promise<string | undefined> {
  const hosts = hostsEntries(ctx.readFile('/etc/hosts')).find((e) => e.ip === ip);
  if (hosts) return hosts.names[0];
  const ptr = reverseName(ip);
  return ptr && r ? (await r.query(ptr, 'PTR'))[0] : undefined;
}

/** print_host: the header line, an `Address N:` line per address (with its reverse name), a blank line. */
async function printHost(name: string, header: string, ctx: ShellContext, r: PodResolver | undefined, out: Out): Promise<boolean> {
  const found = await addresses(name, ctx, r);
  if (!found.length) {
    out('stderr', `nslookup: can't resolve '${name}'\n`);
    out('stdout', '\n');
    return false;
  }
  let text = `${header.padEnd(10)} ${name}\n`;
  for (const [i, ip] of found.entries()) {
    const rev = await reverse(ip, ctx, r);
    text += `Address ${i + 1}: ${ip}${rev ? ` ${rev}` : ''}\n`;
  }
  out('stdout', `${text}\n`);
  return true;
}

/** BIND's nslookup NAME [SERVER]: the server and port asked, then the first search candidate with addresses. */
async function bindNslookup(names: string[], r: PodResolver | undefined, out: Out): Promise<number> {
  const server = names[1] ?? r?.server ?? '127.0.0.1';
  let text = `Server:\t\t${server}\nAddress:\t${server}#53\n\n`;
  const name = names[0]!;
  // An address: its PTR record (`10.1.96.10.in-addr.arpa\tname = NAME.`).
  const ptr = isIP(name) ? reverseName(name) : undefined;
  const reversed = ptr && r ? await r.query(ptr, 'PTR') : [];
  if (reversed.length) {
    out('stdout', `${text}${reversed.map((n) => `${ptr}\tname = ${n}.\n`).join('')}\n`);
    return 0;
  }
  for (const candidate of r && !isIP(name) ? candidateNames(name, r.search, r.ndots) : []) {
    const found = await r!.query(candidate, 'A');
    if (!found.length) continue;
    for (const ip of found) text += `Name:\t${candidate}\nAddress: ${ip}\n`;
    out('stdout', `${text}\n`);
    return 0;
  }
  out('stdout', `${text}** server can't find ${ptr ?? name}: NXDOMAIN\n\n`);
  return 1;
}

/** nslookup NAME [SERVER]: the server block, then the name's. */
export async function nslookup(args: string[], ctx: ShellContext, out: Out): Promise<number> {
  const names = args.filter((a) => !a.startsWith('-'));
  if (!names.length) {
    out('stderr', 'Usage: nslookup [HOST] [SERVER]\n\nQuery the nameserver for the IP address of the given HOST\noptionally using a specified DNS server\n');
    return 1;
  }
  const r = await ctx.dns?.();
  if (bindImages.test(String(ctx.image ?? ''))) return bindNslookup(names, r, out);
  await printHost(names[1] ?? r?.server ?? '127.0.0.1', 'Server:', ctx, r, out);
  return (await printHost(names[0]!, 'Name:', ctx, r, out)) ? 0 : 1;
}
