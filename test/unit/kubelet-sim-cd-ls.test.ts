/**
 * `cd`, `pwd`, `ls -l` and bash's `exit` in the simulated shell
 * (runtime/simulated: shell.ts, ls.ts, file-stat.ts, shell-dialect.ts), as
 * the Configure a Security Context and ConfigMap pages type them. The long
 * listings are checked against the machine's busybox 1.35 and GNU ls run on
 * a directory tree built as the kubelet builds it (modes, owners, the
 * atomic writer's `..data` symlinks), in a mount namespace whose
 * /etc/passwd and /etc/group are an image's (root, nobody): the machine's
 * own name uid 1000. The cd messages are checked against busybox's ash,
 * dash (Debian's sh) and bash.
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, lchownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigMap, Pod } from 'kubernetes-types/core/v1.js';
import { SimulatedRuntime } from '../../src/kubelet/runtime/simulated/runtime.js';
import { dataDirName } from '../../src/kubelet/runtime/simulated/file-stat.js';
import { FakeTimers } from '../../src/kubelet/timers.js';
import type { LocalStream } from '../../src/kubelet/runtime/runtime.js';
import type { PodObjectGetter } from '../../src/kubelet/volumes/objects.js';
import { collect, containersStarted, execRequest } from './sim-streams.js';

// A start time in the last hour, whole minutes: both ls print it as `Mmm dd HH:MM` (recent) against the real clock too.
const start = Math.floor((Date.now() - 3600_000) / 60_000) * 60_000;
const config: ConfigMap = { metadata: { name: 'special-config', namespace: 'default' }, data: { SPECIAL_LEVEL: 'very', SPECIAL_TYPE: 'charm' } };
const missing = () => Promise.reject(Object.assign(new Error('not found'), { code: 404 }));
const objects: PodObjectGetter = { claim: missing, volume: missing, secret: missing, configMap: async () => config };

let seq = 0;
async function setup(spec: Pod['spec']) {
  const p: Pod = { metadata: { name: `demo-${++seq}`, namespace: 'default', uid: `uid-cd-${seq}` }, spec: { nodeName: 'n', ...spec! }, status: { phase: 'Pending' } };
  const rt = new SimulatedRuntime({ podCIDR: '10.244.7.0/24', hostIP: '172.16.0.17', timers: new FakeTimers(start), nodeName: 'worker1', objects });
  rt.syncPod(p);
  await containersStarted(rt, p.metadata!.uid!);
  const id = () => rt.status(p.metadata!.uid!)!.containers[0]!.id;
  return { rt, pod: p, uid: p.metadata!.uid!, id };
}

const req = execRequest;

/** Types each line once a prompt (`# ` or `$ `) shows, as a person at the terminal would. */
function typeAtPrompt(s: LocalStream, lines: string[]): void {
  let out = '';
  s.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (lines.length && /[#$] $/.test(out)) { const line = lines.shift()!; setImmediate(() => s.stdin!.write(line)); }
  });
}

// --- the real tree ---------------------------------------------------------------------------------------------
const work = mkdtempSync(join(tmpdir(), 'k8ts-ls-'));
after(() => rmSync(work, { recursive: true, force: true }));
writeFileSync(join(work, 'passwd'), 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/home:/bin/false\n');
writeFileSync(join(work, 'group'), 'root:x:0:\nnobody:x:65534:\n');

type Node = { path: string; mode: number; uid?: number; gid?: number } & ({ data: string } | { dir: true } | { target: string });

/** Builds the nodes under a new root (parents first), then sets every time to the start, links included. */
function tree(name: string, nodes: Node[]): string {
  const root = join(work, name);
  for (const n of nodes) {
    const p = join(root, n.path);
    if ('dir' in n) mkdirSync(p, { recursive: true });
    else if ('data' in n) writeFileSync(p, n.data);
    else symlinkSync(n.target, p);
    // chown first: a chown may clear setgid.
    lchownSync(p, n.uid ?? 0, n.gid ?? 0);
    if (!('target' in n)) chmodSync(p, n.mode);
  }
  const stamp = `@${start / 1000}`;
  for (const n of [...nodes].reverse()) execFileSync('touch', ['-h', '-d', stamp, join(root, n.path)]);
  return root;
}

/** The machine's ls (`busybox ls` or GNU's) in `dir`, with the image's passwd and group, in UTC and the C locale. */
function realLs(flavour: 'busybox' | 'coreutils', dir: string, args: string[]): string {
  const ls = flavour === 'busybox' ? ['/usr/bin/busybox', 'ls'] : ['ls'];
  const r = spawnSync('unshare', ['-m', 'sh', '-c', 'mount --bind "$1" /etc/passwd && mount --bind "$2" /etc/group && cd "$3" && shift 3 && exec "$@"',
    'sh', join(work, 'passwd'), join(work, 'group'), dir, ...ls, ...args], { env: { PATH: process.env.PATH, TZ: 'UTC', LC_ALL: 'C' }, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

describe('simulated shell: the Configure a Security Context page (cd, echo > file, ls -l)', () => {
  const securityContextDemo: Pod['spec'] = {
    securityContext: { runAsUser: 1000, runAsGroup: 3000, fsGroup: 2000 },
    volumes: [{ name: 'sec-ctx-vol', emptyDir: {} }],
    containers: [{ name: 'sec-ctx-demo', image: 'busybox:1.28', command: ['sh', '-c', 'sleep 1h'], volumeMounts: [{ name: 'sec-ctx-vol', mountPath: '/data/demo' }], securityContext: { allowPrivilegeEscalation: false } }],
  };
  const real = tree('security-context', [
    { path: 'data', dir: true, mode: 0o755 },
    { path: 'data/demo', dir: true, mode: 0o2777, gid: 2000 },
    { path: 'data/demo/testfile', data: 'hello\n', mode: 0o644, uid: 1000, gid: 2000 },
  ]);

  it('the page\'s session at a terminal: prompts follow cd; /data/demo is the fsGroup\'s, setgid; testfile is 1000:2000, 6 bytes', async () => {
    const { rt, uid, id } = await setup(securityContextDemo);
    const s = rt.openStream(uid, id(), req(['sh'], { stdin: true, tty: true, stderr: false }));
    typeAtPrompt(s, ['cd /data\r', 'ls -l\r', 'cd demo\r', 'echo hello > testfile\r', 'ls -l\r', 'pwd\r', 'exit\r']);
    const r = await collect(s);
    const lines = r.out.split('\r\n');
    assert.deepEqual(lines.filter((l) => / \$ /.test(l)).map((l) => l.slice(0, l.indexOf(' $ ') + 3)), ['/ $ ', '/data $ ', '/data $ ', '/data/demo $ ', '/data/demo $ ', '/data/demo $ ', '/data/demo $ ']);
    const busyboxData = realLs('busybox', join(real, 'data'), ['-l']);
    const busyboxDemo = realLs('busybox', join(real, 'data/demo'), ['-l']);
    assert.match(busyboxData, /^total 4\ndrwxrwsrwx {4}2 root {5}2000 {10}4096 \w{3} [ \d]\d \d\d:\d\d demo\n$/);
    assert.match(busyboxDemo, /^total 4\n-rw-r--r-- {4}1 1000 {5}2000 {13}6 .* testfile\n$/);
    assert.ok(r.out.includes(`ls -l\r\n${busyboxData.replaceAll('\n', '\r\n')}/data $ `), r.out);
    assert.ok(r.out.includes(`ls -l\r\n${busyboxDemo.replaceAll('\n', '\r\n')}/data/demo $ pwd\r\n/data/demo\r\n`), r.out);
    assert.equal(r.code, 0);
  });

  it('ls -la, -ld and -laR match busybox\'s on the same tree', async () => {
    const { rt, uid, id } = await setup(securityContextDemo);
    const sh = async (script: string) => (await collect(rt.openStream(uid, id(), req(['sh', '-c', script])))).out;
    assert.equal(await sh('cd /data/demo && echo hello > testfile && ls -la'), realLs('busybox', join(real, 'data/demo'), ['-la']));
    assert.equal(await sh('cd /data; ls -ld demo demo/testfile'), realLs('busybox', join(real, 'data'), ['-ld', 'demo', 'demo/testfile']));
    assert.equal(await sh('cd /data && ls -laR demo'), realLs('busybox', join(real, 'data'), ['-laR', 'demo']));
    // User 1000 may not enter root's 0700 home, as busybox's ash says under -c.
    assert.deepEqual(await collect(rt.openStream(uid, id(), req(['sh', '-c', 'cd /root; echo $?; cd /tmp && pwd']))),
      { out: '2\n/tmp\n', err: "sh: cd: line 0: can't cd to /root: Permission denied\n", code: 0 });
  });
});

describe('simulated shell: ls -l of a ConfigMap volume (the atomic writer\'s ..data symlinks)', () => {
  const spec = (image: string, fsGroup?: number): Pod['spec'] => ({
    ...(fsGroup ? { securityContext: { fsGroup } } : {}),
    volumes: [{ name: 'config-volume', configMap: { name: 'special-config' } }],
    containers: [{ name: 'test-container', image, command: ['sleep', '3600'], volumeMounts: [{ name: 'config-volume', mountPath: '/etc/config' }] }],
  });
  /** The kubelet's layout of the volume, with the data directory named as the simulation names it. */
  const kubeletTree = (name: string, pod: Pod, fsGroup?: number, image?: string) => {
    const ts = dataDirName(pod, 'config-volume', new Date(start));
    const g = fsGroup ?? 0;
    return tree(name, [
      { path: 'etc', dir: true, mode: 0o755 },
      { path: 'etc/hostname', data: `${pod.metadata!.name}\n`, mode: 0o644 },
      // The official nginx image's /etc/nginx (its nginx.conf) is one more directory beside the volume.
      ...(image === 'nginx' ? [{ path: 'etc/nginx', dir: true as const, mode: 0o755 }] : []),
      { path: 'etc/config', dir: true, mode: fsGroup ? 0o2777 : 0o777, gid: g },
      { path: `etc/config/${ts}`, dir: true, mode: fsGroup ? 0o2755 : 0o755, gid: g },
      { path: `etc/config/${ts}/SPECIAL_LEVEL`, data: 'very', mode: 0o644, gid: g },
      { path: `etc/config/${ts}/SPECIAL_TYPE`, data: 'charm', mode: 0o644, gid: g },
      { path: 'etc/config/..data', target: ts, mode: 0o777, gid: g },
      { path: 'etc/config/SPECIAL_LEVEL', target: '..data/SPECIAL_LEVEL', mode: 0o777, gid: g },
      { path: 'etc/config/SPECIAL_TYPE', target: '..data/SPECIAL_TYPE', mode: 0o777, gid: g },
    ]);
  };

  for (const [image, flavour, fsGroup] of [['busybox', 'busybox', undefined], ['busybox:1.28', 'busybox', 2000], ['nginx', 'coreutils', undefined], ['debian', 'coreutils', 2000]] as const) {
    it(`${image}${fsGroup ? ` with fsGroup ${fsGroup}` : ''}: ls -l, -la and -laR as ${flavour === 'busybox' ? 'busybox' : 'GNU'} ls prints them`, async () => {
      const { rt, uid, id, pod } = await setup(spec(image, fsGroup));
      const real = kubeletTree(`config-${seq}`, pod, fsGroup, image);
      const sh = async (script: string) => { const r = await collect(rt.openStream(uid, id(), req(['sh', '-c', script]))); assert.equal(r.err, ''); return r.out; };
      assert.equal(await sh('cd /etc/config; ls -l'), realLs(flavour, join(real, 'etc/config'), ['-l']));
      assert.equal(await sh('cd /etc/config; ls -la'), realLs(flavour, join(real, 'etc/config'), ['-la']));
      assert.equal(await sh('cd /etc; ls -laR config'), realLs(flavour, join(real, 'etc'), ['-laR', 'config']));
      assert.equal(await sh('ls /etc/config; cat /etc/config/SPECIAL_LEVEL'), 'SPECIAL_LEVEL\nSPECIAL_TYPE\nvery');
    });
  }
});

describe('simulated shell: cd and pwd', () => {
  const busybox = { containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'] }] };
  const nginx = { containers: [{ name: 'c', image: 'nginx' }] };
  /** The machine's shell, from `/`, with HOME=/root and no OLDPWD, as an exec starts. */
  const realShell = (argv: string[]) => {
    const r = spawnSync(argv[0]!, argv.slice(1), { cwd: '/', env: { PATH: process.env.PATH, HOME: '/root' }, encoding: 'utf8' });
    return { out: r.stdout, err: r.stderr, code: r.status };
  };
  const script = 'cd /nope; echo $?; cd /etc/hostname; echo $?; cd /etc && pwd && ls -d $PWD; cd ..; pwd; cd; pwd; cd -; echo "$OLDPWD $PWD"';

  for (const [image, spec, argv, real] of [
    ['busybox', busybox, ['sh', '-c', script], ['/usr/bin/busybox', 'sh', '-c', script]],
    ['nginx (dash)', nginx, ['sh', '-c', script], ['sh', '-c', script]],
    ['nginx (bash)', nginx, ['bash', '-c', script], ['bash', '-c', script]],
  ] as const) {
    it(`${image}: the directory, relative paths, cd -, and the errors in the shell's words, as the real shell`, async () => {
      const { rt, uid, id } = await setup(spec);
      const ours = await collect(rt.openStream(uid, id(), req([...argv])));
      assert.deepEqual(ours, realShell([...real]));
    });
  }

  it('bash: too many arguments and OLDPWD not set, status 1; ash goes nowhere on `cd -` without OLDPWD', async () => {
    const { rt, uid, id } = await setup(nginx);
    const s = 'cd -; echo $?; cd /etc /tmp; echo $?; pwd';
    assert.deepEqual(await collect(rt.openStream(uid, id(), req(['bash', '-c', s]))), realShell(['bash', '-c', s]));
    const b = await setup(busybox);
    assert.deepEqual(await collect(b.rt.openStream(b.uid, b.id(), req(['sh', '-c', 'cd -; echo $?']))), { out: '/\n0\n', err: '', code: 0 });
  });

  it('relative paths in every command and redirection start where cd went; a pipe\'s stage and $(...) keep their cd to themselves', async () => {
    const { rt, uid, id } = await setup(busybox);
    const r = await collect(rt.openStream(uid, id(), req(['sh', '-c', 'cd /tmp && mkdir d && cd d && echo hi > f && cat f ../d/f && ls && cd .. && ls d && test -f d/f && echo yes; cd /etc | true; echo "$(cd /usr; pwd)"; pwd'])));
    assert.deepEqual(r, { out: 'hi\nhi\nf\nf\nyes\n/usr\n/tmp\n', err: '', code: 0 });
    assert.equal((await collect(rt.openStream(uid, id(), req(['cat', '/tmp/d/f'])))).out, 'hi\n');
  });

  it('cd run directly is not found, as no image has a /bin/cd: containerd fails the exec', async () => {
    const { rt, uid, id } = await setup(busybox);
    await assert.rejects(collect(rt.openStream(uid, id(), req(['cd', '/tmp']))), { message: /^Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "[0-9a-f]{64}": OCI runtime exec failed: exec failed: unable to start container process: exec: "cd": executable file not found in \$PATH: unknown$/ });
  });

  it('the interactive prompt shows where the shell is, $HOME as ~; ash\'s error at the prompt has no line', async () => {
    const { rt, uid, id } = await setup(busybox);
    const s = rt.openStream(uid, id(), req(['sh'], { stdin: true, tty: true, stderr: false }));
    typeAtPrompt(s, ['cd /nope\r', 'cd\r', 'cd /etc\r', '\x04']);
    const r = await collect(s);
    assert.equal(r.out, '/ # cd /nope\r\nsh: cd: can\'t cd to /nope: No such file or directory\r\n/ # cd\r\n~ # cd /etc\r\n/etc # ');
    const b = await setup(nginx);
    const t = b.rt.openStream(b.uid, b.id(), req(['bash'], { stdin: true, tty: true, stderr: false }));
    typeAtPrompt(t, ['cd /usr/share\r', 'cd\r', 'exit 3\r']);
    const q = await collect(t);
    assert.equal(q.out, `root@${b.pod.metadata!.name}:/# cd /usr/share\r\nroot@${b.pod.metadata!.name}:/usr/share# cd\r\nroot@${b.pod.metadata!.name}:~# exit 3\r\nexit\r\n`);
    assert.equal(q.code, 3);
  });
});

describe('simulated shell: bash says exit as an interactive shell leaves', () => {
  const nginx = { containers: [{ name: 'c', image: 'nginx' }] };
  it('bash with a tty or -i prints exit (logout with -l) on exit and at the end of input, as the machine\'s bash -i; sh and plain bash do not', async () => {
    const { rt, uid, id } = await setup(nginx);
    const run = async (argv: string[], input: string) => { const s = rt.openStream(uid, id(), req(argv, { stdin: true })); s.stdin!.end(input); return collect(s); };
    assert.deepEqual(await run(['bash', '-i'], 'exit 4\n'), { out: '', err: 'exit\n', code: 4 });
    assert.deepEqual(await run(['bash', '-il'], 'true\n'), { out: '', err: 'logout\n', code: 0 });
    assert.deepEqual(await run(['bash'], 'exit 4\n'), { out: '', err: '', code: 4 });
    assert.deepEqual(await run(['sh', '-i'], 'exit 4\n'), { out: '', err: '', code: 4 });
    const real = spawnSync('bash', ['--norc', '--noprofile', '-i'], { input: 'exit 4\n', encoding: 'utf8', env: { PATH: process.env.PATH, PS1: '' } });
    assert.equal(real.status, 4);
    assert.match(real.stderr, /exit\n$/);
  });
});
