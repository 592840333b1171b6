/**
 * A running pod's container image changes (kubectl set image / patch /
 * replace on a pod): the simulated kubelet restarts the container from the
 * new spec as upstream's computePodActions does, and a reference that does
 * not parse waits with InvalidImageName (image-change.ts).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { SimulatedRuntime } from '../../src/kubelet/runtime/simulated/runtime.js';
import { containersWithChangedImage, invalidImageNameMessage } from '../../src/kubelet/runtime/simulated/image-change.js';
import { FakeTimers } from '../../src/kubelet/timers.js';
import { generatePodStatus } from '../../src/kubelet/status/generate.js';

let seq = 0;
function pod(image: string): Pod {
  seq++;
  return {
    metadata: { name: `p${seq}`, namespace: 'default', uid: `uid-chg-${seq}` },
    spec: { nodeName: 'n', containers: [{ name: 'c', image }, { name: 'side', image: 'busybox:1.28' }] },
    status: { phase: 'Pending' },
  };
}

function withImage(p: Pod, image: string): Pod {
  return { ...p, spec: { ...p.spec!, containers: p.spec!.containers.map((c) => (c.name === 'c' ? { ...c, image } : c)) } };
}

function setup() {
  const timers = new FakeTimers();
  const rt = new SimulatedRuntime({ podCIDR: '10.244.8.0/24', hostIP: '172.16.0.18', timers });
  return { timers, rt };
}

describe('invalidImageNameMessage', () => {
  const cases: Array<[string, string | undefined]> = [
    ['nginx', undefined],
    ['nginx:1.27', undefined],
    ['registry.k8s.io/serve_hostname', undefined],
    ['localhost:5000/team/app:v1', undefined],
    [`busybox@sha256:${'a'.repeat(64)}`, undefined],
    ['new image', 'invalid reference format'],
    ['nginx:', 'invalid reference format'],
    ['Nginx', 'repository name must be lowercase'],
    ['a'.repeat(64), `invalid repository name (${'a'.repeat(64)}), cannot specify 64-byte hexadecimal strings`],
  ];
  for (const [image, why] of cases) {
    it(`${JSON.stringify(image)}: ${why ?? 'parses'}`, () => {
      assert.equal(invalidImageNameMessage(image), why && `Failed to apply default image tag "${image}": couldn't parse image name "${image}": ${why}`);
    });
  }
});

describe('containersWithChangedImage', () => {
  const running = (name: string, image: string) => ({ name, id: `sim://${name}`, image, imageID: '', state: 'running' as const, createdAt: new Date(0), restartCount: 0 });
  it('names running containers whose normalized image differs from the spec, not those waiting for a pull', () => {
    const specs = [{ name: 'a', image: 'nginx' }, { name: 'b', image: 'nginx:1.27' }, { name: 'c', image: 'x:doesnotexist' }];
    const statuses = [running('a', 'docker.io/library/nginx:latest'), running('b', 'docker.io/library/nginx:1.26'), running('c', 'docker.io/library/x:v1')];
    assert.deepEqual(containersWithChangedImage(specs, statuses, new Set()), ['b', 'c']);
    assert.deepEqual(containersWithChangedImage(specs, statuses, new Set(['c'])), ['b']);
  });
});

describe('SimulatedRuntime when a container\'s image changes', () => {
  it('stops the instance and starts the new image at once: restartCount 1, lastState terminated, the kill\'s reason kept', () => {
    const { rt, timers } = setup();
    const p = pod('myimage:v3');
    rt.syncPod(p);
    const first = rt.status(p.metadata!.uid!)!.containers[0]!;
    assert.equal(first.state, 'running');
    timers.advance(2_000);
    rt.syncPod(withImage(p, 'myimage:v4'));
    const [c, side] = rt.status(p.metadata!.uid!)!.containers;
    assert.deepEqual([c!.state, c!.image, c!.restartCount], ['running', 'docker.io/library/myimage:v4', 1]);
    assert.notEqual(c!.id, first.id);
    assert.deepEqual([c!.lastTermination?.id, c!.lastTermination?.exitCode, c!.lastTermination?.killMessage], [first.id, 0, 'Container c definition changed, will be restarted']);
    assert.deepEqual([side!.id, side!.restartCount], [rt.status(p.metadata!.uid!)!.containers[1]!.id, 0], 'the other container runs on');
    rt.syncPod(withImage(p, 'myimage:v4'));
    assert.equal(rt.status(p.metadata!.uid!)!.containers[0]!.id, c!.id, 'the same spec again changes nothing');
  });

  it('an image that does not parse waits InvalidImageName (no back-off), and a valid one starts it again', () => {
    const { rt, timers } = setup();
    const p = pod('registry.k8s.io/serve_hostname');
    rt.syncPod(p);
    const first = rt.status(p.metadata!.uid!)!.containers[0]!;
    const bad = withImage(p, 'new image');
    rt.syncPod(bad);
    const w = rt.status(p.metadata!.uid!)!.containers[0]!;
    assert.deepEqual([w.state, w.reason, w.message, w.restartCount, w.lastTermination?.id],
      ['waiting', 'InvalidImageName', 'Failed to apply default image tag "new image": couldn\'t parse image name "new image": invalid reference format', 0, first.id]);
    timers.advance(600_000);
    assert.equal(rt.status(p.metadata!.uid!)!.containers[0]!.reason, 'InvalidImageName', 'never pulled, never backed off');
    const status = generatePodStatus(bad, rt.status(p.metadata!.uid!), { hostIP: 'h', now: timers.now() });
    assert.equal(status.containerStatuses![0]!.state!.waiting!.reason, 'InvalidImageName');
    assert.equal(status.containerStatuses![0]!.lastState!.terminated!.exitCode, 0);
    rt.syncPod(withImage(p, 'nginx'));
    const c = rt.status(p.metadata!.uid!)!.containers[0]!;
    assert.deepEqual([c.state, c.image, c.restartCount], ['running', 'docker.io/library/nginx:latest', 1]);
  });

  it('a pod created with an image that does not parse never starts that container', () => {
    const { rt } = setup();
    const p = pod('Nginx');
    rt.syncPod(p);
    const [c, side] = rt.status(p.metadata!.uid!)!.containers;
    assert.deepEqual([c!.state, c!.reason, c!.restartCount], ['waiting', 'InvalidImageName', 0]);
    assert.equal(side!.state, 'running');
  });
});
