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
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { WebSocket } from 'ws';
import { eventually } from './harness.js';
import { adminCredentials, promptUnderTerminal, underTerminal } from './helpers.js';
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

  // The attach comes after `echo hi` has exited: kube-apiserver 1.30+ has accepted kubectl's WebSocket before its SPDY
  // upgrade to the kubelet fails, so the kubelet's words come on the error channel as an internal error (its
  // StreamTranslatorHandler); over SPDY they come as the kubelet wrote them. Either way kubectl prints the log.
  for (const [transport, env, cause] of [
    ['WebSocket', '', 'Internal error occurred: unable to upgrade connection: '],
    ['SPDY', 'KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false ', 'unable to upgrade connection: '],
  ] as const) {
    it(`kubectl run -it --rm of a command that ends at once (${transport}): the output and upstream's fallback to the logs, then the pod is deleted`, async () => {
      const name = `bb-${transport.toLowerCase()}`;
      const run = await underTerminal(`env ${env}kubectl --kubeconfig ${up.kubeconfig} run ${name} -it --rm --image=busybox --restart=Never -- echo hi`, [], 120_000);
      assert.equal(run.code, 0, run.out);
      const lines = run.out.replace(/\r/g, '').split('\n');
      const warning = `warning: couldn't attach to pod/${name}, falling back to streaming logs: ${cause}container ${name} not found in pod ${name}_default`;
      // Upstream's output when the attach lost the race; the log alone when kubectl saw the pod Succeeded first.
      const expected = lines.includes(warning) ? ['If you don\'t see a command prompt, try pressing enter.', warning, 'hi', `pod "${name}" deleted`, ''] : ['hi', `pod "${name}" deleted`, ''];
      assert.deepEqual(lines, expected, run.out);
      await gone(name);
    });
  }

  it('kubectl run -i --rm of a bash script: brace expansion ({1..3}) and arrays, as bash does', async () => {
    const r = await kubectl(['run', '-i', '--rm', '--restart=Never', 'braces', '--image=ubuntu', '--', 'bash', '-c', 'a=(x y z); for i in {1..3}; do echo ${a[1]}$i; done; echo f{a,b}'], '');
    assert.equal(r.stdout, 'y1\ny2\ny3\nfa fb\npod "braces" deleted\n');
    await gone('braces');
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

  // kubectl 1.32's websocket client drops frames that come before it has created its streams ('Unknown stream id 1,
  // discarding message'): the kubelet holds the first output until kubectl's first resize (util/caller-streams.ts).
  it('kubectl attach -it, exec -it, debug -it and run -it, many times in a row: the prompt every time, without pressing enter', async () => {
    await kubectl(['apply', '-f', '-'], 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: prompt\nspec:\n  containers:\n  - name: shell\n    image: busybox:1.28\n    stdin: true\n    tty: true\n');
    await kubectl(['wait', '--for=condition=Ready', 'pod/prompt', '--timeout=60s']);
    const k = `kubectl --kubeconfig ${up.kubeconfig}`;
    const rounds: [string, number][] = [[`${k} attach -it prompt`, 15], [`${k} exec -it prompt -- sh`, 10], [`${k} debug -it prompt --image=busybox:1.28 --target=shell`, 3]];
    for (const [command, n] of rounds) {
      for (let i = 0; i < n; i++) {
        const r = await promptUnderTerminal(command, /\/ # (\x1b\[J)?$/);
        assert.ok(r.prompted, `round ${i + 1} of ${command}: no prompt without pressing enter:\n${r.out}`);
      }
    }
    for (let i = 0; i < 3; i++) {
      // underTerminal types only once it sees a prompt: a lost first prompt would leave it waiting until the timeout.
      const run = await terminal(`run -it --rm --restart=Never run-it-${i} --image=busybox:1.28`, ['exit\r']);
      assert.equal(run.code, 0, run.out);
      assert.match(run.out, /If you don't see a command prompt, try pressing enter\.\r\n\/ # exit\r\n/);
    }
    assert.equal((await kubectl(['get', 'pod', 'prompt', '-o', 'jsonpath={.status.containerStatuses[0].restartCount}'])).stdout, '0');
    await kubectl(['delete', 'pod', 'prompt', '--wait=false']);
  });

  it('a tty attach\'s first output waits for the caller\'s first resize message, then comes at once', async () => {
    await kubectl(['apply', '-f', '-'], 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: resize\nspec:\n  containers:\n  - name: shell\n    image: busybox:1.28\n    stdin: true\n    tty: true\n');
    await kubectl(['wait', '--for=condition=Ready', 'pod/resize', '--timeout=60s']);
    const server = parse(readFileSync(up.kubeconfig, 'utf8')).clusters[0].cluster.server as string;
    const url = `${server.replace(/^https/, 'wss')}/api/v1/namespaces/default/pods/resize/attach?container=shell&stdin=true&stdout=true&tty=true`;
    const socket = new WebSocket(url, ['v5.channel.k8s.io'], adminCredentials(up.kubeconfig));
    const frames: { at: 'before' | 'after'; data: Buffer }[] = [];
    let resized = false;
    socket.on('message', (d: Buffer) => frames.push({ at: resized ? 'after' : 'before', data: d }));
    await new Promise((resolve, reject) => { socket.once('open', resolve); socket.once('error', reject); });
    // As kubectl's: its streams exist, then its terminal's size (the kubelet waits up to 1 s for it).
    await new Promise((r) => setTimeout(r, 300));
    resized = true;
    socket.send(Buffer.concat([Buffer.from([4]), Buffer.from('{"Width":100,"Height":30}')]));
    await eventually(async () => frames.some((f) => f.data[0] === 1 && f.data.subarray(1).toString().includes('/ # ')), 10_000, 'the redrawn prompt');
    assert.deepEqual(frames.filter((f) => f.at === 'before').map((f) => f.data.toString()), [], 'nothing before the resize');
    socket.close();
    await kubectl(['delete', 'pod', 'resize', '--wait=false']);
  });
});
