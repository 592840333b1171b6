/** The simulated runtime keeps the kubelet's rules: activeDeadlineSeconds, crash back-off by restartPolicy. Time is a FakeTimers clock. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SimulatedRuntime, deadlineExceededMessage } from '../../src/kubelet/runtime/simulated/runtime.js';
import { FakeTimers } from '../../src/kubelet/timers.js';
import { generatePodStatus } from '../../src/kubelet/status/generate.js';
import { ProbeManager } from '../../src/kubelet/prober/manager.js';
import { silentLogger } from '../../src/util/log.js';
import type { EventRecorder } from '../../src/client/index.js';

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
      assert.equal(api.containerStatuses[0].state.waiting?.reason, 'CrashLoopBackOff');
      assert.equal(api.containerStatuses[0].lastState.terminated?.exitCode, 2);
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

/** The runtime with the agent's prober over it, as PodWorkers wires them; Killing and Unhealthy events are kept. */
function probed(opts: { startDelayMs?: number } = {}) {
  const { rt, timers } = setup(opts);
  const events: string[] = [];
  const recorder = { event: (_ref: unknown, _type: string, reason: string, message: string) => { events.push(`${reason}: ${message}`); } } as unknown as EventRecorder;
  const prober = new ProbeManager({ runtime: rt, timers, logger: silentLogger, recorder, onChange: () => undefined });
  const flush = () => new Promise((r) => setImmediate(r));
  return {
    rt, timers, prober, events,
    run(p: any) { rt.syncPod(p); prober.sync(p); },
    /** Advances in 100 ms steps, letting the probes' promises settle first and between them (a probe re-arms its timer once it settled). */
    async advance(ms: number) { await flush(); for (let left = ms; left > 0; left -= 100) { timers.advance(Math.min(100, left)); await flush(); } },
    status: (p: any) => prober.apply(p.metadata.uid, rt.status(p.metadata.uid))!,
    api: (p: any, i = 0) => generatePodStatus(p, prober.apply(p.metadata.uid, rt.status(p.metadata.uid)), { hostIP: 'h', now: timers.now() }).containerStatuses[i],
  };
}

describe('SimulatedRuntime under the prober: probe timing gates started and ready', () => {
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
    it(name, async () => {
      const h = probed();
      const p = pod({}, { containers: [{ name: 'c', image: 'nginx', ...fields }] });
      h.run(p);
      await h.advance(0);
      // Step to each boundary: just before it nothing changed, at it the flag flips.
      const steps = [...(startedAt !== undefined ? [[startedAt, 'started'] as const] : []), [readyAt, 'ready'] as const];
      let t = 0;
      for (const [at, field] of steps) {
        if (at > t) {
          await h.advance(at - 100 - t);
          assert.equal(h.api(p)[field], false, `${field} before ${at} ms`);
          await h.advance(100);
          t = at;
        }
        assert.equal(h.api(p)[field], true, `${field} at ${at} ms`);
      }
      assert.equal(h.api(p).state.running !== undefined, true);
      h.prober.close();
    });
  }

  it('a restarted container waits for its readiness probe again', async () => {
    const h = probed();
    const p = pod({ 'k8ts.io/sim-fail-after': '30s' }, { containers: [{ name: 'c', image: 'nginx', readinessProbe: probe({ initialDelaySeconds: 5, periodSeconds: 5 }) }] });
    h.run(p);
    await h.advance(5000);
    assert.equal(h.status(p).containers[0].ready, true);
    await h.advance(25_000);
    const c = h.status(p).containers[0];
    assert.deepEqual([c.state, c.restartCount, c.ready], ['running', 1, false]);
    await h.advance(5000);
    assert.equal(h.status(p).containers[0].ready, true);
    h.prober.close();
  });
});

describe('SimulatedRuntime under the prober: steered probe outcomes', () => {
  const probe = (p: any) => ({ httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 1, ...p });

  it('a liveness probe failing failureThreshold times in a row kills and restarts that container only', async () => {
    const h = probed();
    const p = pod({ 'k8ts.io/sim-liveness-fail': 'web=3s' }, {
      containers: [{ name: 'web', image: 'nginx', livenessProbe: probe({ failureThreshold: 2 }) }, { name: 'side', image: 'nginx', livenessProbe: probe({}) }],
    });
    h.run(p);
    // Probes at 0, 1, 2 succeed; 3 fails (1 of 2); 4 fails (2 of 2): killed, restarted at once (the first restart).
    await h.advance(3500);
    assert.equal(h.status(p).containers[0].restartCount, 0);
    await h.advance(1000);
    const [web, side] = h.status(p).containers;
    assert.deepEqual([web.state, web.restartCount, web.lastTermination?.exitCode, side.restartCount], ['running', 1, 137, 0]);
    assert.ok(h.events.includes('Killing: Container web failed liveness probe, will be restarted'), h.events.join('\n'));
    assert.ok(h.events.includes('Unhealthy: Liveness probe failed: HTTP probe failed with statuscode: 500'));
    // The new instance fails again 3 s after its start, 2 probes later: the restart waits the 10 s back-off.
    await h.advance(5000);
    const api = h.api(p);
    assert.equal(api.state.waiting?.reason, 'CrashLoopBackOff');
    assert.match(api.state.waiting?.message ?? '', /^back-off 10s restarting failed container=web pod=/);
    await h.advance(10_000);
    assert.deepEqual([h.status(p).containers[0].state, h.status(p).containers[0].restartCount], ['running', 2]);
    assert.equal(h.status(p).containers[1].restartCount, 0);
    h.prober.close();
  });

  it('restartPolicy Never: a liveness failure ends the container, not the pod, without "will be restarted"', async () => {
    const h = probed();
    const p = pod({ 'k8ts.io/sim-liveness-fail': 'web=0s', 'k8ts.io/sim-complete-after': '1h' }, {
      restartPolicy: 'Never',
      containers: [{ name: 'web', image: 'nginx', livenessProbe: probe({ failureThreshold: 1 }) }, { name: 'side', image: 'nginx' }],
    });
    h.run(p);
    await h.advance(500);
    const s = generatePodStatus(p, h.status(p), { hostIP: 'h', now: h.timers.now() });
    assert.equal(s.phase, 'Running');
    assert.deepEqual([s.containerStatuses[0].state.terminated?.exitCode, s.containerStatuses[0].restartCount], [137, 0]);
    assert.ok(s.containerStatuses[1].state.running);
    assert.ok(h.events.includes('Killing: Container web failed liveness probe'), h.events.join('\n'));
    h.prober.close();
  });

  it('a readiness window flips ready off and on without a restart (failureThreshold, successThreshold)', async () => {
    const h = probed();
    const p = pod({ 'k8ts.io/sim-readiness-fail': '2s-5s' }, { containers: [{ name: 'c', image: 'nginx', readinessProbe: probe({ failureThreshold: 2, successThreshold: 2 }) }] });
    h.run(p);
    // Succeeds at 0 and 1 (2 of 2): ready from 1 s; fails at 2 (1 of 2) and 3 (2 of 2): not ready from 3 s;
    // succeeds at 5 (1 of 2) and 6 (2 of 2): ready from 6 s.
    await h.advance(500);
    assert.equal(h.api(p).ready, false);
    await h.advance(1000);
    assert.equal(h.api(p).ready, true);
    await h.advance(1000);
    assert.equal(h.api(p).ready, true);
    await h.advance(1000);
    assert.equal(h.api(p).ready, false);
    await h.advance(2000);
    assert.equal(h.api(p).ready, false);
    await h.advance(1000);
    assert.deepEqual([h.api(p).ready, h.api(p).restartCount], [true, 0]);
    h.prober.close();
  });

  it('a startup probe failing for a window holds started, liveness and readiness back', async () => {
    const h = probed();
    const p = pod({ 'k8ts.io/sim-startup-fail': '0s-3s', 'k8ts.io/sim-liveness-fail': '0s-3s' }, {
      containers: [{ name: 'c', image: 'nginx', startupProbe: probe({ failureThreshold: 10 }), livenessProbe: probe({ failureThreshold: 1 }), readinessProbe: probe({}) }],
    });
    h.run(p);
    await h.advance(2500);
    assert.deepEqual([h.api(p).started, h.api(p).ready], [false, false]);
    await h.advance(1000);
    assert.deepEqual([h.api(p).started, h.api(p).restartCount], [true, 0]);
    await h.advance(1000);
    assert.equal(h.api(p).ready, true);
    h.prober.close();
  });

  it('a startup probe failing failureThreshold times kills the container', async () => {
    const h = probed();
    const p = pod({ 'k8ts.io/sim-startup-fail': 'c=0s' }, { containers: [{ name: 'c', image: 'nginx', startupProbe: probe({ failureThreshold: 3 }) }] });
    h.run(p);
    await h.advance(2500);
    assert.equal(h.status(p).containers[0].restartCount, 1);
    assert.ok(h.events.includes('Killing: Container c failed startup probe, will be restarted'), h.events.join('\n'));
    h.prober.close();
  });
});

describe('SimulatedRuntime: a crash that names a container', () => {
  const two = (restartPolicy: string) => ({ restartPolicy, containers: [{ name: 'a', image: 'nginx' }, { name: 'b', image: 'nginx' }] });

  it('restartPolicy Never: the named container ends Error, the other runs on, the pod stays Running', () => {
    const { rt, timers } = setup();
    // sim-complete-after holds off the 1 s run-to-completion script of a Never pod.
    const p = pod({ 'k8ts.io/sim-fail-after': 'a=2s', 'k8ts.io/sim-exit-code': '3', 'k8ts.io/sim-complete-after': '1h' }, two('Never'));
    rt.syncPod(p);
    timers.advance(2000);
    const s = generatePodStatus(p, rt.status(p.metadata.uid), { hostIP: 'h', now: timers.now() });
    assert.equal(s.phase, 'Running');
    assert.deepEqual([s.containerStatuses[0].state.terminated?.exitCode, s.containerStatuses[0].state.terminated?.reason], [3, 'Error']);
    assert.ok(s.containerStatuses[1].state.running);
    timers.advance(60_000);
    assert.equal(rt.status(p.metadata.uid)!.containers[0].restartCount, 0);
  });

  for (const policy of ['Always', 'OnFailure']) {
    it(`restartPolicy ${policy}: only the named container restarts, with the crash back-off`, () => {
      const { rt, timers } = setup();
      const p = pod({ 'k8ts.io/sim-fail-after': 'a=2s,b=1h', 'k8ts.io/sim-complete-after': '1h' }, two(policy));
      rt.syncPod(p);
      timers.advance(2000);
      let [a, b] = rt.status(p.metadata.uid)!.containers;
      assert.deepEqual([a.state, a.restartCount, a.lastTermination?.exitCode, b.restartCount, b.state], ['running', 1, 1, 0, 'running']);
      timers.advance(2000);
      a = rt.status(p.metadata.uid)!.containers[0];
      assert.deepEqual([a.state, a.reason], ['waiting', 'CrashLoopBackOff']);
      timers.advance(10_000);
      [a, b] = rt.status(p.metadata.uid)!.containers;
      assert.deepEqual([a.state, a.restartCount, b.restartCount], ['running', 2, 0]);
    });
  }
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
