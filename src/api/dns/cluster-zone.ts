/**
 * Answers for the cluster domain and the reverse zones, from ClusterRecords,
 * as CoreDNS's kubernetes plugin (`pods insecure`, `fallthrough in-addr.arpa
 * ip6.arpa`, ttl 5) gives them:
 *
 *  1. Outside the zone and the reverse zones: not ours (undefined), forwarded.
 *  2. A reverse name the cluster owns a PTR for answers it; any other reverse
 *     query falls through to the forwarder.
 *  3. The apex answers SOA and NS (`ns.dns.zone`, whose A records are the
 *     kube-dns Service's IPs); `dns-version.zone` TXT is the specification's
 *     schema version, 1.1.0 (spec 2.1).
 *  4. `a-b-c-d.ns.pod.zone` answers the address its label spells, in any
 *     namespace (`pods insecure`); a label that is no address is NXDOMAIN.
 *  5. A name with records answers those of the asked type; a CNAME
 *     (ExternalName) answers any type, its target chased by the caller.
 *  6. No record of that type on an existing name (or empty non-terminal such
 *     as `ns.svc.zone`): NOERROR with no answer (NODATA). No such name:
 *     NXDOMAIN. Both carry the zone's SOA in the authority section, whose
 *     minimum (5 s) is how long resolvers cache the denial (RFC 2308).
 */
import type { Answer, SoaAnswer } from 'dns-packet';
import type { ClusterRecords } from './cluster-records.js';
import type { RecordData } from './service-records.js';
import { canonicalName, inZone, ipOfDashed } from './names.js';
import { isIPv4 } from 'node:net';

/** CoreDNS's kubernetes plugin default: records and the SOA minimum live 5 s. */
export const clusterTTL = 5;
/** Schema version of the Kubernetes DNS specification this server answers (spec 2.1). */
export const schemaVersion = '1.1.0';

export interface ZoneAnswer {
  rcode: 'NOERROR' | 'NXDOMAIN';
  answers: Answer[];
  authorities: Answer[];
  additionals: Answer[];
  /** A CNAME target outside the zone, for the caller to resolve upstream (CoreDNS does). */
  chase?: string;
}

export interface QuestionLike { name: string; type: string }

export class ClusterZone {
  readonly zone: string;
  constructor(private readonly records: ClusterRecords, private readonly serial: () => number) {
    this.zone = records.zone;
  }

  /** Rule 1: undefined for what is not ours. */
  answer(q: QuestionLike): ZoneAnswer | undefined {
    const name = canonicalName(q.name);
    if (name.endsWith('.in-addr.arpa') || name.endsWith('.ip6.arpa')) return this.reverse(q, name);
    if (!inZone(name, this.zone)) return undefined;
    if (name === this.zone) return this.apex(q);
    const special = this.special(q, name);
    if (special) return special;
    const records = this.records.lookup(name);
    if (records) return this.fromRecords(q, records);
    if (this.records.exists(name) || name === `svc.${this.zone}` || name === `pod.${this.zone}`) return this.denial('NOERROR');
    return this.denial('NXDOMAIN');
  }

  /** Rule 2. */
  private reverse(q: QuestionLike, name: string): ZoneAnswer | undefined {
    const ptrs = this.records.lookup(name)?.filter((r) => r.type === 'PTR');
    if (!ptrs?.length || (q.type !== 'PTR' && q.type !== 'ANY')) return undefined;
    return this.ok(ptrs.map((r) => this.rr(q.name, r)));
  }

  /** Rule 3. */
  private apex(q: QuestionLike): ZoneAnswer {
    if (q.type === 'SOA') return this.ok([this.soa()]);
    if (q.type === 'NS') return { ...this.ok([{ type: 'NS', name: q.name, ttl: clusterTTL, data: `ns.dns.${this.zone}` }]), additionals: this.nsAddresses(`ns.dns.${this.zone}`, 'ANY') };
    return this.denial('NOERROR');
  }

  /** Rules 3 and 4: names the records do not hold. */
  private special(q: QuestionLike, name: string): ZoneAnswer | undefined {
    if (name === `dns-version.${this.zone}`) {
      return q.type === 'TXT' ? this.ok([{ type: 'TXT', name: q.name, ttl: clusterTTL, data: schemaVersion }]) : this.denial('NOERROR');
    }
    if (name === `ns.dns.${this.zone}`) {
      const answers = this.nsAddresses(q.name, q.type);
      return answers.length ? this.ok(answers) : this.denial('NOERROR');
    }
    if (name === `dns.${this.zone}`) return this.denial('NOERROR');
    const labels = name.slice(0, -(this.zone.length + 1)).split('.');
    if (labels.length === 3 && labels[2] === 'pod') {
      const ip = ipOfDashed(labels[0]);
      if (!ip) return this.denial('NXDOMAIN');
      const type = isIPv4(ip) ? 'A' : 'AAAA';
      return q.type === type || q.type === 'ANY' ? this.ok([this.rr(q.name, { type, address: ip })]) : this.denial('NOERROR');
    }
    return undefined;
  }

  /** Rule 5. */
  private fromRecords(q: QuestionLike, records: RecordData[]): ZoneAnswer {
    const cname = records.find((r) => r.type === 'CNAME');
    if (cname && q.type !== 'CNAME') return this.withCNAME(q, cname.target);
    const matching = q.type === 'ANY' ? records : records.filter((r) => r.type === q.type);
    if (!matching.length) return this.denial('NOERROR');
    const answers = matching.map((r) => this.rr(q.name, r, matching.length));
    const additionals: Answer[] = [];
    if (q.type === 'SRV') {
      for (const target of new Set(matching.map((r) => (r as { target: string }).target))) {
        for (const r of this.records.lookup(target) ?? []) if (r.type === 'A' || r.type === 'AAAA') additionals.push(this.rr(target, r));
      }
    }
    return { ...this.ok(answers), additionals };
  }

  /** An ExternalName's CNAME, followed inside the zone; the caller follows it outside. */
  private withCNAME(q: QuestionLike, target: string): ZoneAnswer {
    const first: Answer = { type: 'CNAME', name: q.name, ttl: clusterTTL, data: target };
    if (!inZone(target, this.zone)) return { ...this.ok([first]), chase: target };
    const next = this.answer({ name: target, type: q.type });
    if (!next || next.chase) return { ...this.ok([first]), chase: next?.chase };
    return { ...next, rcode: next.rcode, answers: [first, ...next.answers] };
  }

  private nsAddresses(owner: string, type: string): Answer[] {
    const svc = this.records.service('kube-system', 'kube-dns');
    const ips = svc?.spec?.clusterIPs ?? (svc?.spec?.clusterIP ? [svc.spec.clusterIP] : []);
    return ips.filter((ip) => ip !== 'None')
      .map((ip): RecordData => ({ type: isIPv4(ip) ? 'A' : 'AAAA', address: ip }))
      .filter((r) => type === 'ANY' || r.type === type)
      .map((r) => this.rr(owner, r));
  }

  private rr(owner: string, r: RecordData, srvCount = 1): Answer {
    switch (r.type) {
      case 'A': case 'AAAA': return { type: r.type, name: owner, ttl: clusterTTL, data: r.address };
      case 'CNAME': case 'PTR': return { type: r.type, name: owner, ttl: clusterTTL, data: r.target };
      // CoreDNS spreads the weight of one priority's records over 100.
      case 'SRV': return { type: 'SRV', name: owner, ttl: clusterTTL, data: { priority: 0, weight: Math.floor(100 / srvCount), port: r.port, target: r.target } };
    }
  }

  soa(): SoaAnswer {
    return {
      type: 'SOA', name: this.zone, ttl: clusterTTL,
      data: { mname: `ns.dns.${this.zone}`, rname: `hostmaster.${this.zone}`, serial: this.serial(), refresh: 7200, retry: 1800, expire: 86400, minimum: clusterTTL },
    };
  }

  private ok(answers: Answer[]): ZoneAnswer { return { rcode: 'NOERROR', answers, authorities: [], additionals: [] }; }
  private denial(rcode: 'NOERROR' | 'NXDOMAIN'): ZoneAnswer { return { rcode, answers: [], authorities: [this.soa()], additionals: [] }; }
}
