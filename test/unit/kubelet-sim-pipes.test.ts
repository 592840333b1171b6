/**
 * Pipes, filters and file commands of the simulated shell
 * (runtime/simulated/shell.ts, filters.ts, file-commands.ts) against a
 * container's writable layer (layer.ts). Expected outputs and messages are
 * what busybox 1.35 (/usr/bin/busybox on the build machine) prints for the
 * same commands.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseExecLine, parseProgram, runProgram, type ShellContext } from '../../src/kubelet/runtime/simulated/shell.js';
import { emptyLayer, withWritableLayer, type WritableLayer } from '../../src/kubelet/runtime/simulated/layer.js';
import { withRootFilesystem } from '../../src/kubelet/runtime/simulated/rootfs.js';
import type { ContainerView } from '../../src/kubelet/runtime/simulated/program.js';

/** A container with a ConfigMap at /etc/config (read-only), an /etc/hosts, and a writable layer. */
function container(layer: WritableLayer = emptyLayer()) {
  const config: Record<string, string> = { '/etc/config/SPECIAL_LEVEL': 'very', '/etc/config/SPECIAL_TYPE': 'charm' };
  const base: ContainerView = {
    env: new Map([['PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'], ['HOSTNAME', 'dapi-test-pod'], ['SPECIAL_LEVEL_KEY', 'very'], ['SPECIAL_TYPE_KEY', 'charm'], ['HOME', '/root']]),
    hostname: 'dapi-test-pod',
    workingDir: '/',
    readFile: (p) => config[p],
    listDir: (p) => (p === '/etc/config' ? ['SPECIAL_LEVEL', 'SPECIAL_TYPE'] : undefined),
    refresh: async () => {},
  };
  return withWritableLayer(withRootFilesystem(base, '10.244.0.5', ['/etc/config']), layer, ['/etc/config']);
}

async function sh(script: string, view: ContainerView = container(), stdin?: string) {
  const program = parseProgram(['sh', '-c', script]);
  assert.ok(program, `not understood: ${script}`);
  let out = '';
  let err = '';
  const ctx: ShellContext = {
    ...view,
    now: () => new Date('2026-12-04T23:00:00Z'),
    sleep: async () => true,
    write: (s, t) => { if (s === 'stdout') out += t; else err += t; },
    ...(stdin === undefined ? {} : { readStdin: async () => Buffer.from(stdin) }),
  };
  const code = await runProgram(program, ctx);
  return { out, err, code };
}

describe('simulated shell: pipes', () => {
  it('Configure a Pod to Use a ConfigMap: env | grep SPECIAL', async () => {
    assert.deepEqual(await sh('env | grep SPECIAL'), { out: 'SPECIAL_LEVEL_KEY=very\nSPECIAL_TYPE_KEY=charm\n', err: '', code: 0 });
  });

  it('a pipe of three, its status the last stage\'s; stderr goes straight out; exit ends only its stage', async () => {
    assert.deepEqual(await sh('env | sort -r | head -n 2'), { out: 'SPECIAL_TYPE_KEY=charm\nSPECIAL_LEVEL_KEY=very\n', err: '', code: 0 });
    assert.deepEqual(await sh('env | grep NOPE'), { out: '', err: '', code: 1 });
    assert.deepEqual(await sh('cat /nope | wc -l'), { out: '0\n', err: "cat: can't open '/nope': No such file or directory\n", code: 0 });
    assert.deepEqual(await sh('echo a | exit 3; echo $?'), { out: '3\n', err: '', code: 0 });
    assert.deepEqual(await sh('echo x | grep -q y || echo none'), { out: 'none\n', err: '', code: 0 });
  });

  it('the first stage reads the shell\'s stdin (an exec with -i); < FILE feeds one command', async () => {
    assert.deepEqual(await sh('cat | tr a-z A-Z', container(), 'hello\n'), { out: 'HELLO\n', err: '', code: 0 });
    assert.deepEqual(await sh('wc -l < /etc/hosts'), { out: '8\n', err: '', code: 0 });
    assert.deepEqual(await sh('wc -l < /nope'), { out: '', err: "sh: can't open /nope: no such file\n", code: 1 });
  });

  it('a while loop in a pipe is refused (it would never hand its output on), as are here-documents', () => {
    assert.equal(parseProgram(['sh', '-c', 'while true; do date; sleep 1; done | head -n 1']), undefined);
    assert.deepEqual(parseExecLine('while true; do date; done | head'), { unsupported: 'a while loop in a pipe' });
    assert.deepEqual(parseExecLine('cat <<EOF'), { unsupported: 'operator <' });
  });
});

describe('simulated shell: filters as busybox prints them', () => {
  const text = 'b:2\na:10\nc:1\na:10\n';
  const cases: Array<[string, { out: string; err?: string; code?: number }]> = [
    ['grep a', { out: 'a:10\na:10\n' }],
    ['grep -v a', { out: 'b:2\nc:1\n' }],
    ['grep -c a', { out: '2\n' }],
    ['grep -i A', { out: 'a:10\na:10\n' }],
    ['grep -E "b|c"', { out: 'b:2\nc:1\n' }],
    ['grep "b\\|c"', { out: 'b:2\nc:1\n' }],
    ['grep -n c', { out: '3:c:1\n' }],
    ['grep -q z', { out: '', code: 1 }],
    ['grep -Q a', { out: '', err: "grep: invalid option -- 'Q'\nBusyBox v1.35.0 (Debian 1:1.35.0-4+deb12u1+b1) multi-call binary.\n\nUsage: grep [-HhnlLoqvsrRiwFEz] [-m N] [-A|B|C N] { PATTERN | -e PATTERN... | -f FILE... } [FILE]...\n", code: 2 }],
    ['head -n 1', { out: 'b:2\n' }],
    ['head -2', { out: 'b:2\na:10\n' }],
    ['tail -n 1', { out: 'a:10\n' }],
    ['tail -3', { out: 'a:10\nc:1\na:10\n' }],
    ['wc -l', { out: '4\n' }],
    ['wc -w', { out: '4\n' }],
    ['wc -c', { out: '18\n' }],
    ['wc', { out: '        4         4        18\n' }],
    ['sort', { out: 'a:10\na:10\nb:2\nc:1\n' }],
    ['sort -r', { out: 'c:1\nb:2\na:10\na:10\n' }],
    ['cut -d: -f2 | sort -n', { out: '1\n2\n10\n10\n' }],
    ['sort | uniq', { out: 'a:10\nb:2\nc:1\n' }],
    ['sort | uniq -c', { out: '      2 a:10\n      1 b:2\n      1 c:1\n' }],
    ['cut -d: -f1', { out: 'b\na\nc\na\n' }],
    ['cut -c1', { out: 'b\na\nc\na\n' }],
    ['tr a-c A-C', { out: 'B:2\nA:10\nC:1\nA:10\n' }],
    ['tr -d :', { out: 'b2\na10\nc1\na10\n' }],
    ['tr "[:lower:]" "[:upper:]" | head -1', { out: 'B:2\n' }],
    ['cut', { out: '', err: 'cut: expected a list of bytes, characters, or fields\n', code: 1 }],
    // Options busybox has that the simulation does not implement are refused plainly, never ignored.
    ['grep -o a', { out: '', err: "grep: option -o is not simulated by k8ts's simulated shell\n", code: 2 }],
    ['sort -k2', { out: '', err: "sort: option -k is not simulated by k8ts's simulated shell\n", code: 1 }],
    ['wc -x', { out: '', err: "wc: invalid option -- 'x'\nBusyBox v1.35.0 (Debian 1:1.35.0-4+deb12u1+b1) multi-call binary.\n\nUsage: wc [-cmlwL] [FILE]...\n", code: 1 }],
  ];
  for (const [filter, want] of cases) {
    it(`printf ... | ${filter}`, async () => {
      const r = await sh(`printf '${text.replace(/\n/g, '\\n')}' | ${filter}`);
      assert.deepEqual(r, { out: want.out, err: want.err ?? '', code: want.code ?? 0 });
    });
  }

  it('files as operands: names before matches, headers, a total; a missing file', async () => {
    const view = container();
    assert.deepEqual(await sh('grep -c very /etc/config/SPECIAL_LEVEL /etc/config/SPECIAL_TYPE', view), { out: '/etc/config/SPECIAL_LEVEL:1\n/etc/config/SPECIAL_TYPE:0\n', err: '', code: 0 });
    assert.deepEqual(await sh('echo x > /tmp/a; echo y >> /tmp/a; head -n 1 /tmp/a /etc/hostname', view), { out: '==> /tmp/a <==\nx\n\n==> /etc/hostname <==\ndapi-test-pod\n', err: '', code: 0 });
    assert.deepEqual(await sh('wc -l /tmp/a /etc/hostname', view), { out: '        2 /tmp/a\n        1 /etc/hostname\n        3 total\n', err: '', code: 0 });
    assert.deepEqual(await sh('grep x /nope', view), { out: '', err: 'grep: /nope: No such file or directory\n', code: 2 });
  });
});

describe('simulated shell: file commands against the writable layer', () => {
  it('the liveness tutorial: touch /tmp/healthy, cat it, rm -f it, cat says No such file', async () => {
    const view = container();
    assert.deepEqual(await sh('touch /tmp/healthy; cat /tmp/healthy; echo $?', view), { out: '0\n', err: '', code: 0 });
    assert.deepEqual(await sh('ls /tmp', view), { out: 'healthy\n', err: '', code: 0 });
    assert.deepEqual(await sh('rm -f /tmp/healthy; cat /tmp/healthy', view), { out: '', err: "cat: can't open '/tmp/healthy': No such file or directory\n", code: 1 });
    assert.deepEqual(await sh('rm -f /tmp/healthy', view), { out: '', err: '', code: 0 });
    assert.deepEqual(await sh('rm /tmp/healthy', view), { out: '', err: "rm: can't remove '/tmp/healthy': No such file or directory\n", code: 1 });
  });

  it('mkdir [-p], cp, mv, rm [-r] as busybox does, with its messages', async () => {
    const view = container();
    assert.deepEqual(await sh('mkdir /tmp/a/b', view), { out: '', err: "mkdir: can't create directory '/tmp/a/b': No such file or directory\n", code: 1 });
    assert.deepEqual(await sh('mkdir -p /tmp/a/b && echo hi > /tmp/a/b/f && cp /tmp/a/b/f /tmp/g && mv /tmp/g /tmp/a && ls /tmp /tmp/a', view), { out: '/tmp:\na\n\n/tmp/a:\nb\ng\n', err: '', code: 0 });
    assert.deepEqual(await sh('mkdir /tmp/a', view), { out: '', err: "mkdir: can't create directory '/tmp/a': File exists\n", code: 1 });
    assert.deepEqual(await sh('cp /tmp/a /tmp/c', view), { out: '', err: "cp: omitting directory '/tmp/a'\n", code: 1 });
    assert.deepEqual(await sh('cp -r /tmp/a /tmp/c && cat /tmp/c/b/f', view), { out: 'hi\n', err: '', code: 0 });
    assert.deepEqual(await sh('cp /nope /tmp/x', view), { out: '', err: "cp: can't stat '/nope': No such file or directory\n", code: 1 });
    assert.deepEqual(await sh('mv /nope /tmp/x', view), { out: '', err: "mv: can't rename '/nope': No such file or directory\n", code: 1 });
    assert.deepEqual(await sh('rm /tmp/a', view), { out: '', err: "rm: '/tmp/a' is a directory\n", code: 1 });
    assert.deepEqual(await sh('rm -r /tmp/a /tmp/c; ls /tmp', view), { out: '', err: '', code: 0 });
    assert.deepEqual(await sh('touch /nodir/x', view), { out: '', err: 'touch: /nodir/x: No such file or directory\n', code: 1 });
    assert.deepEqual(await sh('mkdir -m 700 /tmp/m', view), { out: '', err: "mkdir: option -m is not simulated by k8ts's simulated shell\n", code: 1 });
    assert.deepEqual(await sh('rm -x /tmp/a', view), { out: '', err: "rm: invalid option -- 'x'\nBusyBox v1.35.0 (Debian 1:1.35.0-4+deb12u1+b1) multi-call binary.\n\nUsage: rm [-irf] FILE...\n", code: 1 });
  });

  it('a read-only mount refuses as busybox does', async () => {
    const view = container();
    assert.deepEqual(await sh('touch /etc/config/x', view), { out: '', err: 'touch: /etc/config/x: Read-only file system\n', code: 1 });
    assert.deepEqual(await sh('rm /etc/config/SPECIAL_LEVEL', view), { out: '', err: "rm: can't remove '/etc/config/SPECIAL_LEVEL': Read-only file system\n", code: 1 });
    assert.deepEqual(await sh('mkdir /etc/config/d', view), { out: '', err: "mkdir: can't create directory '/etc/config/d': Read-only file system\n", code: 1 });
    assert.deepEqual(await sh('cp /etc/hostname /etc/config/', view), { out: '', err: "cp: can't create '/etc/config/hostname': Read-only file system\n", code: 1 });
  });

  it('test and [ ]: files, strings, integers, !, and busybox\'s errors', async () => {
    const view = container();
    await sh('touch /tmp/empty; echo x > /tmp/full; mkdir /tmp/d', view);
    const cases: Array<[string, number, string?]> = [
      ['[ -f /tmp/empty ]', 0], ['[ -s /tmp/empty ]', 1], ['[ -s /tmp/full ]', 0], ['[ -d /tmp/d ]', 0], ['[ -f /tmp/d ]', 1],
      ['[ -e /etc/config/SPECIAL_LEVEL ]', 0], ['[ -e /nope ]', 1], ['[ ! -f /nope ]', 0], ['test -z ""', 0], ['test -n ""', 1],
      ['[ "$SPECIAL_LEVEL_KEY" = very ]', 0], ['[ a != a ]', 1], ['[ 2 -lt 10 ]', 0], ['[ -f ]', 0], ['[ ]', 1],
      ['[ -f /tmp/full -a -d /tmp/d ]', 0], ['[ -f /nope -o -d /tmp/d ]', 0],
      ['[ 1 -eq a ]', 2, '[: a: bad number\n'], ['[ a = ]', 2, '[: =: argument expected\n'], ['[ a b ]', 2, '[: b: unknown operand\n'],
      ['[ -f x', 2, '[: missing ]\n'], ['test a -foo b', 2, 'test: -foo: unknown operand\n'],
    ];
    for (const [script, code, err] of cases) assert.deepEqual(await sh(script, view), { out: '', err: err ?? '', code }, script);
  });

  it('if ...; then ...; elif ...; else ...; fi', async () => {
    const view = container();
    const script = 'if [ -f /tmp/x ]; then echo file; elif [ -d /tmp ]; then echo dir; else echo none; fi';
    assert.deepEqual(await sh(script, view), { out: 'dir\n', err: '', code: 0 });
    await sh('touch /tmp/x', view);
    assert.deepEqual(await sh(script, view), { out: 'file\n', err: '', code: 0 });
    assert.deepEqual(await sh('if false; then echo a; fi; echo $?', view), { out: '0\n', err: '', code: 0 });
  });
});
