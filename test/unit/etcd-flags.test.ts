/** `k8ts server`'s etcd flags as storage options (src/cli/storage.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { etcdConfig } from '../../src/cli/storage.js';
import { normalizePrefix } from '../../src/storage/etcd/key-layout.js';

test('without --etcd-servers the server stays on SQLite', () => {
  assert.equal(etcdConfig({}), undefined);
  assert.equal(etcdConfig({ 'etcd-servers': '' }), undefined);
});

test('--etcd-servers takes a comma-separated list; the TLS files and the compaction interval pass through', () => {
  assert.deepEqual(etcdConfig({
    'etcd-servers': 'https://10.0.0.1:2379, https://10.0.0.2:2379', 'etcd-cafile': 'ca.crt', 'etcd-certfile': 'c.crt', 'etcd-keyfile': 'c.key',
    'etcd-compaction-interval': '1m30s', 'etcd-prefix': '/cluster-a',
  }), {
    servers: ['https://10.0.0.1:2379', 'https://10.0.0.2:2379'], caFile: 'ca.crt', certFile: 'c.crt', keyFile: 'c.key', compactIntervalMs: 90_000,
    prefix: '/cluster-a',
  });
  assert.equal(etcdConfig({ 'etcd-servers': 'http://127.0.0.1:2379' })?.prefix, '/registry', 'upstream default --etcd-prefix');
  assert.equal(etcdConfig({ 'etcd-servers': 'http://127.0.0.1:2379' })?.compactIntervalMs, 300_000, 'upstream default 5m0s');
  assert.equal(etcdConfig({ 'etcd-servers': 'http://127.0.0.1:2379', 'etcd-compaction-interval': '0' })?.compactIntervalMs, 0);
});

test('bad etcd flags are refused', () => {
  assert.throws(() => etcdConfig({ 'etcd-servers': '127.0.0.1:2379' }), /--etcd-servers: invalid URL "127.0.0.1:2379"/);
  assert.throws(() => etcdConfig({ 'etcd-servers': 'http://127.0.0.1:2379', 'etcd-compaction-interval': 'soon' }),
    /invalid argument "soon" for "--etcd-compaction-interval" flag/);
});

test('--etcd-prefix is joined as upstream joins paths: one leading slash, no trailing one', () => {
  assert.equal(normalizePrefix('/registry'), '/registry');
  assert.equal(normalizePrefix('cluster-a/'), '/cluster-a');
  assert.equal(normalizePrefix('//a//b/'), '/a/b');
  assert.equal(normalizePrefix('/'), '/');
});
