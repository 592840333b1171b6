/**
 * Conntrack cleanup for UDP (upstream pkg/proxy/conntrack/cleanup.go and
 * endpointschangetracker.go's detectStaleConntrackEntries): a UDP "connection"
 * keeps the NAT decision of its first datagram until its conntrack entry
 * expires, and a client that sends from one port keeps it alive forever. So,
 * after the rules are programmed, for each UDP service port:
 *  1. An endpoint that was serving and no longer is (removed, or not serving):
 *     delete the entries to the Service's addresses (cluster IP, external
 *     IPs, load-balancer IPs) on its port, and to its node port, that were
 *     DNATed to that endpoint (upstream's ClearEntriesForNAT and
 *     ClearEntriesForPortNAT), so the next datagram picks a live endpoint.
 *  2. A port that goes from no serving endpoint to some (its first endpoint,
 *     or this proxy's first sync): delete the entries to its addresses and
 *     port that were not DNATed (reply source = the address itself: traffic
 *     that went to the default route, a blackhole, before the Service was
 *     programmed), and every entry to its node port (upstream's
 *     ClearEntriesForIP and ClearEntriesForPort; none can reach an endpoint).
 *  3. A port that is gone (Service deleted or port removed): delete the
 *     entries to its addresses on that port (upstream's DeletedUDPClusterIPs).
 * Traffic policies, topology and terminating state are not looked at: they
 * do not end a TCP connection either. TCP needs nothing: the endpoint's reset
 * ends it.
 *
 * `conntrack` runs as a child of the proxy, so it acts on the conntrack table
 * of the proxy's network namespace, the one its rules are in. Without the
 * conntrack tool on the node this is logged once and skipped.
 */
import { execFile, execFileSync } from 'node:child_process';
import type { Logger } from '../util/log.js';
import type { ServicePortInfo } from './service-port.js';

export interface UDPPort {
  /** Cluster IP, external IPs and load-balancer IPs. */
  vips: string[];
  port: number;
  nodePort?: number;
  /** "ip:port" of the serving endpoints. */
  serving: Set<string>;
}

/** The UDP ports of one Service, by service port name. */
export function udpPorts(infos: ServicePortInfo[]): Map<string, UDPPort> {
  const out = new Map<string, UDPPort>();
  for (const i of infos) {
    if (i.protocol !== 'udp') continue;
    out.set(i.spn, {
      vips: [i.clusterIP, ...i.externalIPs, ...i.loadBalancerIPs].filter((x): x is string => !!x),
      port: i.port, nodePort: i.nodePort, serving: new Set(i.servingEndpoints),
    });
  }
  return out;
}

const ipOf = (endpoint: string) => endpoint.slice(0, endpoint.lastIndexOf(':'));
const udp = ['-D', '-p', 'udp'];

/** The `conntrack` argument lists that apply rules 1-3 above to one Service's change from `old` to `now`. */
export function conntrackFlushes(old: Map<string, UDPPort> | undefined, now: Map<string, UDPPort>): string[][] {
  const out: string[][] = [];
  for (const [spn, was] of old ?? []) {
    const is = now.get(spn);
    if (!is) {
      for (const vip of was.vips) out.push([...udp, '--orig-dst', vip, '--dport', String(was.port)]);
      continue;
    }
    const gone = new Set([...was.serving].filter((e) => !is.serving.has(e)).map(ipOf));
    for (const ip of gone) {
      for (const vip of is.vips) out.push([...udp, '--orig-dst', vip, '--dport', String(is.port), '--dst-nat', ip]);
      if (is.nodePort) out.push([...udp, '--dport', String(is.nodePort), '--dst-nat', ip]);
    }
  }
  for (const [spn, is] of now) {
    if (!is.serving.size || old?.get(spn)?.serving.size) continue;
    for (const vip of is.vips) out.push([...udp, '--orig-dst', vip, '--dport', String(is.port), '--reply-src', vip]);
    if (is.nodePort) out.push([...udp, '--dport', String(is.nodePort)]);
  }
  return out;
}

/**
 * The conntrack binary: on PATH, else where Debian puts it (/usr/sbin is not
 * on a non-root user's PATH, and a host-process kube-proxy gets the agent's).
 */
function findConntrack(): string | undefined {
  for (const bin of ['conntrack', '/usr/sbin/conntrack', '/sbin/conntrack']) {
    try { execFileSync(bin, ['--version'], { stdio: 'ignore' }); return bin; } catch { /* next */ }
  }
  return undefined;
}

/** Runs `conntrack -D`; resolves to the number of entries deleted (it exits 1 when that is 0). */
function conntrackDelete(bin: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    execFile(bin, args, (err, _stdout, stderr) => {
      const m = /(\d+) flow entr(y|ies) ha(s|ve) been deleted/.exec(String(stderr));
      if (m) resolve(Number(m[1]));
      else reject(err ?? new Error(`conntrack ${args.join(' ')}: ${String(stderr).trim()}`));
    });
  });
}

export class UDPConntrackCleaner {
  private readonly known = new Map<string, Map<string, UDPPort>>();
  /** The binary, null once it was looked for and not found. */
  private bin?: string | null;
  /** Deletions run one after another, in the order the syncs asked for them. */
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly logger: Logger) {}

  /** Compares a Service's UDP ports with those last recorded and deletes the stale entries (rules 1-3). */
  record(service: string, infos: ServicePortInfo[]): void {
    const now = udpPorts(infos);
    const old = this.known.get(service);
    if (now.size) this.known.set(service, now); else this.known.delete(service);
    const flushes = conntrackFlushes(old, now);
    if (!flushes.length) return;
    if (this.bin === undefined) {
      this.bin = findConntrack() ?? null;
      if (!this.bin) this.logger.warn('conntrack not found: stale conntrack entries of UDP Services are not deleted', { service });
    }
    const bin = this.bin;
    if (!bin) return;
    this.queue = this.queue.then(() => this.run(bin, service, flushes));
  }

  /** Resolves when the deletions asked for so far have run. */
  idle(): Promise<void> { return this.queue; }

  private async run(bin: string, service: string, flushes: string[][]): Promise<void> {
    let deleted = 0;
    for (const args of flushes) {
      try { deleted += await conntrackDelete(bin, args); } catch (e) { this.logger.error('conntrack -D failed', { service, args: args.join(' '), err: (e as Error).message }); }
    }
    this.logger.info('deleted stale UDP conntrack entries', { service, filters: flushes.length, deleted });
  }
}
