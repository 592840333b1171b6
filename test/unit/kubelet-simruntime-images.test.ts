/**
 * Images a simulated node cannot pull: the docs' "image that does not exist"
 * examples and tags that say so wait as the kubelet's image manager makes
 * them wait (ErrImagePull, ImagePullBackOff, the pull back-off).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SimulatedRuntime, backOffShownAfterMs } from '../../src/kubelet/runtime/simulated/runtime.js';
import { simulatedPullError } from '../../src/kubelet/runtime/simulated/registry.js';
import { FakeTimers } from '../../src/kubelet/timers.js';
import { generatePodStatus } from '../../src/kubelet/status/generate.js';

let seq = 0;
function pod(spec: any = {}): any {
  seq++;
  return {
    metadata: { name: `p${seq}`, namespace: 'default', uid: `uid-img-${seq}` },
    spec: { nodeName: 'n', containers: [{ name: 'c', image: 'gcr.io/google-samples/kubernetes-bootcamp:v10' }], ...spec },
    status: { phase: 'Pending' },
  };
}

function setup() {
  const timers = new FakeTimers();
  const rt = new SimulatedRuntime({ podCIDR: '10.244.7.0/24', hostIP: '172.16.0.17', timers });
  return { timers, rt };
}

const waitingOf = (rt: SimulatedRuntime, p: any, name = 'c') => {
  const c = [...rt.status(p.metadata.uid)!.initContainers, ...rt.status(p.metadata.uid)!.containers].find((x) => x.name === name);
  return c && [c.state, c.reason];
};

describe('simulatedPullError', () => {
  it('fails the docs\' missing images and tags that say they do not exist, with containerd\'s NotFound', () => {
    assert.equal(simulatedPullError('gcr.io/google-samples/kubernetes-bootcamp:v10'),
      'rpc error: code = NotFound desc = failed to pull and unpack image "gcr.io/google-samples/kubernetes-bootcamp:v10": ' +
      'failed to resolve reference "gcr.io/google-samples/kubernetes-bootcamp:v10": gcr.io/google-samples/kubernetes-bootcamp:v10: not found');
    assert.match(simulatedPullError('nginx:1.161')!, /"docker\.io\/library\/nginx:1\.161": docker\.io\/library\/nginx:1\.161: not found$/);
    assert.match(simulatedPullError('nginx:sometag')!, /"docker\.io\/library\/nginx:sometag": docker\.io\/library\/nginx:sometag: not found$/);
    for (const tag of ['doesnotexist', 'does-not-exist', 'nonexistent', 'non-existent', 'notfound', 'not-found', 'DoesNotExist']) {
      assert.ok(simulatedPullError(`registry.example:5000/team/app:${tag}`), tag);
    }
  });

  it('refuses the Quick Reference\'s image:v2 as Docker Hub refuses a repository that does not exist', () => {
    assert.equal(simulatedPullError('image:v2'), 'rpc error: code = Unknown desc = failed to pull and unpack image "docker.io/library/image:v2": ' +
      'failed to resolve reference "docker.io/library/image:v2": pull access denied, repository does not exist or may require authorization: ' +
      'server message: insufficient_scope: authorization failed');
    assert.ok(simulatedPullError('docker.io/library/image'));
    assert.equal(simulatedPullError('myorg/image:v2'), undefined);
  });

  it('pulls everything else', () => {
    for (const image of ['nginx', 'nginx:1.16.1', 'gcr.io/google-samples/kubernetes-bootcamp:v1', 'docker.io/jocatalin/kubernetes-bootcamp:v2',
      'localhost:5000/doesnotexist', 'busybox@sha256:' + '0'.repeat(64)]) {
      assert.equal(simulatedPullError(image), undefined, image);
    }
  });
});

describe('SimulatedRuntime and an image it cannot pull', () => {
  it('shows ErrImagePull, then ImagePullBackOff, and pulls again when the back-off (10 s, doubling) ends', () => {
    const { rt, timers } = setup();
    const p = pod();
    rt.syncPod(p);
    const c = rt.status(p.metadata.uid)!.containers[0]!;
    assert.deepEqual([c.state, c.reason, c.id, c.image, c.imageID], ['waiting', 'ErrImagePull', '', 'gcr.io/google-samples/kubernetes-bootcamp:v10', '']);
    assert.match(c.message!, /^rpc error: code = NotFound desc = failed to pull and unpack image/);
    timers.advance(backOffShownAfterMs);
    const b = rt.status(p.metadata.uid)!.containers[0]!;
    assert.deepEqual([b.reason, b.message], ['ImagePullBackOff', 'Back-off pulling image "gcr.io/google-samples/kubernetes-bootcamp:v10"']);
    timers.advance(10_000 - backOffShownAfterMs - 1);
    assert.deepEqual(waitingOf(rt, p), ['waiting', 'ImagePullBackOff']);
    timers.advance(1);
    assert.deepEqual(waitingOf(rt, p), ['waiting', 'ErrImagePull'], 'the second pull, 10 s after the first');
    timers.advance(backOffShownAfterMs);
    assert.deepEqual(waitingOf(rt, p), ['waiting', 'ImagePullBackOff']);
    timers.advance(20_000 - backOffShownAfterMs - 1);
    assert.deepEqual(waitingOf(rt, p), ['waiting', 'ImagePullBackOff'], 'the back-off doubled');
    timers.advance(1);
    assert.deepEqual(waitingOf(rt, p), ['waiting', 'ErrImagePull']);
    const status = generatePodStatus(p, rt.status(p.metadata.uid), { hostIP: 'h', now: timers.now() });
    assert.equal(status.phase, 'Pending');
    assert.deepEqual(status.containerStatuses[0].state, { waiting: { reason: 'ErrImagePull', message: c.message } });
    assert.equal(status.containerStatuses[0].image, 'gcr.io/google-samples/kubernetes-bootcamp:v10');
    assert.equal(status.containerStatuses[0].containerID, undefined);
  });

  it('runs the other containers, and starts the waiting one at once when its image changes', () => {
    const { rt, timers } = setup();
    const p = pod({ containers: [{ name: 'c', image: 'nginx:1.161' }, { name: 'side', image: 'busybox' }] });
    rt.syncPod(p);
    assert.deepEqual(waitingOf(rt, p, 'side'), ['running', undefined]);
    timers.advance(backOffShownAfterMs);
    assert.deepEqual(waitingOf(rt, p), ['waiting', 'ImagePullBackOff']);
    rt.syncPod({ ...p, spec: { ...p.spec, containers: [{ name: 'c', image: 'nginx:1.16.1' }, p.spec.containers[1]] } });
    const c = rt.status(p.metadata.uid)!.containers.find((x) => x.name === 'c')!;
    assert.deepEqual([c.state, c.image], ['running', 'docker.io/library/nginx:1.16.1']);
    assert.equal(generatePodStatus(p, rt.status(p.metadata.uid), { hostIP: 'h', now: timers.now() }).phase, 'Running');
  });

  it('a waiting init container holds back the rest; a Job\'s pod does not complete before its image is there', () => {
    const { rt, timers } = setup();
    const p = pod({ initContainers: [{ name: 'init', image: 'busybox:doesnotexist' }], containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' });
    rt.syncPod(p);
    timers.advance(60_000);
    const s = rt.status(p.metadata.uid)!;
    assert.equal(s.terminalPhase, undefined);
    assert.deepEqual(waitingOf(rt, p, 'init')?.[0], 'waiting');
    assert.equal(s.containers.length, 0);
    const status = generatePodStatus(p, s, { hostIP: 'h', now: timers.now() });
    assert.equal(status.containerStatuses![0]!.state?.waiting?.reason, 'PodInitializing');
    rt.syncPod({ ...p, spec: { ...p.spec, initContainers: [{ name: 'init', image: 'busybox' }] } });
    assert.deepEqual(waitingOf(rt, p, 'init'), ['exited', 'Completed']);
    assert.deepEqual(waitingOf(rt, p, 'c'), ['running', undefined]);
    timers.advance(999);
    assert.equal(rt.status(p.metadata.uid)!.terminalPhase, undefined, 'the run-to-completion second counts from the start');
    timers.advance(1);
    assert.equal(rt.status(p.metadata.uid)!.terminalPhase, 'Succeeded');
  });

  it('forgets the back-off with the pod', async () => {
    const { rt, timers } = setup();
    const p = pod();
    rt.syncPod(p);
    await rt.killPod(p.metadata.uid, 0);
    rt.removePod(p.metadata.uid);
    timers.advance(600_000);
    assert.equal(rt.status(p.metadata.uid), undefined);
  });
});
