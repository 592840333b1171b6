/**
 * Resource metrics on a real node (issue #7): the kubelet measures its
 * containers through containerd's CRI stats and the machine through /proc,
 * serves /stats/summary, and the API server serves metrics.k8s.io from it,
 * so the real `kubectl top` works. Arrangement as cri.test.ts: a private
 * containerd in its own network namespace, the agent and kubectl on loopback.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, startCluster, eventually, type Cluster } from './harness.js';
import { nodeReady, startCRIAgent, type CRIAgent } from './real-node.js';
import { startContainerd, busyboxImage, type PrivateContainerd } from './containerd.js';

const nodeName = 'metrics-node';
/** A node of the process runtime (containers are host process groups) and a simulated one (usage from its model). */
const procNode = 'metrics-proc';
const simNode = 'metrics-sim';
let cluster: Cluster | undefined;
let ctrd: PrivateContainerd | undefined;
let agent: CRIAgent | undefined;
const others: ChildProcess[] = [];
const work = mkdtempSync(join(tmpdir(), 'k8ts-e2e-metrics-'));
/** Marks the process runtime's busy loop, so after() can find it if the agent left it behind. */
const marker = `k8ts-metrics-e2e-${process.pid}`;

function podJSON(name: string, containers: { name: string; command: string[] }[], labels: Record<string, string> = {}, node = nodeName): string {
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels },
    spec: { nodeName: node, terminationGracePeriodSeconds: 1, containers: containers.map((c) => ({ image: busyboxImage, ...c })) },
  });
}

function startAgent(node: string, runtime: 'process' | 'simulated'): ChildProcess {
  const proc = spawn(process.execPath, [
    cliPath, 'agent', '--kubeconfig', cluster!.kubeconfig, '--runtime', runtime, '--node-name', node, '--node-ip', '127.0.0.1',
    '--root-dir', join(work, node), '--pod-logs-dir', join(work, `${node}-pods`), '--address', '127.0.0.1', '--kubelet-port', '0',
  ], { stdio: 'ignore' });
  others.push(proc);
  return proc;
}

async function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  await exited;
}

/** Pids of processes whose command line carries the marker (the process runtime leaves containers running when it stops). */
function markedPids(): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try { if (readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(marker)) out.push(Number(d)); } catch { /* gone */ }
  }
  return out;
}

const busy = ['sh', '-c', 'while true; do :; done'];
const idle = ['sh', '-c', 'sleep 3600'];

async function running(name: string): Promise<void> {
  await eventually(async () => JSON.parse((await cluster!.kubectl(['get', 'pod', name, '-o', 'json'])).stdout).status?.phase === 'Running', 60_000, `${name} Running`);
}

/** `kubectl top` output as rows of columns, header first. */
const rows = (out: string) => out.trim().split('\n').map((l) => l.trim().split(/\s+/));

before(async () => {
  ctrd = await startContainerd();
  cluster = await startCluster({ controllers: 'root-ca-cert-publisher,clusterrole-aggregation' });
  agent = startCRIAgent({ cluster, ctrd, nodeName, work });
  await nodeReady(cluster, nodeName, 60_000);
  await cluster.kubectl(['create', '-f', '-'], { input: podJSON('spinner', [{ name: 'spin', command: busy }, { name: 'nap', command: idle }], { app: 'spin', e2e: 'top' }) });
  await cluster.kubectl(['create', '-f', '-'], { input: podJSON('sleeper', [{ name: 'main', command: idle }], { app: 'sleep', e2e: 'top' }) });
  startAgent(procNode, 'process');
  startAgent(simNode, 'simulated');
  await nodeReady(cluster, procNode, 60_000);
  await nodeReady(cluster, simNode, 60_000);
  await cluster.kubectl(['create', '-f', '-'], { input: podJSON('proc-spinner', [{ name: 'spin', command: ['sh', '-c', `while :; do :; done # ${marker}`] }], {}, procNode) });
  await cluster.kubectl(['create', '-f', '-'], { input: podJSON('sim-pod', [{ name: 'main', command: idle }], {}, simNode) });
  await running('spinner');
  await running('sleeper');
  await running('proc-spinner');
  await running('sim-pod');
});

after(async () => {
  await cluster?.kubectl(['delete', 'pod', 'proc-spinner', '--wait=true', '--timeout=60s'], { allowFail: true }).catch(() => {});
  for (const p of others) await stopProcess(p).catch(() => {});
  for (const pid of markedPids()) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
  await agent?.stop().catch(() => {});
  await cluster?.cleanup().catch(() => {});
  await ctrd?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('resource metrics (kubelet summary, metrics.k8s.io, kubectl top)', () => {
  test('the kubelet summary has the node and each container, with a CPU rate once sampled twice', async () => {
    const summary = await eventually(async () => {
      const r = await cluster!.kubectl(['get', '--raw', `/api/v1/nodes/${nodeName}/proxy/stats/summary`], { allowFail: true });
      if (r.code !== 0) return false;
      const s = JSON.parse(r.stdout);
      const spinner = s.pods.find((p: any) => p.podRef.name === 'spinner');
      return spinner?.containers?.length === 2 && spinner.containers.every((c: any) => c.cpu?.usageNanoCores !== undefined) && s.node.cpu?.usageNanoCores !== undefined && s;
    }, 90_000, 'summary with rates');
    assert.equal(summary.node.nodeName, nodeName);
    assert.ok(summary.node.memory.workingSetBytes > 0);
    assert.ok(summary.node.cpu.usageCoreNanoSeconds > 0);
    const spinner = summary.pods.find((p: any) => p.podRef.name === 'spinner');
    assert.deepEqual(spinner.containers.map((c: any) => c.name), ['nap', 'spin']);
    const spin = spinner.containers.find((c: any) => c.name === 'spin');
    assert.ok(spin.cpu.usageNanoCores > 100_000_000, `a busy loop uses more than 0.1 core: ${spin.cpu.usageNanoCores}`);
    assert.ok(spin.memory.workingSetBytes > 0 && spin.memory.workingSetBytes < 512 * 1024 * 1024, `busybox sh working set ${spin.memory.workingSetBytes}`);
    const metrics = (await cluster!.kubectl(['get', '--raw', `/api/v1/nodes/${nodeName}/proxy/metrics/resource`])).stdout;
    assert.match(metrics, /^container_cpu_usage_seconds_total\{container="spin",namespace="default",pod="spinner"\} [\d.e+]+ \d+$/m);
    assert.match(metrics, /^node_memory_working_set_bytes \d+ \d+$/m);
    assert.match(metrics, /^scrape_error 0$/m);
  });

  test('metrics.k8s.io is discovered (legacy and aggregated) and serves NodeMetrics and PodMetrics', async () => {
    const groups = JSON.parse((await cluster!.kubectl(['get', '--raw', '/apis'])).stdout);
    assert.deepEqual(groups.groups.find((g: any) => g.name === 'metrics.k8s.io')?.preferredVersion, { groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1' });
    const resources = (await cluster!.kubectl(['api-resources', '--api-group', 'metrics.k8s.io'])).stdout;
    assert.match(resources, /^nodes\s+metrics\.k8s\.io\/v1beta1\s+false\s+NodeMetrics$/m);
    assert.match(resources, /^pods\s+metrics\.k8s\.io\/v1beta1\s+true\s+PodMetrics$/m);
    const pm = await eventually(async () => {
      const r = await cluster!.kubectl(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/spinner'], { allowFail: true });
      return r.code === 0 && JSON.parse(r.stdout);
    }, 60_000, 'spinner PodMetrics');
    assert.equal(pm.kind, 'PodMetrics');
    assert.equal(pm.window, '10s');
    assert.deepEqual(pm.metadata.labels, { app: 'spin', e2e: 'top' });
    assert.match(pm.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(pm.containers.map((c: any) => c.name), ['nap', 'spin']);
    for (const c of pm.containers) {
      assert.match(c.usage.cpu, /^\d+[num]?$/);
      assert.match(c.usage.memory, /^\d+(Ki|Mi)?$/);
    }
    const nodes = JSON.parse((await cluster!.kubectl(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/nodes'])).stdout);
    assert.equal(nodes.kind, 'NodeMetricsList');
    const names = nodes.items.map((n: any) => n.metadata.name);
    assert.ok(names.includes(nodeName), `NodeMetrics of ${names}: the containerd node is measured`);
    const one = JSON.parse((await cluster!.kubectl(['get', '--raw', `/apis/metrics.k8s.io/v1beta1/nodes/${nodeName}`])).stdout);
    assert.equal(one.kind, 'NodeMetrics');
    assert.match(one.usage.cpu, /^\d+[num]?$/);
    assert.match(one.usage.memory, /^\d+(Ki|Mi)?$/);
    const selected = JSON.parse((await cluster!.kubectl(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?labelSelector=app%3Dsleep'])).stdout);
    assert.deepEqual(selected.items.map((p: any) => p.metadata.name), ['sleeper']);
    const missing = await cluster!.kubectl(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/nope'], { allowFail: true });
    assert.notEqual(missing.code, 0);
    // metrics-server's pod lister answers for a pod it does not know.
    assert.match(missing.stderr, /pods "nope" not found/);
  });

  test('kubectl top nodes lists the node with its CPU and memory', async () => {
    const out = (await cluster!.kubectl(['top', 'nodes'])).stdout;
    const [header, ...lines] = rows(out);
    assert.deepEqual(header, ['NAME', 'CPU(cores)', 'CPU(%)', 'MEMORY(bytes)', 'MEMORY(%)']);
    const row = lines.find((l) => l[0] === nodeName);
    assert.ok(row, out);
    assert.match(row[1], /^\d+m$/);
    assert.match(row[2], /^\d+%$/);
    assert.match(row[3], /^\d+Mi$/);
    assert.ok(Number(row[3].replace('Mi', '')) > 0);
  });

  test('kubectl top pods: the busy loop shows CPU, memory is plausible; --containers and --sort-by', async () => {
    const spinnerCPU = await eventually(async () => {
      const r = await cluster!.kubectl(['top', 'pods'], { allowFail: true });
      const row = r.code === 0 && rows(r.stdout).find((l) => l[0] === 'spinner');
      return row && Number(row[1].replace('m', '')) >= 100 && row;
    }, 60_000, 'spinner CPU >= 100m in kubectl top pods');
    assert.match(spinnerCPU[2], /^\d+Mi$/);
    assert.ok(Number(spinnerCPU[2].replace('Mi', '')) < 512, `memory ${spinnerCPU[2]}`);
    const sorted = rows((await cluster!.kubectl(['top', 'pods', '-l', 'e2e=top', '--sort-by', 'cpu'])).stdout).slice(1).map((l) => l[0]);
    assert.deepEqual(sorted, ['spinner', 'sleeper']);
    const containers = rows((await cluster!.kubectl(['top', 'pods', 'spinner', '--containers'])).stdout);
    assert.deepEqual(containers[0], ['POD', 'NAME', 'CPU(cores)', 'MEMORY(bytes)']);
    assert.deepEqual(containers.slice(1).map((l) => [l[0], l[1]]).sort(), [['spinner', 'nap'], ['spinner', 'spin']]);
    const spin = containers.find((l) => l[1] === 'spin')!;
    assert.ok(Number(spin[2].replace('m', '')) >= 100, `spin ${spin[2]}`);
    const labelled = rows((await cluster!.kubectl(['top', 'pods', '-l', 'app=sleep'])).stdout).slice(1).map((l) => l[0]);
    assert.deepEqual(labelled, ['sleeper']);
    const all = rows((await cluster!.kubectl(['top', 'pods', '-A'])).stdout);
    assert.deepEqual(all[0], ['NAMESPACE', 'NAME', 'CPU(cores)', 'MEMORY(bytes)']);
  });

  test('pods without metrics: a finished pod and a missing one are not found, in metrics-server\'s words (its pod lister sees only Running pods)', async () => {
    await cluster!.kubectl(['create', '-f', '-'], { input: JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'done', namespace: 'default', labels: { e2e: 'top' } },
      spec: { nodeName, restartPolicy: 'Never', containers: [{ name: 'main', image: busyboxImage, command: ['true'] }] },
    }) });
    await eventually(async () => JSON.parse((await cluster!.kubectl(['get', 'pod', 'done', '-o', 'json'])).stdout).status?.phase === 'Succeeded', 60_000, 'done Succeeded');
    const done = await cluster!.kubectl(['top', 'pod', 'done'], { allowFail: true });
    assert.notEqual(done.code, 0);
    assert.equal(done.stderr, 'Error from server (NotFound): pods "done" not found\n');
    const listed = rows((await cluster!.kubectl(['top', 'pods', '-l', 'e2e=top'])).stdout).slice(1).map((l) => l[0]).sort();
    assert.deepEqual(listed, ['sleeper', 'spinner'], 'a list leaves out the pod without metrics');
    const absent = await cluster!.kubectl(['top', 'pod', 'absent'], { allowFail: true });
    assert.notEqual(absent.code, 0);
    assert.equal(absent.stderr, 'Error from server (NotFound): pods "absent" not found\n');
  });

  test('RBAC: system:aggregated-metrics-reader is aggregated into view, so a viewer may read pod metrics', async () => {
    const reader = JSON.parse((await cluster!.kubectl(['get', 'clusterrole', 'system:aggregated-metrics-reader', '-o', 'json'])).stdout);
    assert.deepEqual(reader.rules, [{ apiGroups: ['metrics.k8s.io'], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] }]);
    await cluster!.kubectl(['create', 'rolebinding', 'viewer', '--clusterrole=view', '--user=viewer', '-n', 'default']);
    await eventually(async () => (await cluster!.kubectl(['auth', 'can-i', 'list', 'pods.metrics.k8s.io', '--as', 'viewer', '-n', 'default'], { allowFail: true })).stdout.trim() === 'yes', 60_000, 'view aggregates the metrics reader');
    const top = await cluster!.kubectl(['top', 'pods', '--as', 'viewer', '-l', 'app=sleep']);
    assert.equal(rows(top.stdout)[1]?.[0], 'sleeper');
    const elsewhere = await cluster!.kubectl(['auth', 'can-i', 'list', 'pods.metrics.k8s.io', '--as', 'viewer', '-n', 'kube-system'], { allowFail: true });
    assert.equal(elsewhere.stdout.trim(), 'no');
  });

  test('every runtime: a process runtime pod shows its CPU; a simulated node and its pods show their modelled usage', async () => {
    const row = await eventually(async () => {
      const r = await cluster!.kubectl(['top', 'pod', 'proc-spinner'], { allowFail: true });
      const line = r.code === 0 && rows(r.stdout)[1];
      return line && Number(line[1].replace('m', '')) >= 100 && line;
    }, 60_000, 'proc-spinner CPU >= 100m');
    assert.match(row[2], /^\d+Mi$/);
    await eventually(async () => {
      const r = rows((await cluster!.kubectl(['top', 'nodes'])).stdout);
      return r.find((l) => l[0] === procNode)?.[1]?.endsWith('m');
    }, 60_000, 'the process node has metrics');
    // A simulated node that serves the kubelet API (k8ts agent --runtime simulated, as k8ts up's) reports the usage its
    // model gives (runtime/simulated/usage-model.ts: the system's 20m and 192Mi plus its pods'), as numbers, not <unknown>.
    const simRow = await eventually(async () => {
      const r = rows((await cluster!.kubectl(['top', 'nodes'])).stdout).find((l) => l[0] === simNode);
      return r?.[1]?.endsWith('m') && r;
    }, 60_000, 'the simulated node has modelled usage');
    assert.match(simRow.slice(1).join(' '), /^\d+m \d+% \d+Mi \d+%$/);
    const simPod = await eventually(async () => {
      const r = await cluster!.kubectl(['top', 'pod', 'sim-pod'], { allowFail: true });
      return r.code === 0 && rows(r.stdout)[1];
    }, 60_000, 'sim-pod has modelled usage');
    assert.equal(simPod[0], 'sim-pod');
    assert.match(simPod.slice(1).join(' '), /^\d+m \d+(Ki|Mi)$/);
  });
});
