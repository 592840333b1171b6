import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ShellContext } from '../../src/kubelet/runtime/simulated/shell.js';
import { parseTailFollow, tailFollow } from '../../src/kubelet/runtime/simulated/tail-follow.js';

test('tail follow forms: -f, -F, -n N, combined; one file only', () => {
  assert.deepEqual(parseTailFollow(['-F', '/opt/logs.txt']), { file: '/opt/logs.txt', lines: 10, retry: true, fromLine: false });
  assert.deepEqual(parseTailFollow(['-fn', '2', 'a']), { file: 'a', lines: 2, retry: false, fromLine: false });
  assert.deepEqual(parseTailFollow(['-n', '0', '-f', 'a']), { file: 'a', lines: 0, retry: false, fromLine: false });
  assert.equal(parseTailFollow(['-f', 'a', 'b']), undefined);
  assert.equal(parseTailFollow(['-n', '5', 'a']), undefined);
});

test('tail follow forms as getopt takes them: -n+1 attached (the Logging Architecture sidecars), -Fn2, -n -3; other options are not simulated', () => {
  assert.deepEqual(parseTailFollow(['-n+1', '-F', '/var/log/1.log']), { file: '/var/log/1.log', lines: 1, fromLine: true, retry: true });
  assert.deepEqual(parseTailFollow(['-n', '+3', '-f', 'a']), { file: 'a', lines: 3, fromLine: true, retry: false });
  assert.deepEqual(parseTailFollow(['-Fn2', 'a']), { file: 'a', lines: 2, fromLine: false, retry: true });
  assert.deepEqual(parseTailFollow(['-n', '-3', '-f', 'a']), { file: 'a', lines: 3, fromLine: false, retry: false });
  assert.equal(parseTailFollow(['-n', 'x', '-f', 'a']), undefined);
  assert.equal(parseTailFollow(['-c', '5', '-f', 'a']), undefined);
  assert.equal(parseTailFollow(['-f', '--', 'a']), undefined);
});

test('tail -n+1 -F prints the file from its first line, then what is appended', async () => {
  const a = polled(['0\n1\n2\n', '0\n1\n2\n3\n']);
  await tailFollow({ file: 'f', lines: 1, fromLine: true, retry: true }, a.ctx, (s, t) => a.out.push(t));
  assert.deepEqual(a.out, ['0\n1\n2\n', '3\n']);
  const b = polled(['0\n1\n2\n']);
  await tailFollow({ file: 'f', lines: 3, fromLine: true, retry: true }, b.ctx, (s, t) => b.out.push(t));
  assert.deepEqual(b.out, ['2\n']);
});

/** A file that changes at each poll (busybox's 1 s): `states[i]` after the i-th, then the container stops. */
function polled(states: (string | undefined)[]): { ctx: ShellContext; out: string[] } {
  let i = 0;
  const out: string[] = [];
  const ctx = {
    env: new Map(), hostname: 'p', now: () => new Date(0), write: () => {}, listDir: () => undefined,
    readFile: () => states[i],
    sleep: async () => ++i < states.length,
  } satisfies ShellContext;
  return { ctx, out };
}

test('tail -F waits for the file, says it appeared, prints it from its start and then what is appended', async () => {
  const { ctx, out } = polled([undefined, 'logging\n', 'logging\nlogging\n', 'logging\nlogging\n']);
  const r = await tailFollow({ file: '/opt/logs.txt', lines: 10, retry: true, fromLine: false }, ctx, (s, t) => out.push(`${s}:${t}`));
  assert.equal(r, 'stopped');
  assert.deepEqual(out, [
    "stderr:tail: can't open '/opt/logs.txt': No such file or directory\n",
    'stderr:tail: /opt/logs.txt has appeared; following end of new file\n',
    'stdout:logging\n', 'stdout:logging\n',
  ]);
});

test('tail -f prints the last lines, then appends; without the file it ends with `no files`', async () => {
  const a = polled(['1\n2\n3\n', '1\n2\n3\n4\n']);
  await tailFollow({ file: 'f', lines: 2, retry: false, fromLine: false }, a.ctx, (s, t) => a.out.push(t));
  assert.deepEqual(a.out, ['2\n3\n', '4\n']);
  const b = polled([undefined]);
  assert.equal(await tailFollow({ file: 'f', lines: 10, retry: false, fromLine: false }, b.ctx, (s, t) => b.out.push(t)), 1);
  assert.deepEqual(b.out, ["tail: can't open 'f': No such file or directory\n", 'tail: no files\n']);
});
