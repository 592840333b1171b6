/**
 * One Event, two APIs: core/v1 Events and events.k8s.io/v1 Events are the
 * same stored objects (upstream stores both as core Events and converts with
 * pkg/apis/events/v1/conversion.go). The renamed fields:
 *   regarding <-> involvedObject, note <-> message,
 *   reportingController <-> reportingComponent, reportingInstance,
 *   deprecatedSource <-> source, deprecatedFirstTimestamp/LastTimestamp <->
 *   firstTimestamp/lastTimestamp, deprecatedCount <-> count;
 * reason, type, action, related, eventTime and series keep their names.
 *
 * Both forms are written as Go serializes its struct: fields without
 * omitempty, and struct-typed ones, are present with their zero value
 * ({} for an ObjectReference or EventSource, null for a time, "" for a
 * string), so a core Event always has reportingComponent, source and
 * eventTime, and an events.k8s.io Event always has eventTime and regarding.
 */
import type { Event as CoreEvent } from 'kubernetes-types/core/v1.js';
import type { Event as EventsV1Event } from 'kubernetes-types/events/v1.js';

type Obj = Record<string, any>;

const put = (out: Obj, key: string, value: unknown) => { if (value !== undefined && value !== null && value !== '' && value !== 0) out[key] = value; };

/** An events.k8s.io/v1 Event as the core/v1 Event it is stored as, in core's field order. */
export function eventsV1ToCore(ev: EventsV1Event | Obj): CoreEvent {
  const e = ev as Obj;
  const out: Obj = { apiVersion: 'v1', kind: 'Event', metadata: e.metadata, involvedObject: e.regarding ?? {} };
  put(out, 'reason', e.reason);
  put(out, 'message', e.note);
  out.source = e.deprecatedSource ?? {};
  out.firstTimestamp = e.deprecatedFirstTimestamp ?? null;
  out.lastTimestamp = e.deprecatedLastTimestamp ?? null;
  put(out, 'count', e.deprecatedCount);
  put(out, 'type', e.type);
  out.eventTime = e.eventTime ?? null;
  put(out, 'series', e.series);
  put(out, 'action', e.action);
  put(out, 'related', e.related);
  out.reportingComponent = e.reportingController ?? '';
  out.reportingInstance = e.reportingInstance ?? '';
  return out as CoreEvent;
}

/** A core/v1 Event as events.k8s.io/v1 shows it, in that type's field order. */
export function coreEventToEventsV1(ev: CoreEvent | Obj): EventsV1Event {
  const e = ev as Obj;
  const out: Obj = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: e.metadata, eventTime: e.eventTime ?? null };
  put(out, 'series', e.series);
  put(out, 'reportingController', e.reportingComponent);
  put(out, 'reportingInstance', e.reportingInstance);
  put(out, 'action', e.action);
  put(out, 'reason', e.reason);
  out.regarding = e.involvedObject ?? {};
  put(out, 'related', e.related);
  put(out, 'note', e.message);
  put(out, 'type', e.type);
  out.deprecatedSource = e.source ?? {};
  out.deprecatedFirstTimestamp = e.firstTimestamp ?? null;
  out.deprecatedLastTimestamp = e.lastTimestamp ?? null;
  put(out, 'deprecatedCount', e.count);
  return out as EventsV1Event;
}

/** A core/v1 Event with Go's zero values filled in, as upstream stores and serves it. */
export const coreEventWireForm = (ev: CoreEvent | Obj): CoreEvent => eventsV1ToCore(coreEventToEventsV1(ev));
