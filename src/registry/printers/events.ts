/**
 * Events, core/v1 and events.k8s.io/v1 alike: upstream stores both as one
 * internal Event and prints them with printEvent. Columns:
 * LAST SEEN TYPE REASON OBJECT MESSAGE [SUBOBJECT SOURCE FIRST SEEN COUNT NAME]
 * (the wide ones interleaved exactly as upstream lists them).
 */
import type { Event as CoreEvent } from 'kubernetes-types/core/v1.js';
import type { Event as EventsV1Event } from 'kubernetes-types/events/v1.js';
import { eventsV1ToCore } from '../../api/events.js';
import { docColumn } from './columns.js';
import { parseTime, timestampSince } from './duration.js';
import type { KindPrinter, PrintContext, TableRow } from './types.js';

/** formatEventSource: component (or reportingController), then `, host` (or reportingInstance) when known. */
export function formatEventSource(e: CoreEvent): string {
  const component = e.source?.component || e.reportingComponent || '';
  const instance = e.source?.host || e.reportingInstance || '';
  return instance === '' ? component : `${component}, ${instance}`;
}

/** OBJECT: `kind/name` with the kind lower-cased, or the kind alone. */
const target = (e: CoreEvent) => {
  const kind = (e.involvedObject?.kind ?? '').toLowerCase();
  return e.involvedObject?.name ? `${kind}/${e.involvedObject.name}` : kind;
};

/**
 * FIRST SEEN falls back to eventTime, LAST SEEN to FIRST SEEN; a series
 * overrides LAST SEEN and COUNT; a singleton without a count counts 1.
 */
function printEvent(e: CoreEvent, ctx: PrintContext): TableRow {
  const first = parseTime(e.firstTimestamp) === undefined ? timestampSince(e.eventTime, ctx.now) : timestampSince(e.firstTimestamp, ctx.now);
  let last = parseTime(e.lastTimestamp) === undefined ? first : timestampSince(e.lastTimestamp, ctx.now);
  let count = e.count ?? 0;
  if (e.series) {
    last = timestampSince(e.series.lastObservedTime, ctx.now);
    count = e.series.count ?? 0;
  } else if (count === 0) {
    count = 1;
  }
  return {
    cells: [
      last, e.type ?? '', e.reason ?? '', target(e), e.involvedObject?.fieldPath ?? '', formatEventSource(e),
      (e.message ?? '').trim(), first, count, e.metadata?.name ?? '',
    ],
  };
}

const columns = [
  docColumn('Last Seen', 'corev1.Event.lastTimestamp'),
  docColumn('Type', 'corev1.Event.type'),
  docColumn('Reason', 'corev1.Event.reason'),
  docColumn('Object', 'corev1.Event.involvedObject'),
  docColumn('Subobject', 'corev1.ObjectReference.fieldPath', { priority: 1 }),
  docColumn('Source', 'corev1.Event.source', { priority: 1 }),
  docColumn('Message', 'corev1.Event.message'),
  docColumn('First Seen', 'corev1.Event.firstTimestamp', { priority: 1 }),
  docColumn('Count', 'corev1.Event.count', { priority: 1 }),
  docColumn('Name', 'metav1.ObjectMeta.name', { priority: 1, format: 'name' }),
];

export const eventPrinter: KindPrinter = { columns, row: printEvent };

/** Accepts either shape, so storage may keep events in core/v1 form and serve both APIs from it. */
const isCoreShape = (e: EventsV1Event | CoreEvent): e is CoreEvent => e?.apiVersion === 'v1' || (e as CoreEvent)?.involvedObject !== undefined;

export const eventsV1EventPrinter: KindPrinter = {
  columns,
  row: (e: EventsV1Event | CoreEvent, ctx) => printEvent(isCoreShape(e) ? e : eventsV1ToCore(e), ctx),
};
