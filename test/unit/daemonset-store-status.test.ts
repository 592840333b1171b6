/**
 * The DaemonSet controller's status write (storeDaemonSetStatus) against a fake API that refuses a
 * stale resourceVersion as the server does: it writes from the informer's copy as it is at the
 * write, so the sync that follows its own status write (begun before that write's watch event
 * came) sends one PUT, not a 409, a GET and a second PUT.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DaemonSetsController } from '../../src/controllers/daemonset/index.js';
import type { DaemonSetCounts } from '../../src/controllers/daemonset/plan.js';
import { ApiError } from '../../src/client/index.js';
import { defaultControllerConfig } from '../../src/controllers/types.js';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import { silentLogger } from '../../src/util/log.js';

interface Api { stored: DaemonSet; requests: string[] }

/** A controller whose DaemonSet informer holds `cached`, and an API holding `api.stored`. */
function fake(api: Api, cached: () => DaemonSet | undefined): DaemonSetsController {
  const informer = (kind: string): any => ({
    addIndex() {}, addEventHandler() {}, list: () => [], byIndex: () => [], hasSynced: () => false, size: 0,
    get: () => (kind === 'daemonsets' ? cached() : undefined),
  });
  const daemonsets = {
    async updateStatus(ds: DaemonSet) {
      const rv = ds.metadata!.resourceVersion;
      if (rv !== api.stored.metadata!.resourceVersion) {
        api.requests.push(`PUT ${rv} 409`);
        throw new ApiError(409, 'Conflict', 'Operation cannot be fulfilled on daemonsets.apps "ds": the object has been modified; please apply your changes to the latest version and try again');
      }
      api.requests.push(`PUT ${rv} 200`);
      api.stored = { ...structuredClone(ds), metadata: { ...ds.metadata, resourceVersion: String(Number(rv) + 1) } };
      return api.stored;
    },
    async get() {
      api.requests.push('GET');
      return structuredClone(api.stored);
    },
  };
  const ctx: any = {
    clients: { daemonsets }, informers: { informer }, logger: silentLogger, clock: { now: () => new Date() },
    config: defaultControllerConfig, recorder: () => ({ wouldRecord: () => true, event() {} }),
  };
  return new DaemonSetsController(ctx);
}

const counts = (scheduled: number): DaemonSetCounts => ({
  desiredNumberScheduled: 10, currentNumberScheduled: scheduled, numberMisscheduled: 0, numberReady: 0,
  updatedNumberScheduled: scheduled, numberAvailable: 0, numberUnavailable: 10,
});

const dsAt = (rv: string, status?: DaemonSet['status']): DaemonSet => ({
  apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'ds', namespace: 'default', uid: 'u1', generation: 1, resourceVersion: rv },
  spec: { selector: { matchLabels: { app: 'ds' } }, template: { metadata: { labels: { app: 'ds' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
  ...(status ? { status } : {}),
});

describe('DaemonSet status write', () => {
  it("writes from the informer's newer copy: one PUT where the sync's copy met a 409, a GET and a second PUT", async () => {
    // The sync read rv 5; its previous status write made rv 6, which the informer has seen since.
    const syncCopy = dsAt('5');
    const api: Api = { stored: dsAt('6', { ...counts(4), observedGeneration: 1 }), requests: [] };
    await fake(api, () => api.stored).storeStatus(syncCopy, counts(8), true);
    assert.deepEqual(api.requests, ['PUT 6 200']);
    assert.equal(api.stored.status?.currentNumberScheduled, 8);
    assert.equal(api.stored.status?.observedGeneration, 1);
  });

  it("with the informer behind storage, upstream's retry: a GET and one more PUT", async () => {
    const api: Api = { stored: dsAt('7', { ...counts(4), observedGeneration: 1 }), requests: [] };
    await fake(api, () => dsAt('6')).storeStatus(dsAt('5'), counts(8), true);
    assert.deepEqual(api.requests, ['PUT 6 409', 'GET', 'PUT 7 200']);
    assert.equal(api.stored.status?.currentNumberScheduled, 8);
  });

  it('writes nothing when the newest copy already shows the counts and the generation', async () => {
    const api: Api = { stored: dsAt('6', { ...counts(8), observedGeneration: 1 }), requests: [] };
    await fake(api, () => api.stored).storeStatus(dsAt('5', { ...counts(4), observedGeneration: 1 }), counts(8), true);
    assert.deepEqual(api.requests, []);
  });

  it("another DaemonSet of the name (a new uid) in the informer: the sync's copy is written", async () => {
    const api: Api = { stored: dsAt('5'), requests: [] };
    const other = { ...dsAt('9'), metadata: { ...dsAt('9').metadata, uid: 'u2' } };
    await fake(api, () => other).storeStatus(dsAt('5'), counts(8), true);
    assert.deepEqual(api.requests, ['PUT 5 200']);
  });
});
