/**
 * autoscaling/v1 Scale, the scale subresource's kind, as upstream's
 * printScale: `kubectl get deployment nginx --subresource=scale` prints
 * NAME DESIRED AVAILABLE AGE (spec.replicas, status.replicas).
 */
import type { Scale } from 'kubernetes-types/autoscaling/v1.js';
import { ageColumn, column, nameColumn } from './columns.js';
import { timestampSince } from './duration.js';
import type { KindPrinter, PrintContext, TableRow } from './types.js';

export const scalePrinter: KindPrinter = {
  columns: [
    nameColumn(),
    column('Desired', 'replicas is the desired number of instances for the scaled object.', { type: 'integer' }),
    column('Available', 'replicas is the actual number of observed instances of the scaled object.', { type: 'integer' }),
    ageColumn(),
  ],
  row(s: Scale, ctx: PrintContext): TableRow {
    return { cells: [s.metadata?.name ?? '', s.spec?.replicas ?? 0, s.status?.replicas ?? 0, timestampSince(s.metadata?.creationTimestamp, ctx.now)] };
  },
};
