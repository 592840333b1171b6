/**
 * The DaemonSet controller's one writer (syncNodes) against fake clients:
 * expectations set before the first await, slow-start batches that stop at
 * the first failing batch, the burst cap, and upstream's event wording.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DaemonSetsController } from '../../src/controllers/daemonset/index.js';
import { ApiError } from '../../src/client/index.js';
import { defaultControllerConfig } from '../../src/controllers/types.js';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import { silentLogger } from '../../src/util/log.js';

function fakeInformer(): any {
  return { addIndex() {}, addEventHandler() {}, get: () => undefined, list: () => [], byIndex: () => [], hasSynced: () => false, size: 0 };
}

interface Fake { controller: DaemonSetsController; creates: string[]; batches: number[]; deletes: string[]; events: string[]; undecoded: number }

/** A controller whose pod creates fail for the nodes in `failOn`, recording when each batch of creates started. */
function fake(opts: { failOn?: Set<string>; burst?: number; eventBudget?: number } = {}): Fake {
  const f = { creates: [] as string[], batches: [] as number[], deletes: [] as string[], events: [] as string[], undecoded: 0 } as Fake;
  let budget = opts.eventBudget ?? Infinity;
  let inFlight = 0;
  const pods = {
    async create(_ns: string, pod: any, o: { light?: boolean; noResult?: boolean } = {}) {
      if (inFlight++ === 0) f.batches.push(0);
      f.batches[f.batches.length - 1]++;
      const node = pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values[0];
      f.creates.push(node);
      await new Promise((r) => setImmediate(r));
      inFlight--;
      if (opts.failOn?.has(node)) throw new ApiError(403, 'Forbidden', `pods "x" is forbidden: exceeded quota`);
      assert.equal(o.light, true);
      if (o.noResult) { f.undecoded++; return undefined; }
      return { ...pod, metadata: { ...pod.metadata, name: `${pod.metadata.generateName}${node}` } };
    },
    async delete(_ns: string, name: string) {
      f.deletes.push(name);
      if (name === 'gone') throw new ApiError(404, 'NotFound', 'pods "gone" not found');
      return {};
    },
  };
  const ctx: any = {
    clients: { pods }, informers: { informer: () => fakeInformer() }, logger: silentLogger, clock: { now: () => new Date() },
    config: defaultControllerConfig,
    // A spam filter of `eventBudget` events, as EventRecorder's (25 per object, then one per 5 minutes).
    recorder: () => ({
      wouldRecord: () => budget >= 1,
      event: (_o: any, type: string, reason: string, msg: string) => { if (budget-- >= 1) f.events.push(`${type} ${reason} ${msg}`); },
    }),
  };
  f.controller = new DaemonSetsController(ctx, { burstReplicas: opts.burst });
  return f;
}

const ds = {
  apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'ds', namespace: 'default', uid: 'u1', generation: 1 },
  spec: { selector: { matchLabels: { app: 'ds' } }, template: { metadata: { labels: { app: 'ds' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
} as DaemonSet;
const nodes = (n: number) => Array.from({ length: n }, (_, i) => `n${i}`);

describe('syncNodes', () => {
  it('sets expectations before its first await and creates in batches of 1, 2, 4, ...', async () => {
    const f = fake();
    const done = f.controller.syncNodes(ds, ['p1'], nodes(10), 'h');
    assert.deepEqual(f.controller.expectations.get('default/ds'), { add: 10, del: 1 });
    await done;
    assert.deepEqual(f.batches, [1, 2, 4, 3]);
    assert.equal(f.creates.length, 10);
    assert.equal(f.events.filter((e) => e.startsWith('Normal SuccessfulCreate Created pod: ds-n')).length, 10);
    assert.ok(f.events.includes('Normal SuccessfulDelete Deleted pod: p1'));
  });

  it('leaves a created pod undecoded once the spam filter would drop its SuccessfulCreate event', async () => {
    const f = fake({ eventBudget: 3 });
    await f.controller.syncNodes(ds, [], nodes(10), 'h');
    assert.equal(f.creates.length, 10);
    assert.deepEqual(f.events, ['Normal SuccessfulCreate Created pod: ds-n0', 'Normal SuccessfulCreate Created pod: ds-n1', 'Normal SuccessfulCreate Created pod: ds-n2']);
    // Batches 1 and 2 (n0-n2) spent the budget; the batches of 4 and 3 after them were not decoded.
    assert.equal(f.undecoded, 7);
  });

  it('stops after a failing batch and no longer expects the skipped creates', async () => {
    const f = fake({ failOn: new Set(['n4']) });
    await assert.rejects(f.controller.syncNodes(ds, [], nodes(10), 'h'), /exceeded quota/);
    assert.deepEqual(f.batches, [1, 2, 4]);
    // 10 expected, one failure observed, 3 skipped: 6 left for the informer to count down.
    assert.deepEqual(f.controller.expectations.get('default/ds'), { add: 6, del: 0 });
    assert.ok(f.events.includes('Warning FailedCreate Error creating: pods "x" is forbidden: exceeded quota'));
  });

  it('caps creates and deletes at the burst size', async () => {
    const f = fake({ burst: 5 });
    const done = f.controller.syncNodes(ds, nodes(7).map((n) => `p-${n}`), nodes(12), 'h');
    assert.deepEqual(f.controller.expectations.get('default/ds'), { add: 5, del: 5 });
    await done;
    assert.equal(f.creates.length, 5);
    assert.equal(f.deletes.length, 5);
  });

  it('a pod already gone is not an error, and is no longer expected', async () => {
    const f = fake();
    await f.controller.syncNodes(ds, ['gone', 'p2'], [], 'h');
    assert.deepEqual(f.controller.expectations.get('default/ds'), { add: 0, del: 1 });
    assert.deepEqual(f.events, ['Normal SuccessfulDelete Deleted pod: p2']);
  });

  it('the default burst is upstream BurstReplicas, 250', async () => {
    const f = fake();
    const done = f.controller.syncNodes(ds, [], nodes(300), 'h');
    assert.deepEqual(f.controller.expectations.get('default/ds'), { add: 250, del: 0 });
    await done;
    assert.deepEqual(f.batches, [1, 2, 4, 8, 16, 32, 64, 123]);
  });
});
