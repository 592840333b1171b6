/**
 * `k8ts supervise`: keeps one command running where there is no systemd, as
 * kubelet.service's Restart=always would: restarts it when it exits (1 s,
 * doubling to 10 s while it keeps failing fast), writes its own pid to
 * --pid-file, and on SIGTERM stops the command (SIGTERM, then SIGKILL after
 * --stop-timeout) and removes the pid file. Output goes where the caller
 * pointed stdout/stderr (init and join: a log file).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseDuration } from '../duration.js';

export const superviseHelp = `Run a command and restart it whenever it exits (used by init and join without systemd).

Usage:
  k8ts supervise --pid-file FILE [--stop-timeout 30s] -- COMMAND [ARGS...]

Stop it with: kill $(cat FILE)`;

export async function runSupervise(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, strict: true, allowPositionals: true, options: { 'pid-file': { type: 'string' }, 'stop-timeout': { type: 'string', default: '30s' } } });
  const [cmd, ...cmdArgs] = positionals;
  if (!values['pid-file'] || !cmd) { console.error('Error: --pid-file and a command are required'); return 1; }
  const pidFile = values['pid-file'];
  const stopTimeoutMs = parseDuration(values['stop-timeout']!);
  writeFileSync(pidFile, `${process.pid}\n`, { mode: 0o644 });
  let child: ChildProcess | undefined;
  let stopping = false;
  let backoffMs = 1000;
  const stamp = () => new Date().toISOString();
  const start = () => {
    const started = Date.now();
    child = spawn(cmd, cmdArgs, { stdio: 'inherit' });
    console.log(`${stamp()} supervise: started ${cmd} (pid ${child.pid})`);
    child.on('exit', (code, signal) => {
      child = undefined;
      if (stopping) return;
      // A run that lasted a while resets the back-off: only fast crash loops slow down.
      backoffMs = Date.now() - started > 10_000 ? 1000 : Math.min(backoffMs * 2, 10_000);
      console.log(`${stamp()} supervise: ${cmd} exited (code ${code}, signal ${signal}); restarting in ${backoffMs} ms`);
      setTimeout(() => { if (!stopping) start(); }, backoffMs);
    });
  };
  start();
  await new Promise<void>((resolve) => { process.once('SIGTERM', () => resolve()); process.once('SIGINT', () => resolve()); });
  stopping = true;
  const running = child as ChildProcess | undefined;
  if (running && running.exitCode === null) {
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGTERM');
    const timer = setTimeout(() => running.kill('SIGKILL'), stopTimeoutMs);
    await exited;
    clearTimeout(timer);
  }
  rmSync(pidFile, { force: true });
  console.log(`${stamp()} supervise: stopped`);
  return 0;
}
