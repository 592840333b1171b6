/**
 * `kubectl debug` with a command on `npm start`'s simulated nodes, with the
 * real kubectl 1.32: an ephemeral container runs its command (echo, a sleep
 * then echo) and ends with it, terminated for good, as on a real node, so
 * `kubectl debug -it POD --image=busybox -- echo hi` prints `hi` and returns
 * (kubectl attaches, or reads the logs of a container that already ended)
 * instead of attaching to a container that never ends.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { eventually } from './harness.js';
import { startUp, type UpCluster } from './up-cluster.js';

describe('kubectl debug with a command on npm start\'s simulated nodes', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const ephemeralState = async (name: string) => {
    const pod = JSON.parse((await kubectl(['get', 'pod', 'web', '-o', 'json'])).stdout) as Pod;
    return pod.status?.ephemeralContainerStatuses?.find((s) => s.name === name)?.state;
  };

  before(async () => {
    up = await startUp('k8ts-e2e-debug-command-');
    await kubectl(['run', 'web', '--image=nginx']);
    await kubectl(['wait', '--for=condition=Ready', 'pod/web', '--timeout=60s']);
  });
  after(async () => { await up?.close(); });

  it('kubectl debug -it --target -- echo hi prints hi and returns 0; the container is terminated Completed', async () => {
    const r = await kubectl(['debug', '-it', 'web', '--image=busybox', '--target=web', '--container=echoer', '--', 'echo', 'hi'], '');
    assert.equal(r.code, 0, r.stderr);
    // kubectl writes its targeting notice to stdout, then the container's output (attached, or its log once it ended).
    assert.match(r.stdout, /^Targeting container "web"\. If you don't see processes from this container it may be because the container runtime doesn't support this feature\.\nhi\n$/);
    const state = await eventually(async () => (await ephemeralState('echoer'))?.terminated, 30_000, 'echoer terminated');
    assert.equal(state.exitCode, 0);
    assert.equal(state.reason, 'Completed');
    assert.equal((await kubectl(['logs', 'web', '-c', 'echoer'])).stdout, 'hi\n');
  });

  it('a command that outlives the attach: kubectl shows what it prints later, and the exit code ends the container', async () => {
    const r = await kubectl(['debug', '-i', 'web', '--image=busybox', '--container=later', '--', 'sh', '-c', 'sleep 2; echo later; exit 3'], '', true);
    assert.match(r.stdout, /later\n/);
    const state = await eventually(async () => (await ephemeralState('later'))?.terminated, 30_000, 'later terminated');
    assert.equal(state.exitCode, 3);
    assert.equal(state.reason, 'Error');
    // Never restarted, and the pod's own container runs on.
    const pod = JSON.parse((await kubectl(['get', 'pod', 'web', '-o', 'json'])).stdout) as Pod;
    assert.equal(pod.status?.ephemeralContainerStatuses?.find((s) => s.name === 'later')?.restartCount, 0);
    assert.ok(pod.status?.containerStatuses?.[0]?.state?.running, JSON.stringify(pod.status?.containerStatuses));
    assert.equal(pod.status?.phase, 'Running');
  });

  it('a debug shell with no command still runs until it exits', async () => {
    const r = await kubectl(['debug', '-i', 'web', '--image=busybox', '--container=shell', '--', 'sh'], 'echo from shell\nexit 0\n');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /from shell\n/);
    const state = await eventually(async () => (await ephemeralState('shell'))?.terminated, 30_000, 'shell terminated');
    assert.equal(state.exitCode, 0);
  });
});
