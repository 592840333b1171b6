/** The node IPAM range allocator's subnet set: cutting, rotation, occupy and release, both families. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CIDRSet, parseCIDR, formatCIDR } from '../../src/controllers/nodeipam/index.js';
import { nodeCIDRConfig, bareBoolFlags } from '../../src/cli/node-cidrs.js';

test('cuts an IPv4 cluster CIDR into /24s in order', () => {
  const s = new CIDRSet('10.244.0.0/16', 24);
  assert.equal(s.free, 256);
  assert.equal(s.allocateNext(), '10.244.0.0/24');
  assert.equal(s.allocateNext(), '10.244.1.0/24');
  assert.equal(s.free, 254);
});

test('parses as Go does: the address is masked to its network', () => {
  assert.equal(formatCIDR(parseCIDR('10.244.3.7/16')!), '10.244.0.0/16');
  assert.equal(formatCIDR(parseCIDR('fd00:10:244::1/56')!), 'fd00:10:244::/56');
  assert.equal(parseCIDR('10.244.0.0/33'), undefined);
  assert.equal(parseCIDR('not-a-cidr'), undefined);
});

test('a released subnet is not the very next one handed out, and is reused once the rest are gone', () => {
  const s = new CIDRSet('10.250.0.0/22', 24);
  const a = s.allocateNext();
  const b = s.allocateNext();
  assert.equal(s.release(a!), undefined);
  assert.equal(s.allocateNext(), '10.250.2.0/24');
  assert.equal(s.allocateNext(), '10.250.3.0/24');
  assert.equal(s.allocateNext(), a);
  assert.equal(s.allocateNext(), undefined, 'exhausted');
  assert.notEqual(a, b);
});

test('occupy marks what nodes already hold; outside the range is an error, not a crash', () => {
  const s = new CIDRSet('10.244.0.0/23', 24);
  assert.equal(s.occupy('10.244.0.0/24'), undefined);
  assert.equal(s.allocateNext(), '10.244.1.0/24');
  assert.equal(s.allocateNext(), undefined);
  assert.match(s.occupy('192.168.0.0/24')!, /cidr 192.168.0.0\/24 is out the range of cluster cidr 10.244.0.0\/23/);
  assert.match(s.occupy('fd00::/64')!, /family/);
  // A CIDR wider than a node subnet covers every subnet inside it.
  const w = new CIDRSet('10.0.0.0/22', 24);
  w.occupy('10.0.0.0/23');
  assert.equal(w.free, 2);
});

test('IPv6 cluster CIDRs are cut by the IPv6 mask size', () => {
  const s = new CIDRSet('fd00:10:244::/56', 64);
  assert.equal(s.allocateNext(), 'fd00:10:244::/64');
  assert.equal(s.allocateNext(), 'fd00:10:244:1::/64');
});

test('refuses mask sizes that do not fit or cut too finely', () => {
  assert.throws(() => new CIDRSet('10.244.0.0/16', 8), /does not fit/);
  assert.throws(() => new CIDRSet('10.0.0.0/8', 28), /65536/);
  assert.throws(() => new CIDRSet('nope', 24), /invalid CIDR address: nope/);
});

test('flags: Go booleans, defaults, and clear errors', () => {
  assert.deepEqual(bareBoolFlags(['--allocate-node-cidrs', '--x'], ['allocate-node-cidrs']), ['--allocate-node-cidrs=true', '--x']);
  assert.deepEqual(nodeCIDRConfig({ 'allocate-node-cidrs': 'false' }), { allocateNodeCIDRs: false, clusterCIDRs: [] });
  assert.deepEqual(nodeCIDRConfig({ 'allocate-node-cidrs': 'True', 'cluster-cidr': '10.244.0.0/16' }),
    { allocateNodeCIDRs: true, clusterCIDRs: ['10.244.0.0/16'], nodeCIDRMaskSizeIPv4: 24, nodeCIDRMaskSizeIPv6: 64 });
  assert.throws(() => nodeCIDRConfig({ 'allocate-node-cidrs': 'yes' }), /strconv.ParseBool: parsing "yes": invalid syntax/);
  assert.throws(() => nodeCIDRConfig({ 'allocate-node-cidrs': 'true' }), /--cluster-cidr must be set/);
  assert.throws(() => nodeCIDRConfig({ 'allocate-node-cidrs': 'true', 'cluster-cidr': '10.0.0.0/8,10.1.0.0/16' }), /one IPv4 and one IPv6/);
  assert.throws(() => nodeCIDRConfig({ 'allocate-node-cidrs': 'true', 'cluster-cidr': '10.244.0.0/16', 'node-cidr-mask-size': 'x' }), /strconv.ParseInt/);
});
