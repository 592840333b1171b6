/**
 * core/v1 Events are stored as Go writes them (reportingComponent, source,
 * eventTime ... present with their zero values), and events.k8s.io/v1 Events
 * are the same stored objects converted (src/api/events.ts), so an event
 * written through either API is listed by both.
 */
import type { ResourceInfo } from '../../api/resources.js';
import { findResource } from '../../api/resources.js';
import { coreEventToEventsV1, coreEventWireForm, eventsV1ToCore } from '../../api/events.js';
import type { Strategy } from '../strategy.js';
import type { StorageVersion } from '../store.js';
import { genericStrategy } from './generic.js';

/** Replaces obj's fields with next's, keeping the object (strategies mutate in place). */
function replaceFields(obj: Record<string, unknown>, next: object): void {
  for (const k of Object.keys(obj)) delete obj[k];
  Object.assign(obj, next);
}

export function coreEventStrategy(info: ResourceInfo): Strategy {
  const base = genericStrategy(info);
  return {
    ...base,
    prepareForCreate(obj) { base.prepareForCreate(obj); replaceFields(obj, coreEventWireForm(obj)); },
    prepareForUpdate(obj, old) { base.prepareForUpdate(obj, old); replaceFields(obj, coreEventWireForm(obj)); },
  };
}

/** events.k8s.io/v1 Events live in core/v1 Events' keys, in core's form (upstream's cohabiting "events"). */
export function eventsV1StorageVersion(): StorageVersion {
  return {
    info: findResource('', 'v1', 'events')!,
    toStorage: (obj) => eventsV1ToCore(obj),
    fromStorage: (obj) => coreEventToEventsV1(obj),
  };
}
