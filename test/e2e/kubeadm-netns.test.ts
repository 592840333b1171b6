/**
 * The seed notes' node lifecycle (issue #8, Done when) on three "machines":
 * each node runs in a network namespace this test creates (cp, worker1,
 * worker2 on a bridge in cp's namespace, 10.77.0.1-3/24), with its own host
 * name (a UTS namespace per command), its own --prefix and its own kubelet;
 * each node runs its pods as real containers of a private containerd started
 * in its namespace — on the control-plane node all but the control plane's
 * own static pods, which stay host processes (init --cri-socket: the agent
 * splits pods between two runtimes, docs/design-notes.md). The steps: init; the control-plane mirror pods
 * Running in kube-system; token create --print-join-command; both workers
 * join with the printed command; the seed DaemonSet lands on all three nodes;
 * `kubectl delete node worker1` and reset on worker1 (its pod and its
 * containers go); token list shows the TTLs; worker1 joins again with a new
 * token (its pod comes back).
 *
 * The printed join command gets one flag a real machine would not need:
 * --prefix (the three nodes share one file system); init gets it too. Neither
 * names a runtime: each node's private containerd socket is linked at the
 * default path under its prefix (PREFIX/var/run/containerd/containerd.sock),
 * where init and join find it as kubeadm finds /var/run/containerd/containerd.sock.
 * The seed DaemonSet's image (quay.io fluentd, not pullable here) is swapped
 * for k8ts.local/busybox:1 with a command that keeps it running.
 * join's failure cases are in kubeadm.test.ts and kubeadm-lifecycle.test.ts.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { stringify } from 'yaml';
import { eventually, seedsDir } from './harness.js';
import { seedManifests } from './seed-manifests.js';
import { startContainerd, busyboxImage, type PrivateContainerd } from './containerd.js';
import { k8ts, kubectl, tempPrefix, inNode, type OnNode } from './kubeadm-node.js';

const ip = promisify(execFile);

interface Machine { name: string; netns: string; address: string; prefix: string; on: OnNode; podSubnet: string; ctrd?: PrivateContainerd }

describe('kubeadm-style cluster of three network namespaces on containerd: join, delete and reset a worker, rejoin (seed notes)', () => {
  const tag = randomBytes(3).toString('hex');
  const machine = (name: string, i: number): Machine => {
    const netns = `k8ts-kn-${tag}-${name}`;
    return { name, netns, address: `10.77.0.${i + 1}`, prefix: tempPrefix(`ns-${name}`), on: inNode(netns, name), podSubnet: `10.244.${i}.0/24` };
  };
  const cp = machine('control-plane', 0);
  const workers = [machine('worker1', 1), machine('worker2', 2)];
  const admin = join(cp.prefix, 'etc/kubernetes/admin.conf');
  const created: string[] = [];
  let joinCommand: string[];

  const kc = (args: string[]) => kubectl(admin, args, cp.on);
  const joinAs = (w: Machine, command: string[]) => k8ts([...command, '--prefix', w.prefix], undefined, w.on);
  /** The socket a node's kubeadm finds by default: kubeadm's DefaultCRISocket under the node's prefix. */
  const defaultSocket = (m: Machine) => join(m.prefix, 'var/run/containerd/containerd.sock');

  /** `k8ts join ...` from a printed join command (line continuation and tabs as printed). */
  const parseJoin = (out: string) => {
    const m = /k8ts (join [^\n]*?)(?: \\\n\s*)?(--discovery-token-ca-cert-hash \S+)/.exec(out);
    assert.ok(m, `no join command in: ${out}`);
    return `${m[1]} ${m[2]}`.split(/\s+/).filter(Boolean);
  };

  const podsOf = async () => {
    const r = await kc(['get', 'pods', '-n', 'kube-system', '-l', 'name=fluentd-elasticsearch', '-o', 'wide', '--no-headers']);
    return r.stdout.trim().split('\n').filter(Boolean).map((l) => l.trim().split(/\s+/)).map((c) => ({ name: c[0]!, status: c[2], ip: c[5], node: c[6] }));
  };
  /** The running containers of the fluentd pod in a node's containerd. */
  const fluentdContainers = async (w: Machine) =>
    (await w.ctrd!.client.listContainers()).filter((c) => c.metadata?.name === 'fluentd-elasticsearch' && c.state === 'CONTAINER_RUNNING');

  before(async () => {
    // cp's namespace holds the bridge; each worker's eth0 is a veth whose peer is a bridge port.
    const sh = (...args: string[]) => ip('ip', args);
    await sh('netns', 'add', cp.netns);
    created.push(cp.netns);
    await sh('-n', cp.netns, 'link', 'set', 'lo', 'up');
    await sh('-n', cp.netns, 'link', 'add', 'br0', 'type', 'bridge');
    await sh('-n', cp.netns, 'addr', 'add', `${cp.address}/24`, 'dev', 'br0');
    await sh('-n', cp.netns, 'link', 'set', 'br0', 'up');
    for (const w of workers) {
      await sh('netns', 'add', w.netns);
      created.push(w.netns);
      await sh('-n', w.netns, 'link', 'set', 'lo', 'up');
      await sh('-n', w.netns, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', `veth-${w.name}`, 'netns', cp.netns);
      await sh('-n', cp.netns, 'link', 'set', `veth-${w.name}`, 'master', 'br0', 'up');
      await sh('-n', w.netns, 'addr', 'add', `${w.address}/24`, 'dev', 'eth0');
      await sh('-n', w.netns, 'link', 'set', 'eth0', 'up');
    }
    for (const m of [cp, ...workers]) {
      m.ctrd = await startContainerd({ netns: m.netns, podSubnet: m.podSubnet });
      // The machine's containerd at the default path, as a distribution's package puts it.
      mkdirSync(dirname(defaultSocket(m)), { recursive: true });
      symlinkSync(m.ctrd.socket, defaultSocket(m));
    }
  });
  after(async () => {
    for (const w of workers) await k8ts(['reset', '--force', '--prefix', w.prefix], undefined, w.on);
    await k8ts(['reset', '--force', '--prefix', cp.prefix], undefined, cp.on);
    for (const m of [cp, ...workers]) await m.ctrd?.stop();
    for (const ns of created) await ip('ip', ['netns', 'del', ns]).catch(() => undefined);
    for (const m of [cp, ...workers]) rmSync(m.prefix, { recursive: true, force: true });
  });

  it('init in the cp namespace; the control-plane mirror pods are Running in kube-system', async () => {
    const init = await k8ts(['init', '--prefix', cp.prefix, '--apiserver-advertise-address', cp.address], undefined, cp.on);
    assert.equal(init.code, 0, init.stderr + init.stdout);
    // No runtime flag: the kubelet runs the node's pods on the containerd found at the default socket.
    const flags = readFileSync(join(cp.prefix, 'var/lib/kubelet/kubeadm-flags.env'), 'utf8');
    assert.ok(flags.includes(`--runtime=cri --root-dir=`) && flags.includes(`--container-runtime-endpoint=unix://${defaultSocket(cp)}`), flags);
    // The control plane runs as host processes, not in containerd.
    assert.deepEqual(await cp.ctrd!.client.listPodSandbox(), []);
    await eventually(async () => {
      const r = await kc(['get', 'pods', '-n', 'kube-system', '--no-headers']);
      return ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler']
        .every((c) => new RegExp(`^${c}-control-plane\\s+1/1\\s+Running\\s`, 'm').test(r.stdout));
    }, 120_000, 'kube-apiserver, kube-controller-manager and kube-scheduler mirror pods Running and Ready');
  });

  it('token create --print-join-command prints the command to paste on a worker', async () => {
    const r = await k8ts(['token', 'create', '--print-join-command', '--kubeconfig', admin], undefined, cp.on);
    assert.equal(r.code, 0, r.stderr);
    joinCommand = parseJoin(r.stdout);
    assert.match(joinCommand.join(' '), /^join 10\.77\.0\.1:6443 --token [a-z0-9]{6}\.[a-z0-9]{16} --discovery-token-ca-cert-hash sha256:[0-9a-f]{64}$/);
  });

  it('two workers join with the printed command, each from its own namespace, and become Ready at their own addresses', async () => {
    for (const w of workers) {
      const r = await joinAs(w, joinCommand);
      assert.equal(r.code, 0, r.stderr + r.stdout);
      assert.ok(r.stdout.includes('This node has joined the cluster:'), r.stdout);
    }
    const nodes = await kc(['get', 'nodes', '-o', 'wide', '--no-headers']);
    for (const w of [cp, ...workers]) {
      assert.match(nodes.stdout, new RegExp(`^${w.name}\\s+Ready\\s+\\S+\\s+\\S+\\s+\\S+\\s+${w.address.replace(/\./g, '\\.')}\\s`, 'm'), nodes.stdout);
      assert.match(nodes.stdout, new RegExp(`^${w.name}\\s.*containerd://`, 'm'));
    }
  });

  it('the seed DaemonSet lands on all three nodes and runs in each node\'s containerd', async () => {
    const seed = seedManifests(seedsDir).find((m) => m.obj.kind === 'DaemonSet' && m.obj.metadata.name === 'fluentd-elasticsearch')!;
    const ds = seed.obj as DaemonSet;
    // The seed's quay.io image cannot be pulled here: the local busybox, kept running.
    const container = ds.spec!.template.spec!.containers[0]!;
    container.image = busyboxImage;
    container.command = ['sleep', '2147483647'];
    const file = join(cp.prefix, 'fluentd.json');
    writeFileSync(file, JSON.stringify(ds));
    const applied = await kc(['apply', '-f', file]);
    assert.equal(applied.code, 0, applied.stderr);
    // The seed tolerates the control-plane taint, so one pod lands on each node, the control plane's included.
    await eventually(async () => {
      const pods = await podsOf();
      return pods.length === 3 && pods.map((p) => p.node).sort().join() === 'control-plane,worker1,worker2' && pods.every((p) => p.status === 'Running');
    }, 120_000, 'fluentd Running on control-plane, worker1 and worker2');
    for (const w of [cp, ...workers]) {
      assert.equal((await fluentdContainers(w)).length, 1, `fluentd container running in ${w.name}'s containerd`);
      const pod = (await podsOf()).find((p) => p.node === w.name)!;
      assert.ok(pod.ip!.startsWith(w.podSubnet.split('.').slice(0, 3).join('.') + '.'), `${w.name}'s pod IP ${pod.ip} is in ${w.podSubnet}`);
      // The API server (cp's namespace) reaches the node's kubelet at its address across the bridge.
      const exec = await kc(['exec', '-n', 'kube-system', pod.name, '--', 'echo', `from ${w.name}`]);
      assert.equal(exec.stdout, `from ${w.name}\n`, exec.stderr);
    }
  });

  it('the seed\'s static web pod dropped into worker2\'s and the control plane\'s manifest directory runs in their containerd, with a mirror pod', async () => {
    const seed = seedManifests(seedsDir).find((m) => m.obj.kind === 'Pod' && m.obj.metadata.name === 'static-web')!;
    const pod = seed.obj as Pod;
    // The seed's nginx cannot be pulled here: the local busybox's httpd serves instead.
    const container = pod.spec!.containers[0]!;
    container.image = busyboxImage;
    container.command = ['httpd', '-f', '-p', '80'];
    const nodes = [workers[1]!, cp];
    for (const m of nodes) writeFileSync(join(m.prefix, 'etc/kubernetes/manifests/static-web.yaml'), stringify(pod));
    for (const m of nodes) {
      await eventually(async () => {
        const r = await kc(['get', 'pod', `static-web-${m.name}`, '-o', 'wide', '--no-headers']);
        return new RegExp(`^static-web-${m.name}\\s+1/1\\s+Running\\s.*\\s${m.name}\\s`).test(r.stdout);
      }, 120_000, `static-web-${m.name} Running on ${m.name}`);
      const running = (await m.ctrd!.client.listContainers()).filter((c) => c.metadata?.name === 'web-container' && c.state === 'CONTAINER_RUNNING');
      assert.equal(running.length, 1, `static-web's container runs in ${m.name}'s containerd`);
      const mirror = JSON.parse((await kc(['get', 'pod', `static-web-${m.name}`, '-o', 'json'])).stdout) as Pod;
      assert.equal(mirror.metadata!.annotations!['kubernetes.io/config.source'], 'file');
      assert.ok(mirror.metadata!.annotations!['kubernetes.io/config.mirror'], 'a mirror pod');
    }
  });

  it('init\'s kube-proxy DaemonSet runs on all three nodes as host processes, each programming its own namespace\'s nftables', async () => {
    await eventually(async () => {
      const r = await kc(['get', 'ds', '-n', 'kube-system', 'kube-proxy', '--no-headers']);
      return /^kube-proxy\s+3\s+3\s+3\s+3\s+3\s/.test(r.stdout);
    }, 120_000, 'kube-proxy 3/3 Ready');
    for (const m of [cp, ...workers]) {
      // Not in containerd (the add-on runs on the node's process runtime), and its rules exist in the node's own namespace.
      assert.deepEqual((await m.ctrd!.client.listContainers()).filter((c) => c.metadata?.name === 'kube-proxy'), []);
      const table = await ip('ip', ['netns', 'exec', m.netns, 'nft', 'list', 'table', 'ip', 'kube-proxy']);
      assert.match(table.stdout, /10\.96\.0\.10 \. udp \. 53/, `${m.name}'s kube-proxy table routes kube-dns`);
    }
  });

  it('kubectl delete node worker1 and reset on worker1: its pod and its containers go', async () => {
    const [w1] = workers as [Machine, Machine];
    assert.equal((await kc(['delete', 'node', 'worker1'])).code, 0);
    const r = await k8ts(['reset', '--prefix', w1.prefix], 'y\n', w1.on);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.includes('[reset] Stopping the kubelet service'), r.stdout);
    assert.ok(r.stdout.includes(`[reset] Removing Kubernetes-managed containers (CRI socket unix://${defaultSocket(w1)})`), r.stdout);
    await eventually(async () => {
      const pods = await podsOf();
      return pods.length === 2 && !pods.some((p) => p.node === 'worker1');
    }, 120_000, 'no fluentd pod on worker1');
    assert.deepEqual(await w1.ctrd!.client.listPodSandbox(), []);
    assert.deepEqual(await w1.ctrd!.client.listContainers(), []);
    assert.equal((await fluentdContainers(workers[1]!)).length, 1, "worker2's fluentd still runs");
  });

  it('token list shows the tokens with their TTLs', async () => {
    const r = await k8ts(['token', 'list', '--kubeconfig', admin], undefined, cp.on);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^TOKEN\s+TTL\s+EXPIRES\s+USAGES\s+DESCRIPTION\s+EXTRA GROUPS/);
    assert.ok(r.stdout.match(/^[a-z0-9]{6}\.[a-z0-9]{16}\s+23h\s/gm)!.length >= 2, r.stdout);
  });

  it('worker1 joins again with a new token and its pod comes back in its containerd', async () => {
    const [w1] = workers as [Machine, Machine];
    const t = await k8ts(['token', 'create', '--print-join-command', '--ttl', '1h', '--kubeconfig', admin], undefined, cp.on);
    assert.equal(t.code, 0, t.stderr);
    const command = parseJoin(t.stdout);
    assert.notEqual(command[3], joinCommand[3], 'a new token');
    const r = await joinAs(w1, command);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    await eventually(async () => (await podsOf()).some((p) => p.node === 'worker1' && p.status === 'Running'), 120_000, 'fluentd Running on worker1 again');
    assert.equal((await fluentdContainers(w1)).length, 1);
  });
});
