/**
 * The seed notes' node lifecycle on kubeadm-style nodes (issue #8, Done when):
 * init; token create --print-join-command; two workers join with the printed
 * command; the seed DaemonSet lands on all three; `kubectl delete node
 * worker1` and reset on worker1 (its pod goes); token list shows TTLs; worker1
 * joins again with a new token (its pod comes back). And join's failure
 * cases, each leaving nothing behind.
 *
 * Every node shares the host's network namespace: the control plane on
 * 127.0.0.1, worker N on 127.0.0.(N+1), each with its own ports and --prefix;
 * the workers' pods run on the simulated runtime, the control plane's static
 * pods on the host-process runtime.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { eventually, seedsDir } from './harness.js';
import { seedManifests } from './seed-manifests.js';
import { k8ts, freePort, tempPrefix, filesUnder, kubectl, type RunResult } from './kubeadm-node.js';
import { etcdPortArgs } from './kubeadm-node.js';

interface Worker { name: string; prefix: string; ip: string }

describe('kubeadm-style cluster: join, delete and reset a worker, rejoin (seed notes)', () => {
  const cp = tempPrefix('cp');
  const admin = join(cp, 'etc/kubernetes/admin.conf');
  const workers: Worker[] = [1, 2].map((i) => ({ name: `worker${i}`, prefix: tempPrefix(`worker${i}`), ip: `127.0.0.${i + 1}` }));
  const scratch: string[] = [];
  let joinCommand: string[];

  const joinAs = async (w: { prefix: string; name: string; ip: string }, command: string[], extra: string[] = []): Promise<RunResult> =>
    k8ts([...command, '--prefix', w.prefix, '--node-name', w.name, '--node-ip', w.ip, '--kubelet-port', String(await freePort()), '--runtime', 'simulated', ...extra]);

  /** `k8ts join ...` from a printed join command (line continuation and tabs as printed). */
  const parseJoin = (out: string) => {
    const m = /k8ts (join [^\n]*?)(?: \\\n\s*)?(--discovery-token-ca-cert-hash \S+)/.exec(out);
    assert.ok(m, `no join command in: ${out}`);
    return `${m[1]} ${m[2]}`.split(/\s+/).filter(Boolean);
  };

  const podsOf = async () => {
    const r = await kubectl(admin, ['get', 'pods', '-n', 'kube-system', '-l', 'name=fluentd-elasticsearch', '-o', 'wide', '--no-headers']);
    return r.stdout.trim().split('\n').filter(Boolean).map((l) => l.trim().split(/\s+/)).map((c) => ({ status: c[2], node: c[6] }));
  };

  before(async () => {
    const init = await k8ts(['init', '--prefix', cp, '--apiserver-advertise-address', '127.0.0.1', '--apiserver-bind-port', String(await freePort()),
      '--node-name', 'control-plane', '--kubelet-port', String(await freePort()), '--controller-manager-port', String(await freePort()),
      '--scheduler-port', String(await freePort()), ...await etcdPortArgs(), '--runtime', 'process']);
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

  it('two workers join with the printed command and become Ready', async () => {
    for (const w of workers) {
      const r = await joinAs(w, joinCommand);
      assert.equal(r.code, 0, r.stderr + r.stdout);
      for (const line of ['[preflight] Running pre-flight checks', '[kubelet-start] Starting the kubelet',
        '[kubelet-start] Waiting for the kubelet to perform the TLS Bootstrap', 'This node has joined the cluster:',
        '* Certificate signing request was sent to apiserver and a response was received.']) {
        assert.ok(r.stdout.includes(line), `missing: ${line}\n${r.stdout}`);
      }
    }
    const nodes = await kubectl(admin, ['get', 'nodes', '--no-headers']);
    assert.match(nodes.stdout, /^worker1\s+Ready\s+<none>/m);
    assert.match(nodes.stdout, /^worker2\s+Ready\s+<none>/m);
  });

  it('joined workers start with the cluster\'s KubeletConfiguration from the kubelet-config ConfigMap (clusterDNS, clusterDomain)', async () => {
    const cm = await kubectl(admin, ['get', 'configmap', 'kubelet-config', '-n', 'kube-system', '-o', 'jsonpath={.data.kubelet}']);
    assert.equal(cm.code, 0, cm.stderr);
    const cluster = parse(cm.stdout) as { kind: string; clusterDNS: string[]; clusterDomain: string };
    assert.deepEqual([cluster.kind, cluster.clusterDNS, cluster.clusterDomain], ['KubeletConfiguration', ['10.96.0.10'], 'cluster.local']);
    for (const w of workers) {
      const config = join(w.prefix, 'var/lib/kubelet/config.yaml');
      assert.deepEqual(parse(readFileSync(config, 'utf8')), cluster, `${w.name}'s config.yaml is the cluster's`);
      assert.equal(/ --config=(\S+?)[ "]/.exec(readFileSync(join(w.prefix, 'var/lib/kubelet/kubeadm-flags.env'), 'utf8'))?.[1], config, `${w.name}'s kubelet runs with --config`);
    }
    // kubeadm's Role kubeadm:kubelet-config: joining nodes read it with their bootstrap token, and nothing else in kube-system.
    const can = async (...args: string[]) => (await kubectl(admin, ['auth', 'can-i', ...args, '-n', 'kube-system', '--as=system:bootstrap:abcdef',
      '--as-group=system:bootstrappers', '--as-group=system:bootstrappers:kubeadm:default-node-token'])).stdout.trim();
    assert.equal(await can('get', 'configmap/kubelet-config'), 'yes');
    assert.equal(await can('get', 'configmap/coredns-other'), 'no');
  });

  it('the seed DaemonSet lands on all three nodes', async () => {
    const ds = seedManifests(seedsDir).find((m) => m.obj.kind === 'DaemonSet' && m.obj.metadata.name === 'fluentd-elasticsearch')!;
    const file = join(cp, 'fluentd.yaml');
    writeFileSync(file, ds.yaml);
    assert.equal((await kubectl(admin, ['apply', '-f', file])).code, 0);
    // One pod per node. The workers (simulated runtime) run theirs; the control-plane node runs the host-process
    // runtime, which runs commands, not images, so its command-less fluentd container is placed but cannot start.
    await eventually(async () => {
      const pods = await podsOf();
      return pods.length === 3 && pods.map((p) => p.node).sort().join() === 'control-plane,worker1,worker2'
        && pods.filter((p) => p.node !== 'control-plane').every((p) => p.status === 'Running');
    }, 90_000, 'fluentd on control-plane, worker1 and worker2, Running on the workers');
  });

  it('a join under the name of a Ready node is refused and leaves nothing behind', async () => {
    const prefix = tempPrefix('dup');
    scratch.push(prefix);
    const r = await joinAs({ prefix, name: 'worker2', ip: '127.0.0.9' }, joinCommand);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /a Node with name "worker2" and status "Ready" already exists in the cluster\. You must delete the existing Node or change the name of this new joining Node/);
    assert.deepEqual(filesUnder(prefix), []);
  });

  it('kubectl delete node worker1 and reset on worker1: its pod goes', async () => {
    assert.equal((await kubectl(admin, ['delete', 'node', 'worker1'])).code, 0);
    const r = await k8ts(['reset', '--prefix', workers[0]!.prefix], 'y\n');
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.includes('[reset] Stopping the kubelet service'));
    await eventually(async () => {
      const pods = await podsOf();
      return !pods.some((p) => p.node === 'worker1') && pods.length === 2;
    }, 90_000, 'no fluentd pod on worker1');
    assert.deepEqual(filesUnder(workers[0]!.prefix).filter((f) => !f.startsWith('var/log/')), []);
  });

  it('token list shows the tokens with their TTLs', async () => {
    const r = await k8ts(['token', 'list', '--kubeconfig', admin]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^TOKEN\s+TTL\s+EXPIRES\s+USAGES\s+DESCRIPTION\s+EXTRA GROUPS/);
    assert.match(r.stdout, /[a-z0-9]{6}\.[a-z0-9]{16}\s+23h\s/);
  });

  it('worker1 joins again with a new token and its pod comes back', async () => {
    const t = await k8ts(['token', 'create', '--print-join-command', '--ttl', '1h', '--kubeconfig', admin]);
    assert.equal(t.code, 0, t.stderr);
    const r = await joinAs(workers[0]!, parseJoin(t.stdout));
    assert.equal(r.code, 0, r.stderr + r.stdout);
    await eventually(async () => (await podsOf()).some((p) => p.node === 'worker1' && p.status === 'Running'), 90_000, 'fluentd Running on worker1 again');
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
