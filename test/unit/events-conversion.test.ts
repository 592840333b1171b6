/** core/v1 <-> events.k8s.io/v1 Events, as upstream's pkg/apis/events/v1 conversion renames the fields. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { coreEventToEventsV1, coreEventWireForm, eventsV1ToCore } from '../../src/api/events.js';

const v1 = {
  apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e', namespace: 'default' },
  eventTime: '2026-01-01T00:00:00.000000Z', series: { count: 2, lastObservedTime: '2026-01-01T00:00:05.000000Z' },
  reportingController: 'example.com/ctl', reportingInstance: 'ctl-1', action: 'Sync', reason: 'Synced',
  regarding: { kind: 'Pod', name: 'p', namespace: 'default' }, related: { kind: 'Node', name: 'n' }, note: 'it synced', type: 'Normal',
  deprecatedSource: { component: 'old', host: 'h' }, deprecatedFirstTimestamp: '2026-01-01T00:00:00Z', deprecatedLastTimestamp: '2026-01-01T00:00:05Z', deprecatedCount: 3,
};
const core = {
  apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', namespace: 'default' },
  involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Synced', message: 'it synced',
  source: { component: 'old', host: 'h' }, firstTimestamp: '2026-01-01T00:00:00Z', lastTimestamp: '2026-01-01T00:00:05Z', count: 3, type: 'Normal',
  eventTime: '2026-01-01T00:00:00.000000Z', series: { count: 2, lastObservedTime: '2026-01-01T00:00:05.000000Z' }, action: 'Sync',
  related: { kind: 'Node', name: 'n' }, reportingComponent: 'example.com/ctl', reportingInstance: 'ctl-1',
};

describe('Event conversion', () => {
  it('maps every events.k8s.io field to its core name, in core\'s field order', () => {
    const got = eventsV1ToCore(v1);
    assert.deepEqual(got, core);
    assert.deepEqual(Object.keys(got), Object.keys(core));
  });
  it('maps back, in events.k8s.io\'s field order', () => {
    const got = coreEventToEventsV1(core);
    assert.deepEqual(got, v1);
    assert.deepEqual(Object.keys(got), Object.keys(v1));
  });
  it('writes Go\'s zero values for fields without omitempty', () => {
    const old = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'x' }, involvedObject: { kind: 'Pod', name: 'p' }, reason: 'Started', message: 'm', source: { component: 'kubelet' } };
    assert.deepEqual(coreEventWireForm(old), {
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'x' }, involvedObject: { kind: 'Pod', name: 'p' }, reason: 'Started', message: 'm',
      source: { component: 'kubelet' }, firstTimestamp: null, lastTimestamp: null, eventTime: null, reportingComponent: '', reportingInstance: '',
    });
    assert.deepEqual(coreEventToEventsV1(old), {
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'x' }, eventTime: null, reason: 'Started', regarding: { kind: 'Pod', name: 'p' }, note: 'm',
      deprecatedSource: { component: 'kubelet' }, deprecatedFirstTimestamp: null, deprecatedLastTimestamp: null,
    });
  });
});
