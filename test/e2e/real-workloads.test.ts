/**
 * The seed workloads on real containers (issue #7): the whole system
 * (server with every controller and the scheduler) and two real agents,
 * real-a registered as a control-plane node (tainted
 * node-role.kubernetes.io/control-plane:NoSchedule) and real-b a worker,
 * both running pods as containers of ONE private containerd (containerd.ts).
 * The CRI runtime labels each sandbox with its node name, so each agent
 * only sees and cleans its own pods.
 *
 * The seed manifests are used as written, except what cannot exist here:
 *  - their images (fluentd, nginx, monitoring-agent) are not on this
 *    machine, so each container runs k8ts.local/busybox:1 with a loop that
 *    writes where the real program would (a log into the hostPath, a page
 *    into the StatefulSet's volume) and exits on SIGTERM;
 *  - fluentd's hostPath /var/log is the machine's own log directory, shared
 *    by other workers: it becomes a directory of this test. Both agents run
 *    on this one host, so each pod writes a file named after its node.
 *
 * The StatefulSet's claims are provisioned by the built-in local-path
 * provisioner as hostPath volumes (type DirectoryOrCreate) under
 * /var/lib/k8ts/storage/<pv>_<namespace>_<claim>; the server makes
 * directories only for a node named like this host, so the kubelet creates
 * them when it mounts the claim (src/kubelet/runtime/cri/claims.ts). The
 * test removes them at the end.
 *
 * Pod addresses (10.244.x) exist only in containerd's network namespace:
 * nothing here sends traffic to them.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { startCluster, eventually, seedsDir, type Cluster } from './harness.js';
import { startCRIAgent, type CRIAgent } from './real-node.js';
import { seedManifests } from './seed-manifests.js';
import { startContainerd, busyboxImage, type PrivateContainerd } from './containerd.js';
import { labelNodeName } from '../../src/kubelet/runtime/cri/config.js';

const work = mkdtempSync(join(tmpdir(), 'k8ts-e2e-real-'));
const varLog = join(work, 'var-log');
mkdirSync(varLog);
const nodes = ['real-a', 'real-b'] as const;
let cluster: Cluster | undefined;
let ctrd: PrivateContainerd | undefined;
const agents = new Map<string, CRIAgent>();
const volumeDirs: string[] = [];

function startAgent(name: string, controlPlane: boolean): void {
  agents.set(name, startCRIAgent({ cluster: cluster!, ctrd: ctrd!, nodeName: name, work: join(work, name), extraArgs: controlPlane ? ['--control-plane'] : [] }));
}

async function stopAgents(): Promise<void> {
  for (const a of agents.values()) await a.stop();
}

/** A shell loop standing in for the seed's program: exits at once on SIGTERM. */
const loop = (body: string): string[] => ['sh', '-c', `trap 'exit 0' TERM\n${body}\nwhile true; do sleep 1 & wait $!; done`];

function seed(kind: string, name: string, has?: (o: any) => boolean): any {
  const found = seedManifests(seedsDir).find((m) => m.obj.kind === kind && m.obj.metadata.name === name && (!has || has(m.obj)));
  assert.ok(found, `seed ${kind}/${name}`);
  return structuredClone(found.obj);
}

async function pods(selector: string, namespace = 'default'): Promise<Pod[]> {
  return JSON.parse((await cluster!.kubectl(['get', 'pods', '-n', namespace, '-l', selector, '-o', 'json'])).stdout).items;
}

const running = (p: Pod) => p.status?.phase === 'Running' && !p.metadata?.deletionTimestamp && /^containerd:\/\/[0-9a-f]{64}$/.test(p.status?.containerStatuses?.[0]?.containerID ?? '');
const ready = (p: Pod) => running(p) && p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');

/** Running containers containerd holds in a node's sandboxes (the node label is on the sandbox). */
async function containersOn(node: string): Promise<number> {
  const sandboxes = new Set((await ctrd!.client.listPodSandbox({ labelSelector: { [labelNodeName]: node } })).map((s) => s.id));
  const containers = await ctrd!.client.listContainers({ state: { state: 'CONTAINER_RUNNING' } });
  return containers.filter((c) => sandboxes.has(c.podSandboxId)).length;
}

/** What a failure message needs: the objects, the pods' events, the agents' last log lines. */
async function diagnose(): Promise<string> {
  const get = await cluster!.kubectl(['get', 'pods,pvc,pv', '-A', '-o', 'wide'], { allowFail: true });
  const events = await cluster!.kubectl(['get', 'events', '-A'], { allowFail: true });
  const logs = [...agents].map(([n, a]) => `--- ${n}\n${a.log().split('\n').filter((l) => /warn|error/.test(l)).slice(-15).join('\n')}`);
  return [get.stdout, events.stdout, ...logs].join('\n');
}

const apply = (obj: unknown) => cluster!.kubectl(['apply', '-f', '-'], { input: stringify(obj) });

before(async () => {
  ctrd = await startContainerd();
  cluster = await startCluster({ controllers: 'all' });
  startAgent('real-a', true);
  startAgent('real-b', false);
  for (const name of nodes) {
    await eventually(async () => {
      const r = await cluster!.kubectl(['get', 'node', name, '-o', 'json'], { allowFail: true });
      return r.code === 0 && JSON.parse(r.stdout).status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True');
    }, 30_000, `node ${name} Ready`);
  }
});

after(async () => {
  await stopAgents().catch(() => {});
  await cluster?.cleanup().catch(() => {});
  await ctrd?.stop();
  for (const d of volumeDirs) rmSync(d, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

describe('seed workloads on two real containerd nodes', () => {
  test('real-a carries the control-plane taint, real-b none', async () => {
    const taints = async (n: string) => JSON.parse((await cluster!.kubectl(['get', 'node', n, '-o', 'json'])).stdout).spec.taints ?? [];
    assert.deepEqual((await taints('real-a')).map((t: any) => `${t.key}:${t.effect}`), ['node-role.kubernetes.io/control-plane:NoSchedule']);
    assert.deepEqual(await taints('real-b'), []);
  });

  test('fluentd DaemonSet (tolerates the control plane) runs a real container on both nodes, each writing into its hostPath', async () => {
    const ds = seed('DaemonSet', 'fluentd-elasticsearch');
    const spec = ds.spec.template.spec;
    assert.equal(spec.volumes[0].hostPath.path, '/var/log');
    spec.volumes[0].hostPath.path = varLog;
    const c = spec.containers[0];
    c.image = busyboxImage;
    c.env = [{ name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }];
    c.command = loop('while true; do echo "$(date +%s) fluentd on $NODE_NAME" >> /var/log/fluentd-$NODE_NAME.log; sleep 1; done &');
    await apply(ds);
    const running2 = await eventually(async () => {
      const ps = (await pods('name=fluentd-elasticsearch', 'kube-system')).filter(running);
      return ps.length === 2 && ps;
    }, 60_000, 'fluentd Running on both nodes');
    assert.deepEqual(running2.map((p) => p.spec!.nodeName).sort(), ['real-a', 'real-b']);
    for (const n of nodes) {
      assert.ok(await containersOn(n) >= 1, `a running container on ${n}`);
      const file = join(varLog, `fluentd-${n}.log`);
      await eventually(async () => existsSync(file) && readFileSync(file, 'utf8').split('\n').filter((l) => l.endsWith(`fluentd on ${n}`)).length >= 2, 20_000, `${file} grows`);
    }
  });

  test('monitoring-daemon (no toleration) runs only on the untainted node', async () => {
    const ds = seed('DaemonSet', 'monitoring-daemon');
    const c = ds.spec.template.spec.containers[0];
    c.image = busyboxImage;
    c.command = loop('echo monitoring');
    ds.spec.template.spec.terminationGracePeriodSeconds = 5;
    await apply(ds);
    const ps = await eventually(async () => { const p = (await pods('app=monitoring-agent')).filter(running); return p.length === 1 && p; }, 60_000, 'monitoring-agent Running');
    assert.equal(ps[0].spec!.nodeName, 'real-b');
    const status = JSON.parse((await cluster!.kubectl(['get', 'ds', 'monitoring-daemon', '-o', 'json'])).stdout).status;
    assert.equal(status.desiredNumberScheduled, 1);
    assert.equal((await pods('app=monitoring-agent')).length, 1, 'no pod for the control-plane node');
    const logs = await eventually(async () => { const r = await cluster!.kubectl(['logs', ps[0].metadata!.name!], { allowFail: true }); return r.code === 0 && r.stdout; }, 10_000, 'logs');
    assert.equal(logs, 'monitoring\n');
  });

  test('kubectl taint NoExecute evicts the pods that do not tolerate it; removing the taint brings them back', async () => {
    const before = await containersOn('real-b');
    assert.ok(before >= 2);
    await cluster!.kubectl(['taint', 'nodes', 'real-b', 'key1=value1:NoExecute']);
    await eventually(async () => {
      const mon = await pods('app=monitoring-agent');
      const fl = (await pods('name=fluentd-elasticsearch', 'kube-system')).filter((p) => p.spec!.nodeName === 'real-b');
      return mon.length === 0 && fl.length === 0;
    }, 60_000, 'pods on real-b evicted');
    await eventually(async () => (await containersOn('real-b')) === 0, 30_000, 'real-b containers stopped in containerd');
    // real-a's fluentd is untouched.
    assert.equal((await pods('name=fluentd-elasticsearch', 'kube-system')).filter((p) => p.spec!.nodeName === 'real-a' && running(p)).length, 1);
    const ds = JSON.parse((await cluster!.kubectl(['get', 'ds', 'monitoring-daemon', '-o', 'json'])).stdout).status;
    assert.equal(ds.desiredNumberScheduled, 0);

    await cluster!.kubectl(['taint', 'nodes', 'real-b', 'key1=value1:NoExecute-']);
    await eventually(async () => {
      const mon = (await pods('app=monitoring-agent')).filter(running);
      const fl = (await pods('name=fluentd-elasticsearch', 'kube-system')).filter((p) => p.spec!.nodeName === 'real-b' && running(p));
      return mon.length === 1 && mon[0].spec!.nodeName === 'real-b' && fl.length === 1;
    }, 60_000, 'pods back on real-b');
    assert.ok(await containersOn('real-b') >= 2);
  });

  test('StatefulSet web (OrderedReady, local-path volumes) comes up in order; its data survives deleting a pod', async () => {
    const svc = seed('Service', 'nginx');
    const sts = seed('StatefulSet', 'web');
    assert.equal(sts.spec.podManagementPolicy, undefined, 'OrderedReady by default');
    const c = sts.spec.template.spec.containers[0];
    c.image = busyboxImage;
    c.command = loop('cat /usr/share/nginx/html/index.html 2>/dev/null; echo "served by $(hostname) $(date +%s)" >> /usr/share/nginx/html/index.html');
    sts.spec.template.spec.terminationGracePeriodSeconds = 5;
    await apply(svc);
    await apply(sts);

    // web-1 may only appear once web-0 is Running and Ready.
    await eventually(async () => {
      const ps = await pods('app=nginx');
      const w0 = ps.find((p) => p.metadata!.name === 'web-0');
      const w1 = ps.find((p) => p.metadata!.name === 'web-1');
      if (w1) assert.ok(w0 && ready(w0), 'web-1 created while web-0 was not Ready');
      return w0 && w1 && ready(w0) && ready(w1);
    }, 90_000, 'web-0 and web-1 Ready').catch(async (e) => { throw new Error(`${(e as Error).message}\n${await diagnose()}`); });
    // Not only sampled: the recorded times say web-1 was created no earlier than web-0 became Ready (second precision).
    const both = await pods('app=nginx');
    const first = both.find((p) => p.metadata!.name === 'web-0')!;
    const secondCreated = Date.parse(both.find((p) => p.metadata!.name === 'web-1')!.metadata!.creationTimestamp!);
    const firstReady = Date.parse(first.status!.conditions!.find((c) => c.type === 'Ready')!.lastTransitionTime!);
    assert.ok(secondCreated >= firstReady, `web-1 created at ${secondCreated}, web-0 Ready at ${firstReady}`);
    assert.equal(first.spec!.nodeName, 'real-b', 'the control-plane node is tainted NoSchedule');
    const pvc = JSON.parse((await cluster!.kubectl(['get', 'pvc', 'www-web-0', '-o', 'json'])).stdout);
    assert.equal(pvc.status.phase, 'Bound');
    const pv = JSON.parse((await cluster!.kubectl(['get', 'pv', pvc.spec.volumeName, '-o', 'json'])).stdout);
    const dir: string = pv.spec.hostPath?.path ?? pv.spec.local?.path;
    volumeDirs.push(dir);
    for (const n of ['www-web-1']) {
      const other = JSON.parse((await cluster!.kubectl(['get', 'pvc', n, '-o', 'json'])).stdout);
      const otherPv = JSON.parse((await cluster!.kubectl(['get', 'pv', other.spec.volumeName, '-o', 'json'])).stdout);
      volumeDirs.push(otherPv.spec.hostPath?.path ?? otherPv.spec.local?.path);
    }
    const page = join(dir, 'index.html');
    await eventually(async () => existsSync(page) && /^served by web-0 \d+\n$/.test(readFileSync(page, 'utf8')), 10_000, `${page} written`)
      .catch((e) => { throw new Error(`${(e as Error).message}: ${existsSync(page) ? JSON.stringify(readFileSync(page, 'utf8')) : 'no file'}`); });
    const firstLine = readFileSync(page, 'utf8');

    await cluster!.kubectl(['delete', 'pod', 'web-0', '--wait=false']); // the uid wait below, not kubectl 1.32's (docs/workloads.md)
    const second = await eventually(async () => {
      const p = (await pods('app=nginx')).find((x) => x.metadata!.name === 'web-0' && x.metadata!.uid !== first.metadata!.uid);
      return p && ready(p) && p;
    }, 60_000, 'web-0 recreated');
    assert.notEqual(second.status!.containerStatuses![0].containerID, first.status!.containerStatuses![0].containerID);
    // The new container printed what the old one wrote, then appended its own line.
    const logs = await eventually(async () => { const r = await cluster!.kubectl(['logs', 'web-0'], { allowFail: true }); return r.code === 0 && r.stdout.length > 0 && r.stdout; }, 10_000, 'web-0 logs');
    assert.equal(logs, firstLine);
    await eventually(async () => readFileSync(page, 'utf8').split('\n').filter((l) => l.startsWith('served by web-0 ')).length === 2, 10_000, 'second line');
  });
});
