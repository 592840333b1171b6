/**
 * ControllerRef management for DaemonSets (upstream ClaimPods): keep owned
 * matching objects, release owned ones that stopped matching, adopt matching
 * orphans only after a fresh read confirms the DaemonSet, skip objects being
 * deleted and objects that vanished.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { claim } from '../../src/controllers/daemonset/claim.js';
import { selectorFromLabelSelector } from '../../src/api/labels.js';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import { ApiError } from '../../src/client/index.js';

const ds = { metadata: { name: 'ds', namespace: 'default', uid: 'u1' }, spec: { selector: { matchLabels: { app: 'ds' } } } } as unknown as DaemonSet;
const selector = selectorFromLabelSelector(ds.spec!.selector);
const ours = { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'u1', controller: true, blockOwnerDeletion: true };
const other = { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', uid: 'u9' };

function obj(name: string, labels: Record<string, string>, refs: any[] = [], deleting = false): any {
  const o: any = { metadata: { name, namespace: 'default', labels, ownerReferences: refs, resourceVersion: `rv-${name}` } };
  if (deleting) o.metadata.deletionTimestamp = '2025-01-01T00:00:00Z';
  return o;
}

function fakeClient(missing = new Set<string>()) {
  const patches: [string, any][] = [];
  return {
    patches,
    client: {
      async patch(_ns: string, name: string, body: any) {
        patches.push([name, body]);
        if (missing.has(name)) throw new ApiError(404, 'NotFound', `pods "${name}" not found`);
        return {};
      },
    } as any,
  };
}

describe('claim', () => {
  it('keeps, releases and adopts as upstream', async () => {
    const { client, patches } = fakeClient(new Set(['vanished']));
    let rechecks = 0;
    const claimed = await claim({
      ds, selector, client, recheck: async () => { rechecks++; },
      owned: [obj('mine', { app: 'ds' }, [ours]), obj('relabelled', { app: 'x' }, [other, ours]), obj('relabelled-deleting', { app: 'x' }, [ours], true)],
      orphans: [obj('orphan', { app: 'ds' }, [other]), obj('unrelated', { app: 'x' }), obj('orphan-deleting', { app: 'ds' }, [], true), obj('vanished', { app: 'ds' })],
    });
    assert.deepEqual(claimed.map((o) => o.metadata.name), ['mine', 'orphan']);
    assert.equal(rechecks, 1, 'one fresh read before adopting');
    assert.deepEqual(patches, [
      ['relabelled', { metadata: { ownerReferences: [other], resourceVersion: 'rv-relabelled' } }],
      ['orphan', { metadata: { ownerReferences: [other, ours], resourceVersion: 'rv-orphan' } }],
      ['vanished', { metadata: { ownerReferences: [ours], resourceVersion: 'rv-vanished' } }],
    ]);
  });

  it('adopts nothing when the DaemonSet is gone or being deleted', async () => {
    const { client, patches } = fakeClient();
    await assert.rejects(claim({
      ds, selector, client, recheck: async () => { throw new Error('default/ds has just been deleted at 2025-01-01T00:00:00Z'); },
      owned: [], orphans: [obj('orphan', { app: 'ds' })],
    }), /has just been deleted/);
    assert.deepEqual(patches, []);
  });

  it('no orphans to adopt: no fresh read', async () => {
    const { client } = fakeClient();
    const claimed = await claim({ ds, selector, client, recheck: async () => { throw new Error('must not be called'); }, owned: [obj('mine', { app: 'ds' }, [ours])], orphans: [] });
    assert.equal(claimed.length, 1);
  });
});
