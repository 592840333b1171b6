import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cniConflist, containerdConfig, containerdLayout } from '../../src/cli/containerd/config.js';
import { humanSize, imageTable } from '../../src/cli/images.js';

describe('private containerd files', () => {
  it('the conflist chains bridge (host-local over the pod CIDR, state in the dir), portmap with the portMappings capability, loopback', () => {
    const c = JSON.parse(cniConflist('10.244.3.0/24', '/d/cni-ipam'));
    assert.deepEqual(c.plugins.map((p: any) => p.type), ['bridge', 'portmap', 'loopback']);
    assert.deepEqual(c.plugins[0].ipam.ranges, [[{ subnet: '10.244.3.0/24' }]]);
    assert.equal(c.plugins[0].ipam.dataDir, '/d/cni-ipam');
    assert.deepEqual(c.plugins[1].capabilities, { portMappings: true });
  });

  it('config.toml keeps root, state, sockets and CNI conf under the dir, with the local pause image', () => {
    const layout = containerdLayout('/data/containerd');
    const toml = containerdConfig(layout);
    for (const line of ['root = "/data/containerd/root"', 'state = "/data/containerd/state"', 'address = "/data/containerd/containerd.sock"',
      'sandbox_image = "k8ts.local/pause:1"', 'restrict_oom_score_adj = true', 'conf_dir = "/data/containerd/cni"', 'bin_dir = "/usr/lib/cni"',
      'stream_server_address = "127.0.0.1"', 'runtime_type = "io.containerd.runc.v2"']) {
      assert.ok(toml.includes(line), line);
    }
  });
});

describe('k8ts images list', () => {
  it('sizes as go-units HumanSize', () => {
    const table: [number, string][] = [[0, '0B'], [999, '999B'], [1000, '1kB'], [1234567, '1.235MB'], [2_240_000, '2.24MB'], [5e9, '5GB']];
    for (const [n, want] of table) assert.equal(humanSize(n), want, String(n));
  });

  it('one row per repo tag, <none> for untagged, IDs cut to 13 characters', () => {
    const out = imageTable([
      { id: 'sha256:0123456789abcdef0123', repoTags: ['k8ts.local/busybox:1', 'localhost:5000/busybox:v2'], repoDigests: [], size: 2_240_000, pinned: false },
      { id: 'sha256:fedcba9876543210', repoTags: [], repoDigests: [], size: 300, pinned: false },
    ]).split('\n').map((l) => l.split(/\s{3,}/));
    assert.deepEqual(out, [
      ['IMAGE', 'TAG', 'IMAGE ID', 'SIZE'],
      ['k8ts.local/busybox', '1', '0123456789abc', '2.24MB'],
      ['localhost:5000/busybox', 'v2', '0123456789abc', '2.24MB'],
      ['<none>', '<none>', 'fedcba9876543', '300B'],
    ]);
  });
});

describe('image import retries', () => {
  it('knows containerd 1.6\'s words for a blob collected under an import, and nothing else', async () => {
    const { isContentRace } = await import('../../src/cli/containerd/images.js');
    // ctr's exit text from the CI run that cancelled five real-workloads tests.
    assert.equal(isContentRace(new Error('Command failed: ctr -a /tmp/k8ts-ctrd-x/containerd.sock -n k8s.io images import --index-name k8ts.local/busybox:1 busybox.tar\nctr: content digest sha256:3f1e5f4b9f2c: not found\n')), true);
    assert.equal(isContentRace(new Error('ctr: failed to unpack image on snapshotter overlayfs: content digest sha256:ab: not found')), true);
    assert.equal(isContentRace(new Error('ctr: open busybox.tar: no such file or directory')), false);
    assert.equal(isContentRace(new Error('ctr: failed to dial "/run/x.sock": context deadline exceeded')), false);
  });
});
