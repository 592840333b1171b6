/** Requests and limits → CRI LinuxContainerResources, and the pod QoS class, with upstream's numbers. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import {
  containerOOMScoreAdjust, linuxContainerResources, milliCPUToQuota, milliCPUToShares,
} from '../../src/kubelet/runtime/cri/resources.js';
import { containerConfig } from '../../src/kubelet/runtime/cri/config.js';
import { podQOSClass } from '../../src/api/qos.js';

const gi = 1024 ** 3;
const container = (resources?: Container['resources'], extra: Partial<Container> = {}): Container => ({ name: 'c', image: 'busybox', resources, ...extra });
const pod = (containers: Container[], extra: Partial<NonNullable<Pod['spec']>> = {}): Pod => ({
  metadata: { name: 'p', namespace: 'default', uid: 'u' }, spec: { containers, ...extra },
});

describe('cpu shares and quota (cm.MilliCPUToShares, MilliCPUToQuota)', () => {
  for (const [milli, shares] of [[0, 2], [1, 2], [2, 2], [100, 102], [250, 256], [1000, 1024], [1500, 1536], [300_000, 262144]]) {
    it(`${milli}m → ${shares} shares`, () => assert.equal(milliCPUToShares(milli), shares));
  }
  for (const [milli, quota] of [[0, 0], [5, 1000], [10, 1000], [200, 20000], [500, 50000], [1000, 100000], [2500, 250000]]) {
    it(`limit ${milli}m → quota ${quota} per 100000`, () => assert.equal(milliCPUToQuota(milli, 100_000), quota));
  }
});

describe('linuxContainerResources', () => {
  it('requests 100m, limits 500m and 128Mi', () => {
    const c = container({ requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '500m', memory: '128Mi' } });
    assert.deepEqual(linuxContainerResources(pod([c]), c, 4 * gi), {
      cpuShares: 102, cpuPeriod: 100000, cpuQuota: 50000, memoryLimitInBytes: 128 * 1024 * 1024, oomScoreAdj: 985,
    });
  });
  it('no resources: minimum shares, no quota, no memory limit, BestEffort 1000', () => {
    const c = container();
    assert.deepEqual(linuxContainerResources(pod([c]), c, 4 * gi), { cpuShares: 2, cpuPeriod: 100000, cpuQuota: 0, memoryLimitInBytes: 0, oomScoreAdj: 1000 });
  });
  it('a cpu limit without a request: the request is the limit', () => {
    const c = container({ limits: { cpu: '1' } });
    const r = linuxContainerResources(pod([c]), c, 4 * gi);
    assert.deepEqual([r.cpuShares, r.cpuQuota], [1024, 100000]);
  });
  it('the container config carries them', () => {
    const c = container({ requests: { cpu: '250m' }, limits: { memory: '1Gi' } });
    const cfg = containerConfig({ pod: pod([c]), container: c, imageRef: 'sha256:x', restartCount: 0, mounts: [] }, { nodeName: 'n', podLogsDir: '/l', hostIP: '192.0.2.1' });
    assert.equal(cfg.linux!.resources!.cpuShares, 256);
    assert.equal(cfg.linux!.resources!.memoryLimitInBytes, gi);
  });
});

describe('oom_score_adj (qos.GetContainerOOMScoreAdjust)', () => {
  const guaranteed = container({ requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } });
  it('Guaranteed -997, BestEffort 1000', () => {
    assert.equal(containerOOMScoreAdjust(pod([guaranteed]), guaranteed, 4 * gi), -997);
    assert.equal(containerOOMScoreAdjust(pod([container()]), container(), 4 * gi), 1000);
  });
  it('Burstable: 1000 - 1000 × request / capacity, within [3, 999]', () => {
    const table: [string | undefined, number][] = [['1Gi', 750], [undefined, 999], ['4Gi', 3], ['8Gi', 3], ['1', 999], ['400Mi', 903]];
    for (const [memory, want] of table) {
      const c = container({ requests: { cpu: '100m', ...(memory ? { memory } : {}) } });
      assert.equal(containerOOMScoreAdjust(pod([c]), c, 4 * gi), want, `request ${memory}`);
    }
  });
  it('a node-critical pod is treated as Guaranteed', () => {
    const c = container();
    assert.equal(containerOOMScoreAdjust(pod([c], { priorityClassName: 'system-node-critical', priority: 2_000_001_000 }), c, 4 * gi), -997);
  });
  it('a sidecar counts at least the smallest regular memory request', () => {
    const side = container({ requests: { memory: '100Mi' } }, { name: 's', restartPolicy: 'Always' });
    const main = container({ requests: { memory: '1Gi' } });
    assert.equal(containerOOMScoreAdjust(pod([main], { initContainers: [side] }), side, 4 * gi), 750);
  });
});

describe('podQOSClass (GetPodQOS)', () => {
  const table: [string, Container[], string][] = [
    ['nothing', [container()], 'BestEffort'],
    ['zero requests', [container({ requests: { cpu: '0', memory: '0' } })], 'BestEffort'],
    ['equal requests and limits', [container({ requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1000m', memory: '1Gi' } })], 'Guaranteed'],
    // The API server's defaulting copies limits into requests first; GetPodQOS itself does not.
    ['limits only, not defaulted', [container({ limits: { cpu: '1', memory: '1Gi' } })], 'Burstable'],
    ['request below limit', [container({ requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } })], 'Burstable'],
    ['memory limit only', [container({ limits: { memory: '1Gi' } })], 'Burstable'],
    ['one container without limits', [container({ limits: { cpu: '1', memory: '1Gi' } }), container()], 'Burstable'],
  ];
  for (const [name, containers, want] of table) it(name, () => assert.equal(podQOSClass(pod(containers).spec), want));
});
