/**
 * Resources on a real node: `k8ts agent --runtime cri` over a private
 * containerd (containerd.ts), watched with the real kubectl. The containers
 * read their own cgroup files (cgroup v2: memory.max, cpu.max; v1:
 * memory/memory.limit_in_bytes, cpu/cpu.cfs_quota_us ...) and their
 * oom_score_adj and print them to their log; a container that outgrows its
 * memory limit is OOM-killed and reported so.
 *
 * The private containerd sets restrict_oom_score_adj, so a Guaranteed
 * container's -997 is raised to containerd's own value; BestEffort (1000)
 * and Burstable scores are seen unchanged.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { startCluster, eventually, type Cluster } from './harness.js';
import { startContainerd, busyboxImage, type PrivateContainerd } from './containerd.js';
import { nodeReady, startCRIAgent, type CRIAgent } from './real-node.js';
import { containerOOMScoreAdjust } from '../../src/kubelet/runtime/cri/resources.js';

const nodeName = 'resources-node';
let cluster: Cluster | undefined;
let ctrd: PrivateContainerd | undefined;
let agent: CRIAgent | undefined;
const work = mkdtempSync(join(tmpdir(), 'k8ts-e2e-resources-'));

const getPod = async (name: string): Promise<any> => JSON.parse((await cluster!.kubectl(['get', 'pod', name, '-o', 'json'])).stdout);

/** Prints name=value for every cgroup file of interest that exists (v2 or v1 layout), then END. */
const printLimits = [
  'cd /sys/fs/cgroup',
  'for f in memory.max cpu.max cpu.weight memory/memory.limit_in_bytes cpu/cpu.cfs_quota_us cpu/cpu.cfs_period_us cpu/cpu.shares ' +
    'cpu,cpuacct/cpu.cfs_quota_us cpu,cpuacct/cpu.cfs_period_us cpu,cpuacct/cpu.shares; do [ -f $f ] && echo "$f=$(cat $f)"; done',
  'echo "oom_score_adj=$(cat /proc/self/oom_score_adj)"',
  'echo END',
  'sleep 3600',
].join('; ');

function podManifest(name: string, container: Partial<Container>, restartPolicy = 'Always'): Pod {
  return {
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
    spec: { nodeName, restartPolicy, terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: busyboxImage, ...container }] },
  } as Pod;
}

async function limitsOf(name: string, container: Partial<Container>): Promise<{ pod: any; values: Map<string, string> }> {
  await cluster!.kubectl(['create', '-f', '-'], { input: JSON.stringify(podManifest(name, { command: ['sh', '-c', printLimits], ...container })) });
  const out = await eventually(async () => {
    const r = await cluster!.kubectl(['logs', name], { allowFail: true });
    return r.code === 0 && r.stdout.includes('END') && r.stdout;
  }, 90_000, `${name} printed its limits`);
  const values = new Map(out.trim().split('\n').filter((l) => l.includes('=')).map((l) => {
    const [k, ...v] = l.split('=');
    return [k.replace(/^cpu,cpuacct\//, 'cpu/'), v.join('=')] as [string, string];
  }));
  return { pod: await getPod(name), values };
}

before(async () => {
  ctrd = await startContainerd();
  cluster = await startCluster({ controllers: 'root-ca-cert-publisher' });
  agent = startCRIAgent({ cluster, ctrd, nodeName, work });
  await nodeReady(cluster, nodeName, 60_000);
});

after(async () => {
  await agent?.stop();
  await cluster?.cleanup().catch(() => {});
  await ctrd?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('resources on the CRI runtime', () => {
  test('a Burstable container gets cpu shares, CFS quota, memory limit and its oom_score_adj', async () => {
    const resources = { requests: { cpu: '100m', memory: '32Mi' }, limits: { cpu: '500m', memory: '64Mi' } };
    const { pod, values } = await limitsOf('burstable', { resources });
    assert.equal(pod.status.qosClass, 'Burstable');
    if (values.has('memory.max')) {
      assert.equal(values.get('memory.max'), String(64 * 1024 * 1024));
      assert.equal(values.get('cpu.max'), '50000 100000');
    } else {
      assert.equal(values.get('memory/memory.limit_in_bytes'), String(64 * 1024 * 1024));
      assert.equal(values.get('cpu/cpu.cfs_quota_us'), '50000');
      assert.equal(values.get('cpu/cpu.cfs_period_us'), '100000');
      assert.equal(values.get('cpu/cpu.shares'), '102');
    }
    const want = containerOOMScoreAdjust(pod, pod.spec.containers[0], totalmem());
    assert.ok(want > 0 && want < 1000, `burstable score ${want}`);
    assert.equal(values.get('oom_score_adj'), String(want));
  });

  test('a BestEffort container: minimum shares, no quota, no memory limit, oom_score_adj 1000', async () => {
    const { pod, values } = await limitsOf('besteffort', {});
    assert.equal(pod.status.qosClass, 'BestEffort');
    if (values.has('memory.max')) {
      assert.equal(values.get('memory.max'), 'max');
      assert.match(values.get('cpu.max')!, /^max /);
    } else {
      assert.ok(BigInt(values.get('memory/memory.limit_in_bytes')!) > BigInt(totalmem()), 'no memory limit');
      assert.equal(values.get('cpu/cpu.cfs_quota_us'), '-1');
      assert.equal(values.get('cpu/cpu.shares'), '2');
    }
    assert.equal(values.get('oom_score_adj'), '1000');
  });

  test('a Guaranteed pod: limits set, qosClass Guaranteed, the lowest score containerd allows', async () => {
    const resources = { limits: { cpu: '250m', memory: '48Mi' } };
    const { pod, values } = await limitsOf('guaranteed', { resources });
    assert.equal(pod.status.qosClass, 'Guaranteed');
    assert.deepEqual(pod.spec.containers[0].resources.requests, { cpu: '250m', memory: '48Mi' }, 'requests defaulted from limits');
    const memory = values.get('memory.max') ?? values.get('memory/memory.limit_in_bytes');
    assert.equal(memory, String(48 * 1024 * 1024));
    assert.ok(Number(values.get('oom_score_adj')) <= 0, `restrict_oom_score_adj keeps -997 at containerd's own score: ${values.get('oom_score_adj')}`);
  });

  test('a container over its memory limit is OOMKilled (exit 137) and restarted per restartPolicy', async () => {
    const hog = { command: ['sh', '-c', 'x=aaaaaaaa; while true; do x=$x$x; done'], resources: { limits: { memory: '16Mi' } } };
    await cluster!.kubectl(['create', '-f', '-'], { input: JSON.stringify(podManifest('oom-always', hog)) });
    await cluster!.kubectl(['create', '-f', '-'], { input: JSON.stringify(podManifest('oom-never', hog, 'Never')) });
    const never = await eventually(async () => {
      const p = await getPod('oom-never');
      return p.status?.phase === 'Failed' && p;
    }, 90_000, 'oom-never Failed');
    const t = never.status.containerStatuses[0].state.terminated;
    assert.equal(t.reason, 'OOMKilled');
    assert.equal(t.exitCode, 137);
    assert.equal(never.status.containerStatuses[0].restartCount, 0);
    const always = await eventually(async () => {
      const p = await getPod('oom-always');
      const s = p.status?.containerStatuses?.[0];
      return s?.restartCount >= 1 && s.lastState?.terminated && p;
    }, 120_000, 'oom-always restarted');
    const s = always.status.containerStatuses[0];
    assert.equal(s.lastState.terminated.reason, 'OOMKilled');
    assert.equal(s.lastState.terminated.exitCode, 137);
    const table = (await cluster!.kubectl(['get', 'pod', 'oom-never'])).stdout;
    assert.match(table, /oom-never\s+0\/1\s+OOMKilled\s+0/);
  });
});
