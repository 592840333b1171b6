/**
 * `$$` and /proc/PID/status in the simulated shell (shell.ts, proc-files.ts),
 * and a shell alone as a container's command (the empty program): the Debug
 * Running Pods page's `grep Cap /proc/$$/status` and its copies' `-- sh`.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { parseExec, parseProgram, runProgram, type ShellContext } from '../../src/kubelet/runtime/simulated/shell.js';
import { runsProgram, type ContainerView } from '../../src/kubelet/runtime/simulated/program.js';
import { runsExecProbe } from '../../src/kubelet/runtime/simulated/exec-probe.js';
import { PidNamespace } from '../../src/kubelet/runtime/simulated/pid-namespace.js';
import { mainProcessKey, pidOfProcess, visibleProcesses } from '../../src/kubelet/runtime/simulated/processes.js';
import { withProcFiles } from '../../src/kubelet/runtime/simulated/proc-files.js';

async function run(script: string, ctx: Partial<ShellContext> = {}): Promise<string> {
  const program = parseExec(['sh', '-c', script]);
  assert.ok('program' in program, JSON.stringify(program));
  let out = '';
  await runProgram(program.program, {
    env: new Map(), hostname: 'myapp', readFile: () => undefined, listDir: () => undefined, now: () => new Date(0), sleep: async () => true,
    write: (_s, t) => { out += t; }, ...ctx,
  });
  return out;
}

describe('the simulated shell: $$ and a shell alone', () => {
  it('$$ is the shell\'s PID as the context says it, 1 when it says none (a container\'s own command)', async () => {
    assert.equal(await run('echo $$ "$$"'), '1 1\n');
    assert.equal(await run('echo $$', { shellPid: () => 13 }), '13\n');
  });

  it('a shell alone is the empty program of a container and a probe (stdin\'s EOF ends it, exit 0); an exec\'s is interactive', async () => {
    for (const argv of [['sh'], ['/bin/bash'], ['sh', '-i'], ['bash', '-l']]) assert.deepEqual(parseProgram(argv), [], argv.join(' '));
    assert.equal(parseProgram(['sh', '-x']), undefined);
    assert.ok(runsProgram({ name: 'myapp', image: 'busybox:1.28', command: ['sh'] }));
    assert.ok(runsExecProbe(['sh']));
    assert.deepEqual(parseExec(['sh']), { interactive: 'sh' });
  });

  it('a long-lived process\'s PID comes after those listed before it, as ps numbers them; keyOf finds its holder', () => {
    const ns = new PidNamespace();
    const processes = [{ uid: 0, args: 'sleep 1d', key: mainProcessKey('myapp') }, { uid: 0, args: 'ps' }, { uid: 0, args: 'sh', key: 'exec/1' }];
    assert.equal(pidOfProcess(processes, 'exec/1', ns), 7);
    assert.equal(pidOfProcess(processes, mainProcessKey('myapp'), ns), 1);
    assert.equal(ns.keyOf(7), 'exec/1');
    assert.equal(ns.keyOf(8), undefined);
  });
});

describe('/proc/PID/status beyond PID 1', () => {
  const target: Container = { name: 'myapp', image: 'busybox:1.28', args: ['sleep', '1d'] };
  const debug: Container = { name: 'debugger', image: 'busybox:1.28', securityContext: { privileged: true } };
  const pod: Pod = { metadata: { name: 'myapp' }, spec: { containers: [target], ephemeralContainers: [{ ...debug, targetContainerName: 'myapp' }] } };
  const view = (c: Container, pids: PidNamespace): ContainerView => withProcFiles({
    env: new Map(), hostname: 'myapp', workingDir: '/', refresh: async () => {}, readFile: () => undefined, listDir: () => undefined,
    processes: visibleProcesses(pod, c), pids,
  }, pod, c);

  it('a debug container\'s own shell, after its target\'s process: its PID and its (privileged) capability sets', () => {
    const pids = new PidNamespace();
    const v = view(debug, pids);
    const shell = pidOfProcess(v.processes!, mainProcessKey('debugger'), pids);
    assert.equal(shell, 7);
    const status = v.readFile(`/proc/${shell}/status`)!;
    assert.match(status, /\nPid:\t7\n/);
    assert.match(status, /\nCapPrm:\t000001ffffffffff\nCapEff:\t000001ffffffffff\n/);
    assert.match(v.readFile('/proc/1/status')!, /\nPid:\t1\n/);
  });

  it('an exec\'s shell of the container has a status; a PID nothing holds has none', () => {
    const pids = new PidNamespace();
    const v = view(target, pids);
    const shell = pidOfProcess([...v.processes!, { uid: 0, args: 'sh', key: 'exec/9' }], 'exec/9', pids);
    assert.match(v.readFile(`/proc/${shell}/status`)!, new RegExp(`^Name:\\tsh\\n[^]*\\nPid:\\t${shell}\\n`));
    assert.equal(v.readFile('/proc/99/status'), undefined);
  });
});
