/**
 * Exec probes on a simulated node (runtime/simulated/exec-probe.ts): the
 * agent's prober over the SimulatedRuntime, as PodWorkers wires them, on a
 * FakeTimers clock. The probe's command runs in the simulated shell against
 * the container instance's files, which its own command changes.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Container, Pod, Probe } from 'kubernetes-types/core/v1.js';
import { SimulatedRuntime } from '../../src/kubelet/runtime/simulated/runtime.js';
import { FakeTimers } from '../../src/kubelet/timers.js';
import { ProbeManager } from '../../src/kubelet/prober/manager.js';
import { silentLogger } from '../../src/util/log.js';
import type { EventRecorder } from '../../src/client/index.js';

let seq = 0;
function pod(container: Partial<Container>, annotations: Record<string, string> = {}): Pod {
  seq++;
  return {
    metadata: { name: `liveness-exec-${seq}`, namespace: 'default', uid: `probe-uid-${seq}`, annotations },
    spec: { nodeName: 'n', containers: [{ name: 'liveness', image: 'registry.k8s.io/busybox', ...container }] },
    status: { phase: 'Pending' },
  };
}

function probed(logs = true) {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-sim-exec-probe-'));
  const timers = new FakeTimers();
  const rt = new SimulatedRuntime({ podCIDR: '10.244.7.0/24', hostIP: '172.16.0.17', timers, ...(logs ? { podLogsDir: dir } : {}) });
  const events: string[] = [];
  const recorder = { event: (_ref: unknown, _type: string, reason: string, message: string) => { events.push(`${reason}: ${message}`); } } as unknown as EventRecorder;
  const prober = new ProbeManager({ runtime: rt, timers, logger: silentLogger, recorder, onChange: () => undefined });
  const flush = async () => { for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r)); };
  return {
    rt, events,
    run(p: Pod) { rt.syncPod(p); prober.sync(p); },
    /** Advances in 100 ms steps, letting the programs' and probes' promises settle between them. */
    async advance(ms: number) { await flush(); for (let left = ms; left > 0; left -= 100) { timers.advance(Math.min(100, left)); await flush(); } },
    container: (p: Pod) => prober.apply(p.metadata!.uid!, rt.status(p.metadata!.uid!))!.containers[0]!,
    close() { prober.close(); void rt.close(); rmSync(dir, { recursive: true, force: true }); },
  };
}

const unhealthy = "Unhealthy: Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory\n";

describe('simulated exec probes: the command runs against the container\'s files', () => {
  it('the liveness-exec tutorial: healthy for 30 s, then Unhealthy with cat\'s message, Killing, a restart whose fresh layer is healthy again', async () => {
    const h = probed();
    const livenessProbe: Probe = { exec: { command: ['cat', '/tmp/healthy'] }, initialDelaySeconds: 5, periodSeconds: 5 };
    const p = pod({ args: ['/bin/sh', '-c', 'touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600'], livenessProbe });
    h.run(p);
    await h.advance(29_000);
    assert.deepEqual(h.events, []);
    assert.equal(h.container(p).restartCount, 0);
    // The file goes at 30 s; three failed probes 5 s apart (the default failureThreshold) kill the container.
    await h.advance(17_000);
    assert.deepEqual(h.events, [unhealthy, unhealthy, unhealthy, 'Killing: Container liveness failed liveness probe, will be restarted']);
    const c = h.container(p);
    assert.deepEqual([c.state, c.restartCount, c.lastTermination?.exitCode], ['running', 1, 137]);
    // The new instance's script touches /tmp/healthy again in its own, empty, layer: its probes succeed until it removes it, 30 s on.
    await h.advance(20_000);
    assert.equal(h.events.length, 4, h.events.join('\n'));
    assert.equal(h.container(p).restartCount, 1);
    h.close();
  });

  it('the probe sees the environment and files; a non-zero exit is a failure with stdout then stderr as its message', async () => {
    const h = probed();
    const readinessProbe: Probe = { exec: { command: ['sh', '-c', 'echo "level=$LEVEL"; ls /nope'] }, periodSeconds: 1 };
    const p = pod({ command: ['sleep', '3600'], env: [{ name: 'LEVEL', value: 'very' }], readinessProbe });
    h.run(p);
    await h.advance(1500);
    assert.ok(h.events.includes('Unhealthy: Readiness probe failed: level=very\nls: /nope: No such file or directory\n'), h.events.join('\n'));
    assert.equal(h.container(p).ready, false);
    h.close();
  });

  it('a command longer than timeoutSeconds fails as upstream\'s ExecSync deadline: command "..." timed out', async () => {
    const h = probed();
    const livenessProbe: Probe = { exec: { command: ['sh', '-c', 'sleep 5'] }, timeoutSeconds: 2, periodSeconds: 10, failureThreshold: 1 };
    const p = pod({ command: ['sleep', '3600'], livenessProbe });
    h.run(p);
    await h.advance(2500);
    assert.deepEqual(h.events.slice(0, 2), ['Unhealthy: Liveness probe failed: command "sh -c sleep 5" timed out', 'Killing: Container liveness failed liveness probe, will be restarted']);
    h.close();
  });

  it('a command the shell does not run keeps the simulated outcome; so does a pod steered by its annotation', async () => {
    const h = probed();
    const unknown = pod({ command: ['sleep', '3600'], livenessProbe: { exec: { command: ['pg_isready', '-U', 'postgres'] }, periodSeconds: 1, failureThreshold: 1 } });
    const steered = pod({ command: ['sleep', '3600'], livenessProbe: { exec: { command: ['cat', '/tmp/nope'] }, periodSeconds: 1, failureThreshold: 1 } }, { 'k8ts.io/sim-liveness-fail': '1h' });
    h.run(unknown);
    h.run(steered);
    await h.advance(3000);
    assert.deepEqual(h.events, []);
    assert.equal(h.container(unknown).restartCount, 0);
    assert.equal(h.container(steered).restartCount, 0);
    h.close();
  });

  it('a container whose own command is not run (an image\'s entrypoint; any on k8ts sim\'s nodes, which keep no logs) keeps the simulated outcome', async () => {
    const livenessProbe: Probe = { exec: { command: ['cat', '/tmp/healthy'] }, periodSeconds: 1, failureThreshold: 1 };
    for (const logs of [true, false]) {
      const h = probed(logs);
      const entrypoint = pod({ image: 'nginx', livenessProbe });
      const script = pod({ args: ['/bin/sh', '-c', 'touch /tmp/healthy; sleep 600'], livenessProbe });
      h.run(entrypoint);
      if (!logs) h.run(script);
      await h.advance(3000);
      assert.deepEqual(h.events, [], `logs: ${logs}`);
      assert.equal(h.container(entrypoint).restartCount, 0);
      h.close();
    }
  });
});
