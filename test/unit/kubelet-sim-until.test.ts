/** `until LIST; do LIST; done` in the simulated shell: the loop runs while its condition fails, as in dash, ash and bash. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseExecLine, parseProgram, runProgram, type ShellContext } from '../../src/kubelet/runtime/simulated/shell.js';

async function run(script: string) {
  let out = '';
  const parsed = parseExecLine(script);
  assert.ok('program' in parsed, script);
  const ctx: ShellContext = {
    env: new Map(), hostname: 'h', image: 'busybox:1.28', readFile: () => undefined, listDir: () => undefined,
    now: () => new Date(0), sleep: async () => true, write: (_s, t) => { out += t; },
  };
  return { code: await runProgram(parsed.program, ctx), out };
}

describe('until loops', () => {
  it('run the body while the condition fails, and end with the body\'s last status', async () => {
    assert.deepEqual(await run('i=0; until [ $i -ge 3 ]; do echo waiting $i; i=$((i+1)); done; echo done'), { code: 0, out: 'waiting 0\nwaiting 1\nwaiting 2\ndone\n' });
    assert.deepEqual(await run('until true; do echo never; done'), { code: 0, out: '' });
  });
  it('a container\'s own command may be one (the Init Containers page\'s init-myservice)', () => {
    assert.ok(parseProgram(['sh', '-c', 'until nslookup myservice.default.svc.cluster.local; do echo waiting for myservice; sleep 2; done']));
  });
});
