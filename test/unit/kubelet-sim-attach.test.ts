/** kubectl attach and run -i/-it on a simulated node: the container's console (attach.ts) through the simulated runtime's openStream. */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { SimulatedRuntime } from '../../src/kubelet/runtime/simulated/runtime.js';
import { shellSession } from '../../src/kubelet/runtime/simulated/attach.js';
import { FakeTimers } from '../../src/kubelet/timers.js';
import { containerLogPath } from '../../src/kubelet/logs/index.js';
import type { LocalStream, StreamRequest } from '../../src/kubelet/runtime/runtime.js';

const logs = mkdtempSync(join(tmpdir(), 'k8ts-sim-attach-'));
after(() => rmSync(logs, { recursive: true, force: true }));

let seq = 0;
function setup(container: Partial<Container>, restartPolicy: 'Always' | 'Never' = 'Never') {
  seq++;
  const pod: Pod = {
    metadata: { name: `p-${seq}`, namespace: 'default', uid: `uid-attach-${seq}` },
    spec: { nodeName: 'n', restartPolicy, containers: [{ name: 'c', image: 'busybox:1.28', ...container }] },
    status: { phase: 'Pending' },
  };
  const timers = new FakeTimers();
  const rt = new SimulatedRuntime({ podCIDR: '10.244.7.0/24', hostIP: '172.16.0.17', timers, nodeName: 'worker1', podLogsDir: logs });
  rt.syncPod(pod);
  const uid = pod.metadata!.uid!;
  const state = () => rt.status(uid)!.containers[0]!;
  const log = () => readFileSync(containerLogPath(logs, { namespace: 'default', name: pod.metadata!.name!, uid }, 'c', 0), 'utf8');
  return { rt, timers, uid, pod, state, log };
}

const attachReq = (o: Partial<StreamRequest> = {}): StreamRequest => ({ stdin: false, stdout: true, stderr: true, tty: false, ...o });

/** What an attach receives, and a promise per text awaited (no sleeping). */
function receive(s: LocalStream) {
  let out = '';
  let err = '';
  const waiters: (() => void)[] = [];
  const changed = () => { for (const w of waiters.splice(0)) w(); };
  s.stdout.setEncoding('utf8').on('data', (d: string) => { out += d; changed(); });
  s.stderr?.setEncoding('utf8').on('data', (d: string) => { err += d; changed(); });
  const until = (re: RegExp): Promise<void> => new Promise((resolve) => {
    const check = () => { if (re.test(out)) resolve(); else waiters.push(check); };
    check();
  });
  return { out: () => out, err: () => err, until };
}

/** Settles the runtime's promise chains (the shell's session is asynchronous, its clock fake). */
const settle = async () => { for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r)); };

describe('simulated attach', () => {
  it('which containers run an interactive shell on their stdin', () => {
    const cases: [Partial<Container>, string[] | undefined][] = [
      [{ stdin: true, image: 'busybox' }, ['sh']],
      [{ stdin: true, image: 'docker.io/library/alpine:3.20' }, ['sh']],
      [{ stdin: true, image: 'ubuntu' }, ['bash']],
      [{ stdin: true, image: 'debian:12' }, ['bash']],
      [{ stdin: true, image: 'nginx' }, undefined],
      [{ stdin: false, image: 'busybox' }, undefined],
      [{ stdin: true, image: 'nginx', command: ['sh'] }, ['sh']],
      [{ stdin: true, args: ['/bin/bash', '-i'] }, ['/bin/bash', '-i']],
      [{ stdin: true, command: ['sh', '-c', 'echo hi'] }, undefined],
      [{ stdin: true, command: ['nslookup', 'x'] }, undefined],
    ];
    for (const [c, want] of cases) assert.deepEqual(shellSession({ name: 'c', ...c }), want, JSON.stringify(c));
  });

  it('kubectl run -it busybox -- sh: the attach gets the prompt, runs lines, and `exit 3` ends the container with Error 3', async () => {
    const { rt, uid, state, log } = setup({ stdin: true, stdinOnce: true, tty: true, command: ['sh'] });
    await settle();
    assert.equal(state().state, 'running');
    const s = rt.openStream(uid, state().id, attachReq({ stdin: true, tty: true }));
    assert.equal(s.stderr, undefined);
    const r = receive(s);
    await r.until(/\/ # $/);
    s.stdin!.write('hostname\r');
    await r.until(/p-\d+\r\n\/ # $/);
    s.stdin!.write('echo hi there\r');
    await r.until(/hi there\r\n\/ # $/);
    s.stdin!.write('exit 3\r');
    assert.equal(await s.done, 0);
    assert.equal(r.out(), `/ # hostname\r\np-${seq}\r\n/ # echo hi there\r\nhi there\r\n/ # exit 3\r\n`);
    assert.deepEqual([state().state, state().exitCode, state().reason], ['exited', 3, 'Error']);
    // The log has what the terminal showed (a tty container logs its terminal's output).
    assert.match(log(), /stdout F hi there\r$/m);
    await rt.close();
  });

  it('stdinOnce without a tty: the first attach\'s stdin ending is the shell\'s EOF, which exits with the last command\'s status', async () => {
    const { rt, uid, state } = setup({ stdin: true, stdinOnce: true });
    await settle();
    const s = rt.openStream(uid, state().id, attachReq({ stdin: true }));
    const r = receive(s);
    s.stdin!.write('echo one\ncat /nope\n');
    s.stdin!.end();
    assert.equal(await s.done, 0);
    assert.equal(r.out(), 'one\n');
    assert.equal(r.err(), "cat: can't open '/nope': No such file or directory\n");
    // ash exits at EOF with the last command's status.
    assert.deepEqual([state().state, state().exitCode, state().reason], ['exited', 1, 'Error']);
    await rt.close();
  });

  it('without stdinOnce, a detached attach leaves the shell running for the next one, which sees the prompt redrawn', async () => {
    const { rt, uid, state } = setup({ stdin: true, tty: true }, 'Always');
    await settle();
    const first = rt.openStream(uid, state().id, attachReq({ stdin: true, tty: true }));
    const r1 = receive(first);
    first.stdin!.write('\r');
    await r1.until(/\/ # \r\n\/ # $/);
    first.stdin!.write('echo hal');
    await r1.until(/hal$/);
    first.close();
    assert.equal(await first.done, 0);
    await settle();
    assert.equal(state().state, 'running');
    const second = rt.openStream(uid, state().id, attachReq({ stdin: true, tty: true }));
    const r2 = receive(second);
    await r2.until(/^\/ # echo hal$/);
    second.stdin!.write('f\r');
    await r2.until(/half\r\n\/ # $/);
    // Ctrl-D ends the shell (0); restartPolicy Always starts a new instance, and the attach ends with the old one.
    second.stdin!.write('\x04');
    assert.equal(await second.done, 0);
    assert.equal(state().restartCount, 1);
    assert.equal(state().state, 'running');
    await rt.close();
  });

  it('kubectl run -i -- a command: the first attach also gets what the command wrote before it connected, then the rest; it ends with the container', async () => {
    const { rt, uid, timers, state } = setup({ stdin: true, stdinOnce: true, command: ['sh', '-c', 'echo one; echo oops >&2; sleep 5; echo two'] });
    await settle();
    const s = rt.openStream(uid, state().id, attachReq({ stdin: true }));
    const r = receive(s);
    await r.until(/one\n/);
    timers.advance(5000);
    await r.until(/two\n/);
    assert.equal(await s.done, 0);
    assert.equal(r.out(), 'one\ntwo\n');
    assert.equal(r.err(), 'oops\n');
    assert.deepEqual([state().state, state().exitCode, state().reason], ['exited', 0, 'Completed']);
    await rt.close();
  });

  it('kubectl run -it --rm -- echo hi: the kubelet first sees the container terminated, never running (its relist comes after the exit); a command that sleeps is seen running', async () => {
    const seen = (rt: SimulatedRuntime, uid: string) => {
      const states: string[] = [];
      rt.onPodEvent((u) => { if (u === uid) states.push(rt.status(uid)!.containers.map((c) => c.state).join(',') || 'none'); });
      return states;
    };
    const fast = setup({ stdin: true, stdinOnce: true, tty: true, command: ['echo', 'hi'] });
    const fastStates = seen(fast.rt, fast.uid);
    await settle();
    assert.equal(fast.log().includes('hi'), true);
    assert.deepEqual([fast.state().state, fast.state().reason], ['exited', 'Completed']);
    assert.ok(!fastStates.includes('running'), fastStates.join(' '));
    await fast.rt.close();
    const slow = setup({ command: ['sh', '-c', 'echo one; sleep 5; echo two'] });
    const slowStates = seen(slow.rt, slow.uid);
    await settle();
    assert.equal(slow.state().state, 'running');
    slow.timers.advance(5000);
    await settle();
    assert.deepEqual(slowStates.filter((s, i) => s !== 'none' && s !== slowStates[i - 1]), ['running', 'exited']);
    await slow.rt.close();
  });

  it('kubectl attach to a loop: only the lines written from the attach on, until the caller detaches', async () => {
    const { rt, uid, timers, state } = setup({ command: ['sh', '-c', 'while true; do echo tick; sleep 1; done'] }, 'Always');
    await settle();
    timers.advance(1000);
    await settle();
    const s = rt.openStream(uid, state().id, attachReq());
    const r = receive(s);
    timers.advance(1000);
    await r.until(/tick\n/);
    // The loop's next sleep is armed after its echo.
    await settle();
    timers.advance(1000);
    await r.until(/tick\ntick\n/);
    // Two seconds' lines, not the two written before the attach.
    assert.equal(r.out(), 'tick\ntick\n');
    s.close();
    assert.equal(await s.done, 0);
    assert.equal(state().state, 'running');
    await rt.close();
  });

  it('an image the simulation runs nothing for (nginx): the attach shows nothing and ends when the pod stops', async () => {
    const { rt, uid, state } = setup({ image: 'nginx' }, 'Always');
    await settle();
    const s = rt.openStream(uid, state().id, attachReq({ stdin: true }));
    const r = receive(s);
    assert.equal(s.stdin, undefined);
    await rt.killPod(uid, 0);
    assert.equal(await s.done, 0);
    assert.equal(r.out() + r.err(), '');
    await rt.close();
  });
});
