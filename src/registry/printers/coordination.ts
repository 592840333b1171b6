/** coordination.k8s.io/v1 Lease: NAME HOLDER AGE, as upstream's printLease. */
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { ageColumn, docColumn, nameColumn } from './columns.js';
import { timestampSince } from './duration.js';
import type { KindPrinter, TableRow } from './types.js';

export const leasePrinter: KindPrinter = {
  columns: [nameColumn(), docColumn('Holder', 'coordinationv1.LeaseSpec.holderIdentity'), ageColumn()],
  row(l: Lease, ctx): TableRow {
    return { cells: [l.metadata?.name ?? '', l.spec?.holderIdentity ?? '', timestampSince(l.metadata?.creationTimestamp, ctx.now)] };
  },
};
