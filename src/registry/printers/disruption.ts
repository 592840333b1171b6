/**
 * PodDisruptionBudget (policy/v1), PriorityClass (scheduling.k8s.io/v1) and
 * EndpointSlice (discovery.k8s.io/v1), as upstream's
 * printPodDisruptionBudget, printPriorityClass and printEndpointSlice.
 */
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { ageColumn, column, nameColumn } from './columns.js';
import { timestampSince } from './duration.js';
import type { KindPrinter, TableRow } from './types.js';

const intOrPercent = (v: number | string | undefined) => (v === undefined || v === null ? 'N/A' : String(v));

export const podDisruptionBudgetPrinter: KindPrinter = {
  columns: [
    nameColumn(),
    column('Min Available', 'The minimum number or percentage of available pods this budget requires.'),
    column('Max Unavailable', 'The maximum number or percentage of unavailable pods this budget requires.'),
    column('Allowed Disruptions', 'Calculated number of pods that may be disrupted at this time.', { type: 'integer' }),
    ageColumn(),
  ],
  row(pdb: PodDisruptionBudget, ctx): TableRow {
    return {
      cells: [
        pdb.metadata?.name ?? '', intOrPercent(pdb.spec?.minAvailable), intOrPercent(pdb.spec?.maxUnavailable),
        pdb.status?.disruptionsAllowed ?? 0, timestampSince(pdb.metadata?.creationTimestamp, ctx.now),
      ],
    };
  },
};

export const priorityClassPrinter: KindPrinter = {
  columns: [
    nameColumn(),
    column('Value', 'value represents the integer value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.', { type: 'integer' }),
    column('Global-Default', 'globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used as the default priority.', { type: 'boolean' }),
    ageColumn(),
    column('PreemptionPolicy', 'preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.'),
  ],
  row(pc: PriorityClass, ctx): TableRow {
    return {
      cells: [
        pc.metadata?.name ?? '', pc.value ?? 0, pc.globalDefault ?? false, timestampSince(pc.metadata?.creationTimestamp, ctx.now),
        pc.preemptionPolicy ?? '',
      ],
    };
  },
};

/** listWithMoreString: at most three items, then "+ N more...", "<unset>" when empty. */
function listWithMore(items: string[]): string {
  const max = 3;
  const shown = items.slice(0, max).join(',');
  if (items.length > max) return `${shown} + ${items.length - max} more...`;
  return shown || '<unset>';
}

export const endpointSlicePrinter: KindPrinter = {
  columns: [
    nameColumn(),
    column('AddressType', 'addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must be the same type. This field is immutable after creation. The following address types are currently supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: Represents a Fully Qualified Domain Name.'),
    column('Ports', 'ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a unique name. When ports is empty, it indicates that there are no defined ports. When a port is defined with a nil port value, it indicates "all ports". Each slice may include a maximum of 100 ports.'),
    column('Endpoints', 'endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints.'),
    ageColumn(),
  ],
  row(slice: EndpointSlice, ctx): TableRow {
    const ports = (slice.ports ?? []).map((p) => (p.port !== undefined && p.port !== null ? String(p.port) : p.name ? p.name : '*'));
    const addresses = (slice.endpoints ?? []).flatMap((e) => e.addresses ?? []);
    return {
      cells: [
        slice.metadata?.name ?? '', slice.addressType ?? '', listWithMore(ports), listWithMore(addresses),
        timestampSince(slice.metadata?.creationTimestamp, ctx.now),
      ],
    };
  },
};
