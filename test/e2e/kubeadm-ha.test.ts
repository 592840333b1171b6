/**
 * kubeadm-style highly available control planes: `k8ts init
 * --control-plane-endpoint LB --upload-certs`, two `k8ts join --control-plane
 * --certificate-key` on stacked etcd (real etcd members added with MemberAdd),
 * `reset` of a control plane removing its member and a rejoin, then SIGKILL
 * of the node whose controller manager leads: another takes the Leases over,
 * a new Deployment's pods are created and scheduled by the new leaders, no
 * object is lost, no pod is scheduled twice, and the API keeps answering
 * reads and writes through the surviving API servers and etcd members.
 * Nodes share the host network on 127.0.0.1 with their own ports and
 * prefixes (--runtime process); the endpoint is a TCP balancer in the test.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { eventually } from './harness.js';
import { k8ts, freePort, tempPrefix, kubectl, type RunResult } from './kubeadm-node.js';
import { startTCPBalancer, type TCPBalancer } from './tcp-balancer.js';
import { listRecords } from '../../src/kubelet/runtime/process/records.js';

const run = promisify(execFile);

interface CPNode {
  name: string; prefix: string; admin: string;
  ports: Record<'api' | 'kubelet' | 'cm' | 'sched' | 'etcd' | 'peer' | 'metrics', number>;
  args: string[];
}

async function controlPlaneNode(name: string): Promise<CPNode> {
  const prefix = tempPrefix(`ha-${name}`);
  const ports = {
    api: await freePort(), kubelet: await freePort(), cm: await freePort(), sched: await freePort(),
    etcd: await freePort(), peer: await freePort(), metrics: await freePort(),
  };
  return {
    name, prefix, ports, admin: join(prefix, 'etc/kubernetes/admin.conf'),
    args: ['--prefix', prefix, '--node-name', name, '--apiserver-advertise-address', '127.0.0.1', '--apiserver-bind-port', String(ports.api),
      '--kubelet-port', String(ports.kubelet), '--controller-manager-port', String(ports.cm), '--scheduler-port', String(ports.sched),
      '--etcd-client-port', String(ports.etcd), '--etcd-peer-port', String(ports.peer), '--etcd-metrics-port', String(ports.metrics), '--runtime', 'process'],
  };
}

/** etcdctl with a node's healthcheck client pair (kubeadm's own etcd checks connect so). */
async function etcdctl(node: CPNode, args: string[]): Promise<string> {
  const pki = join(node.prefix, 'etc/kubernetes/pki');
  const { stdout } = await run('etcdctl', ['--endpoints', `https://127.0.0.1:${node.ports.etcd}`, '--cacert', join(pki, 'etcd/ca.crt'),
    '--cert', join(pki, 'etcd/healthcheck-client.crt'), '--key', join(pki, 'etcd/healthcheck-client.key'), '--command-timeout=10s', ...args],
  { env: { ...process.env, ETCDCTL_API: '3' } });
  return stdout;
}

const memberNames = async (node: CPNode) => (await etcdctl(node, ['member', 'list', '-w', 'json']).then((s) => JSON.parse(s) as { members: Array<{ name?: string }> }))
  .members.map((m) => m.name ?? '').sort();

/** SIGKILL of everything a node runs: its kubelet (and supervisor), then its pods' process groups. */
function killNode(node: CPNode): void {
  const kill = (pid: number) => { for (const p of [-pid, pid]) { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } } };
  kill(Number(readFileSync(join(node.prefix, 'var/lib/kubelet/k8ts-kubelet.pid'), 'utf8').trim()));
  for (const pod of listRecords(join(node.prefix, 'var/lib/kubelet'))) for (const i of pod.instances) kill(i.rec.pid);
}

interface LeaseSpec { holderIdentity?: string; renewTime?: string; acquireTime?: string; leaseDurationSeconds?: number; leaseTransitions?: number }

describe('kubeadm HA: three control planes on stacked etcd, and failover', () => {
  let lb: TCPBalancer;
  let nodes: CPNode[];
  let init: RunResult;
  let joinArgs: string[];

  before(async () => {
    lb = await startTCPBalancer();
    nodes = [await controlPlaneNode('cp1'), await controlPlaneNode('cp2'), await controlPlaneNode('cp3')];
    lb.backends.push(...nodes.map((n) => ({ host: '127.0.0.1', port: n.ports.api })));
    init = await k8ts(['init', ...nodes[0]!.args, '--control-plane-endpoint', `127.0.0.1:${lb.port}`, '--upload-certs']);
  });
  after(async () => {
    for (const n of [...nodes].reverse()) {
      await k8ts(['reset', '--force', '--prefix', n.prefix]);
      rmSync(n.prefix, { recursive: true, force: true });
    }
    await lb.close();
  });

  const kc = (args: string[], node = nodes[1]!) => kubectl(node.admin, args);

  it('init prints kubeadm\'s control-plane join command with the certificate key; kubeconfigs name the endpoint', () => {
    assert.equal(init.code, 0, init.stderr + init.stdout);
    const m = new RegExp(`You can now join any number of control-plane nodes running the following command on each as root:\\n\\n`
      + `  k8ts join 127\\.0\\.0\\.1:${lb.port} --token (\\S+) \\\\\\n\\t--discovery-token-ca-cert-hash (sha256:[0-9a-f]{64}) \\\\\\n`
      + `\\t--control-plane --certificate-key ([0-9a-f]{64})\\n\\nPlease note that the certificate-key gives access to cluster sensitive data, keep it secret!`).exec(init.stdout);
    assert.ok(m, init.stdout);
    joinArgs = ['join', `127.0.0.1:${lb.port}`, '--token', m[1]!, '--discovery-token-ca-cert-hash', m[2]!, '--control-plane', '--certificate-key', m[3]!];
    const etc = join(nodes[0]!.prefix, 'etc/kubernetes');
    const server = (f: string) => parse(readFileSync(join(etc, f), 'utf8')).clusters[0].cluster.server;
    assert.equal(server('admin.conf'), `https://127.0.0.1:${lb.port}`);
    assert.equal(server('kubelet.conf'), `https://127.0.0.1:${lb.port}`);
    assert.equal(server('controller-manager.conf'), `https://127.0.0.1:${nodes[0]!.ports.api}`, 'the controller manager talks to its own API server');
    assert.equal(server('scheduler.conf'), `https://127.0.0.1:${nodes[0]!.ports.api}`);
  });

  it('join --control-plane refuses a wrong certificate key with kubeadm\'s words and leaves no etcd member', async () => {
    const bad = [...joinArgs];
    bad[bad.length - 1] = 'ab'.repeat(32);
    const r = await k8ts([...bad, ...nodes[1]!.args]);
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stderr, /^error execution phase control-plane-prepare: error downloading certs: error decoding secret data with provided key: cipher: message authentication failed$/m);
    assert.deepEqual(await memberNames(nodes[0]!), ['cp1']);
    const noKey = await k8ts(['join', ...joinArgs.slice(1, 7), '--certificate-key', 'xyz', ...nodes[1]!.args]);
    assert.equal(noKey.code, 1);
    assert.match(noKey.stderr, /error decoding certificate key: encoding\/hex: invalid byte/);
  });

  it('two more control planes join: kubeadm\'s phases, a stacked etcd member each, Ready and marked control-plane', async () => {
    for (const n of nodes.slice(1)) {
      const r = await k8ts([...joinArgs, ...n.args]);
      assert.equal(r.code, 0, r.stderr + r.stdout);
      for (const line of [
        '[preflight] Running pre-flight checks before initializing the new control plane instance',
        '[download-certs] Downloading the certificates in Secret "kubeadm-certs" in the "kube-system" Namespace',
        '[certs] Using existing ca certificate and key on disk',
        '[certs] Using existing etcd/ca certificate authority',
        '[check-etcd] Checking that the etcd cluster is healthy',
        '[etcd] Announced new etcd member joining to the existing etcd cluster',
        '[etcd] Creating static Pod manifest for "etcd"',
        `[mark-control-plane] Marking the node ${n.name} as control-plane by adding the taints [node-role.kubernetes.io/control-plane:NoSchedule]`,
        'This node has joined the cluster and a new control plane instance was created:',
      ]) assert.ok(r.stdout.includes(line), `missing: ${line}\n${r.stdout}`);
      const etcdYaml = parse(readFileSync(join(n.prefix, 'etc/kubernetes/manifests/etcd.yaml'), 'utf8'));
      assert.ok(etcdYaml.spec.containers[0].command.includes('--initial-cluster-state=existing'));
    }
    assert.deepEqual(await memberNames(nodes[0]!), ['cp1', 'cp2', 'cp3']);
    for (const n of nodes) {
      await eventually(async () => {
        const r = await kc(['get', 'node', n.name, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status} {.spec.taints[0].key}']);
        return r.stdout === 'True node-role.kubernetes.io/control-plane';
      }, 120_000, `${n.name} Ready and tainted`);
      for (const c of ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler']) {
        await eventually(async () => (await kc(['get', 'pod', '-n', 'kube-system', `${c}-${n.name}`, '-o', 'jsonpath={.status.phase}'])).stdout === 'Running',
          120_000, `${c}-${n.name} Running`);
      }
    }
  });

  it('reset on a control plane removes its etcd member; it joins again', async () => {
    const cp3 = nodes[2]!;
    const r = await k8ts(['reset', '--force', '--prefix', cp3.prefix]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^\[reset\] Removed the etcd member https:\/\/127\.0\.0\.1:\d+ \(ID [0-9a-f]+\) from the etcd cluster$/m, r.stderr);
    assert.deepEqual(await memberNames(nodes[0]!), ['cp1', 'cp2']);
    assert.equal((await kc(['delete', 'node', cp3.name])).code, 0);
    const again = await k8ts([...joinArgs, ...cp3.args]);
    assert.equal(again.code, 0, again.stderr + again.stdout);
    assert.deepEqual(await memberNames(nodes[0]!), ['cp1', 'cp2', 'cp3']);
  });

  it('SIGKILL of the leading controller manager\'s node: the Leases move, new pods are scheduled once, nothing is lost', async () => {
    const lease = async (name: string): Promise<LeaseSpec> => JSON.parse((await kc(['get', 'lease', '-n', 'kube-system', name, '-o', 'json'])).stdout).spec;
    let before!: LeaseSpec;
    await eventually(async () => { before = await lease('kube-controller-manager'); return !!before.holderIdentity; }, 60_000, 'a controller manager leads');
    // The holder's node: its controller manager logged the identity it leads with.
    const leaders = nodes.filter((n) => grepLogs(n, before.holderIdentity!));
    assert.equal(leaders.length, 1, `the nodes whose controller manager logged ${before.holderIdentity}: ${leaders.map((n) => n.name)}`);
    const leader = leaders[0]!;
    const survivors = nodes.filter((n) => n !== leader);
    for (let i = 0; i < 20; i++) assert.equal((await kc(['create', 'configmap', `kept-${i}`, '--from-literal=i=' + i], survivors[0])).code, 0);
    const killedAt = Date.now();
    killNode(leader);
    let after!: LeaseSpec;
    let last: RunResult | undefined;
    await eventually(async () => {
      last = await kc(['get', 'lease', '-n', 'kube-system', 'kube-controller-manager', '-o', 'json'], survivors[0]);
      after = last.code === 0 ? JSON.parse(last.stdout).spec : {};
      return !!after.holderIdentity && after.holderIdentity !== before.holderIdentity;
    }, 120_000, 'another controller manager takes the Lease').catch(async (e: Error) => {
      const pods = await kc(['get', 'pods', '-n', 'kube-system', '-o', 'wide'], survivors[0]);
      const health = await etcdctl(survivors[0]!, ['endpoint', 'health', '--cluster']).catch((err: { stdout?: string; stderr?: string }) => `${err.stdout}${err.stderr}`);
      throw new Error(`${e.message}; killed ${leader.name}; last: ${JSON.stringify(last)}\n${pods.stdout}${pods.stderr}\n${health}`);
    });
    const tookOver = Date.now() - killedAt;
    // Never before the old holder's lease ran out (no two leaders), and it counts as a transition.
    assert.ok(Date.parse(after.acquireTime!) >= Date.parse(before.renewTime!) + (before.leaseDurationSeconds! * 1000) - 1000,
      `acquired ${after.acquireTime} before the old lease (renewed ${before.renewTime}) expired`);
    assert.equal(after.leaseTransitions, (before.leaseTransitions ?? 0) + 1);
    console.log(`# controller-manager Lease taken over ${tookOver} ms after SIGKILL (lease duration ${before.leaseDurationSeconds}s)`);
    // The API through the endpoint: reads and writes answered by the survivors' API servers and etcd members.
    const cms = await kc(['get', 'configmaps', '-o', 'name'], survivors[0]);
    for (let i = 0; i < 20; i++) assert.ok(cms.stdout.includes(`configmap/kept-${i}\n`), `kept-${i} lost:\n${cms.stdout}`);
    assert.equal((await kc(['create', 'configmap', 'after-failover'], survivors[1])).code, 0);
    // A Deployment made now: its ReplicaSet and pods come from the new controller manager, their nodes from the (new) scheduler.
    const dep = `apiVersion: apps/v1
kind: Deployment
metadata: {name: after-failover, namespace: default}
spec:
  replicas: 3
  selector: {matchLabels: {app: after-failover}}
  template:
    metadata: {labels: {app: after-failover}}
    spec:
      tolerations: [{key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}]
      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/hostname, operator: NotIn, values: [${leader.name}]}]}]}}}
      containers: [{name: sleep, image: busybox, command: [sleep, '3600']}]
`;
    const apply = await applyStdin(survivors[0]!.admin, dep);
    assert.equal(apply.code, 0, apply.stderr);
    await eventually(async () => {
      const r = await kc(['get', 'pods', '-l', 'app=after-failover', '-o', 'jsonpath={range .items[*]}{.spec.nodeName}{"\\n"}{end}'], survivors[0]);
      const placed = r.stdout.split('\n').filter(Boolean);
      return placed.length === 3 && placed.every((n) => survivors.some((s) => s.name === n));
    }, 120_000, 'three pods scheduled on the surviving control planes');
    // No pod bound twice: one Scheduled event per pod.
    const events = JSON.parse((await kc(['get', 'events', '--field-selector', 'reason=Scheduled', '-o', 'json'], survivors[0])).stdout).items as Array<{ involvedObject: { name: string } }>;
    const perPod = new Map<string, number>();
    for (const e of events) perPod.set(e.involvedObject.name, (perPod.get(e.involvedObject.name) ?? 0) + 1);
    assert.ok([...perPod.values()].every((c) => c === 1), JSON.stringify([...perPod]));
    assert.equal([...perPod.keys()].filter((p) => p.startsWith('after-failover-')).length, 3);
    // etcd: the survivors still make a quorum of the three members.
    const health = await etcdctl(survivors[0]!, ['endpoint', 'health', '--cluster', '-w', 'json']).catch((e: { stdout?: string }) => e.stdout ?? '[]');
    assert.equal((JSON.parse(health) as Array<{ health: boolean }>).filter((h) => h.health).length, 2, health);
  });
});

/**
 * Whether the node's controller manager logged `identity` (it logs the identity it leads with). Only its
 * own pod logs: etcd's data and log name the Lease's holder on every node.
 */
function grepLogs(node: CPNode, identity: string): boolean {
  const pods = join(node.prefix, 'var/log/pods');
  const dirs = readdirSync(pods).filter((d) => d.startsWith('kube-system_kube-controller-manager-')).map((d) => join(pods, d));
  if (dirs.length === 0) return false;
  try {
    return execFileSync('grep', ['-rlF', identity, ...dirs], { encoding: 'utf8' }).trim() !== '';
  } catch { return false; }
}

function applyStdin(kubeconfig: string, manifest: string): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = execFile('kubectl', ['--kubeconfig', kubeconfig, 'apply', '-f', '-'], (err, stdout, stderr) => resolve({ stdout, stderr, code: err ? 1 : 0 }));
    child.stdin!.end(manifest);
  });
}
