/**
 * The upstreams of the forwarder: the `nameserver` lines of the node's
 * resolv.conf (CoreDNS's `forward . /etc/resolv.conf`), port 53, in order.
 * A line may name a port as `IP#PORT` (the form systemd-resolved and
 * CoreDNS accept), which tests use to point at their own server.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { Upstream } from './forwarder.js';

export function upstreamsOf(text: string): Upstream[] {
  const out: Upstream[] = [];
  for (const raw of text.split('\n')) {
    const fields = raw.replace(/[#;].*$/, (m) => (/^#\d+/.test(m) ? m : '')).trim().split(/\s+/);
    if (fields[0] !== 'nameserver' || !fields[1]) continue;
    const [host, port] = fields[1].split('#');
    if (isIP(host)) out.push({ host, port: port ? Number(port) : 53 });
  }
  return out;
}

export function readUpstreams(path: string): Upstream[] {
  return upstreamsOf(readFileSync(path, 'utf8'));
}
