import { test } from 'node:test';
import assert from 'node:assert/strict';
import { braceExpand } from '../../src/kubelet/runtime/simulated/brace-expansion.js';
import { parseExec, runProgram, type ShellContext } from '../../src/kubelet/runtime/simulated/shell.js';

test('bash brace expansion: sequences up and down, letters, lists, text around; other words stay', () => {
  assert.deepEqual(braceExpand('{1..5}'), ['1', '2', '3', '4', '5']);
  assert.deepEqual(braceExpand('n{3..1}'), ['n3', 'n2', 'n1']);
  assert.deepEqual(braceExpand('{a..c}'), ['a', 'b', 'c']);
  assert.deepEqual(braceExpand('file{1,2}.txt'), ['file1.txt', 'file2.txt']);
  for (const w of ['{1..}', '{a}', '"{1..3}"', 'x={1..3}', '$x{1,2}', 'plain']) assert.equal(braceExpand(w), undefined, w);
});

async function run(argv: string[]): Promise<string> {
  const p = parseExec(argv);
  assert.ok('program' in p);
  let out = '';
  const ctx: ShellContext = { env: new Map(), hostname: 'p', readFile: () => undefined, listDir: () => undefined, now: () => new Date(0), sleep: async () => true, write: (_s, t) => { out += t; } };
  await runProgram(p.program, ctx);
  return out;
}

test('for i in {1..5} counts under bash; ash and dash keep the braces', async () => {
  assert.equal(await run(['bash', '-c', 'for i in {1..3}; do echo n$i; done; echo {a,b}x']), 'n1\nn2\nn3\nax bx\n');
  assert.equal(await run(['sh', '-c', 'for i in {1..3}; do echo n$i; done']), 'n{1..3}\n');
});
