/** API pod status from runtime status (upstream generateAPIPodStatus, getPhase, status/generate.go). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generatePodStatus, getPhase, rejectedPodStatus } from '../../src/kubelet/status/generate.js';
import type { RuntimeContainerStatus, RuntimePodStatus } from '../../src/kubelet/runtime/runtime.js';

const t0 = new Date('2025-01-01T00:00:00Z');
const t1 = new Date('2025-01-01T00:00:05Z');
const ctx = (now = t0) => ({ hostIP: '172.16.0.10', now });

function pod(spec: any = {}, status: any = { phase: 'Pending', qosClass: 'BestEffort' }, annotations?: any): any {
  return {
    metadata: { name: 'p', namespace: 'default', uid: 'u1', annotations },
    spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
    status,
  };
}

function ctr(name: string, state: RuntimeContainerStatus['state'], extra: Partial<RuntimeContainerStatus> = {}): RuntimeContainerStatus {
  return {
    name, id: `sim://${name}`, image: 'docker.io/library/nginx:latest', imageID: 'docker.io/library/nginx@sha256:1', state,
    createdAt: t0, startedAt: t0, restartCount: 0, ...extra,
  };
}

function rt(containers: RuntimeContainerStatus[], extra: Partial<RuntimePodStatus> = {}): RuntimePodStatus {
  return {
    uid: 'u1', namespace: 'default', name: 'p', sandbox: { id: 's', ready: true, ip: '10.244.0.2', createdAt: t0 },
    initContainers: [], containers, ...extra,
  };
}

const conds = (s: any) => Object.fromEntries(s.conditions.map((c: any) => [c.type, [c.status, c.reason ?? '', c.message ?? '']]));

describe('generatePodStatus', () => {
  it('before the runtime has it: Pending, ContainerCreating, hostIP, startTime, no podIP', () => {
    const s = generatePodStatus(pod(), undefined, ctx());
    assert.equal(s.phase, 'Pending');
    assert.equal(s.hostIP, '172.16.0.10');
    assert.deepEqual(s.hostIPs, [{ ip: '172.16.0.10' }]);
    assert.equal(s.podIP, undefined);
    assert.equal(s.startTime, '2025-01-01T00:00:00Z');
    assert.equal(s.qosClass, 'BestEffort');
    assert.deepEqual(s.containerStatuses, [{
      name: 'c', image: 'nginx', imageID: '', lastState: {}, ready: false, restartCount: 0, started: false, state: { waiting: { reason: 'ContainerCreating' } },
    }]);
    assert.deepEqual(conds(s), {
      PodReadyToStartContainers: ['False', '', ''],
      Initialized: ['True', '', ''],
      Ready: ['False', 'ContainersNotReady', 'containers with unready status: [c]'],
      ContainersReady: ['False', 'ContainersNotReady', 'containers with unready status: [c]'],
      PodScheduled: ['True', '', ''],
    });
  });

  it('running and ready: Running, podIP, the five conditions True in kubelet order', () => {
    const s = generatePodStatus(pod(), rt([ctr('c', 'running', { ready: true })]), ctx());
    assert.equal(s.phase, 'Running');
    assert.equal(s.podIP, '10.244.0.2');
    assert.deepEqual(s.podIPs, [{ ip: '10.244.0.2' }]);
    assert.deepEqual(s.conditions.map((c: any) => c.type), ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled']);
    assert.ok(s.conditions.every((c: any) => c.status === 'True' && c.lastProbeTime === null && c.lastTransitionTime === '2025-01-01T00:00:00Z'));
    assert.deepEqual(s.containerStatuses[0], {
      containerID: 'sim://c', image: 'docker.io/library/nginx:latest', imageID: 'docker.io/library/nginx@sha256:1', lastState: {}, name: 'c',
      ready: true, restartCount: 0, started: true, state: { running: { startedAt: '2025-01-01T00:00:00Z' } },
    });
  });

  it('a running container without readiness information is ready', () => {
    const s = generatePodStatus(pod(), rt([ctr('c', 'running')]), ctx());
    assert.equal(conds(s).Ready[0], 'True');
  });

  it('running but not ready: Running, Ready False ContainersNotReady', () => {
    const s = generatePodStatus(pod(), rt([ctr('c', 'running', { ready: false })]), ctx());
    assert.equal(s.phase, 'Running');
    assert.deepEqual(conds(s).Ready, ['False', 'ContainersNotReady', 'containers with unready status: [c]']);
  });

  it('keeps lastTransitionTime for unchanged conditions and moves it for changed ones', () => {
    const first = generatePodStatus(pod(), rt([ctr('c', 'running', { ready: false })]), ctx(t0));
    const second = generatePodStatus(pod({}, first), rt([ctr('c', 'running', { ready: true })]), ctx(t1));
    const ltt = Object.fromEntries(second.conditions.map((c: any) => [c.type, c.lastTransitionTime]));
    assert.deepEqual(ltt, {
      PodReadyToStartContainers: '2025-01-01T00:00:00Z', Initialized: '2025-01-01T00:00:00Z', PodScheduled: '2025-01-01T00:00:00Z',
      Ready: '2025-01-01T00:00:05Z', ContainersReady: '2025-01-01T00:00:05Z',
    });
    assert.equal(second.startTime, '2025-01-01T00:00:00Z', 'startTime is set once');
  });

  it("keeps the scheduler's PodScheduled transition time and other components' conditions, ahead of the kubelet's", () => {
    const old = {
      phase: 'Pending',
      conditions: [
        { type: 'PodScheduled', status: 'True', lastTransitionTime: '2024-12-31T23:59:59Z' },
        { type: 'example.com/gate', status: 'True', lastTransitionTime: '2024-12-31T23:59:58Z' },
      ],
    };
    const s = generatePodStatus(pod({}, old), rt([ctr('c', 'running')]), ctx());
    assert.deepEqual(s.conditions.map((c: any) => c.type), ['example.com/gate', 'PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled']);
    assert.equal(s.conditions.at(-1)?.lastTransitionTime, '2024-12-31T23:59:59Z');
  });

  it('honours readiness gates', () => {
    const spec = { readinessGates: [{ conditionType: 'example.com/lb' }] };
    const missing = generatePodStatus(pod(spec), rt([ctr('c', 'running')]), ctx());
    assert.deepEqual(conds(missing).Ready, ['False', 'ReadinessGatesNotReady', 'corresponding condition of pod readiness gate "example.com/lb" does not exist.']);
    assert.equal(conds(missing).ContainersReady[0], 'True');
    const falseGate = generatePodStatus(pod(spec, { conditions: [{ type: 'example.com/lb', status: 'False' }] }), rt([ctr('c', 'running')]), ctx());
    assert.deepEqual(conds(falseGate).Ready, ['False', 'ReadinessGatesNotReady', 'the status of pod readiness gate "example.com/lb" is not "True", but False']);
    const ok = generatePodStatus(pod(spec, { conditions: [{ type: 'example.com/lb', status: 'True' }] }), rt([ctr('c', 'running')]), ctx());
    assert.equal(conds(ok).Ready[0], 'True');
  });

  it('init containers: PodInitializing while pending, Initialized once they exited 0 (ready)', () => {
    const spec = { initContainers: [{ name: 'init', image: 'busybox' }] };
    const pending = generatePodStatus(pod(spec), undefined, ctx());
    assert.equal(pending.phase, 'Pending');
    assert.deepEqual(pending.initContainerStatuses?.[0].state, { waiting: { reason: 'PodInitializing' } });
    assert.deepEqual(pending.containerStatuses[0].state, { waiting: { reason: 'PodInitializing' } });
    assert.deepEqual(conds(pending).Initialized, ['False', 'ContainersNotInitialized', 'containers with incomplete status: [init]']);
    const done = generatePodStatus(pod(spec), rt([ctr('c', 'running')], {
      initContainers: [ctr('init', 'exited', { exitCode: 0, reason: 'Completed', finishedAt: t0 })],
    }), ctx());
    assert.equal(done.phase, 'Running');
    assert.equal(done.initContainerStatuses?.[0].ready, true);
    assert.deepEqual(done.initContainerStatuses?.[0].state?.terminated, {
      containerID: 'sim://init', exitCode: 0, reason: 'Completed', startedAt: '2025-01-01T00:00:00Z', finishedAt: '2025-01-01T00:00:00Z',
    });
    assert.equal(conds(done).Initialized[0], 'True');
  });

  it('runtime-decided failure: Failed, PodFailed, terminated with exit code, podIP kept', () => {
    const s = generatePodStatus(pod(), rt([ctr('c', 'exited', { exitCode: 1, reason: 'Error', finishedAt: t1 })], {
      terminalPhase: 'Failed', sandbox: { id: 's', ready: false, ip: '10.244.0.2', createdAt: t0 },
    }), ctx());
    assert.equal(s.phase, 'Failed');
    assert.deepEqual(conds(s).Ready, ['False', 'PodFailed', '']);
    assert.deepEqual(conds(s).ContainersReady, ['False', 'PodFailed', '']);
    assert.equal(conds(s).PodReadyToStartContainers[0], 'False');
    assert.equal(s.containerStatuses[0].state.terminated?.exitCode, 1);
    assert.equal(s.containerStatuses[0].state.terminated?.reason, 'Error');
    assert.equal(s.podIP, '10.244.0.2');
  });

  it('completion: Succeeded, PodCompleted, Initialized PodCompleted', () => {
    const s = generatePodStatus(pod({ restartPolicy: 'Never' }), rt([ctr('c', 'exited', { exitCode: 0, reason: 'Completed', finishedAt: t1 })], {
      sandbox: { id: 's', ready: false, createdAt: t0 },
    }), ctx());
    assert.equal(s.phase, 'Succeeded');
    assert.deepEqual(conds(s).Ready, ['False', 'PodCompleted', '']);
    assert.deepEqual(conds(s).Initialized, ['True', 'PodCompleted', '']);
  });

  it('never leaves a terminal phase', () => {
    const s = generatePodStatus(pod({}, { phase: 'Failed' }), rt([ctr('c', 'running')]), ctx());
    assert.equal(s.phase, 'Failed');
  });

  it('reports volume mounts of started containers (read-only ones with recursiveReadOnly Disabled)', () => {
    const spec = { containers: [{ name: 'c', image: 'nginx', volumeMounts: [{ name: 'data', mountPath: '/data' }, { name: 'token', mountPath: '/var/run/secrets', readOnly: true }] }] };
    const s = generatePodStatus(pod(spec), rt([ctr('c', 'running')]), ctx());
    assert.deepEqual(s.containerStatuses[0].volumeMounts, [
      { name: 'data', mountPath: '/data' }, { name: 'token', mountPath: '/var/run/secrets', readOnly: true, recursiveReadOnly: 'Disabled' },
    ]);
  });
});

describe('getPhase', () => {
  const running = { state: { running: {} } };
  const exited = (code: number) => ({ state: { terminated: { exitCode: code } } });
  const waiting = { state: { waiting: { reason: 'ContainerCreating' } } };
  const restarting = { state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1 } } };
  const table: [string, any, any[], any[], string][] = [
    ['all running', {}, [], [{ name: 'a', ...running }, { name: 'b', ...running }], 'Running'],
    ['one waiting', {}, [], [{ name: 'a', ...running }, { name: 'b', ...waiting }], 'Pending'],
    ['one unknown', {}, [], [{ name: 'a', ...running }], 'Pending'],
    ['all exited 0, Always', { restartPolicy: 'Always' }, [], [{ name: 'a', ...exited(0) }, { name: 'b', ...exited(0) }], 'Running'],
    ['all exited 0, Never', { restartPolicy: 'Never' }, [], [{ name: 'a', ...exited(0) }, { name: 'b', ...exited(0) }], 'Succeeded'],
    ['all exited 0, OnFailure', { restartPolicy: 'OnFailure' }, [], [{ name: 'a', ...exited(0) }, { name: 'b', ...exited(0) }], 'Succeeded'],
    ['one failed, Never', { restartPolicy: 'Never' }, [], [{ name: 'a', ...exited(1) }, { name: 'b', ...exited(0) }], 'Failed'],
    ['one failed, OnFailure', { restartPolicy: 'OnFailure' }, [], [{ name: 'a', ...exited(1) }, { name: 'b', ...exited(0) }], 'Running'],
    ['restarting after a crash counts as stopped', { restartPolicy: 'Always' }, [], [{ name: 'a', ...restarting }, { name: 'b', ...exited(0) }], 'Running'],
    ['init running', { initContainers: [{ name: 'i' }] }, [{ name: 'i', ...running }], [{ name: 'a', ...waiting }, { name: 'b', ...waiting }], 'Pending'],
    ['init failed, Never', { restartPolicy: 'Never', initContainers: [{ name: 'i' }] }, [{ name: 'i', ...exited(1) }], [{ name: 'a', ...waiting }, { name: 'b', ...waiting }], 'Failed'],
    ['init failed, Always', { initContainers: [{ name: 'i' }] }, [{ name: 'i', ...exited(1) }], [{ name: 'a', ...waiting }, { name: 'b', ...waiting }], 'Pending'],
    ['sidecar running, containers running', { initContainers: [{ name: 's', restartPolicy: 'Always' }] }, [{ name: 's', ...running }], [{ name: 'a', ...running }, { name: 'b', ...running }], 'Running'],
    ['sidecar not yet running', { initContainers: [{ name: 's', restartPolicy: 'Always' }] }, [{ name: 's', ...waiting }], [{ name: 'a', ...waiting }, { name: 'b', ...waiting }], 'Pending'],
  ];
  for (const [name, spec, init, statuses, want] of table) {
    it(name, () => assert.equal(getPhase({ containers: [{ name: 'a' }, { name: 'b' }], ...spec }, init, statuses), want));
  }
});

describe('rejectedPodStatus', () => {
  it('is Failed with the reason and "Pod was rejected: " message, keeping the rest', () => {
    const s = rejectedPodStatus(pod(), 'OutOfcpu', "Node didn't have enough resource: cpu, requested: 5000, used: 0, capacity: 4000", t0);
    assert.deepEqual(s, {
      phase: 'Failed', qosClass: 'BestEffort', reason: 'OutOfcpu', startTime: '2025-01-01T00:00:00Z',
      message: "Pod was rejected: Node didn't have enough resource: cpu, requested: 5000, used: 0, capacity: 4000",
    });
  });
});

describe('PodStatusManager', () => {
  it('PUTs pods/status with the cached pod\'s resourceVersion and without its managedFields (a status write keeps the live ones)', async () => {
    const { PodStatusManager } = await import('../../src/kubelet/status/manager.js');
    const { Semaphore } = await import('../../src/kubelet/semaphore.js');
    const managedFields = [{ manager: 'k8ts-scheduler', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:nodeName': {} } } }];
    const cached = { ...pod(), metadata: { ...pod().metadata, resourceVersion: '42', labels: { app: 'x' }, managedFields } };
    const sent: any[] = [];
    const clients: any = { pods: { updateStatus: async (body: any) => { sent.push(body); return { ...body, metadata: { ...body.metadata, resourceVersion: '43' } }; } } };
    const m = new PodStatusManager({ clients, cached: () => cached, limiter: new Semaphore(1), logger: { warn() {}, debug() {} } as any });
    const status = { phase: 'Running', qosClass: 'BestEffort' };
    m.request('default/p', 'u1', () => status);
    while (m.busy) await new Promise((r) => setImmediate(r));
    assert.equal(sent.length, 1);
    assert.deepEqual(sent[0].status, status);
    assert.equal(sent[0].metadata.resourceVersion, '42');
    assert.deepEqual(sent[0].metadata.labels, { app: 'x' });
    assert.equal(sent[0].metadata.uid, 'u1');
    assert.equal('managedFields' in sent[0].metadata, false);
    assert.equal(cached.metadata.managedFields, managedFields, 'the informer\'s copy is not changed');
    assert.deepEqual(cached.status, { phase: 'Pending', qosClass: 'BestEffort' });
  });
});
