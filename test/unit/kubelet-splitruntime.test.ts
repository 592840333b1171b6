/** SplitRuntime: static pods on one runtime, API pods on the other, every later call routed to the pod's runtime. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SimulatedRuntime } from '../../src/kubelet/runtime/simulated/runtime.js';
import { SplitRuntime } from '../../src/kubelet/runtime/split.js';
import { FakeTimers } from '../../src/kubelet/timers.js';
import { annotationConfigSource, configSourceFile } from '../../src/kubelet/staticpods/manifest.js';

const flush = () => new Promise<void>((r) => setImmediate(r));
let seq = 0;

function pod(annotations: Record<string, string> = {}): any {
  seq++;
  return {
    metadata: { name: `p${seq}`, namespace: 'kube-system', uid: `uid-${seq}`, annotations },
    spec: { nodeName: 'n', containers: [{ name: 'c', image: 'busybox' }] },
    status: { phase: 'Pending' },
  };
}
const staticPod = () => pod({ [annotationConfigSource]: configSourceFile });

function setup() {
  const timers = new FakeTimers();
  // Two simulated runtimes told apart by their pod CIDRs: API pods get 10.1.0.x, static pods 10.2.0.x.
  const apiPods = new SimulatedRuntime({ podCIDR: '10.1.0.0/24', hostIP: '172.16.0.1', timers });
  const staticPods = new SimulatedRuntime({ podCIDR: '10.2.0.0/24', hostIP: '172.16.0.1', timers });
  const rt = new SplitRuntime(apiPods, staticPods);
  const events: string[] = [];
  rt.onPodEvent((uid) => events.push(uid));
  return { rt, apiPods, staticPods, events };
}

describe('SplitRuntime', () => {
  it('runs a static pod on the static-pod runtime and an API pod on the other, and reports both', async () => {
    const { rt, apiPods, staticPods, events } = setup();
    const s = staticPod();
    const a = pod();
    rt.syncPod(s);
    rt.syncPod(a);
    assert.deepEqual(staticPods.pods(), [s.metadata.uid]);
    assert.deepEqual(apiPods.pods(), [a.metadata.uid]);
    assert.match(rt.status(s.metadata.uid)!.sandbox!.ip!, /^10\.2\.0\./);
    assert.match(rt.status(a.metadata.uid)!.sandbox!.ip!, /^10\.1\.0\./);
    assert.deepEqual(rt.pods().sort(), [a.metadata.uid, s.metadata.uid].sort());
    await flush();
    assert.deepEqual(events.sort(), [a.metadata.uid, s.metadata.uid].sort(), 'events of both runtimes reach the agent');
    assert.equal(rt.version, apiPods.version);
  });

  it('kills and removes a pod on the runtime that holds it', async () => {
    const { rt, apiPods, staticPods } = setup();
    const s = staticPod();
    const a = pod();
    rt.syncPod(s);
    rt.syncPod(a);
    await rt.killPod(s.metadata.uid, 0);
    assert.equal(rt.status(s.metadata.uid)!.containers[0]!.state, 'exited');
    assert.equal(rt.status(a.metadata.uid)!.containers[0]!.state, 'running');
    rt.removePod(s.metadata.uid);
    assert.deepEqual(staticPods.pods(), []);
    assert.deepEqual(apiPods.pods(), [a.metadata.uid]);
  });

  it('routes a pod it did not sync (found after a restart) to the runtime that lists it', () => {
    const { rt, staticPods } = setup();
    const s = staticPod();
    staticPods.syncPod(s);
    assert.match(rt.status(s.metadata.uid)!.sandbox!.ip!, /^10\.2\.0\./);
  });
});
