/**
 * The node IPAM controller against a fake API and an informer the test
 * drives by hand, so the informer can lag the controller's own writes as it
 * does on a loaded machine.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Node } from 'kubernetes-types/core/v1.js';
import { NodeIPAMController, CIDRSet } from '../../src/controllers/nodeipam/index.js';
import { ApiError } from '../../src/client/index.js';
import type { ControllerContext } from '../../src/controllers/types.js';
import { defaultControllerConfig } from '../../src/controllers/types.js';
import { silentLogger } from '../../src/util/log.js';

interface Handlers { add(n: Node): void; update(o: Node, n: Node): void; delete(n: Node): void }

/** The API's nodes, the informer's (possibly stale) copies and its handlers. */
function fake(clusterCIDR = '10.244.0.0/16') {
  const api = new Map<string, Node>();
  const cache = new Map<string, Node>();
  let handlers: Handlers | undefined;
  const informer = {
    addEventHandler: (h: Handlers) => { handlers = h; },
    get: (name: string) => cache.get(name),
    list: () => [...cache.values()],
  };
  const nodes = {
    async get(_ns: undefined, name: string) {
      await new Promise((r) => setImmediate(r));
      const n = api.get(name);
      if (!n) throw new ApiError(404, 'NotFound', `nodes "${name}" not found`);
      return structuredClone(n);
    },
    async patch(_ns: undefined, name: string, patch: { spec: Node['spec'] }) {
      await new Promise((r) => setImmediate(r));
      const n = api.get(name)!;
      n.spec = { ...n.spec, ...patch.spec };
      return structuredClone(n);
    },
  };
  const ctx = {
    clients: { nodes }, informers: { informer: () => informer }, logger: silentLogger, clock: { now: () => new Date() },
    config: defaultControllerConfig, recorder: () => ({ event: () => {} }),
  } as unknown as ControllerContext;
  const controller = new NodeIPAMController(ctx, [new CIDRSet(clusterCIDR, 24)]);
  return {
    controller, api,
    /** A node registers: the API has it and the informer shows it (add event). */
    register(name: string) {
      const n: Node = { metadata: { name, uid: `uid-${name}` }, spec: {} };
      api.set(name, n);
      cache.set(name, structuredClone(n));
      handlers!.add(structuredClone(n));
    },
    /** The informer delivers an update of a node as it was before the controller's patch (a heartbeat written just before it). */
    staleUpdate(name: string) {
      const n = cache.get(name)!;
      handlers!.update(n, structuredClone(n));
    },
    /** The node is deleted before the informer showed the controller's patch: the delete event carries the stale copy. */
    deleteStale(name: string) {
      api.delete(name);
      const n = cache.get(name)!;
      cache.delete(name);
      handlers!.delete(n);
    },
    /** The informer catches up with the API. */
    catchUp(name: string) {
      const old = cache.get(name)!;
      cache.set(name, structuredClone(api.get(name)!));
      handlers!.update(old, structuredClone(api.get(name)!));
    },
    async podCIDR(name: string): Promise<string> {
      for (let i = 0; i < 1000 && !api.get(name)?.spec?.podCIDR; i++) await new Promise((r) => setImmediate(r));
      return api.get(name)?.spec?.podCIDR ?? '';
    },
  };
}

describe('node IPAM controller', () => {
  it('an update event from before its own patch does not take (and skip) another subnet', async () => {
    const f = fake();
    f.controller.run();
    f.register('master');
    assert.equal(await f.podCIDR('master'), '10.244.0.0/24');
    // The informer has not seen the patch yet; a heartbeat's update event arrives first.
    f.staleUpdate('master');
    f.register('worker1');
    assert.equal(await f.podCIDR('worker1'), '10.244.1.0/24');
    f.catchUp('master');
    f.catchUp('worker1');
    f.register('worker2');
    assert.equal(await f.podCIDR('worker2'), '10.244.2.0/24');
    f.controller.stop();
  });

  it('a node deleted before the informer showed its subnet gives the subnet back', async () => {
    // Two subnets only: the third node gets one only if the deleted node's comes back.
    const f = fake('10.244.0.0/23');
    f.controller.run();
    f.register('a');
    assert.equal(await f.podCIDR('a'), '10.244.0.0/24');
    f.deleteStale('a');
    f.register('b');
    assert.equal(await f.podCIDR('b'), '10.244.1.0/24');
    f.register('c');
    assert.equal(await f.podCIDR('c'), '10.244.0.0/24');
    f.controller.stop();
  });
});
