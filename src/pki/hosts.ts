/**
 * Host names and IP addresses as certificate SANs, and whether a serving
 * certificate covers the hosts a client will dial.
 */
import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';

/** Canonical text of an IP address: IPv4 dotted quad, IPv6 lower-case and compressed. */
export function canonicalIP(ip: string): string {
  const bare = ip.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(bare);
  if (family === 0) throw new Error(`pki: "${ip}" is not an IP address`);
  return family === 4 ? new URL(`http://${bare}/`).hostname : new URL(`http://[${bare}]/`).hostname.slice(1, -1);
}

/** Splits hosts into DNS names (lower case) and IP addresses (canonical). */
export function splitHosts(hosts: Iterable<string>): { dnsNames: string[]; ipAddresses: string[] } {
  const dns = new Set<string>();
  const ips = new Set<string>();
  for (const raw of hosts) {
    const h = raw.trim();
    if (!h) continue;
    if (isIP(h.replace(/^\[(.*)\]$/, '$1'))) ips.add(canonicalIP(h));
    else if (/^[A-Za-z0-9*_]([A-Za-z0-9_.-]*[A-Za-z0-9])?$/.test(h)) dns.add(h.toLowerCase());
    else throw new Error(`pki: "${raw}" is neither a DNS name nor an IP address`);
  }
  return { dnsNames: [...dns], ipAddresses: [...ips] };
}

/** True when the certificate's SANs cover every host (wildcards as TLS clients match them). */
export function coversHosts(certificate: string | X509Certificate, hosts: Iterable<string>): boolean {
  const cert = typeof certificate === 'string' ? new X509Certificate(certificate) : certificate;
  const { dnsNames, ipAddresses } = splitHosts(hosts);
  return dnsNames.every((h) => cert.checkHost(h, { subject: 'never' }) !== undefined)
    && ipAddresses.every((ip) => cert.checkIP(ip) !== undefined);
}
