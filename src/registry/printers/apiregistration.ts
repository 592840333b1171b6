/** APIServices, as kube-aggregator's apiservice table convertor prints them. */
import { ageColumn, column, nameColumn } from './columns.js';
import { timestampSince } from './duration.js';
import type { KindPrinter, TableRow } from './types.js';
import type { APIService } from '../../api/apiregistration.js';

export const apiServicePrinter: KindPrinter = {
  columns: [
    nameColumn(),
    column('Service', 'The reference to the service that hosts this API endpoint.'),
    column('Available', 'Whether this service is available.'),
    ageColumn(),
  ],
  row(svc: APIService, ctx): TableRow {
    const ref = svc.spec?.service;
    const service = ref ? `${ref.namespace}/${ref.name}` : 'Local';
    const cond = svc.status?.conditions?.find((c) => c.type === 'Available');
    let available = 'Unknown';
    if (cond) available = cond.status !== 'True' && cond.reason ? `${cond.status} (${cond.reason})` : cond.status;
    return { cells: [svc.metadata?.name ?? '', service, available, timestampSince(svc.metadata?.creationTimestamp, ctx.now)] };
  },
};
