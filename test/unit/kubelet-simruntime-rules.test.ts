/** The simulated runtime keeps the kubelet's rules: activeDeadlineSeconds, crash back-off by restartPolicy. Time is a FakeTimers clock. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SimulatedRuntime, deadlineExceededMessage } from '../../src/kubelet/runtime/simulated/runtime.js';
import { FakeTimers } from '../../src/kubelet/timers.js';
import { generatePodStatus } from '../../src/kubelet/status/generate.js';

let seq = 0;
function pod(annotations: Record<string, string> = {}, spec: any = {}, status: any = { phase: 'Pending' }): any {
  seq++;
  return {
    metadata: { name: `r${seq}`, namespace: 'ns', uid: `ruid-${seq}`, annotations },
    spec: { nodeName: 'n', containers: [{ name: 'c', image: 'nginx' }], ...spec },
    status,
  };
}

function setup(opts: { startDelayMs?: number } = {}) {
  const timers = new FakeTimers();
  const rt = new SimulatedRuntime({ podCIDR: '10.244.7.0/24', hostIP: '172.16.0.17', timers, ...opts });
  return { timers, rt };
}

describe('SimulatedRuntime: activeDeadlineSeconds', () => {
  const cases: Array<[string, any, Record<string, string>, number, number]> = [
    // name, extra spec, annotations, node start delay, ms until Failed
    ['a running pod', { activeDeadlineSeconds: 3 }, {}, 0, 3000],
    ['a pod still starting (counted from when the node saw it)', { activeDeadlineSeconds: 2 }, {}, 5000, 2000],
    ['a crash-looping Always pod', { activeDeadlineSeconds: 30 }, { 'k8ts.io/sim-fail-after': '1s' }, 0, 30_000],
    ['an OnFailure pod', { activeDeadlineSeconds: 4, restartPolicy: 'OnFailure' }, { 'k8ts.io/sim-complete-after': '1h' }, 0, 4000],
  ];
  for (const [name, spec, annotations, startDelayMs, failAt] of cases) {
    it(`ends ${name} Failed with DeadlineExceeded on time`, () => {
      const { rt, timers } = setup({ startDelayMs });
      const p = pod(annotations, spec);
      rt.syncPod(p);
      timers.advance(failAt - 1);
      assert.equal(rt.status(p.metadata.uid)!.terminalPhase, undefined);
      timers.advance(1);
      const s = rt.status(p.metadata.uid)!;
      assert.deepEqual([s.terminalPhase, s.reason, s.message], ['Failed', 'DeadlineExceeded', deadlineExceededMessage]);
      for (const c of s.containers) assert.equal(c.state, 'exited');
      const api = generatePodStatus(p, s, { hostIP: 'h', now: timers.now() });
      assert.deepEqual([api.phase, api.reason, api.message], ['Failed', 'DeadlineExceeded', deadlineExceededMessage]);
      timers.advance(600_000);
      assert.equal(rt.status(p.metadata.uid)!.containers.every((c) => c.state === 'exited'), true, 'nothing restarts after the deadline');
    });
  }

  it('counts from status.startTime and follows a lowered deadline', () => {
    const { rt, timers } = setup();
    const p = pod({}, { activeDeadlineSeconds: 100 }, { phase: 'Running', startTime: new Date(timers.nowMs() - 60_000).toISOString() });
    rt.syncPod(p);
    timers.advance(39_999);
    assert.equal(rt.status(p.metadata.uid)!.terminalPhase, undefined);
    rt.syncPod({ ...p, spec: { ...p.spec, activeDeadlineSeconds: 90 } });
    assert.equal(rt.status(p.metadata.uid)!.reason, 'DeadlineExceeded', 'already past 90 s since startTime');
  });
});

describe('SimulatedRuntime: an injected failure obeys restartPolicy', () => {
  for (const policy of ['Always', 'OnFailure', undefined]) {
    it(`restartPolicy ${policy ?? '(default Always)'}: restarts with 10 s doubling back-off and CrashLoopBackOff`, () => {
      const { rt, timers } = setup();
      const p = pod({ 'k8ts.io/sim-fail-after': '1s', 'k8ts.io/sim-exit-code': '2' }, policy ? { restartPolicy: policy } : {});
      const uid = p.metadata.uid;
      rt.syncPod(p);
      const c = () => rt.status(uid)!.containers[0];
      timers.advance(1000);
      // First crash: no back-off yet, restarts at once.
      assert.deepEqual([c().state, c().restartCount, c().lastTermination?.exitCode], ['running', 1, 2]);
      timers.advance(1000);
      assert.deepEqual([c().state, c().reason, c().restartCount], ['waiting', 'CrashLoopBackOff', 1]);
      assert.equal(c().message, `back-off 10s restarting failed container=c pod=${p.metadata.name}_ns(${uid})`);
      const api = generatePodStatus(p, rt.status(uid), { hostIP: 'h', now: timers.now() });
      assert.equal(api.phase, 'Running');
      assert.equal(api.containerStatuses[0].state.waiting.reason, 'CrashLoopBackOff');
      assert.equal(api.containerStatuses[0].lastState.terminated.exitCode, 2);
      timers.advance(9999);
      assert.equal(c().state, 'waiting');
      timers.advance(1);
      assert.deepEqual([c().state, c().restartCount], ['running', 2]);
      timers.advance(1000);
      assert.equal(c().message, `back-off 20s restarting failed container=c pod=${p.metadata.name}_ns(${uid})`);
      timers.advance(20_000);
      assert.deepEqual([c().state, c().restartCount], ['running', 3]);
      assert.equal(rt.status(uid)!.terminalPhase, undefined, 'only Never ends the pod');
    });
  }

  it('caps the back-off at 5m0s', () => {
    const { rt, timers } = setup();
    const p = pod({ 'k8ts.io/sim-fail-after': '1s' });
    rt.syncPod(p);
    const messages = new Set<string>();
    for (let i = 0; i < 3600; i++) {
      timers.advance(1000);
      const c = rt.status(p.metadata.uid)!.containers[0];
      if (c.message) messages.add(c.message.split(' ')[1]);
    }
    assert.deepEqual([...messages], ['10s', '20s', '40s', '1m20s', '2m40s', '5m0s']);
  });

  it('resets the back-off after 10 minutes of running', () => {
    const { rt, timers } = setup();
    const p = pod({ 'k8ts.io/sim-fail-after': '1s' });
    rt.syncPod(p);
    timers.advance(2000); // crash, restart, crash: back-off 10 s
    timers.advance(10_000);
    rt.syncPod({ ...p, metadata: { ...p.metadata, annotations: { 'k8ts.io/sim-fail-after': '11m' } } });
    timers.advance(11 * 60_000);
    const c = rt.status(p.metadata.uid)!.containers[0];
    assert.deepEqual([c.state, c.restartCount], ['running', 3], 'restarted at once: the back-off was forgotten');
  });

  it('restartPolicy Never: the pod ends Failed; sim-complete-after still ends it Succeeded', () => {
    const { rt, timers } = setup();
    const f = pod({ 'k8ts.io/sim-fail-after': '1s' }, { restartPolicy: 'Never' });
    const ok = pod({ 'k8ts.io/sim-complete-after': '1s' }, { restartPolicy: 'Never' });
    rt.syncPod(f);
    rt.syncPod(ok);
    timers.advance(1000);
    assert.deepEqual([rt.status(f.metadata.uid)!.terminalPhase, rt.status(f.metadata.uid)!.containers[0].restartCount], ['Failed', 0]);
    assert.equal(rt.status(ok.metadata.uid)!.terminalPhase, 'Succeeded');
  });

  it('killPod during a back-off stops the pod without a restart', async () => {
    const { rt, timers } = setup();
    const p = pod({ 'k8ts.io/sim-fail-after': '1s' });
    rt.syncPod(p);
    timers.advance(2000);
    await rt.killPod(p.metadata.uid, 30_000);
    timers.advance(60_000);
    assert.notEqual(rt.status(p.metadata.uid)!.containers[0].state, 'running');
  });
});

describe('SimulatedRuntime: probe timing gates started and ready', () => {
  const probe = (p: any) => ({ tcpSocket: { port: 80 }, ...p });
  // Upstream probes at once and every periodSeconds, skipping ticks before initialDelaySeconds.
  const cases: Array<[string, any, number | undefined, number]> = [
    // name, container fields, ms until started (undefined: no startup probe), ms until ready
    ['no probe: ready at once', {}, undefined, 0],
    ['readinessProbe with defaults: its first probe, at once', { readinessProbe: probe({}) }, undefined, 0],
    ['readinessProbe initialDelaySeconds 5, periodSeconds 2', { readinessProbe: probe({ initialDelaySeconds: 5, periodSeconds: 2 }) }, undefined, 6000],
    ['readinessProbe successThreshold 3, periodSeconds 1', { readinessProbe: probe({ periodSeconds: 1, successThreshold: 3 }) }, undefined, 2000],
    ['startupProbe alone gates started and ready', { startupProbe: probe({ initialDelaySeconds: 4, periodSeconds: 1 }) }, 4000, 4000],
    ['startupProbe then readinessProbe', { startupProbe: probe({ initialDelaySeconds: 2, periodSeconds: 3 }), readinessProbe: probe({ initialDelaySeconds: 1, periodSeconds: 2 }) }, 3000, 4000],
  ];
  for (const [name, fields, startedAt, readyAt] of cases) {
    it(name, () => {
      const { rt, timers } = setup();
      const p = pod({}, { containers: [{ name: 'c', image: 'nginx', ...fields }] });
      rt.syncPod(p);
      const api = () => generatePodStatus(p, rt.status(p.metadata.uid), { hostIP: 'h', now: timers.now() }).containerStatuses[0];
      // Step to each boundary: just before it nothing changed, at it the flag flips.
      const steps = [...(startedAt !== undefined ? [[startedAt, 'started'] as const] : []), [readyAt, 'ready'] as const];
      let t = 0;
      for (const [at, field] of steps) {
        if (at > t) {
          timers.advance(at - 1 - t);
          assert.equal(api()[field], false, `${field} before ${at} ms`);
          timers.advance(1);
          t = at;
        }
        assert.equal(api()[field], true, `${field} at ${at} ms`);
      }
      assert.equal(api().state.running !== undefined, true);
    });
  }

  it('a restarted container waits for its readiness probe again', () => {
    const { rt, timers } = setup();
    const p = pod({ 'k8ts.io/sim-fail-after': '30s' }, { containers: [{ name: 'c', image: 'nginx', readinessProbe: probe({ initialDelaySeconds: 5, periodSeconds: 5 }) }] });
    rt.syncPod(p);
    timers.advance(5000);
    assert.equal(rt.status(p.metadata.uid)!.containers[0].ready, true);
    timers.advance(25_000);
    const c = rt.status(p.metadata.uid)!.containers[0];
    assert.deepEqual([c.state, c.restartCount, c.ready], ['running', 1, false]);
    timers.advance(5000);
    assert.equal(rt.status(p.metadata.uid)!.containers[0].ready, true);
  });
});

describe('SimulatedRuntime: logs of a restarted container', () => {
  it('serves the previous instance by its ID (kubectl logs --previous)', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const timers = new FakeTimers();
    const rt = new SimulatedRuntime({ podCIDR: '10.244.7.0/24', hostIP: 'h', timers, podLogsDir: mkdtempSync(join(tmpdir(), 'simlogs-')) });
    const p = pod({ 'k8ts.io/sim-fail-after': '1s' });
    rt.syncPod(p);
    timers.advance(1000);
    const c = rt.status(p.metadata.uid)!.containers[0];
    let text = '';
    for await (const chunk of rt.readLogs(p.metadata.uid, c.lastTermination!.id, {} as any)) text += chunk.toString();
    assert.match(text, /Container c exited with code 1 \(Error\)/);
    assert.throws(() => rt.readLogs(p.metadata.uid, 'sim://unknown', {} as any), /is not known to the runtime/);
  });
});
