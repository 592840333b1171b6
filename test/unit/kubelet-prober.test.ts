/** The prober: the worker's timing and threshold state machine on a fake clock, the manager's gating and kills, and the http/tcp probes against local servers. */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { FakeTimers } from '../../src/kubelet/timers.js';
import { ProbeWorker, probeTiming, type ProbeOutcome, type ProbeResult, type ProbedContainer } from '../../src/kubelet/prober/worker.js';
import { ProbeManager } from '../../src/kubelet/prober/manager.js';
import { httpProbe } from '../../src/kubelet/prober/http.js';
import { tcpProbe } from '../../src/kubelet/prober/tcp.js';
import { resolvePort } from '../../src/kubelet/prober/probe.js';
import type { PodRuntime, RuntimeContainerStatus, RuntimePodStatus } from '../../src/kubelet/runtime/runtime.js';
import { containerStatus } from '../../src/kubelet/status/generate.js';
import { createLogger } from '../../src/util/log.js';
import { freePort } from '../e2e/free-port.js';

const flush = () => new Promise((r) => setImmediate(r));

/** A worker over a scripted container and scripted outcomes; `step` advances the clock and lets the probe settle. */
function harness(type: 'liveness' | 'readiness' | 'startup', probe: any, startedAtOffsetMs = 0) {
  const timers = new FakeTimers();
  const c: ProbedContainer = { id: 'cri://a', running: true, startedAt: new Date(timers.nowMs() + startedAtOffsetMs), started: true };
  const outcomes: ProbeOutcome['result'][] = [];
  let next: ProbeOutcome['result'] = 'success';
  const results: [string, ProbeResult][] = [];
  const w = new ProbeWorker({
    type, timing: probeTiming(probe), timers,
    container: () => c,
    run: async () => { outcomes.push(next); return { result: next, output: `out-${next}` }; },
    onResult: (id, r) => results.push([id, r]),
  });
  return {
    timers, c, outcomes, results, w,
    set(r: ProbeOutcome['result']) { next = r; },
    async step(ms: number) { timers.advance(ms); await flush(); await flush(); },
  };
}

describe('probe worker', () => {
  it('uses upstream defaults: period 10 s, timeout 1 s, success 1, failure 3', () => {
    assert.deepEqual(probeTiming({ exec: { command: ['true'] } }),
      { initialDelaySeconds: 0, periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 });
  });

  it('readiness starts Failure, waits initialDelaySeconds, then needs successThreshold successes', async () => {
    const h = harness('readiness', { initialDelaySeconds: 15, periodSeconds: 5, successThreshold: 2 });
    h.w.start();
    await h.step(0);
    assert.deepEqual(h.w.current(), { containerID: 'cri://a', result: 'failure' });
    await h.step(5000); await h.step(5000);
    assert.equal(h.outcomes.length, 0, 'no probe before the initial delay');
    await h.step(5000); // 15 s: first probe
    assert.equal(h.outcomes.length, 1);
    assert.equal(h.w.current().result, 'failure', 'one success of two');
    await h.step(5000);
    assert.equal(h.outcomes.length, 2);
    assert.equal(h.w.current().result, 'success');
    // Three failures in a row turn it unready; two do not.
    h.set('failure');
    await h.step(5000); await h.step(5000);
    assert.equal(h.w.current().result, 'success');
    await h.step(5000);
    assert.equal(h.w.current().result, 'failure');
    h.w.stop();
    assert.equal(h.timers.size, 0);
  });

  it('a success between failures restarts the count', async () => {
    const h = harness('readiness', { periodSeconds: 1 });
    h.w.start();
    await h.step(0);
    assert.equal(h.w.current().result, 'success');
    for (const r of ['failure', 'failure', 'success', 'failure', 'failure'] as const) { h.set(r); await h.step(1000); }
    assert.equal(h.w.current().result, 'success');
    await h.step(1000);
    assert.equal(h.w.current().result, 'failure');
    h.w.stop();
  });

  it('an errored probe keeps the last result', async () => {
    const h = harness('readiness', { periodSeconds: 1, failureThreshold: 1 });
    h.w.start();
    await h.step(0);
    assert.equal(h.w.current().result, 'success');
    h.set('error');
    for (let i = 0; i < 5; i++) await h.step(1000);
    assert.equal(h.w.current().result, 'success');
    h.w.stop();
  });

  it('liveness: Failure after failureThreshold, then on hold until the next instance, which starts over as Success', async () => {
    const h = harness('liveness', { periodSeconds: 10, failureThreshold: 3 });
    h.set('failure');
    h.w.start();
    await h.step(0); await h.step(10_000);
    assert.equal(h.w.current().result, 'success');
    await h.step(10_000);
    assert.deepEqual(h.w.current(), { containerID: 'cri://a', result: 'failure' });
    assert.equal(h.outcomes.length, 3);
    await h.step(10_000); await h.step(10_000);
    assert.equal(h.outcomes.length, 3, 'no probes while the instance is being killed');
    // The restarted instance.
    h.c.id = 'cri://b';
    h.c.startedAt = h.timers.now();
    await h.step(10_000);
    assert.deepEqual(h.results.slice(-1), [['cri://b', 'success']]);
    assert.equal(h.outcomes.length, 4, 'probing resumed on the new instance');
    h.w.stop();
  });

  it('a stopped container reads Failure for liveness and readiness, without probing', async () => {
    const h = harness('readiness', { periodSeconds: 1 });
    h.w.start();
    await h.step(0);
    assert.equal(h.w.current().result, 'success');
    h.c.running = false;
    await h.step(1000);
    assert.equal(h.w.current().result, 'failure');
    assert.equal(h.outcomes.length, 1);
    h.w.stop();
  });

  it('liveness and readiness wait until the container is started; the startup probe stops once it is', async () => {
    const r = harness('readiness', { periodSeconds: 1 });
    r.c.started = false;
    r.w.start();
    await r.step(0); await r.step(1000);
    assert.equal(r.outcomes.length, 0);
    r.c.started = true;
    await r.step(1000);
    assert.equal(r.outcomes.length, 1);
    r.w.stop();
    const s = harness('startup', { periodSeconds: 1 });
    s.c.started = true;
    s.w.start();
    await s.step(0); await s.step(1000);
    assert.equal(s.outcomes.length, 0);
    s.w.stop();
  });
});

/** A runtime with one running container and a scripted kill. */
function fakeRuntime() {
  let c: RuntimeContainerStatus = { name: 'app', id: 'cri://one', image: 'i', imageID: 'i', state: 'running', createdAt: new Date(0), startedAt: new Date(Date.parse('2025-01-01T00:00:00Z')), restartCount: 0 };
  const kills: [string, string, number][] = [];
  const rt: PodRuntime = {
    type: 'cri', version: 'cri://1',
    syncPod() {}, async killPod() {}, removePod() {}, pods: () => ['u1'], onPodEvent() {}, async close() {},
    status: (): RuntimePodStatus => ({ uid: 'u1', namespace: 'ns', name: 'p', sandbox: { id: 's', ready: true, ip: '127.0.0.1', createdAt: new Date(0) }, initContainers: [], containers: [c] }),
    async execSync() { return { exitCode: 0, output: '' }; },
    async killContainer(uid, id, grace) { kills.push([uid, id, grace]); },
  };
  return { rt, kills, set(x: Partial<RuntimeContainerStatus>) { c = { ...c, ...x }; } };
}

describe('probe manager', () => {
  it('startup gates liveness; started and ready overlay the runtime status; a liveness failure kills the instance once', async () => {
    const timers = new FakeTimers();
    const { rt, kills } = fakeRuntime();
    const calls: string[] = [];
    let startupOK = false;
    let liveOK = true;
    const changes: string[] = [];
    const m = new ProbeManager({
      runtime: rt, timers, logger: createLogger('test'), onChange: (uid) => changes.push(uid),
      run: async (probe) => {
        const kind = (probe.exec!.command ?? [])[0];
        calls.push(kind);
        const ok = kind === 'startup' ? startupOK : kind === 'live' ? liveOK : true;
        return { result: ok ? 'success' : 'failure', output: ok ? '' : `${kind} down` };
      },
    });
    const pod: Pod = {
      metadata: { name: 'p', namespace: 'ns', uid: 'u1' },
      spec: {
        terminationGracePeriodSeconds: 7,
        containers: [{
          name: 'app', image: 'i',
          startupProbe: { exec: { command: ['startup'] }, periodSeconds: 1, failureThreshold: 30 },
          livenessProbe: { exec: { command: ['live'] }, periodSeconds: 1, failureThreshold: 2 },
          readinessProbe: { exec: { command: ['ready'] }, periodSeconds: 1 },
        }],
      },
    };
    const step = async (ms: number) => { timers.advance(ms); await flush(); await flush(); };
    m.sync(pod);
    await step(0);
    for (let i = 0; i < 3; i++) await step(1000);
    assert.deepEqual([...new Set(calls)], ['startup'], 'only the startup probe runs before the container started');
    let c = m.apply('u1', rt.status('u1'))!.containers[0];
    assert.equal(c.started, false);
    assert.equal(c.ready, false);
    assert.deepEqual(containerStatus(pod.spec!.containers[0], c, 'ContainerCreating').ready, false);
    assert.equal(containerStatus(pod.spec!.containers[0], c, 'ContainerCreating').started, false);
    startupOK = true;
    await step(1000); await step(1000);
    c = m.apply('u1', rt.status('u1'))!.containers[0];
    assert.equal(c.started, true);
    assert.equal(c.ready, true);
    assert.ok(calls.includes('live') && calls.includes('ready'));
    assert.ok(changes.length > 0);
    liveOK = false;
    for (let i = 0; i < 5; i++) await step(1000);
    assert.deepEqual(kills, [['u1', 'cri://one', 7000]], 'killed once, with the pod grace period');
    m.close();
    assert.equal(timers.size, 0);
  });
});

describe('probe manager: readiness of an instance that started between ticks', () => {
  it('is probed when its status is generated (upstream manual trigger), not a period later; once, then on the period', async () => {
    const timers = new FakeTimers();
    const rt = fakeRuntime();
    rt.set({ id: '', state: 'waiting' });
    const calls: string[] = [];
    const m = new ProbeManager({
      runtime: rt.rt, timers, logger: createLogger('test'), onChange: () => undefined,
      run: async () => { calls.push('ready'); return { result: 'success', output: '' }; },
    });
    const pod: Pod = { metadata: { name: 'p', namespace: 'ns', uid: 'u1' }, spec: { containers: [{ name: 'app', image: 'i', readinessProbe: { exec: { command: ['ready'] } } }] } };
    const flushAll = async () => { await flush(); await flush(); };
    m.sync(pod);
    timers.advance(0); await flushAll();
    assert.equal(m.apply('u1', rt.rt.status('u1'))!.containers[0].ready, false, 'not ready before an instance exists');
    assert.deepEqual(calls, [], 'no probe while the container is being created');
    rt.set({ id: 'cri://one', state: 'running', startedAt: new Date(timers.nowMs()) });
    timers.advance(1000); await flushAll();
    assert.equal(m.apply('u1', rt.rt.status('u1'))!.containers[0].ready, false, 'no result yet: the period (10 s) has not come round');
    await flushAll();
    assert.deepEqual(calls, ['ready'], 'the status asked for a probe');
    assert.equal(m.apply('u1', rt.rt.status('u1'))!.containers[0].ready, true);
    assert.deepEqual(calls, ['ready'], 'a result exists: no further trigger');
    timers.advance(9000); await flushAll();
    assert.deepEqual(calls, ['ready', 'ready'], 'the periodic probe keeps its cadence');
    m.close();
  });
});

describe('httpGet and tcpSocket probes', () => {
  let hits = 0;
  const server: Server = createServer((req, res) => {
    hits++;
    if (req.url === '/ok') { res.end('fine'); return; }
    if (req.url === '/redirect') { res.writeHead(302, { location: '/ok' }); res.end(); return; }
    if (req.url === '/away') { res.writeHead(301, { location: 'http://example.invalid/' }); res.end('moved'); return; }
    if (req.url === '/loop') { res.writeHead(302, { location: '/loop' }); res.end(); return; }
    if (req.url === '/slow') { setTimeout(() => res.end('late'), 1500).unref(); return; }
    if (req.url === '/ua') { res.writeHead(req.headers['user-agent'] === 'kube-probe/1.32' && req.headers['x-probe'] === 'yes' ? 200 : 400); res.end(); return; }
    res.writeHead(500); res.end('broken');
  });
  const listening = new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as AddressInfo).port)));
  after(() => { server.closeAllConnections(); server.close(); });
  const probe = async (path: string, timeoutMs = 1000, headers: { name: string; value: string }[] = []) =>
    httpProbe({ url: new URL(`http://127.0.0.1:${await listening}${path}`), headers, timeoutMs });

  it('200-399 succeeds, other codes fail with upstream words', async () => {
    assert.deepEqual(await probe('/ok'), { result: 'success', output: 'fine' });
    assert.deepEqual(await probe('/nope'), { result: 'failure', output: 'HTTP probe failed with statuscode: 500' });
    assert.equal((await probe('/ua', 1000, [{ name: 'X-Probe', value: 'yes' }])).result, 'success');
  });

  it('follows redirects on the same host; a redirect elsewhere is success without following it', async () => {
    assert.deepEqual(await probe('/redirect'), { result: 'success', output: 'fine' });
    const away = await probe('/away');
    assert.equal(away.result, 'success');
    assert.match(away.output, /^Probe terminated redirects, Response body: moved/);
    const loop = await probe('/loop');
    assert.equal(loop.result, 'failure');
    assert.match(loop.output, /stopped after 10 redirects$/);
  });

  it('times out with Go words; a refused connection fails', async () => {
    const port = await listening;
    const slow = await probe('/slow', 200);
    assert.deepEqual(slow, { result: 'failure', output: `Get "http://127.0.0.1:${port}/slow": context deadline exceeded (Client.Timeout exceeded while awaiting headers)` });
    const closed = await freePort();
    const refused = await httpProbe({ url: new URL(`http://127.0.0.1:${closed}/`), headers: [], timeoutMs: 1000 });
    assert.deepEqual(refused, { result: 'failure', output: `Get "http://127.0.0.1:${closed}/": dial tcp 127.0.0.1:${closed}: connect: connection refused` });
    assert.ok(hits > 0);
  });

  it('tcpSocket: open port succeeds, closed one is refused', async () => {
    assert.deepEqual(await tcpProbe('127.0.0.1', await listening, 1000), { result: 'success', output: '' });
    const closed = await freePort();
    assert.deepEqual(await tcpProbe('127.0.0.1', closed, 1000), { result: 'failure', output: `dial tcp 127.0.0.1:${closed}: connect: connection refused` });
  });

  it('named ports resolve from the container ports', () => {
    const c = { name: 'c', ports: [{ name: 'http', containerPort: 8080 }] };
    assert.equal(resolvePort('http', c), 8080);
    assert.equal(resolvePort(81, c), 81);
    assert.ok(resolvePort('grpc', c) instanceof Error);
  });
});

