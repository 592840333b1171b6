/**
 * Shell additions for the configuration task pages (runtime/simulated):
 * `[[ ... ]]`, ls columns on a terminal (checked against the machine's own
 * coreutils and busybox ls under a pty where present), and `id` from the
 * pod's securityContext.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { parseExec, parseProgram, runProgram, type ShellContext } from '../../src/kubelet/runtime/simulated/shell.js';
import { lsColumns, lsFlavour } from '../../src/kubelet/runtime/simulated/ls-columns.js';
import { containerUser } from '../../src/kubelet/runtime/simulated/identity.js';
import { visibleProcesses } from '../../src/kubelet/runtime/simulated/processes.js';
import { PidNamespace } from '../../src/kubelet/runtime/simulated/pid-namespace.js';
import { withRootFilesystem } from '../../src/kubelet/runtime/simulated/rootfs.js';

async function run(program: ReturnType<typeof parseProgram>, extra: Partial<ShellContext> = {}, files: Record<string, string> = {}) {
  assert.ok(program);
  const out: string[] = [];
  const ctx: ShellContext = {
    env: new Map(), hostname: 'pod-1',
    readFile: (p) => files[p],
    listDir: (p) => { const names = Object.keys(files).filter((f) => f.startsWith(`${p}/`)).map((f) => f.slice(p.length + 1)); return names.length ? names.sort() : undefined; },
    now: () => new Date(0), sleep: async () => false,
    write: (stream, text) => out.push(stream === 'stderr' ? `ERR:${text}` : text),
    ...extra,
  };
  const code = await runProgram(program, ctx);
  return { out: out.join(''), code };
}

const exec = (argv: string[]) => { const p = parseExec(argv); assert.ok('program' in p); return p.program; };

describe('simulated shell: [[ ... ]] (the downward API volume page)', () => {
  const podinfo = { '/etc/podinfo/labels': 'cluster="test-cluster1"\nrack="rack-22"', '/etc/podinfo/annotations': 'build="two"' };
  it('the page\'s loop body runs as a program of the subset and prints the files', async () => {
    const script = "if [[ -e /etc/podinfo/labels ]]; then echo -en '\\n\\n'; cat /etc/podinfo/labels; fi; if [[ -e /etc/podinfo/missing ]]; then echo no; fi";
    const r = await run(parseProgram(['sh', '-c', script]), {}, podinfo);
    assert.deepEqual(r, { out: '\n\ncluster="test-cluster1"\nrack="rack-22"', code: 0 });
  });
  it('== compares; a missing ]] is ash\'s "sh: missing ]]", status 2', async () => {
    assert.deepEqual(await run(parseProgram(['sh', '-c', '[[ a == a ]] && echo eq; [[ 1 -eq x ]]; echo $?'])), { out: 'eq\nERR:sh: x: bad number\n2\n', code: 0 });
    assert.deepEqual(await run(exec(['sh', '-c', '[[ -e /etc'])), { out: 'ERR:sh: missing ]]\n', code: 2 });
  });
});

describe('simulated shell: ls on a terminal', () => {
  it('lays out the Secrets page\'s two names in columns with a tty, a name a line without', async () => {
    const files = { '/etc/secret-volume/password': 'x', '/etc/secret-volume/username': 'y' };
    const argv = ['ls', '/etc/secret-volume'];
    assert.equal((await run(exec(argv), { terminalColumns: () => 80, image: 'nginx' }, files)).out, 'password  username\n');
    assert.equal((await run(exec(argv), {}, files)).out, 'password\nusername\n');
    // A pipe's stage, a redirection and $(...) write to no terminal.
    assert.equal((await run(exec(['sh', '-c', 'ls /etc/secret-volume | cat; echo "$(ls /etc/secret-volume)"']), { terminalColumns: () => 80 }, files)).out, 'password\nusername\npassword\nusername\n');
  });

  it('picks the ls of the image: busybox\'s for busybox and alpine, coreutils\' otherwise', () => {
    assert.equal(lsFlavour('registry.k8s.io/busybox:1.28'), 'busybox');
    assert.equal(lsFlavour('alpine:3'), 'busybox');
    assert.equal(lsFlavour('nginx'), 'coreutils');
    assert.equal(lsFlavour('debian'), 'coreutils');
  });

  const sets = [
    ['password', 'username'],
    ['a', 'bb', 'cccccccccccccccccccc', 'dddddddddddddddd', 'eeeeeeeeeeeeeeeeeee', 'ffffffffffffffff', 'ggggggggggggggggggggggg', 'hh', 'ii', 'jj'],
    'bin boot dev etc home lib lib64 media mnt opt proc root run sbin srv sys tmp usr var'.split(' '),
    Array.from({ length: 37 }, (_, i) => `${'f'.repeat(1 + ((i * 7) % 13))}${i}`),
  ];
  it('known layouts: busybox pads every column to the longest name + 2 within width - 1; coreutils sizes each column and indents with tabs', () => {
    assert.equal(lsColumns(sets[0]!, 20, 'busybox'), 'password\nusername\n');
    assert.equal(lsColumns(sets[0]!, 21, 'busybox'), 'password  username\n');
    assert.equal(lsColumns([...sets[1]!, 'password', 'username'], 60, 'coreutils'),
      'a\t\t      eeeeeeeeeeeeeeeeeee      ii\nbb\t\t      ffffffffffffffff\t       jj\ncccccccccccccccccccc  ggggggggggggggggggggggg  password\ndddddddddddddddd      hh\t\t       username\n');
  });

  // The machine's own ls (Debian 12's coreutils, as the nginx and debian images have) and busybox 1.35 under a pty (util-linux's script).
  it('matches GNU ls and busybox ls under a pty, at several widths', () => {
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-ls-'));
    try {
      for (const names of sets) {
        rmSync(dir, { recursive: true, force: true });
        execFileSync('mkdir', ['-p', dir]);
        for (const n of names) writeFileSync(join(dir, n), '');
        for (const width of [20, 60, 80, 132]) {
          for (const [flavour, cmd] of [['coreutils', 'ls'], ['busybox', 'busybox ls']] as const) {
            const real = execFileSync('script', ['-qc', `stty cols ${width}; cd ${dir}; LC_ALL=C ${cmd}`, '/dev/null']).toString().replace(/\r\n/g, '\n');
            assert.equal(lsColumns([...names].sort(), width, flavour), real, `${cmd} at ${width} columns`);
          }
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('simulated shell: id (Configure a Security Context)', () => {
  const pod = (sc: NonNullable<Pod['spec']>['securityContext'], image = 'busybox:1.28'): { pod: Pod; image: string } =>
    ({ pod: { metadata: { name: 'p' }, spec: { securityContext: sc, containers: [{ name: 'c', image }] } }, image });
  const idOf = async (p: { pod: Pod; image: string }, args: string[] = []) =>
    (await run(exec(['id', ...args]), { user: containerUser(p.pod, p.pod.spec!.containers[0]!), image: p.image })).out;

  it('the page\'s pod: uid=1000 gid=3000 groups=2000,3000,4000 (the kernel\'s sorted groups, as busybox prints them)', async () => {
    const demo = pod({ runAsUser: 1000, runAsGroup: 3000, fsGroup: 2000, supplementalGroups: [4000] });
    assert.equal(await idOf(demo), 'uid=1000 gid=3000 groups=2000,3000,4000\n');
    assert.equal(await idOf(demo, ['-u']), '1000\n');
    assert.equal(await idOf(demo, ['-G']), '2000 3000 4000\n');
  });
  it('root: busybox names wheel; coreutils lists the primary group first', async () => {
    assert.equal(await idOf(pod(undefined)), 'uid=0(root) gid=0(root) groups=0(root),10(wheel)\n');
    assert.equal(await idOf(pod(undefined, 'nginx')), 'uid=0(root) gid=0(root) groups=0(root)\n');
    assert.equal(await idOf(pod({ runAsUser: 1000, runAsGroup: 3000, fsGroup: 2000 }, 'debian')), 'uid=1000 gid=3000 groups=3000,2000\n');
    assert.equal(await idOf(pod(undefined), ['-un']), 'root\n');
  });
  it('the container\'s securityContext wins over the pod\'s', () => {
    const p: Pod = { spec: { securityContext: { runAsUser: 1000, runAsGroup: 3000 }, containers: [{ name: 'c', securityContext: { runAsUser: 2000 } }] } };
    assert.deepEqual(containerUser(p, p.spec!.containers[0]!), { uid: 2000, gid: 3000, groups: [3000] });
  });
});

describe('simulated shell: ps (Security Context, Share Process Namespace)', () => {
  const shared: Pod = { spec: { shareProcessNamespace: true, containers: [{ name: 'nginx', image: 'nginx' }, { name: 'shell', image: 'busybox:1.28', command: ['sleep', '3600'] }] } };
  it('a shared process namespace lists /pause, nginx\'s master and worker, the other container, then the exec\'s shell and ps', async () => {
    const shell = shared.spec!.containers[1]!;
    const processes = [...visibleProcesses(shared, shell), { uid: 0, args: '/bin/sh' }];
    const r = await run(exec(['ps', 'ax']), { image: shell.image, processes, user: containerUser(shared, shell) });
    assert.equal(r.out, [
      'PID   USER     TIME  COMMAND',
      '    1 root      0:00 /pause',
      '    8 root      0:00 nginx: master process nginx -g daemon off;',
      '   14 101       0:00 nginx: worker process',
      '   20 root      0:00 sleep 3600',
      '   26 root      0:00 /bin/sh',
      '   32 root      0:00 ps ax', ''].join('\n'));
  });
  it('in the pod\'s kept PID namespace every ps is a new PID, kill -HUP 8 gives nginx a new worker, and TERM reaches another container', async () => {
    const shell = shared.spec!.containers[1]!;
    const pids = new PidNamespace();
    const signalled: string[] = [];
    const ctx = {
      image: shell.image, pids, user: containerUser(shared, shell), processes: [...visibleProcesses(shared, shell), { uid: 0, args: '/bin/sh', key: 'exec/1' }],
      signalContainer: (name: string, signal: number) => { signalled.push(`${name}:${signal}`); },
    };
    const table = async (line: string) => (await run(exec(['sh', '-c', line]), ctx)).out;
    assert.match(await table('ps ax'), / {3}26 root {6}0:00 \/bin\/sh\n {3}32 root {6}0:00 ps ax\n$/);
    assert.equal(await table('kill -HUP 8; ps ax'), [
      'PID   USER     TIME  COMMAND',
      '    1 root      0:00 /pause',
      '    8 root      0:00 nginx: master process nginx -g daemon off;',
      '   20 root      0:00 sleep 3600',
      '   26 root      0:00 /bin/sh',
      '   38 101       0:00 nginx: worker process',
      '   44 root      0:00 ps ax', ''].join('\n'));
    assert.deepEqual(signalled, []);
    assert.equal(await table('kill 8; kill 20; kill 38; echo $?'), '0\n');
    assert.deepEqual(signalled, ['nginx:15', 'shell:15'], 'the containers\' main processes get TERM; the worker is not one');
  });
  it('alone, the container\'s command is PID 1 as its user (ash execs `sh -c "sleep 1h"` as sleep); Debian images have no ps', async () => {
    const pod: Pod = { spec: { securityContext: { runAsUser: 1000 }, containers: [{ name: 'c', image: 'busybox:1.28', command: ['sh', '-c', 'sleep 1h'] }] } };
    const c = pod.spec!.containers[0]!;
    assert.equal((await run(exec(['ps']), { image: c.image, processes: visibleProcesses(pod, c), user: containerUser(pod, c) })).out,
      'PID   USER     TIME  COMMAND\n    1 1000      0:00 sleep 1h\n    7 1000      0:00 ps\n');
    assert.deepEqual(await run(exec(['ps']), { image: 'nginx' }), { out: 'ERR:sh: ps: not found\n', code: 127 });
  });
});

describe('simulated root filesystem: the image base\'s directories', () => {
  const base = { env: new Map<string, string>(), hostname: 'p', workingDir: '/', readFile: () => undefined, listDir: () => undefined, refresh: async () => {} };
  it('Debian\'s top level and /usr/share (the postStart page writes /usr/share/message) for nginx; busybox\'s for busybox', () => {
    const nginx = withRootFilesystem({ ...base, image: 'nginx' }, undefined);
    assert.deepEqual(nginx.listDir('/'), ['bin', 'boot', 'dev', 'etc', 'home', 'lib', 'lib64', 'media', 'mnt', 'opt', 'proc', 'root', 'run', 'sbin', 'srv', 'sys', 'tmp', 'usr', 'var']);
    assert.deepEqual(nginx.listDir('/usr/share'), []);
    const busybox = withRootFilesystem({ ...base, image: 'busybox:1.28' }, undefined);
    assert.deepEqual(busybox.listDir('/'), ['bin', 'dev', 'etc', 'home', 'lib', 'proc', 'root', 'sys', 'tmp', 'usr', 'var']);
    assert.deepEqual(busybox.listDir('/usr'), ['bin', 'sbin']);
    assert.equal(busybox.listDir('/usr/share'), undefined);
    assert.equal(busybox.listDir('/boot'), undefined);
  });
});
