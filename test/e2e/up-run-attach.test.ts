/**
 * `kubectl run -it --rm`, `run -i --rm -- CMD` and `kubectl attach` on
 * `npm start`'s simulated nodes, with the real kubectl 1.32 (the commands
 * of the DNS debugging, Services and StatefulSet Basics pages): the
 * container's console (src/kubelet/runtime/simulated/attach.ts) is what
 * kubectl attaches to over pods/attach.
 */
import { describe, it, before, after } from 'node:test';
import { spawn } from 'node:child_process';
import assert from 'node:assert/strict';
import { eventually } from './harness.js';
import { underTerminal } from './helpers.js';
import { startUp, type UpCluster } from './up-cluster.js';

describe('kubectl run -it --rm and kubectl attach on npm start\'s simulated nodes', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const terminal = (command: string, input: string[]) => underTerminal(`kubectl --kubeconfig ${up.kubeconfig} ${command}`, input, 120_000);
  const gone = (pod: string) => eventually(async () => (await kubectl(['get', 'pod', pod], undefined, true)).stderr.includes(`pods "${pod}" not found`), 60_000, `pod ${pod} gone`);

  before(async () => {
    up = await startUp('k8ts-e2e-run-attach-');
  });
  after(async () => { await up?.close(); });

  it('kubectl run -i --tty --rm with busybox\'s default command: a shell prompt, hostname, nslookup, exit; the pod is deleted', async () => {
    const run = await terminal('run -i --tty --rm shell --image=busybox:1.28 --restart=Never', ['hostname\r', 'nslookup kubernetes.default\r', 'exit\r']);
    assert.equal(run.code, 0, run.out);
    assert.match(run.out, /If you don't see a command prompt, try pressing enter\.\r?\n/);
    assert.doesNotMatch(run.out, /couldn't attach/);
    assert.match(run.out, /\/ # hostname\r\nshell\r\n\/ # /);
    assert.match(run.out, /\/ # nslookup kubernetes\.default\r\nServer:    10\.96\.0\.10\r\nAddress 1: 10\.96\.0\.10 kube-dns\.kube-system\.svc\.cluster\.local\r\n\r\n/);
    assert.match(run.out, /Name:      kubernetes\.default\r\nAddress 1: 10\.96\.0\.1 kubernetes\.default\.svc\.cluster\.local\r\n\r\n\/ # exit\r\n/);
    assert.match(run.out, /pod "shell" deleted/);
    await gone('shell');
  });

  it('kubectl run -i --rm -- sh without a tty reads the piped script; `exit 3` is kubectl\'s exit code', async () => {
    const r = await kubectl(['run', '-i', '--rm', '--restart=Never', 'script', '--image=busybox', '--', 'sh'], 'echo hello from $HOSTNAME\nexit 3\n', true);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stdout, /^hello from script\n/);
    assert.match(r.stdout + r.stderr, /pod "script" deleted/);
    assert.match(r.stderr, /pod default\/script terminated \(Error\)/);
    await gone('script');
  });

  it('kubectl run -i --rm --restart=Never dns-test --image=busybox:1.28 -- nslookup kubernetes.default prints busybox\'s output once', async () => {
    const r = await kubectl(['run', '-i', '--rm', '--restart=Never', 'dns-test', '--image=busybox:1.28', '--', 'nslookup', 'kubernetes.default'], '');
    assert.equal(r.stdout, 'Server:    10.96.0.10\nAddress 1: 10.96.0.10 kube-dns.kube-system.svc.cluster.local\n\n' +
      'Name:      kubernetes.default\nAddress 1: 10.96.0.1 kubernetes.default.svc.cluster.local\n\npod "dns-test" deleted\n');
    // nslookup usually ends before kubectl's attach arrives; kubectl then prints the log instead, as upstream's does for a short command.
    assert.match(r.stderr, /^(If you don't see a command prompt, try pressing enter\.\n)?(warning: couldn't attach to pod\/dns-test, falling back to streaming logs: .*container dns-test not found in pod dns-test_default\n)?$/);
    await gone('dns-test');
  });

  it('kubectl run -i --rm of a command still running when kubectl attaches: what it wrote before the attach is printed too, once', async () => {
    const r = await kubectl(['run', '-i', '--rm', '--restart=Never', 'slow', '--image=busybox', '--', 'sh', '-c', 'echo first; sleep 2; echo second'], '');
    assert.equal(r.stdout, 'first\nsecond\npod "slow" deleted\n');
    assert.doesNotMatch(r.stderr, /couldn't attach/);
    await gone('slow');
  });

  it('kubectl attach to a running loop shows the lines it writes from then on', async () => {
    await kubectl(['run', 'loop', '--image=busybox', '--', 'sh', '-c', 'while true; do date; sleep 1; done']);
    await kubectl(['wait', '--for=condition=Ready', 'pod/loop', '--timeout=60s']);
    const before = await eventually(async () => {
      const lines = (await kubectl(['logs', 'loop'])).stdout.split('\n').filter(Boolean);
      return lines.length >= 2 && lines;
    }, 60_000, 'two lines logged');
    const attach = spawn('kubectl', ['--kubeconfig', up.kubeconfig, 'attach', 'loop'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    attach.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    const lines = await new Promise<string[]>((resolve, reject) => {
      setTimeout(() => reject(new Error(`no lines from kubectl attach: ${out}`)), 60_000).unref();
      attach.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const got = out.split('\n').filter((l) => /^\w{3} \w{3} /.test(l));
        if (got.length >= 2) resolve(got);
      });
    });
    attach.kill('SIGTERM');
    assert.doesNotMatch(out, /couldn't attach|falling back/);
    // New lines only: none of those logged before the attach.
    for (const l of lines) assert.ok(!before.includes(l), `${l} was logged before the attach: ${before.join('|')}`);
    await kubectl(['delete', 'pod', 'loop', '--wait=false']);
  });
});
