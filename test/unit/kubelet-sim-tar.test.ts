/**
 * The simulated tar (kubectl cp on a simulated node) against GNU tar, the
 * reference: what it packs GNU tar lists and unpacks byte for byte, and what
 * GNU tar packs (ustar, pax, gnu formats, long names) it unpacks. Then the
 * runtime's exec: `tar -xmf - -C DIR` with the archive on stdin, `cat` and
 * `ls` of what was written, `tar cf -` of it, a restart's empty layer.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { packTar, unpackTar } from '../../src/kubelet/runtime/simulated/tar.js';
import { SimulatedRuntime } from '../../src/kubelet/runtime/simulated/runtime.js';
import { FakeTimers } from '../../src/kubelet/timers.js';
import type { LocalStream, StreamRequest } from '../../src/kubelet/runtime/runtime.js';

const longName = `dir/${'x'.repeat(150)}.bin`;

describe('the simulated tar format', () => {
  it('packs what GNU tar lists and extracts byte for byte, a name over 100 bytes included', () => {
    const blob = randomBytes(10_000);
    const archive = packTar([
      { name: 'dir', dir: true, data: Buffer.alloc(0) },
      { name: 'dir/a.txt', dir: false, data: Buffer.from('hello\n') },
      { name: longName, dir: false, data: blob },
      { name: 'dir/empty', dir: false, data: Buffer.alloc(0) },
    ], 1_700_000_000);
    assert.equal(archive.length % 512, 0);
    const listed = execFileSync('tar', ['-tf', '-'], { input: archive }).toString().split('\n').filter(Boolean);
    assert.deepEqual(listed, ['dir/', 'dir/a.txt', longName, 'dir/empty']);
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-tar-'));
    try {
      execFileSync('tar', ['-xf', '-', '-C', dir], { input: archive });
      assert.equal(readFileSync(join(dir, 'dir/a.txt'), 'utf8'), 'hello\n');
      assert.ok(readFileSync(join(dir, longName)).equals(blob));
      assert.equal(readFileSync(join(dir, 'dir/empty')).length, 0);
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });

  for (const format of ['ustar', 'pax', 'gnu']) {
    it(`unpacks GNU tar's ${format} archives`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'k8ts-tar-'));
      try {
        const blob = randomBytes(1_000);
        mkdirSync(join(dir, 'src/sub'), { recursive: true });
        writeFileSync(join(dir, 'src/sub/b.bin'), blob);
        writeFileSync(join(dir, 'src/a.txt'), 'text\n');
        // ustar splits a long path into prefix and name; pax and gnu use their own long-name headers.
        const long = format === 'ustar' ? `src/${'p'.repeat(90)}/${'q'.repeat(60)}` : `src/${'y'.repeat(130)}`;
        mkdirSync(join(dir, long, '..'), { recursive: true });
        writeFileSync(join(dir, long), 'long\n');
        const archive = execFileSync('tar', [`--format=${format}`, '-cf', '-', '-C', dir, 'src']);
        const entries = unpackTar(archive);
        const byName = new Map(entries.map((e) => [e.name, e]));
        assert.ok(byName.get('src')?.dir);
        assert.ok(byName.get('src/sub/b.bin')?.data.equals(blob));
        assert.equal(byName.get('src/a.txt')?.data.toString(), 'text\n');
        assert.equal(byName.get(long)?.data.toString(), 'long\n', `${long} in ${[...byName.keys()].join(', ')}`);
      } finally { rmSync(dir, { recursive: true, force: true }); }
    });
  }

  it('refuses a damaged archive with tar\'s words', () => {
    const archive = packTar([{ name: 'a', dir: false, data: Buffer.from('x') }]);
    archive[10] ^= 0xff;
    assert.throws(() => unpackTar(archive), /invalid tar header checksum/);
  });
});

function setup(spec: Partial<NonNullable<Pod['spec']>> = {}, image = 'nginx') {
  const timers = new FakeTimers();
  const rt = new SimulatedRuntime({ podCIDR: '10.244.7.0/24', hostIP: '172.16.0.17', timers, nodeName: 'worker1' });
  const p: Pod = { metadata: { name: 'cp', namespace: 'default', uid: 'uid-cp' }, spec: { nodeName: 'n', containers: [{ name: 'c', image }], ...spec }, status: { phase: 'Pending' } };
  rt.syncPod(p);
  const id = () => rt.status('uid-cp')!.containers[0]!.id;
  return { rt, timers, id };
}

const req = (cmd: string[], stdin = false): StreamRequest => ({ cmd, stdin, stdout: true, stderr: true, tty: false });

async function run(s: LocalStream, input?: Buffer): Promise<{ out: Buffer; err: string; code: number }> {
  const out: Buffer[] = [];
  let err = '';
  s.stdout.on('data', (d: Buffer) => out.push(d));
  s.stderr?.on('data', (d: Buffer) => { err += d.toString(); });
  if (input) s.stdin!.end(input);
  const code = await s.done;
  await new Promise((r) => setImmediate(r));
  return { out: Buffer.concat(out), err, code };
}

/** GNU tar's own stderr and exit code for `args` run in `cwd` (the reference for a Debian image's words). */
function gnuTar(args: string[], cwd: string, input?: Buffer): { err: string; code: number } {
  const r = spawnSync('tar', args, { cwd, input });
  return { err: r.stderr.toString(), code: r.status ?? -1 };
}

describe('tar in a simulated busybox container\'s exec: busybox tar\'s words', () => {
  it('extracts stdin into the container (-xmf - -C DIR) and archives it again (cf -); ls and cat see it', async () => {
    const { rt, id } = setup({}, 'busybox:1.36');
    const blob = randomBytes(5_000);
    const archive = packTar([{ name: 'f.txt', dir: false, data: Buffer.from('copied\n') }, { name: 'd/blob', dir: false, data: blob }]);
    // As busybox's: -C names a directory that is there (the quick reference's `tar xf - -C /tmp/bar`).
    const none = await run(rt.openStream('uid-cp', id(), req(['tar', '-xmf', '-', '-C', '/tmp/in'], true)), archive);
    assert.deepEqual([none.code, none.err], [1, "tar: can't change directory to '/tmp/in': No such file or directory\n"]);
    assert.equal((await run(rt.openStream('uid-cp', id(), req(['mkdir', '/tmp/in'])))).code, 0);
    const x = await run(rt.openStream('uid-cp', id(), req(['tar', '-xmf', '-', '-C', '/tmp/in'], true)), archive);
    assert.deepEqual([x.code, x.err], [0, '']);
    const file = await run(rt.openStream('uid-cp', id(), req(['tar', '-xmf', '-', '-C', '/tmp/in/f.txt'], true)), archive);
    assert.deepEqual([file.code, file.err], [1, "tar: can't change directory to '/tmp/in/f.txt': Not a directory\n"]);
    assert.equal((await run(rt.openStream('uid-cp', id(), req(['cat', '/tmp/in/f.txt'])))).out.toString(), 'copied\n');
    assert.equal((await run(rt.openStream('uid-cp', id(), req(['ls', '/tmp/in'])))).out.toString(), 'd\nf.txt\n');
    assert.ok((await run(rt.openStream('uid-cp', id(), req(['ls', '/tmp'])))).out.toString().split('\n').includes('in'));
    const c = await run(rt.openStream('uid-cp', id(), req(['tar', 'cf', '-', '/tmp/in'])));
    assert.equal(c.code, 0);
    assert.equal(c.err, "tar: removing leading '/' from member names\n");
    const back = new Map(unpackTar(c.out).map((e) => [e.name, e]));
    assert.deepEqual([...back.keys()], ['tmp/in', 'tmp/in/d', 'tmp/in/d/blob', 'tmp/in/f.txt']);
    assert.ok(back.get('tmp/in/d/blob')!.data.equals(blob));
  });

  it('a ConfigMap mount is read-only; a missing path and a file argument are errors', async () => {
    const { rt, id } = setup({
      containers: [{ name: 'c', image: 'busybox:1.36', volumeMounts: [{ name: 'conf', mountPath: '/etc/config' }] }],
      volumes: [{ name: 'conf', configMap: { name: 'conf' } }],
    });
    const ro = await run(rt.openStream('uid-cp', id(), req(['tar', '-xmf', '-', '-C', '/etc/config'], true)), packTar([{ name: 'k', dir: false, data: Buffer.from('v') }]));
    assert.deepEqual([ro.code, ro.err], [1, "tar: can't open 'k': Read-only file system\n"]);
    const hosts = await run(rt.openStream('uid-cp', id(), req(['tar', '-xmf', '-', '-C', '/etc'], true)), packTar([{ name: 'hosts', dir: false, data: Buffer.from('127.0.0.1 x\n') }]));
    assert.equal(hosts.code, 0, 'the kubelet-managed /etc/hosts is writable, as in a real container');
    assert.equal((await run(rt.openStream('uid-cp', id(), req(['cat', '/etc/hosts'])))).out.toString(), '127.0.0.1 x\n');
    const missing = await run(rt.openStream('uid-cp', id(), req(['tar', 'cf', '-', 'nope'])));
    assert.deepEqual([missing.code, missing.err], [1, "tar: can't stat '/nope': No such file or directory\n"]);
    const file = await run(rt.openStream('uid-cp', id(), req(['tar', 'cf', '/tmp/x.tar', '/etc'])));
    assert.equal(file.code, 1);
    assert.match(file.err, /only stdin and stdout/);
    const up = await run(rt.openStream('uid-cp', id(), req(['tar', '-xf', '-', '-C', '/tmp'], true)), packTar([{ name: '../../etc/passwd', dir: false, data: Buffer.from('x') }]));
    assert.deepEqual([up.code, up.err], [1, "tar: skipping member with '..': ../../etc/passwd\n"]);
  });
});

describe('tar in a simulated nginx (Debian) container\'s exec: GNU tar 1.34\'s words, as the host\'s GNU tar says them', () => {
  it('kubectl cp out of the pod: the leading / removed; a missing path is GNU tar\'s Cannot stat and exit 2', async () => {
    const { rt, id } = setup();
    assert.equal((await run(rt.openStream('uid-cp', id(), req(['mkdir', '/tmp/in'])))).code, 0);
    assert.equal((await run(rt.openStream('uid-cp', id(), req(['tar', '-xmf', '-', '-C', '/tmp/in'], true)), packTar([{ name: 'f.txt', dir: false, data: Buffer.from('x\n') }]))).code, 0);
    const host = mkdtempSync(join(tmpdir(), 'k8ts-gnu-tar-'));
    try {
      writeFileSync(join(host, 'f.txt'), 'x\n');
      const c = await run(rt.openStream('uid-cp', id(), req(['tar', 'cf', '-', '/tmp/in/f.txt'])));
      const ref = gnuTar(['cf', '-', join(host, 'f.txt')], host);
      assert.deepEqual([c.code, c.err], [ref.code, ref.err]);
      assert.equal(c.err, "tar: Removing leading `/' from member names\n");
      const missing = await run(rt.openStream('uid-cp', id(), req(['tar', 'cf', '-', 'nope'])));
      assert.deepEqual([missing.code, missing.err], [gnuTar(['cf', '-', 'nope'], host).code, gnuTar(['cf', '-', 'nope'], host).err]);
      assert.equal(missing.code, 2);
    } finally {
      rmSync(host, { recursive: true, force: true });
    }
  });

  it('kubectl cp into the pod: -C that is missing or a file, a read-only mount and a climbing member, each as GNU tar says it', async () => {
    const { rt, id } = setup({
      containers: [{ name: 'c', image: 'nginx', volumeMounts: [{ name: 'conf', mountPath: '/etc/config' }] }],
      volumes: [{ name: 'conf', configMap: { name: 'conf' } }],
    });
    const archive = packTar([{ name: 'k', dir: false, data: Buffer.from('v') }]);
    // A path that exists on neither side, so the host's tar words the same error.
    const absent = `/tmp/k8ts-absent-${randomBytes(4).toString('hex')}`;
    const none = await run(rt.openStream('uid-cp', id(), req(['tar', '-xmf', '-', '-C', absent], true)), archive);
    assert.deepEqual([none.code, none.err], [gnuTar(['-xmf', '-', '-C', absent], '/', archive).code, gnuTar(['-xmf', '-', '-C', absent], '/', archive).err]);
    assert.equal(none.err, `tar: ${absent}: Cannot open: No such file or directory\ntar: Error is not recoverable: exiting now\n`);
    assert.equal((await run(rt.openStream('uid-cp', id(), req(['tar', '-xmf', '-', '-C', '/etc'], true)), packTar([{ name: 'f', dir: false, data: Buffer.from('v') }]))).code, 0);
    const file = await run(rt.openStream('uid-cp', id(), req(['tar', '-xmf', '-', '-C', '/etc/f'], true)), archive);
    assert.deepEqual([file.code, file.err], [2, 'tar: /etc/f: Cannot open: Not a directory\ntar: Error is not recoverable: exiting now\n']);
    const ro = await run(rt.openStream('uid-cp', id(), req(['tar', '-xmf', '-', '-C', '/etc/config'], true)), archive);
    assert.deepEqual([ro.code, ro.err], [2, 'tar: k: Cannot open: Read-only file system\ntar: Exiting with failure status due to previous errors\n']);
    const climbing = packTar([{ name: '../../etc/passwd', dir: false, data: Buffer.from('x') }]);
    const host = mkdtempSync(join(tmpdir(), 'k8ts-gnu-tar-'));
    try {
      const up = await run(rt.openStream('uid-cp', id(), req(['tar', '-xf', '-', '-C', '/tmp'], true)), climbing);
      const ref = gnuTar(['-xf', '-', '-C', host], '/', climbing);
      assert.deepEqual([up.code, up.err], [ref.code, ref.err]);
    } finally {
      rmSync(host, { recursive: true, force: true });
    }
  });
});
