/**
 * Conntrack cleanup for UDP (upstream pkg/proxy/conntrack/cleanup.go): a UDP
 * "connection" to a Service keeps going to the endpoint it was DNATed to
 * until its conntrack entry expires, so when an endpoint goes away its
 * entries are deleted (`conntrack -D`), and the client's next datagram picks
 * a live endpoint. TCP needs nothing: the endpoint's reset ends it.
 * Without the conntrack tool on the node this is logged once and skipped.
 */
import { execFile, execFileSync } from 'node:child_process';
import type { Logger } from '../util/log.js';
import type { ServicePortInfo } from './service-port.js';

interface UDPPort { vips: string[]; port: number; endpoints: Set<string> }

function hasConntrack(): boolean {
  try { execFileSync('conntrack', ['--version'], { stdio: 'ignore' }); return true; } catch { return false; }
}

export class UDPConntrackCleaner {
  private readonly known = new Map<string, Map<string, UDPPort>>();
  private available?: boolean;

  constructor(private readonly logger: Logger) {}

  /** Compares a Service's UDP endpoints with those last recorded and flushes the entries of removed ones. */
  record(service: string, infos: ServicePortInfo[]): void {
    const now = new Map<string, UDPPort>();
    for (const i of infos) {
      if (i.protocol !== 'udp') continue;
      now.set(i.spn, {
        vips: [i.clusterIP, ...i.externalIPs, ...i.loadBalancerIPs].filter((x): x is string => !!x), port: i.port,
        endpoints: new Set(i.clusterEndpoints.map((e) => e.ip)),
      });
    }
    const old = this.known.get(service);
    if (now.size) this.known.set(service, now); else this.known.delete(service);
    for (const [spn, was] of old ?? []) {
      const is = now.get(spn);
      for (const ep of was.endpoints) if (!is?.endpoints.has(ep)) this.flush(was, ep);
    }
  }

  private flush(p: UDPPort, endpointIP: string): void {
    this.available ??= hasConntrack();
    if (!this.available) {
      this.logger.warn('conntrack not found: entries of removed UDP endpoints are not flushed', { endpoint: endpointIP });
      this.available = false;
      return;
    }
    for (const vip of p.vips) {
      // ClearEntriesForNAT: entries to the Service address that were DNATed to the removed endpoint.
      execFile('conntrack', ['-D', '--orig-dst', vip, '-p', 'udp', '--dport', String(p.port), '--dst-nat', endpointIP], (err) => {
        if (err && !/0 flow entries/.test(String(err.message))) this.logger.debug('conntrack -D', { err: err.message });
      });
    }
  }
}
