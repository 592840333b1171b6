/** SplitRuntime: static pods on one runtime, API pods on the other, every later call routed to the pod's runtime. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SimulatedRuntime } from '../../src/kubelet/runtime/simulated/runtime.js';
import { SplitRuntime } from '../../src/kubelet/runtime/split.js';
import { FakeTimers } from '../../src/kubelet/timers.js';
import { annotationConfigSource, configSourceFile, isStaticPod } from '../../src/kubelet/staticpods/manifest.js';
import { isAddonPod } from '../../src/kubelet/runtime/addon-image.js';

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

  it('with the agent\'s add-on route, a pod whose every container runs k8ts.local/k8ts goes to the other runtime, a mixed pod does not', () => {
    const timers = new FakeTimers();
    const main = new SimulatedRuntime({ podCIDR: '10.1.0.0/24', hostIP: '172.16.0.1', timers });
    const addons = new SimulatedRuntime({ podCIDR: '10.2.0.0/24', hostIP: '172.16.0.1', timers });
    const rt = new SplitRuntime(main, addons, (p) => isStaticPod(p) || isAddonPod(p));
    const withImages = (...images: string[]) => {
      const p = pod();
      p.spec.containers = images.map((image, i) => ({ name: `c${i}`, image }));
      return p;
    };
    const proxy = withImages('k8ts.local/k8ts:0.1.0');
    const untagged = withImages('k8ts.local/k8ts');
    const mixed = withImages('k8ts.local/k8ts:0.1.0', 'k8ts.local/busybox:1');
    const lookalike = withImages('k8ts.local/k8ts-extra:1');
    const s = staticPod();
    for (const p of [proxy, untagged, mixed, lookalike, s]) rt.syncPod(p);
    assert.deepEqual(addons.pods().sort(), [proxy, untagged, s].map((p) => p.metadata.uid).sort());
    assert.deepEqual(main.pods().sort(), [mixed, lookalike].map((p) => p.metadata.uid).sort());
  });
});
