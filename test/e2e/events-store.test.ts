/**
 * One Event store: core/v1 and events.k8s.io/v1 Events are the same objects
 * through two APIs, so an event written through either is listed and watched
 * through both, and shown by `kubectl events` and `kubectl get events`.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster } from './harness.js';
import { apiRequest, apiServerOnly } from './helpers.js';

let cluster: Cluster;
before(async () => { cluster = await startCluster(apiServerOnly); });
after(async () => { await cluster?.cleanup(); });

const core = '/api/v1/namespaces/default/events';
const eventsV1 = '/apis/events.k8s.io/v1/namespaces/default/events';
const now = () => new Date().toISOString().replace(/\.\d+Z$/, '.000000Z');

describe('one Event store', () => {
  test('an events.k8s.io Event is a core Event with the fields renamed', async () => {
    const created = await apiRequest(cluster, eventsV1, { method: 'POST', body: JSON.stringify({
      metadata: { name: 'new-style' }, eventTime: now(), reportingController: 'example.com/ctl', reportingInstance: 'ctl-1',
      action: 'Sync', reason: 'Synced', type: 'Normal', note: 'synced through events.k8s.io', regarding: { kind: 'Pod', name: 'web', namespace: 'default' },
    }) });
    assert.equal(created.status, 201, created.body);
    assert.equal(created.json().apiVersion, 'events.k8s.io/v1');
    const asCore = (await apiRequest(cluster, `${core}/new-style`)).json();
    assert.equal(asCore.apiVersion, 'v1');
    assert.equal(asCore.message, 'synced through events.k8s.io');
    assert.deepEqual(asCore.involvedObject, { kind: 'Pod', name: 'web', namespace: 'default' });
    assert.equal(asCore.reportingComponent, 'example.com/ctl');
    assert.equal(asCore.reportingInstance, 'ctl-1');
    assert.equal(asCore.metadata.resourceVersion, created.json().metadata.resourceVersion);
    assert.ok((await apiRequest(cluster, core)).json().items.some((e: any) => e.metadata.name === 'new-style'));
  });

  test('a core Event written by kubectl is listed by events.k8s.io with note and regarding', async () => {
    const manifest = JSON.stringify({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'old-style' }, involvedObject: { kind: 'Pod', name: 'web', namespace: 'default' },
      reason: 'Started', message: 'started through core/v1', type: 'Normal', source: { component: 'kubelet', host: 'node-1' }, count: 2,
      firstTimestamp: '2026-01-01T00:00:00Z', lastTimestamp: '2026-01-01T00:00:10Z' });
    await cluster.kubectl(['create', '-f', '-'], { input: manifest });
    const got = (await apiRequest(cluster, `${eventsV1}/old-style`)).json();
    assert.equal(got.note, 'started through core/v1');
    assert.deepEqual(got.regarding, { kind: 'Pod', name: 'web', namespace: 'default' });
    assert.deepEqual(got.deprecatedSource, { component: 'kubelet', host: 'node-1' });
    assert.equal(got.deprecatedCount, 2);
    assert.equal(got.deprecatedFirstTimestamp, '2026-01-01T00:00:00Z');
    assert.equal(got.eventTime, null);
    const core1 = (await apiRequest(cluster, `${core}/old-style`)).json();
    assert.equal(core1.reportingComponent, '');
    assert.equal(core1.eventTime, null);
  });

  test('kubectl events and kubectl get events.events.k8s.io show both', async () => {
    const events = (await cluster.kubectl(['events'])).stdout;
    assert.match(events, /synced through events\.k8s\.io/);
    assert.match(events, /started through core\/v1/);
    const names = (await cluster.kubectl(['get', 'events.events.k8s.io', '-o', 'name'])).stdout;
    assert.match(names, /event\.events\.k8s\.io\/new-style/);
    assert.match(names, /event\.events\.k8s\.io\/old-style/);
  });

  test('a watch on events.k8s.io sees a core Event deleted', async () => {
    const list = (await apiRequest(cluster, eventsV1)).json();
    await cluster.kubectl(['delete', 'events', 'old-style']);
    const r = await apiRequest(cluster, `${eventsV1}?watch=1&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=1`);
    const lines = r.body.trim().split('\n').map((l) => JSON.parse(l));
    const deleted = lines.find((e) => e.type === 'DELETED');
    assert.equal(deleted?.object.metadata.name, 'old-style');
    assert.equal(deleted?.object.apiVersion, 'events.k8s.io/v1');
    assert.equal(deleted?.object.note, 'started through core/v1');
  });
});
