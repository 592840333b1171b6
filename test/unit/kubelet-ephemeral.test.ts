/**
 * Ephemeral containers on the node: what a sync starts (computePodActions),
 * the CRI config of one with a target (PID namespace TARGET), the runtime
 * status of the CRI and process runtimes, the simulated runtime's script, and
 * ephemeralContainerStatuses (generatePodStatus).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { computePodActions } from '../../src/kubelet/runtime/cri/actions.js';
import { containerConfig } from '../../src/kubelet/runtime/cri/config.js';
import { newPodEntry, podStatus, type ContainerRecord, type PodEntry } from '../../src/kubelet/runtime/cri/podstate.js';
import { SimulatedRuntime } from '../../src/kubelet/runtime/simulated/runtime.js';
import { FakeTimers } from '../../src/kubelet/timers.js';
import { generatePodStatus } from '../../src/kubelet/status/generate.js';

const t0 = new Date('2025-01-01T00:00:00Z');

function pod(spec: Partial<NonNullable<Pod['spec']>> = {}): Pod {
  return {
    metadata: { name: 'web', namespace: 'default', uid: 'u1' },
    spec: { nodeName: 'n1', containers: [{ name: 'app', image: 'nginx' }], ...spec },
    status: { phase: 'Running' },
  };
}

const debugger1 = { name: 'debugger', image: 'busybox', command: ['sh'], targetContainerName: 'app', stdin: true };

function record(name: string, state: ContainerRecord['state'], extra: Partial<ContainerRecord> = {}): ContainerRecord {
  return { id: `id-${name}`, name, attempt: 0, sandboxId: 'sb', state, image: 'x', imageRef: 'sha256:x', createdAt: t0, startedAt: t0, ...extra };
}

function entry(p: Pod, containers: ContainerRecord[], sandboxReady = true): PodEntry {
  const e = newPodEntry('u1', 'default', 'web');
  e.pod = p;
  e.sandboxes = [{ id: 'sb', attempt: 0, state: sandboxReady ? 'SANDBOX_READY' : 'SANDBOX_NOTREADY', createdAt: t0 }];
  e.containers = containers;
  return e;
}

describe('computePodActions with ephemeral containers', () => {
  it('starts a new one in the ready sandbox, once, with its target, and without targetContainerName in the container', () => {
    const p = pod({ ephemeralContainers: [debugger1] });
    const { starts } = computePodActions(entry(p, [record('app', 'CONTAINER_RUNNING')]), p);
    assert.equal(starts.length, 1);
    assert.equal(starts[0].container.name, 'debugger');
    assert.deepEqual(starts[0].ephemeral, { targetContainerName: 'app' });
    assert.equal('targetContainerName' in starts[0].container, false);
  });

  it('never starts one again once it ran, whatever its exit code', () => {
    const p = pod({ ephemeralContainers: [debugger1] });
    const e = entry(p, [record('app', 'CONTAINER_RUNNING'), record('debugger', 'CONTAINER_EXITED', { exitCode: 1 })]);
    assert.deepEqual(computePodActions(e, p).starts, []);
  });

  it('starts one before init containers finish, but none in a sandbox that must be created (and they make no work)', () => {
    const p = pod({ initContainers: [{ name: 'init', image: 'busybox' }], ephemeralContainers: [debugger1] });
    const running = computePodActions(entry(p, [record('init', 'CONTAINER_RUNNING')]), p);
    assert.deepEqual(running.starts.map((s) => s.container.name), ['debugger']);
    const done = pod({ restartPolicy: 'Never', ephemeralContainers: [debugger1] });
    const gone = computePodActions(entry(done, [record('app', 'CONTAINER_EXITED', { exitCode: 0 })], false), done);
    assert.deepEqual(gone, { work: false, starts: [] });
  });
});

describe('CRI config of an ephemeral container', () => {
  const p = pod({ ephemeralContainers: [debugger1] });
  const config = (pidTargetId?: string, spec: Partial<NonNullable<Pod['spec']>> = {}) => containerConfig({
    pod: { ...p, spec: { ...p.spec!, ...spec } }, container: { name: 'debugger', image: 'busybox', command: ['sh'], stdin: true },
    imageRef: 'sha256:b', restartCount: 0, mounts: [], pidTargetId,
  }, { nodeName: 'n1', podLogsDir: '/var/log/pods', hostIP: '192.0.2.10' });

  it("joins its target's PID namespace (NamespaceMode TARGET, target_id)", () => {
    assert.deepEqual(config('abc').linux!.securityContext!.namespaceOptions, { network: 'POD', pid: 'TARGET', targetId: 'abc', ipc: 'POD' });
    assert.equal(config('abc').stdin, true);
  });

  it('keeps the pod-wide PID namespace of shareProcessNamespace and hostPID pods, and its own without a target', () => {
    assert.equal(config('abc', { shareProcessNamespace: true }).linux!.securityContext!.namespaceOptions!.pid, 'POD');
    assert.equal(config('abc', { hostPID: true }).linux!.securityContext!.namespaceOptions!.pid, 'NODE');
    assert.deepEqual(config().linux!.securityContext!.namespaceOptions, { network: 'POD', pid: 'CONTAINER', ipc: 'POD' });
  });
});

describe('runtime status of ephemeral containers', () => {
  it('CRI and process runtimes report them apart from the containers', () => {
    const p = pod({ ephemeralContainers: [debugger1] });
    const s = podStatus(entry(p, [record('app', 'CONTAINER_RUNNING'), record('debugger', 'CONTAINER_EXITED', { exitCode: 0 })]), 'containerd', '192.0.2.10');
    assert.deepEqual(s.containers.map((c) => c.name), ['app']);
    assert.deepEqual(s.ephemeralContainers!.map((c) => [c.name, c.state, c.exitCode]), [['debugger', 'exited', 0]]);
  });

  it('the simulated runtime starts one added to a running pod, keeps it running, never ready, and stops it with the pod', async () => {
    const timers = new FakeTimers();
    const rt = new SimulatedRuntime({ podCIDR: '10.244.7.0/24', hostIP: '172.16.0.17', timers });
    const p = pod();
    rt.syncPod(p);
    assert.deepEqual(rt.status('u1')!.ephemeralContainers, []);
    rt.syncPod(pod({ ephemeralContainers: [debugger1] }));
    const [ec] = rt.status('u1')!.ephemeralContainers!;
    assert.equal(ec.name, 'debugger');
    assert.equal(ec.state, 'running');
    assert.equal(ec.ready, false);
    assert.match(ec.id, /^sim:\/\//);
    rt.syncPod(pod({ ephemeralContainers: [debugger1] }));
    assert.equal(rt.status('u1')!.ephemeralContainers![0].id, ec.id, 'not started again');
    await rt.killPod('u1', 0);
    assert.equal(rt.status('u1')!.ephemeralContainers![0].state, 'exited');
    await rt.close();
  });

  it('the simulated runtime holds one whose image does not exist with ErrImagePull, without holding the pod back', async () => {
    const timers = new FakeTimers();
    const rt = new SimulatedRuntime({ podCIDR: '10.244.7.0/24', hostIP: '172.16.0.17', timers });
    rt.syncPod(pod());
    rt.syncPod(pod({ ephemeralContainers: [{ ...debugger1, image: 'busybox:doesnotexist' }] }));
    const s = rt.status('u1')!;
    assert.equal(s.ephemeralContainers![0].state, 'waiting');
    assert.equal(s.ephemeralContainers![0].reason, 'ErrImagePull');
    assert.equal(s.containers[0].state, 'running');
    await rt.close();
  });
});

describe('ephemeralContainerStatuses', () => {
  const running = { name: 'debugger', id: 'sim://d', image: 'docker.io/library/busybox:latest', imageID: 'docker.io/library/busybox@sha256:1', state: 'running' as const, createdAt: t0, startedAt: t0, restartCount: 0, ready: true };
  const rs = (ephemeral: typeof running[]) => ({
    uid: 'u1', namespace: 'default', name: 'web', sandbox: { id: 's', ready: true, ip: '10.244.0.2', createdAt: t0 },
    initContainers: [], containers: [{ ...running, name: 'app', id: 'sim://a', ready: true }], ephemeralContainers: ephemeral,
  });

  it('follow the spec: waiting until started, then running, never ready and without started; the pod stays Ready', () => {
    const p = pod({ ephemeralContainers: [debugger1] });
    const before = generatePodStatus(p, rs([]), { hostIP: '172.16.0.10', now: t0 });
    assert.deepEqual(before.ephemeralContainerStatuses, [{ name: 'debugger', image: 'busybox', imageID: '', lastState: {}, ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }]);
    const after = generatePodStatus(p, rs([running]), { hostIP: '172.16.0.10', now: t0 });
    assert.deepEqual(after.ephemeralContainerStatuses, [{
      containerID: 'sim://d', image: 'docker.io/library/busybox:latest', imageID: 'docker.io/library/busybox@sha256:1', lastState: {}, name: 'debugger',
      ready: false, restartCount: 0, state: { running: { startedAt: '2025-01-01T00:00:00Z' } },
    }]);
    assert.equal(after.phase, 'Running');
    assert.equal(after.conditions.find((c) => c.type === 'Ready')!.status, 'True');
    assert.equal(Object.keys(after).at(-1), 'ephemeralContainerStatuses', "last, as in upstream's PodStatus");
  });

  it('are absent from a pod without ephemeral containers', () => {
    assert.equal('ephemeralContainerStatuses' in generatePodStatus(pod(), rs([]), { hostIP: '172.16.0.10', now: t0 }), false);
  });
});
