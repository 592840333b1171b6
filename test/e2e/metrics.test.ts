/**
 * Resource metrics on a real node (issue #7): the kubelet measures its
 * containers through containerd's CRI stats and the machine through /proc,
 * serves /stats/summary, and the API server serves metrics.k8s.io from it,
 * so the real `kubectl top` works. Arrangement as cri.test.ts: a private
 * containerd in its own network namespace, the agent and kubectl on loopback.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, eventually, type Cluster } from './harness.js';
import { nodeReady, startCRIAgent, type CRIAgent } from './real-node.js';
import { startContainerd, busyboxImage, type PrivateContainerd } from './containerd.js';

const nodeName = 'metrics-node';
let cluster: Cluster | undefined;
let ctrd: PrivateContainerd | undefined;
let agent: CRIAgent | undefined;
const work = mkdtempSync(join(tmpdir(), 'k8ts-e2e-metrics-'));

function podJSON(name: string, containers: { name: string; command: string[] }[], labels: Record<string, string> = {}): string {
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels },
    spec: { nodeName, terminationGracePeriodSeconds: 1, containers: containers.map((c) => ({ image: busyboxImage, ...c })) },
  });
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
  cluster = await startCluster({ controllers: 'root-ca-cert-publisher' });
  agent = startCRIAgent({ cluster, ctrd, nodeName, work });
  await nodeReady(cluster, nodeName, 60_000);
  await cluster.kubectl(['create', '-f', '-'], { input: podJSON('spinner', [{ name: 'spin', command: busy }, { name: 'nap', command: idle }], { app: 'spin' }) });
  await cluster.kubectl(['create', '-f', '-'], { input: podJSON('sleeper', [{ name: 'main', command: idle }], { app: 'sleep' }) });
  await running('spinner');
  await running('sleeper');
});

after(async () => {
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
});
