/**
 * networking.k8s.io/v1 Ingress, IngressClass and NetworkPolicy, as upstream's
 * printIngress, printIngressClass and printNetworkPolicy.
 */
import type { Ingress, IngressClass, IngressLoadBalancerStatus, IngressRule, IngressTLS, NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import { ageColumn, column, docColumn, nameColumn } from './columns.js';
import { timestampSince } from './duration.js';
import { formatLabelSelector } from './format.js';
import type { KindPrinter, TableRow } from './types.js';

/** formatHosts: up to three hosts joined by ",", "*" when no rule names one. */
function formatHosts(rules: IngressRule[] | undefined): string {
  const list: string[] = [];
  const max = 3;
  let more = false;
  for (const rule of rules ?? []) {
    if (list.length === max) more = true;
    if (!more && rule.host) list.push(rule.host);
  }
  if (list.length === 0) return '*';
  const joined = list.join(',');
  return more ? `${joined} + ${(rules ?? []).length - max} more...` : joined;
}

const formatPorts = (tls: IngressTLS[] | undefined) => (tls?.length ? '80, 443' : '80');

/** ingressLoadBalancerStatusStringer (wide, as the server prints): IPs or hostnames, sorted and unique. */
function loadBalancerAddresses(s: IngressLoadBalancerStatus | undefined): string {
  const set = new Set<string>();
  for (const i of s?.ingress ?? []) {
    if (i.ip) set.add(i.ip);
    else if (i.hostname) set.add(i.hostname);
  }
  return [...set].sort().join(',');
}

export const ingressPrinter: KindPrinter = {
  columns: [
    nameColumn(),
    column('Class', 'The name of the IngressClass resource that should be used for additional configuration'),
    column('Hosts', 'Hosts that incoming requests are matched against before the ingress rule'),
    column('Address', 'Address is a list containing ingress points for the load-balancer'),
    column('Ports', 'Ports of TLS configurations that open'),
    ageColumn(),
  ],
  row(ing: Ingress, ctx): TableRow {
    return {
      cells: [
        ing.metadata?.name ?? '', ing.spec?.ingressClassName ?? '<none>', formatHosts(ing.spec?.rules),
        loadBalancerAddresses(ing.status?.loadBalancer), formatPorts(ing.spec?.tls), timestampSince(ing.metadata?.creationTimestamp, ctx.now),
      ],
    };
  },
};

export const ingressClassPrinter: KindPrinter = {
  columns: [
    nameColumn(),
    column('Controller', 'Controller that is responsible for handling this class'),
    column('Parameters', 'A reference to a resource with additional parameters'),
    ageColumn(),
  ],
  row(ic: IngressClass, ctx): TableRow {
    const p = ic.spec?.parameters;
    const parameters = p ? `${p.kind}${p.apiGroup !== undefined ? `.${p.apiGroup}` : ''}/${p.name}` : '<none>';
    return { cells: [ic.metadata?.name ?? '', ic.spec?.controller ?? '', parameters, timestampSince(ic.metadata?.creationTimestamp, ctx.now)] };
  },
};

export const networkPolicyPrinter: KindPrinter = {
  columns: [nameColumn(), docColumn('Pod-Selector', 'extensionsv1beta1.NetworkPolicySpec.podSelector'), ageColumn()],
  row(np: NetworkPolicy, ctx): TableRow {
    // The Go field is a struct, never nil: an absent selector prints as the empty one.
    return { cells: [np.metadata?.name ?? '', formatLabelSelector(np.spec?.podSelector ?? {}), timestampSince(np.metadata?.creationTimestamp, ctx.now)] };
  },
};
