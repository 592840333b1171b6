/**
 * kubeadm-style join discovery (issue #8): init; token create
 * --print-join-command prints a command whose discovery (anonymous
 * cluster-info read, JWS checked with the token, CA hash pinned) fails with
 * the cause and writes nothing for a wrong CA hash, an unknown token or an
 * expired token. The full join/reset/rejoin flow is in
 * docs/pending/kubeadm-join.test.ts until the workers' TLS bootstrap completes.
 *
 * Every node shares the host's network namespace: the control plane on
 * 127.0.0.1, the would-be worker on 127.0.0.8, each with its own ports and --prefix.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { k8ts, freePort, tempPrefix, filesUnder, type RunResult } from './kubeadm-node.js';

interface Worker { name: string; prefix: string; ip: string }

describe('kubeadm-style cluster: join, delete and reset a worker, rejoin (seed notes)', () => {
  const cp = tempPrefix('cp');
  const admin = join(cp, 'etc/kubernetes/admin.conf');
  const workers: Worker[] = [1, 2].map((i) => ({ name: `worker${i}`, prefix: tempPrefix(`worker${i}`), ip: `127.0.0.${i + 1}` }));
  const scratch: string[] = [];
  let joinCommand: string[];

  const joinAs = async (w: { prefix: string; name: string; ip: string }, command: string[], extra: string[] = []): Promise<RunResult> =>
    k8ts([...command, '--prefix', w.prefix, '--node-name', w.name, '--node-ip', w.ip, '--kubelet-port', String(await freePort()), ...extra]);

  /** `k8ts join ...` from a printed join command (line continuation and tabs as printed). */
  const parseJoin = (out: string) => {
    const m = /k8ts (join [^\n]*?)(?: \\\n\s*)?(--discovery-token-ca-cert-hash \S+)/.exec(out);
    assert.ok(m, `no join command in: ${out}`);
    return `${m[1]} ${m[2]}`.split(/\s+/).filter(Boolean);
  };

  before(async () => {
    const init = await k8ts(['init', '--prefix', cp, '--apiserver-advertise-address', '127.0.0.1', '--apiserver-bind-port', String(await freePort()),
      '--node-name', 'control-plane', '--kubelet-port', String(await freePort()), '--controller-manager-port', String(await freePort()),
      '--scheduler-port', String(await freePort())]);
    assert.equal(init.code, 0, init.stderr + init.stdout);
  });
  after(async () => {
    for (const w of workers) await k8ts(['reset', '--force', '--prefix', w.prefix]);
    await k8ts(['reset', '--force', '--prefix', cp]);
    for (const d of [cp, ...workers.map((w) => w.prefix), ...scratch]) rmSync(d, { recursive: true, force: true });
  });

  it('token create --print-join-command prints a command to paste on a worker', async () => {
    const r = await k8ts(['token', 'create', '--print-join-command', '--kubeconfig', admin]);
    assert.equal(r.code, 0, r.stderr);
    joinCommand = parseJoin(r.stdout);
    assert.match(joinCommand.join(' '), /^join 127\.0\.0\.1:\d+ --token [a-z0-9]{6}\.[a-z0-9]{16} --discovery-token-ca-cert-hash sha256:[0-9a-f]{64}$/);
  });

  it('join with a wrong CA hash, an unknown token or an expired token fails with the cause and writes nothing', async () => {
    const endpoint = joinCommand[1]!;
    const hash = joinCommand[joinCommand.indexOf('--discovery-token-ca-cert-hash') + 1]!;
    const token = joinCommand[joinCommand.indexOf('--token') + 1]!;
    const expired = await k8ts(['token', 'create', '--ttl', '1s', '--kubeconfig', admin]);
    assert.equal(expired.code, 0, expired.stderr);
    const expiredToken = expired.stdout.trim();
    await new Promise((r) => setTimeout(r, 2500));
    const cases: Array<[string[], RegExp]> = [
      [['join', endpoint, '--token', token, '--discovery-token-ca-cert-hash', `sha256:${'0'.repeat(64)}`], /cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "sha256:[0-9a-f]{64}" are pinned/],
      [['join', endpoint, '--token', 'abcdef.0123456789abcdef', '--discovery-token-ca-cert-hash', hash, '--timeout', '5s'], /abcdef/],
      [['join', endpoint, '--token', expiredToken, '--discovery-token-ca-cert-hash', hash, '--timeout', '5s'], new RegExp(expiredToken.slice(0, 6))],
    ];
    for (const [command, message] of cases) {
      const prefix = tempPrefix('bad');
      scratch.push(prefix);
      const r = await joinAs({ prefix, name: 'worker7', ip: '127.0.0.8' }, command);
      assert.equal(r.code, 1, r.stdout);
      assert.match(r.stderr, message);
      assert.match(r.stderr, /^error execution phase/m);
      assert.deepEqual(filesUnder(prefix), []);
    }
  });
});
