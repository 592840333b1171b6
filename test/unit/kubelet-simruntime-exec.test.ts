/** kubectl exec and port-forward on a simulated node: the simulated runtime's openStream (simulated shell) and dialPort (image responders). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { SimulatedRuntime } from '../../src/kubelet/runtime/simulated/runtime.js';
import { FakeTimers } from '../../src/kubelet/timers.js';
import type { LocalStream } from '../../src/kubelet/runtime/runtime.js';
import { nginxWelcomePage } from '../../src/kubelet/runtime/simulated/image-contents.js';
import { collect, execRequest } from './sim-streams.js';

let seq = 0;
function pod(spec: Partial<Pod['spec']> = {}): Pod {
  seq++;
  return {
    metadata: { name: `web-${seq}`, namespace: 'default', uid: `uid-${seq}` },
    spec: { nodeName: 'n', containers: [{ name: 'c', image: 'nginx', env: [{ name: 'GREETING', value: 'hello' }] }], ...spec },
    status: { phase: 'Pending' },
  };
}

function setup(p: Pod = pod()) {
  const timers = new FakeTimers();
  const rt = new SimulatedRuntime({ podCIDR: '10.244.7.0/24', hostIP: '172.16.0.17', timers, nodeName: 'worker1' });
  rt.syncPod(p);
  const id = (name = 'c') => rt.status(p.metadata!.uid!)!.containers.find((c) => c.name === name)!.id;
  return { rt, timers, uid: p.metadata!.uid!, id };
}

const req = execRequest;

/** Types `lines` one at a time, each once the shell's prompt shows, as a person at the terminal would. */
function typeAtPrompt(s: LocalStream, lines: string[]): void {
  let out = '';
  s.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    // Later, as over the network: not from inside the shell's own write.
    if (lines.length && out.endsWith('# ')) { const line = lines.shift()!; setImmediate(() => s.stdin!.write(line)); }
  });
}

function get(conn: Duplex, path = '/'): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const r = http.request({ path, host: 'localhost', createConnection: () => conn as never }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => { body += d.toString(); });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    r.on('error', reject);
    r.end();
  });
}

describe('simulated exec', () => {
  it('env prints the container\'s environment: its env, HOSTNAME, PATH, HOME', async () => {
    const { rt, uid, id } = setup();
    const r = await collect(rt.openStream(uid, id(), req(['env'])));
    assert.equal(r.code, 0);
    const lines = r.out.trim().split('\n');
    assert.ok(lines.includes('GREETING=hello'), r.out);
    assert.ok(lines.some((l) => /^HOSTNAME=web-\d+$/.test(l)), r.out);
    assert.ok(lines.includes('HOME=/root'), r.out);
  });

  it('sh -c runs the script with the container\'s variables', async () => {
    const { rt, uid, id } = setup();
    const r = await collect(rt.openStream(uid, id(), req(['sh', '-c', 'echo $HOSTNAME; echo "$GREETING world" && false || echo fallback'])));
    assert.match(r.out, /^web-\d+\nhello world\nfallback\n$/);
    assert.equal(r.code, 0);
  });

  it('an unknown command run directly fails the exec as containerd does (a path: runc\'s stat); in a script it answers as the image\'s sh (dash in nginx\'s Debian image, naming itself by $0; bash; busybox\'s ash), exit code 127', async () => {
    const { rt, uid, id } = setup();
    await assert.rejects(collect(rt.openStream(uid, id(), req(['nosuchcmd', '--flag']))), { message: /^Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "[0-9a-f]{64}": OCI runtime exec failed: exec failed: unable to start container process: exec: "nosuchcmd": executable file not found in \$PATH: unknown$/ });
    await assert.rejects(collect(rt.openStream(uid, id(), req(['ps', 'aux']))), { message: /^Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "[0-9a-f]{64}": OCI runtime exec failed: exec failed: unable to start container process: exec: "ps": executable file not found in \$PATH: unknown$/ });
    await assert.rejects(collect(rt.openStream(uid, id(), req(['/bin/nosuchcmd']))), { message: /exec: "\/bin\/nosuchcmd": stat \/bin\/nosuchcmd: no such file or directory: unknown$/ });
    const inScript = await collect(rt.openStream(uid, id(), req(['sh', '-c', 'echo before; nosuchcmd; echo after'])));
    assert.deepEqual(inScript, { out: 'before\nafter\n', err: 'sh: 1: nosuchcmd: not found\n', code: 0 });
    const inBash = await collect(rt.openStream(uid, id(), req(['/bin/bash', '-c', 'nosuchcmd'])));
    assert.deepEqual(inBash, { out: '', err: '/bin/bash: line 1: nosuchcmd: command not found\n', code: 127 });
    const busybox = setup(pod({ containers: [{ name: 'c', image: 'busybox' }] }));
    const inAsh = await collect(busybox.rt.openStream(busybox.uid, busybox.id(), req(['/bin/sh', '-c', 'nosuchcmd'])));
    assert.deepEqual(inAsh, { out: '', err: '/bin/sh: nosuchcmd: not found\n', code: 127 });
  });

  it('a script beyond the subset says so and exits 2', async () => {
    const { rt, uid, id } = setup();
    const r = await collect(rt.openStream(uid, id(), req(['sh', '-c', 'sleep 1 & echo a'])));
    assert.equal(r.code, 2);
    assert.equal(r.err, 'sh: not supported by k8ts\'s simulated shell (operator &): node "worker1" is simulated and runs no processes\n');
  });

  it('ls / lists the standard directories and the mount points; /etc has hostname and hosts', async () => {
    const p = pod({ containers: [{ name: 'c', image: 'busybox', volumeMounts: [{ name: 'cfg', mountPath: '/config' }] }], volumes: [{ name: 'cfg', configMap: { name: 'x' } }] });
    const { rt, uid, id } = setup(p);
    const ls = await collect(rt.openStream(uid, id(), req(['ls', '/'])));
    assert.equal(ls.out, ['bin', 'config', 'dev', 'etc', 'home', 'lib', 'proc', 'root', 'sys', 'tmp', 'usr', 'var'].map((d) => `${d}\n`).join(''));
    const cat = await collect(rt.openStream(uid, id(), req(['cat', '/etc/hostname', '/etc/hosts'])));
    assert.match(cat.out, new RegExp(`^${p.metadata!.name}\n# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n[^]*\n10\\.244\\.7\\.\\d+\t${p.metadata!.name}\n$`));
  });

  it('sh without -c reads commands from stdin until exit, whose code it ends with', async () => {
    const { rt, uid, id } = setup();
    const s = rt.openStream(uid, id(), req(['sh'], { stdin: true }));
    s.stdin!.end('echo hi\nprintenv GREETING\nexit 3\necho never\n');
    assert.deepEqual(await collect(s), { out: 'hi\nhello\n', err: '', code: 3 });
  });

  it('with a tty: a prompt, the input echoed, CR LF line ends, backspace, and the last status at the end of input', async () => {
    const { rt, uid, id } = setup();
    const s = rt.openStream(uid, id(), req(['sh'], { stdin: true, tty: true, stderr: false }));
    typeAtPrompt(s, ['echo hx\x7fi\r', 'nope\r', '\x04']);
    const r = await collect(s);
    // nginx's sh is dash: prompt `# `, and its not-found message counts the lines read.
    assert.equal(r.out, '# echo hx\b \bi\r\nhi\r\n# nope\r\nsh: 2: nope: not found\r\n# ');
    assert.equal(r.code, 127);
  });

  it('a sleeping exec ends with 137 when the pod stops, and Ctrl-C interrupts a sleep at the prompt', async () => {
    const { rt, uid, id } = setup();
    const s = rt.openStream(uid, id(), req(['sleep', '3600']));
    const done = collect(s);
    await rt.killPod(uid, 0);
    assert.equal((await done).code, 137);
    const second = setup();
    const t = second.rt.openStream(second.uid, second.id(), req(['sh'], { stdin: true, tty: true, stderr: false }));
    // Ctrl-C once the sleep runs (its line echoed), then exit at the next prompt.
    let out = '';
    t.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const type = (text: string) => setImmediate(() => t.stdin!.write(text));
      if (out === '# ') type('sleep 100\r');
      else if (out === '# sleep 100\r\n') type('\x03');
      else if (out.endsWith('^C\r\n# ')) type('exit\r');
    });
    const r = await collect(t);
    assert.equal(r.out, '# sleep 100\r\n^C\r\n# exit\r\n');
    assert.equal(r.code, 0);
  });

  it('exec in a container that does not run is an error; without a pod logs directory attach is not offered', () => {
    const { rt, uid, id } = setup();
    assert.throws(() => rt.openStream(uid, 'sim://nope', req(['env'])), /is not running/);
    assert.equal(rt.attachable, false);
    assert.throws(() => rt.openStream(uid, id(), { stdin: false, stdout: true, stderr: true, tty: false }), /attach is not supported: container c is simulated and runs no process/);
  });
});

describe('simulated listeners (port-forward)', () => {
  it('nginx answers on 80 with the welcome page and nginx\'s headers; other paths 404', async () => {
    const { rt, uid } = setup();
    const r = await get(rt.dialPort(uid, 80));
    assert.equal(r.status, 200);
    assert.equal(r.body, nginxWelcomePage);
    assert.equal(r.headers.server, 'nginx/1.27.3');
    assert.equal(r.headers['content-length'], '615');
    const missing = await get(rt.dialPort(uid, 80), '/nope');
    assert.equal(missing.status, 404);
    assert.match(missing.body, /<center><h1>404 Not Found<\/h1><\/center>/);
  });

  it('a port nothing listens on is refused (ECONNREFUSED)', async () => {
    const { rt, uid } = setup();
    await assert.rejects(get(rt.dialPort(uid, 8080)), { code: 'ECONNREFUSED' });
    await assert.rejects(get(rt.dialPort('no-such-pod', 80)), { code: 'ECONNREFUSED' });
  });

  it('kubernetes-bootcamp and hello-app answer with the pod\'s name on 8080; an image the simulator does not know listens nowhere', async () => {
    const boot = setup(pod({ containers: [{ name: 'c', image: 'gcr.io/google-samples/kubernetes-bootcamp:v1' }] }));
    assert.match((await get(boot.rt.dialPort(boot.uid, 8080))).body, /^Hello Kubernetes bootcamp! \| Running on: web-\d+ \| v=1\n$/);
    const hello = setup(pod({ containers: [{ name: 'c', image: 'gcr.io/google-samples/hello-app:2.0' }] }));
    assert.match((await get(hello.rt.dialPort(hello.uid, 8080))).body, /^Hello, world!\nVersion: 2\.0\.0\nHostname: web-\d+\n$/);
    const other = setup(pod({ containers: [{ name: 'c', image: 'example.com/app:1', ports: [{ containerPort: 8080 }] }] }));
    await assert.rejects(get(other.rt.dialPort(other.uid, 8080)), { code: 'ECONNREFUSED' });
  });

  it('echoserver echoes the request', async () => {
    const { rt, uid } = setup(pod({ containers: [{ name: 'c', image: 'registry.k8s.io/echoserver:1.10' }] }));
    const r = await get(rt.dialPort(uid, 8080), '/path?x=1');
    assert.match(r.body, /\nHostname: web-\d+\n/);
    assert.match(r.body, /\n\tmethod=GET\n\treal path=\/path\n\tquery=x=1\n/);
    assert.match(r.body, /\n\thost=localhost:80\n/);
  });
});
