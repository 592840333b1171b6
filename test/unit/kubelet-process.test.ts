/** The process runtime's parts: the wrapper, the log pump, the records (real processes and files). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bindMounts, launch, lookPath } from '../../src/kubelet/runtime/process/launch.js';
import { LogPump } from '../../src/kubelet/runtime/process/logpump.js';
import { procStat, readExitCode } from '../../src/kubelet/runtime/process/records.js';
import { parseCRILogLine } from '../../src/kubelet/logs/index.js';
import { eventually } from '../e2e/harness.js';

const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => {
  const m = parseCRILogLine(Buffer.from(l))!;
  return `${m.stream} ${m.partial ? 'P' : 'F'} ${m.content.toString().replace(/\n$/, '')}`;
});

describe('process runtime', () => {
  it('the wrapper records the exit code, 128+signal for a signal, and the output goes to files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-proc-unit-'));
    try {
      const { child, mountNamespace } = launch({ argv: ['sh', '-c', 'echo "$X in $(pwd)"; echo err >&2; exit 4'], env: { PATH: process.env.PATH!, X: 'hi' }, workingDir: tmpdir(), mounts: [], dir });
      assert.equal(mountNamespace, false);
      child.ref(); // the runtime unrefs its processes; the test waits for this one
      await new Promise((r) => child.once('exit', r));
      assert.equal(readExitCode(dir), 4);
      assert.equal(readFileSync(join(dir, 'stdout'), 'utf8'), `hi in ${tmpdir()}\n`);
      assert.equal(readFileSync(join(dir, 'stderr'), 'utf8'), 'err\n');
      const killed = launch({ argv: ['sleep', '60'], env: { PATH: process.env.PATH! }, workingDir: '', mounts: [], dir });
      killed.child.ref();
      // Once the command runs, the wrapper traps TERM (sent earlier, it would end the wrapper itself).
      const pid = killed.child.pid!;
      const command = () => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)
        .some((c) => { try { return readFileSync(`/proc/${c}/comm`, 'utf8').trim() === 'sleep'; } catch { return false; } });
      await eventually(async () => command(), 5000, 'started');
      // The trap follows the command's start by a few shell steps: wait until the wrapper catches TERM (bit 15-1 of SigCgt).
      const catchesTerm = () => (BigInt(`0x${/^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]}`) & (1n << 14n)) !== 0n;
      await eventually(async () => catchesTerm(), 5000, 'TERM trapped');
      process.kill(-killed.child.pid!, 'SIGTERM');
      await new Promise((r) => killed.child.once('exit', r));
      assert.equal(readExitCode(dir), 143);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the log pump writes complete lines, holds an unfinished one until flushed, and resumes where it stopped', () => {
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-proc-unit-'));
    try {
      const log = join(dir, 'c.log');
      writeFileSync(join(dir, 'stdout'), 'one\ntw');
      writeFileSync(join(dir, 'stderr'), 'err\n');
      new LogPump(dir, log).pump();
      assert.deepEqual(lines(log), ['stdout F one', 'stderr F err']);
      // A new pump (a restarted agent) goes on from the saved offsets.
      writeFileSync(join(dir, 'stdout'), 'one\ntwo\nthr');
      const again = new LogPump(dir, log);
      again.pump();
      assert.deepEqual(lines(log), ['stdout F one', 'stderr F err', 'stdout F two']);
      again.pump(true);
      assert.deepEqual(lines(log).slice(3), ['stdout F thr']);
      writeFileSync(join(dir, 'stdout'), `one\ntwo\nthr${'x'.repeat(20_000)}\n`);
      new LogPump(dir, log).pump();
      assert.deepEqual(lines(log).slice(4).map((l) => l.slice(0, 9)), ['stdout P ', 'stdout F ']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds bare commands through PATH, leaves paths to the shell, and binds only volumes not already in place', () => {
    assert.equal(lookPath('sh', '/nonexistent:/bin'), '/bin/sh');
    assert.equal(lookPath('no-such-command-k8ts', process.env.PATH), undefined);
    assert.equal(lookPath('./server', ''), './server');
    const m = (hostPath: string, containerPath: string) => ({ hostPath, containerPath, readonly: false });
    assert.deepEqual(bindMounts([m('/var/log', '/var/log'), m('/a', '/b')]), [m('/a', '/b')]);
    assert.ok(existsSync(`/proc/${process.pid}/stat`) && procStat(process.pid)!.start.length > 0);
    assert.equal(procStat(2 ** 22 + 1), undefined);
  });
});
