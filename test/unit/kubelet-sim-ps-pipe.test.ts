/** ps in a pipe lists the pipe's other stages, which run beside it (`ps aux | grep nginx` shows the grep, as on a real node). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseExecLine, runProgram, type ShellContext } from '../../src/kubelet/runtime/simulated/shell.js';
import { procpsPs } from '../../src/kubelet/runtime/simulated/procps.js';

async function run(script: string, image: string, processes: { uid: number; args: string }[]) {
  let out = '';
  const parsed = parseExecLine(script);
  assert.ok('program' in parsed);
  const ctx: ShellContext = {
    env: new Map([['WHAT', 'sleep']]), hostname: 'h', image, processes, readFile: () => undefined, listDir: () => undefined,
    now: () => new Date(0), sleep: async () => true, write: (_s, t) => { out += t; },
  };
  return { code: await runProgram(parsed.program, ctx), out };
}

describe('ps in a pipe', () => {
  it('busybox: `ps | grep sleep` shows the grep after ps, its variables expanded', async () => {
    const r = await run('ps | grep $WHAT', 'busybox:1.36', [{ uid: 0, args: 'sleep 3600' }]);
    assert.deepEqual(r, { code: 0, out: '    1 root      0:00 sleep 3600\n   13 root      0:00 grep sleep\n' });
  });

  it('busybox: a stage before ps is listed before it', async () => {
    const r = await run('echo x | ps', 'busybox:1.36', [{ uid: 0, args: 'sleep 3600' }]);
    assert.equal(r.out, 'PID   USER     TIME  COMMAND\n    1 root      0:00 sleep 3600\n    7 root      0:00 echo x\n   13 root      0:00 ps\n');
  });

  it('procps: `ps aux | grep nginx` as on the Get a Shell page: the grep is sleeping (S), ps running (R), both children of the shell', () => {
    const text = procpsPs(['aux'], {
      processes: [{ uid: 0, args: 'nginx: master process nginx -g daemon off;' }, { uid: 101, args: 'nginx: worker process' }, { uid: 0, args: '/bin/bash' }],
      pipePeers: { before: [], after: [{ uid: 0, args: 'grep nginx' }] }, tty: true, interactiveShell: true,
      startedAt: new Date(0), now: new Date(0), uid: 0, userName: (u) => (u === 0 ? 'root' : 'nginx'),
    })!;
    const lines = text.split('\n');
    assert.match(lines[4]!, /^root +19 .* pts\/0 +R\+ +00:00 +0:00 ps aux$/);
    assert.match(lines[5]!, /^root +25 .* pts\/0 +S\+ +00:00 +0:00 grep nginx$/);
  });
});
