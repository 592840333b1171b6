/**
 * Real by default (issue #22): `k8ts init` and `k8ts join` without a runtime
 * flag look for a CRI runtime as kubeadm does (its known sockets, under
 * --prefix), and when none answers, preflight fails with kubeadm's
 * `[ERROR CRI]` words; `--ignore-preflight-errors=CRI` (or `all`) lets init
 * through. The successful case (containerd found at the default socket) is
 * kubeadm-netns.test.ts, on real containerds.
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { k8ts, freePort, tempPrefix, filesUnder } from './kubeadm-node.js';

const ports = async () => ['--apiserver-bind-port', String(await freePort()), '--kubelet-port', String(await freePort()),
  '--controller-manager-port', String(await freePort()), '--scheduler-port', String(await freePort())];

/** A listening unix socket at `path` that is not a CRI runtime (it closes every connection). */
function fakeSocket(path: string): Promise<Server> {
  mkdirSync(dirname(path), { recursive: true });
  const server = createServer((c) => c.destroy());
  return new Promise((resolve) => server.listen(path, () => resolve(server)));
}

const HINT = '[preflight] If you know what you are doing, you can make a check non-fatal with `--ignore-preflight-errors=...`';

describe('init and join without a runtime flag: kubeadm\'s CRI detection and check', () => {
  const prefixes: string[] = [];
  const servers: Server[] = [];
  const prefix = (name: string) => { const p = tempPrefix(name); prefixes.push(p); return p; };
  after(() => {
    for (const s of servers) s.close();
    for (const p of prefixes) rmSync(p, { recursive: true, force: true });
  });

  it('init with no runtime at the default socket fails preflight with [ERROR CRI] and writes nothing', async () => {
    const p = prefix('nocri');
    const r = await k8ts(['init', '--prefix', p, '--apiserver-advertise-address', '127.0.0.1', ...await ports()]);
    assert.equal(r.code, 1, r.stdout);
    const socket = join(p, 'var/run/containerd/containerd.sock');
    const lines = r.stderr.split('\n');
    assert.equal(lines[0], 'error execution phase preflight: [preflight] Some fatal errors occurred:');
    assert.match(r.stderr, new RegExp(`^\\t\\[ERROR CRI\\]: container runtime is not running: output: time="[^"]+" level=fatal msg="validate service connection: validate CRI v1 runtime API for endpoint \\\\"unix://${socket}\\\\": rpc error: code = Unavailable desc = connection error: desc = \\\\"transport: Error while dialing: dial unix ${socket}: connect: no such file or directory\\\\""\\n, error: exit status 1$`, 'm'));
    assert.ok(r.stderr.includes(`${HINT}\nTo see the stack trace of this error execute with --v=5 or higher\n`), r.stderr);
    assert.deepEqual(filesUnder(p), []);
  });

  it('--ignore-preflight-errors=CRI (or all) turns it into a warning and init goes on', async () => {
    for (const ignore of ['CRI', 'all']) {
      const p = prefix('ignorecri');
      const r = await k8ts(['init', '--dry-run', '--prefix', p, '--apiserver-advertise-address', '127.0.0.1', '--ignore-preflight-errors', ignore, ...await ports()]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^\t\[WARNING CRI\]: container runtime is not running: output: /m);
      assert.match(r.stdout, /\[dryrun\] Would start the kubelet \(node "[^"]+", cri runtime\)/);
    }
  });

  it('join with no runtime fails the same check before it contacts the cluster', async () => {
    const p = prefix('joinnocri');
    const dead = await freePort();
    const r = await k8ts(['join', `127.0.0.1:${dead}`, '--token', 'abcdef.0123456789abcdef', '--discovery-token-ca-cert-hash', `sha256:${'0'.repeat(64)}`,
      '--prefix', p, '--kubelet-port', String(await freePort())]);
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stderr, /^error execution phase preflight: \[preflight\] Some fatal errors occurred:\n\t\[ERROR CRI\]: container runtime is not running: /);
    assert.doesNotMatch(r.stderr, /cluster-info/);
    assert.deepEqual(filesUnder(p), []);
  });

  it('a socket found at a known path is used; one that is not a CRI runtime fails the check; two found: kubeadm refuses to guess', async () => {
    const p = prefix('twocri');
    const containerd = join(p, 'var/run/containerd/containerd.sock');
    servers.push(await fakeSocket(containerd));
    const one = await k8ts(['init', '--dry-run', '--prefix', p, '--apiserver-advertise-address', '127.0.0.1', ...await ports()]);
    assert.equal(one.code, 1, one.stdout);
    assert.ok(one.stderr.includes(`[ERROR CRI]: container runtime is not running: output: `) && one.stderr.includes(`for endpoint \\"unix://${containerd}\\"`), one.stderr);
    const crio = join(p, 'var/run/crio/crio.sock');
    servers.push(await fakeSocket(crio));
    const two = await k8ts(['join', '127.0.0.1:6443', '--token', 'abcdef.0123456789abcdef', '--discovery-token-ca-cert-hash', `sha256:${'0'.repeat(64)}`, '--prefix', p]);
    assert.equal(two.code, 1);
    assert.equal(two.stderr, 'found multiple CRI endpoints on the host. Please define which one do you wish to use by setting the \'criSocket\' field '
      + `in the kubeadm configuration file: unix://${containerd}, unix://${crio}\nTo see the stack trace of this error execute with --v=5 or higher\n`);
  });

  it('the process and simulated runtimes are opt-in and take no --cri-socket', async () => {
    const r = await k8ts(['init', '--dry-run', '--prefix', prefix('optin'), '--runtime', 'process', '--cri-socket', 'unix:///x.sock']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, '--cri-socket names a CRI runtime and cannot be used with --runtime process\nTo see the stack trace of this error execute with --v=5 or higher\n');
  });
});
