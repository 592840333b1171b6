/** The simulated runtime's script: delays, readiness, injected failure and completion, stop, IPs, adoption. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SimulatedRuntime } from '../../src/kubelet/runtime/simulated/runtime.js';
import { FakeTimers } from '../../src/kubelet/timers.js';
import { generatePodStatus } from '../../src/kubelet/status/generate.js';

const flush = () => new Promise<void>((r) => setImmediate(r));
let seq = 0;

function pod(annotations: Record<string, string> = {}, spec: any = {}): any {
  seq++;
  return {
    metadata: { name: `p${seq}`, namespace: 'default', uid: `uid-${seq}`, annotations },
    spec: { nodeName: 'n', containers: [{ name: 'c', image: 'nginx' }], ...spec },
    status: { phase: 'Pending' },
  };
}

function setup(opts: { startDelayMs?: number; readyDelayMs?: number } = {}) {
  const timers = new FakeTimers();
  const rt = new SimulatedRuntime({ podCIDR: '10.244.7.0/24', hostIP: '172.16.0.17', timers, ...opts });
  const events: string[] = [];
  rt.onPodEvent((uid) => events.push(uid));
  return { timers, rt, events };
}

describe('SimulatedRuntime', () => {
  it('with no delays, runs and readies a pod at once, with an IP from the node CIDR', async () => {
    const { rt, events } = setup();
    const p = pod();
    rt.syncPod(p);
    const s = rt.status(p.metadata.uid)!;
    assert.equal(s.sandbox?.ip, '10.244.7.2');
    assert.equal(s.sandbox?.ready, true);
    assert.equal(s.containers[0].state, 'running');
    assert.equal(s.containers[0].ready, true);
    assert.match(s.containers[0].id, /^sim:\/\/[0-9a-f]{64}$/);
    assert.equal(s.containers[0].image, 'docker.io/library/nginx:latest');
    assert.match(s.containers[0].imageID, /^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
    await flush();
    assert.deepEqual(events, [p.metadata.uid], 'changes are announced once, coalesced');
  });

  it('waits startDelay, then readyDelay', async () => {
    const { rt, timers } = setup({ startDelayMs: 1000, readyDelayMs: 2000 });
    const p = pod();
    rt.syncPod(p);
    assert.equal(rt.status(p.metadata.uid)!.sandbox, undefined);
    timers.advance(999);
    assert.equal(rt.status(p.metadata.uid)!.containers.length, 0);
    timers.advance(1);
    assert.equal(rt.status(p.metadata.uid)!.containers[0].state, 'running');
    assert.equal(rt.status(p.metadata.uid)!.containers[0].ready, false);
    timers.advance(2000);
    assert.equal(rt.status(p.metadata.uid)!.containers[0].ready, true);
  });

  it('per-pod delay annotations override the node defaults', () => {
    const { rt, timers } = setup({ startDelayMs: 10_000 });
    const p = pod({ 'k8ts.io/sim-start-delay': '500ms', 'k8ts.io/sim-ready-delay': '1s' });
    rt.syncPod(p);
    timers.advance(500);
    assert.equal(rt.status(p.metadata.uid)!.containers[0].ready, false);
    timers.advance(1000);
    assert.equal(rt.status(p.metadata.uid)!.containers[0].ready, true);
  });

  it('k8ts.io/sim-ready "false" holds readiness until the annotation goes', () => {
    const { rt } = setup();
    const p = pod({ 'k8ts.io/sim-ready': 'false' });
    rt.syncPod(p);
    assert.equal(rt.status(p.metadata.uid)!.containers[0].ready, false);
    rt.syncPod({ ...p, metadata: { ...p.metadata, annotations: {} } });
    assert.equal(rt.status(p.metadata.uid)!.containers[0].ready, true);
    rt.syncPod({ ...p, metadata: { ...p.metadata, annotations: { 'k8ts.io/sim-ready': 'false' } } });
    assert.equal(rt.status(p.metadata.uid)!.containers[0].ready, false);
  });

  it('k8ts.io/sim-fail-after ends a restartPolicy Never pod Failed with exit code 1 (or sim-exit-code)', () => {
    const { rt, timers } = setup();
    const p = pod({ 'k8ts.io/sim-fail-after': '5s', 'k8ts.io/sim-exit-code': '3' }, { restartPolicy: 'Never' });
    rt.syncPod(p);
    timers.advance(4999);
    assert.equal(rt.status(p.metadata.uid)!.terminalPhase, undefined);
    timers.advance(1);
    const s = rt.status(p.metadata.uid)!;
    assert.equal(s.terminalPhase, 'Failed');
    assert.deepEqual([s.containers[0].state, s.containers[0].exitCode, s.containers[0].reason], ['exited', 3, 'Error']);
    assert.equal(s.sandbox?.ready, false);
    assert.equal(generatePodStatus(p, s, { hostIP: '172.16.0.17', now: timers.now() }).phase, 'Failed');
  });

  it('k8ts.io/sim-complete-after ends the pod Succeeded even under restartPolicy Always', () => {
    const { rt, timers } = setup();
    const p = pod({ 'k8ts.io/sim-complete-after': '3s' });
    rt.syncPod(p);
    timers.advance(3000);
    const s = rt.status(p.metadata.uid)!;
    assert.equal(s.terminalPhase, 'Succeeded');
    assert.deepEqual([s.containers[0].exitCode, s.containers[0].reason], [0, 'Completed']);
    assert.equal(generatePodStatus(p, s, { hostIP: 'h', now: timers.now() }).phase, 'Succeeded');
  });

  it('the earlier of fail-after and complete-after wins; an annotation added later counts from the start', () => {
    const { rt, timers } = setup();
    const p = pod({ 'k8ts.io/sim-fail-after': '4s', 'k8ts.io/sim-complete-after': '2s' });
    rt.syncPod(p);
    timers.advance(2000);
    assert.equal(rt.status(p.metadata.uid)!.terminalPhase, 'Succeeded');
    const q = pod({ 'k8ts.io/sim-complete-after': '1h' }, { restartPolicy: 'Never' });
    rt.syncPod(q);
    timers.advance(5000);
    rt.syncPod({ ...q, metadata: { ...q.metadata, annotations: { 'k8ts.io/sim-complete-after': '1h', 'k8ts.io/sim-fail-after': '3s' } } });
    assert.equal(rt.status(q.metadata.uid)!.terminalPhase, 'Failed', 'already past 3s since start: at once');
  });

  it('runs init containers to completion and keeps sidecars running', () => {
    const { rt } = setup();
    const p = pod({}, { initContainers: [{ name: 'init', image: 'busybox' }, { name: 'side', image: 'envoy', restartPolicy: 'Always' }] });
    rt.syncPod(p);
    const s = rt.status(p.metadata.uid)!;
    assert.deepEqual(s.initContainers.map((c) => [c.name, c.state, c.exitCode]), [['init', 'exited', 0], ['side', 'running', undefined]]);
  });

  it('gives hostNetwork pods the node IP and takes no address from the range', () => {
    const { rt } = setup();
    const p = pod({}, { hostNetwork: true });
    rt.syncPod(p);
    assert.equal(rt.status(p.metadata.uid)!.sandbox?.ip, '172.16.0.17');
    assert.equal(rt.addressesInUse, 0);
  });

  it('killPod stops running containers after the grace period; removePod frees the IP (not reused at once)', async () => {
    const { rt, timers } = setup();
    const a = pod();
    const b = pod();
    rt.syncPod(a);
    rt.syncPod(b);
    assert.equal(rt.status(b.metadata.uid)!.sandbox?.ip, '10.244.7.3');
    let stopped = false;
    const done = rt.killPod(a.metadata.uid, 1500).then(() => { stopped = true; });
    assert.strictEqual(rt.killPod(a.metadata.uid, 0) instanceof Promise, true);
    timers.advance(1499);
    await flush();
    assert.equal(stopped, false);
    timers.advance(1);
    await done;
    const s = rt.status(a.metadata.uid)!;
    assert.deepEqual([s.containers[0].state, s.containers[0].exitCode], ['exited', 0]);
    rt.removePod(a.metadata.uid);
    assert.equal(rt.status(a.metadata.uid), undefined);
    assert.equal(rt.addressesInUse, 1);
    const c = pod();
    rt.syncPod(c);
    assert.equal(rt.status(c.metadata.uid)!.sandbox?.ip, '10.244.7.4', 'host-local style: the next address, not the freed one');
  });

  it('killPod on a pod that never started resolves at once', async () => {
    const { rt } = setup({ startDelayMs: 60_000 });
    const p = pod();
    rt.syncPod(p);
    await rt.killPod(p.metadata.uid, 30_000);
    assert.equal(rt.status(p.metadata.uid)!.containers.length, 0);
  });

  it('adopts a pod already running with simulated containers (agent restart): same IP and IDs', () => {
    const { rt, timers } = setup();
    const p = pod();
    rt.syncPod(p);
    const status = generatePodStatus(p, rt.status(p.metadata.uid), { hostIP: '172.16.0.17', now: timers.now() });
    const { rt: rt2 } = setup();
    rt2.syncPod({ ...p, status });
    const s = rt2.status(p.metadata.uid)!;
    assert.equal(s.sandbox?.ip, status.podIP);
    assert.equal(s.containers[0].id, status.containerStatuses[0].containerID);
    assert.equal(s.containers[0].ready, true);
  });
});
