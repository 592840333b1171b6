/**
 * Node IPAM (kube-controller-manager --allocate-node-cidrs --cluster-cidr):
 * nodes get a pod CIDR each from the cluster CIDR, a deleted node's subnet
 * goes back to the pool, the field cannot be changed afterwards, and an
 * exhausted pool is reported on the node as upstream does.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, type Cluster } from './harness.js';

let cluster: Cluster;
before(async () => {
  // A /22 cut into /24s: four subnets, so exhaustion is reachable.
  cluster = await startCluster({ controllers: 'nodeipam', extraArgs: ['--allocate-node-cidrs', '--cluster-cidr', '10.250.0.0/22', '--node-cidr-mask-size', '24'] });
});
after(async () => { await cluster?.cleanup(); });

const node = (name: string, podCIDR?: string) => JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name }, ...(podCIDR ? { spec: { podCIDR } } : {}) });
const podCIDRs = async (name: string) => {
  const r = await cluster.kubectl(['get', 'node', name, '-o', 'jsonpath={.spec.podCIDR} {.spec.podCIDRs}'], { allowFail: true });
  return r.code === 0 && r.stdout.trim() ? r.stdout.trim() : undefined;
};

describe('node IPAM range allocator', () => {
  test('a node registered with a pod CIDR keeps it, and it is taken from the pool', async () => {
    await cluster.kubectl(['create', '-f', '-'], { input: node('kept', '10.250.0.0/24') });
    assert.equal(await eventually(() => podCIDRs('kept'), 30_000, 'kept podCIDR'), '10.250.0.0/24 ["10.250.0.0/24"]');
  });

  test('new nodes get the next free subnets', async () => {
    await cluster.kubectl(['create', '-f', '-'], { input: node('n1') });
    assert.equal(await eventually(() => podCIDRs('n1'), 60_000, 'n1 podCIDR'), '10.250.1.0/24 ["10.250.1.0/24"]');
    await cluster.kubectl(['create', '-f', '-'], { input: node('n2') });
    assert.equal(await eventually(() => podCIDRs('n2'), 60_000, 'n2 podCIDR'), '10.250.2.0/24 ["10.250.2.0/24"]');
  });

  test('the pod CIDR cannot be changed once set', async () => {
    const r = await cluster.kubectl(['patch', 'node', 'n1', '--type', 'merge', '-p', '{"spec":{"podCIDR":"10.250.3.0/24","podCIDRs":["10.250.3.0/24"]}}'], { allowFail: true });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid/);
  });

  test('an exhausted pool leaves the node without a CIDR and says so in a CIDRNotAvailable event', async () => {
    await cluster.kubectl(['create', '-f', '-'], { input: node('n3') });
    assert.equal(await eventually(() => podCIDRs('n3'), 60_000, 'n3 podCIDR'), '10.250.3.0/24 ["10.250.3.0/24"]');
    await cluster.kubectl(['create', '-f', '-'], { input: node('n4') });
    const ev = await eventually(async () => {
      const r = await cluster.kubectl(['get', 'events', '-A', '--field-selector', 'involvedObject.name=n4,reason=CIDRNotAvailable', '-o', 'jsonpath={.items[*].message}']);
      return r.stdout.trim() || undefined;
    }, 60_000, 'CIDRNotAvailable event');
    assert.match(ev, /Node n4 status is now: CIDRNotAvailable/);
    assert.equal(await podCIDRs('n4'), undefined);
  });

  test("a deleted node's subnet goes to a node that is waiting for one", async () => {
    await cluster.kubectl(['delete', 'node', 'n2']);
    // n4 is retried with back-off; a change to it (this label) retries it at once, so the test need not wait the back-off out.
    await cluster.kubectl(['label', 'node', 'n4', 'retry=1']);
    assert.equal(await eventually(() => podCIDRs('n4'), 60_000, 'n4 podCIDR'), '10.250.2.0/24 ["10.250.2.0/24"]');
  });

  test('a restarted controller marks what nodes hold before allocating', async () => {
    await cluster.stop();
    const again = await startCluster({ dataDir: cluster.dataDir, controllers: 'nodeipam', extraArgs: ['--allocate-node-cidrs', '--cluster-cidr', '10.250.0.0/22'] });
    try {
      await again.kubectl(['create', '-f', '-'], { input: node('n5') });
      const ev = await eventually(async () => {
        const r = await again.kubectl(['get', 'events', '-A', '--field-selector', 'involvedObject.name=n5,reason=CIDRNotAvailable', '-o', 'name']);
        return r.stdout.trim() || undefined;
      }, 60_000, 'n5 CIDRNotAvailable (all four subnets still held)');
      assert.ok(ev);
      const all = await again.kubectl(['get', 'nodes', '-o', 'jsonpath={range .items[*]}{.spec.podCIDR}{"\\n"}{end}']);
      const cidrs = all.stdout.split('\n').filter(Boolean);
      assert.equal(new Set(cidrs).size, cidrs.length, `no subnet twice: ${cidrs}`);
    } finally {
      await again.stop();
    }
  });
});
