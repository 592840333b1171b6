/**
 * Events. core/v1 Events get only the legacy checks (namespaces agree; new-style
 * events carry reportingController, reportingInstance, action and reason), as
 * upstream keeps them for old clients; events.k8s.io/v1 Events get the strict
 * checks too. events.k8s.io field names are mapped to core's (note -> message,
 * regarding -> involvedObject) because upstream validates the internal type.
 */
import { FieldError, invalid, required } from '../field-errors.js';
import { isDNS1123Subdomain, isQualifiedName, nameIsDNSSubdomain } from '../names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { Obj, has, immutable, obj, str } from './util.js';
import { eventsV1ToCore as toCore } from '../events.js';
import { appendAll } from '../append.js';

const eventsV1ToCore = (ev: Obj): Obj => toCore(ev) as Obj;

const limit = (value: unknown, max: number, path: string) =>
  (str(value).length > max ? [invalid(path, '', `can have at most ${max} characters`)] : []);

/** legacyValidateEvent. The namespace is checked only once the registry has set it. */
function legacyValidateEvent(ev: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const ns = obj(ev.metadata).namespace;
  const involvedNs = str(obj(ev.involvedObject).namespace);
  const known = has(ns);
  if (!has(ev.eventTime)) {
    if (known && (involvedNs ? ns !== involvedNs : ns !== '' && ns !== 'default')) {
      errs.push(invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
    }
  } else {
    if (known && !involvedNs && ns !== 'default' && ns !== 'kube-system') errs.push(invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
    const controller = str(ev.reportingComponent);
    if (!controller) errs.push(required('reportingController'));
    appendAll(errs, isQualifiedName(controller).map((msg) => invalid('reportingController', controller, msg)));
    if (!str(ev.reportingInstance)) errs.push(required('reportingInstance'));
    appendAll(errs, limit(ev.reportingInstance, 128, 'reportingInstance'));
    if (!str(ev.action)) errs.push(required('action'));
    appendAll(errs, limit(ev.action, 128, 'action'));
    if (!str(ev.reason)) errs.push(required('reason'));
    appendAll(errs, limit(ev.reason, 128, 'reason'));
    appendAll(errs, limit(ev.message, 1024, 'message'));
  }
  if (known) appendAll(errs, isDNS1123Subdomain(str(ns)).map((msg) => invalid('namespace', str(ns), msg)));
  return errs;
}

function strictValidateEvent(ev: Obj): FieldError[] {
  const errs = validateObjectMeta(ev.metadata, true, nameIsDNSSubdomain);
  appendAll(errs, validateSeries(ev));
  if (!has(ev.eventTime)) errs.push(required('eventTime'));
  if (ev.type !== 'Normal' && ev.type !== 'Warning') errs.push(invalid('type', '', `has invalid value: ${str(ev.type)}`));
  if (has(ev.firstTimestamp)) errs.push(invalid('firstTimestamp', '', 'needs to be unset'));
  if (has(ev.lastTimestamp)) errs.push(invalid('lastTimestamp', '', 'needs to be unset'));
  if (ev.count) errs.push(invalid('count', '', 'needs to be unset'));
  if (str(obj(ev.source).component) || str(obj(ev.source).host)) errs.push(invalid('source', '', 'needs to be unset'));
  return errs;
}

function validateSeries(ev: Obj): FieldError[] {
  if (!has(ev.series)) return [];
  const s = obj(ev.series);
  const errs: FieldError[] = [];
  if (!(typeof s.count === 'number' && s.count >= 2)) errs.push(invalid('series.count', '', 'should be at least 2'));
  if (!has(s.lastObservedTime)) errs.push(required('series.lastObservedTime'));
  return errs;
}

/** core/v1 Events carry reportingComponent; the strict path names it reportingController. */
export const validateCoreEventCreate = (ev: Obj) => legacyValidateEvent(ev);
export const validateCoreEventUpdate = (ev: Obj) => legacyValidateEvent(ev);

export function validateEventsV1Create(ev: Obj): FieldError[] {
  const core = eventsV1ToCore(ev);
  return [...legacyValidateEvent(core), ...strictValidateEvent(core)];
}

export function validateEventsV1Update(ev: Obj, old: Obj): FieldError[] {
  const n = eventsV1ToCore(ev);
  const o = eventsV1ToCore(old);
  const errs = [...legacyValidateEvent(n), ...validateObjectMetaUpdate(n.metadata, o.metadata)];
  if (JSON.stringify(n.series) !== JSON.stringify(o.series)) appendAll(errs, validateSeries(n));
  const fields: [string, string][] = [['involvedObject', 'involvedObject'], ['reason', 'reason'], ['message', 'message'], ['source', 'source'],
    ['firstTimestamp', 'firstTimestamp'], ['lastTimestamp', 'lastTimestamp'], ['count', 'count'], ['reason', 'reason'], ['type', 'type'],
    ['eventTime', 'eventTime'], ['action', 'action'], ['related', 'related'], ['reportingComponent', 'reportingController'],
    ['reportingInstance', 'reportingInstance']];
  for (const [f, path] of fields) appendAll(errs, immutable(n[f], o[f], path));
  return errs;
}
