/**
 * core/v1 PodTemplate and ResourceQuota, node.k8s.io/v1 RuntimeClass, as
 * upstream's printPodTemplate, printResourceQuota and printRuntimeClass.
 * LimitRanges have no printer upstream (NAME and CREATED AT).
 */
import type { PodTemplate, ResourceQuota } from 'kubernetes-types/core/v1.js';
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';
import { canonicalQuantity } from '../../api/quantity.js';
import { ageColumn, column, nameColumn } from './columns.js';
import { timestampSince } from './duration.js';
import { formatLabels, layoutContainerCells } from './format.js';
import type { KindPrinter, TableRow } from './types.js';

export const podTemplatePrinter: KindPrinter = {
  columns: [
    nameColumn(),
    column('Containers', 'Names of each container in the template.'),
    column('Images', 'Images referenced by each container in the template.'),
    column('Pod Labels', 'The labels for the pod template.'),
  ],
  row(pt: PodTemplate): TableRow {
    const [names, images] = layoutContainerCells(pt.template?.spec?.containers);
    return { cells: [pt.metadata?.name ?? '', names, images, formatLabels(pt.template?.metadata?.labels)] };
  },
};

const quantity = (v: string | number | undefined) => (v === undefined ? '0' : (canonicalQuantity(v) ?? String(v)));

/** The REQUEST and LIMIT cells: `resource: used/hard` for every hard resource, sorted, limits.* in LIMIT. */
export function quotaCells(rq: ResourceQuota): [string, string] {
  const request: string[] = [];
  const limit: string[] = [];
  const hard = rq.status?.hard ?? {};
  for (const name of Object.keys(hard).sort()) {
    const pieces = name.split('.');
    const into = pieces.length > 1 && pieces[0] === 'limits' ? limit : request;
    into.push(`${name}: ${quantity(rq.status?.used?.[name])}/${quantity(hard[name])}`);
  }
  return [request.join(', '), limit.join(', ')];
}

export const resourceQuotaPrinter: KindPrinter = {
  columns: [
    nameColumn(),
    column('Request', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
    column('Limit', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
    ageColumn(),
  ],
  row(rq: ResourceQuota, ctx): TableRow {
    return { cells: [rq.metadata?.name ?? '', ...quotaCells(rq), timestampSince(rq.metadata?.creationTimestamp, ctx.now)] };
  },
};

export const runtimeClassPrinter: KindPrinter = {
  // Upstream describes Handler with ObjectMeta's SwaggerDoc()["handler"], which does not exist: "".
  columns: [nameColumn(), column('Handler', ''), ageColumn()],
  row(rc: RuntimeClass, ctx): TableRow {
    return { cells: [rc.metadata?.name ?? '', rc.handler ?? '', timestampSince(rc.metadata?.creationTimestamp, ctx.now)] };
  },
};
