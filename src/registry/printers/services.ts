/**
 * Services and Endpoints, as upstream's printService and printEndpoints.
 */
import type { Endpoints, Service, ServicePort } from 'kubernetes-types/core/v1.js';
import { ageColumn, docColumn, nameColumn } from './columns.js';
import { timestampSince } from './duration.js';
import { formatLabels, joinHostPort } from './format.js';
import type { KindPrinter, TableRow } from './types.js';

/** loadBalancerStatusStringer (wide, so never clipped): the ingress IPs or hostnames, sorted and de-duplicated. */
function loadBalancerIngress(svc: Service): string[] {
  const set = new Set<string>();
  for (const ing of svc.status?.loadBalancer?.ingress ?? []) {
    if (ing.ip) set.add(ing.ip);
    else if (ing.hostname) set.add(ing.hostname);
  }
  return [...set].sort();
}

/**
 * EXTERNAL-IP: ClusterIP and NodePort show spec.externalIPs or "<none>";
 * LoadBalancer shows its ingress then the external IPs, or "<pending>";
 * ExternalName shows the external name; any other type "<unknown>".
 */
export function serviceExternalIP(svc: Service): string {
  const externalIPs = svc.spec?.externalIPs ?? [];
  switch (svc.spec?.type) {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const all = [...loadBalancerIngress(svc), ...externalIPs];
      return all.length > 0 ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return svc.spec.externalName ?? '';
    default:
      return '<unknown>';
  }
}

/** PORT(S): `80/TCP`, `80:30080/TCP` with a node port, joined by ","; "<none>" without ports. */
export function servicePorts(ports: ServicePort[] | undefined): string {
  const s = (ports ?? [])
    .map((p) => (p.nodePort && p.nodePort > 0 ? `${p.port}:${p.nodePort}/${p.protocol ?? ''}` : `${p.port}/${p.protocol ?? ''}`))
    .join(',');
  return s === '' ? '<none>' : s;
}

export const servicePrinter: KindPrinter = {
  columns: [
    nameColumn(),
    docColumn('Type', 'corev1.ServiceSpec.type'),
    docColumn('Cluster-IP', 'corev1.ServiceSpec.clusterIP'),
    docColumn('External-IP', 'corev1.ServiceSpec.externalIPs'),
    docColumn('Port(s)', 'corev1.ServiceSpec.ports'),
    ageColumn(),
    docColumn('Selector', 'corev1.ServiceSpec.selector', { priority: 1 }),
  ],
  row(svc: Service, ctx): TableRow {
    // CLUSTER-IP is clusterIPs[0] ("None" when headless); clusterIP stands in for objects that predate clusterIPs.
    const clusterIP = svc.spec?.clusterIPs?.[0] || svc.spec?.clusterIP || '<none>';
    return {
      cells: [
        svc.metadata?.name ?? '', svc.spec?.type ?? '', clusterIP, serviceExternalIP(svc), servicePorts(svc.spec?.ports),
        timestampSince(svc.metadata?.creationTimestamp, ctx.now), formatLabels(svc.spec?.selector),
      ],
    };
  },
};

const MAX_ENDPOINTS = 3;

/**
 * formatEndpoints: up to three `ip:port` (or bare IPs for a subset without
 * ports), then ` + N more...`; "<none>" without subsets. Not-ready addresses are not shown.
 */
export function formatEndpoints(ep: Endpoints): string {
  if (!ep.subsets || ep.subsets.length === 0) return '<none>';
  const list: string[] = [];
  let count = 0;
  let more = false;
  const add = (s: string) => {
    if (list.length === MAX_ENDPOINTS) more = true;
    else list.push(s);
  };
  for (const ss of ep.subsets) {
    const addresses = ss.addresses ?? [];
    if (!ss.ports || ss.ports.length === 0) {
      count += addresses.length;
      addresses.forEach((a) => add(a.ip));
      continue;
    }
    for (const port of ss.ports) {
      count += addresses.length;
      addresses.forEach((a) => add(joinHostPort(a.ip, port.port)));
    }
  }
  const ret = list.join(',');
  return more ? `${ret} + ${count - MAX_ENDPOINTS} more...` : ret;
}

export const endpointsPrinter: KindPrinter = {
  columns: [nameColumn(), docColumn('Endpoints', 'corev1.Endpoints.subsets'), ageColumn()],
  row(ep: Endpoints, ctx): TableRow {
    return { cells: [ep.metadata?.name ?? '', formatEndpoints(ep), timestampSince(ep.metadata?.creationTimestamp, ctx.now)] };
  },
};
