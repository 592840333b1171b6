/**
 * The records one Service owns, by the Kubernetes DNS specification
 * (github.com/kubernetes/dns docs/specification.md, schema 1.1.0), with
 * CoreDNS's kubernetes plugin where the specification leaves a choice:
 *
 *  1. ExternalName: `svc.ns.svc.zone` is a CNAME to spec.externalName
 *     (spec 2.5); nothing else.
 *  2. ClusterIP: `svc.ns.svc.zone` has an A (AAAA) record per cluster IP of
 *     that family (2.3.1); each named port has
 *     `_port._proto.svc.ns.svc.zone SRV 0 w port svc.ns.svc.zone` (2.3.2);
 *     each cluster IP has a PTR to the service name (2.3.3).
 *  3. Headless (clusterIP None): `svc.ns.svc.zone` has an A (AAAA) record per
 *     ready endpoint address (2.4.1; all addresses when
 *     publishNotReadyAddresses); each such address also gets
 *     `host.svc.ns.svc.zone` where host is the endpoint's hostname or, as
 *     CoreDNS names it, the dashed address (`10-244-1-5`); each named port
 *     has an SRV per endpoint targeting that name (2.4.2) and each address a
 *     PTR to it (2.4.3). A headless Service without a ready address has no
 *     records, so it answers NXDOMAIN (kubernetes/dns#245).
 *  4. An EndpointSlice counts for the Service its `kubernetes.io/service-name`
 *     label names; endpoint `ready` unset means ready (the EndpointSlice API's
 *     rule); addresses of FQDN slices are not served.
 */
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice, Endpoint } from 'kubernetes-types/discovery/v1.js';
import { isIPv4, isIPv6 } from 'node:net';
import { dashedIP, reverseName } from './names.js';

export type RecordData =
  | { type: 'A' | 'AAAA'; address: string }
  | { type: 'CNAME'; target: string }
  | { type: 'SRV'; port: number; target: string }
  | { type: 'PTR'; target: string };

/** One record: its owner name (canonical: lower case, no trailing dot) and its data. */
export interface OwnedRecord { name: string; data: RecordData }

const addressRecord = (name: string, ip: string): OwnedRecord | undefined =>
  isIPv4(ip) ? { name, data: { type: 'A', address: ip } } : isIPv6(ip) ? { name, data: { type: 'AAAA', address: ip } } : undefined;

const srvName = (portName: string, protocol: string | undefined, base: string) => `_${portName.toLowerCase()}._${(protocol ?? 'TCP').toLowerCase()}.${base}`;

export function isHeadless(svc: Service): boolean {
  return svc.spec?.clusterIP === 'None';
}

/** Rules 1-3 for one Service and the EndpointSlices that name it. */
export function serviceRecords(svc: Service, slices: Iterable<EndpointSlice>, zone: string): OwnedRecord[] {
  const base = `${svc.metadata!.name}.${svc.metadata!.namespace}.svc.${zone}`.toLowerCase();
  const spec = svc.spec ?? {};
  if (spec.type === 'ExternalName') {
    return spec.externalName ? [{ name: base, data: { type: 'CNAME', target: spec.externalName.replace(/\.$/, '').toLowerCase() } }] : [];
  }
  if (isHeadless(svc)) return headlessRecords(svc, slices, base);
  const out: OwnedRecord[] = [];
  const ips = spec.clusterIPs?.length ? spec.clusterIPs : spec.clusterIP ? [spec.clusterIP] : [];
  for (const ip of ips) {
    const a = addressRecord(base, ip);
    if (!a) continue;
    out.push(a);
    const ptr = reverseName(ip);
    if (ptr) out.push({ name: ptr, data: { type: 'PTR', target: base } });
  }
  if (!out.length) return out;
  for (const p of spec.ports ?? []) {
    if (p.name) out.push({ name: srvName(p.name, p.protocol, base), data: { type: 'SRV', port: p.port, target: base } });
  }
  return out;
}

function endpointServed(ep: Endpoint, publishNotReady: boolean): boolean {
  return publishNotReady || ep.conditions?.ready !== false;
}

function headlessRecords(svc: Service, slices: Iterable<EndpointSlice>, base: string): OwnedRecord[] {
  const out: OwnedRecord[] = [];
  const seen = new Set<string>();
  const publishNotReady = !!svc.spec?.publishNotReadyAddresses;
  for (const slice of slices) {
    if (slice.addressType === 'FQDN') continue;
    for (const ep of slice.endpoints ?? []) {
      if (!endpointServed(ep, publishNotReady)) continue;
      for (const ip of ep.addresses) {
        const host = `${(ep.hostname ?? dashedIP(ip)).toLowerCase()}.${base}`;
        const key = `${host}/${ip}`;
        if (seen.has(key)) continue; // the same endpoint in two slices while the controller moves it
        seen.add(key);
        const a = addressRecord(base, ip);
        if (!a) continue;
        out.push(a, { name: host, data: a.data });
        const ptr = reverseName(ip);
        if (ptr) out.push({ name: ptr, data: { type: 'PTR', target: host } });
        for (const p of slice.ports ?? []) {
          if (p.name && p.port !== undefined) out.push({ name: srvName(p.name, p.protocol, base), data: { type: 'SRV', port: p.port, target: host } });
        }
      }
    }
  }
  return dedupe(out);
}

/** Drops repeated (name, data) pairs: two hostnames on one address must not repeat the service's A record. */
function dedupe(records: OwnedRecord[]): OwnedRecord[] {
  const seen = new Set<string>();
  return records.filter((r) => {
    const k = `${r.name} ${JSON.stringify(r.data)}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
