/**
 * The long-running commands' signal handling (src/cli/shutdown-signal.ts), in
 * real child processes sent real signals: a finished shutdown exits even if a
 * handle is left open (as a Go main returns), and a second signal ends a
 * shutdown that hangs, with 1, as upstream's SetupSignalHandler.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const moduleURL = new URL('../../src/cli/shutdown-signal.js', import.meta.url).href;
const logURL = new URL('../../src/util/log.js', import.meta.url).href;

/** A process whose shutdown is `shutdownBody` and that keeps `leftOpen` running (signal listeners alone keep no process alive); prints "ready" once it listens. */
function child(shutdownBody: string, leftOpen: string) {
  const script = `
    const { onShutdownSignal } = await import(${JSON.stringify(moduleURL)});
    const { createLogger } = await import(${JSON.stringify(logURL)});
    const logger = createLogger('test');
    onShutdownSignal(logger, async () => { ${shutdownBody} }).then((code) => { process.exitCode = code; });
    ${leftOpen}
    process.stdout.write('ready\\n');`;
  const proc = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'], cwd: fileURLToPath(new URL('.', import.meta.url)) });
  let stderr = '';
  proc.stderr!.on('data', (b: Buffer) => { stderr += b; });
  const ready = new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (b: Buffer) => { if (String(b).includes('ready')) resolve(); });
    proc.once('exit', (code) => reject(new Error(`exited ${code} before ready: ${stderr}`)));
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return { proc, ready, exited, stderr: () => stderr };
}

const logLines = (text: string) => text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

test('a finished shutdown exits with 0 although an interval is still running, and says what was left open', async () => {
  const c = child('', 'setInterval(() => {}, 60_000);');
  await c.ready;
  c.proc.kill('SIGTERM');
  assert.equal(await c.exited, 0);
  const lines = logLines(c.stderr());
  assert.deepEqual(lines.map((l) => l.msg), ['shutting down', 'shutdown over but handles are still open; exiting']);
  assert.equal(lines[1]!.level, 'warn');
  assert.ok((lines[1]!.open as string[]).includes('Timeout'), JSON.stringify(lines[1]));
});

test('a failed shutdown exits with 1, also when a handle is left open', async () => {
  const c = child('throw new Error("storage would not close");', 'setInterval(() => {}, 60_000);');
  await c.ready;
  c.proc.kill('SIGINT');
  assert.equal(await c.exited, 1);
  assert.deepEqual(logLines(c.stderr()).map((l) => l.msg), ['shutting down', 'shutdown failed', 'shutdown over but handles are still open; exiting']);
});

test('a second signal during a shutdown that never finishes exits at once with 1', async () => {
  const c = child('await new Promise(() => {});', 'setInterval(() => {}, 60_000);');
  await c.ready;
  c.proc.kill('SIGTERM');
  // The first signal's line is written before the handler returns: wait for it, so the second is a second.
  while (!c.stderr().includes('shutting down')) await new Promise((r) => setTimeout(r, 20));
  c.proc.kill('SIGTERM');
  assert.equal(await c.exited, 1);
  assert.deepEqual(logLines(c.stderr()).map((l) => l.msg), ['shutting down', 'second signal: exiting without finishing the shutdown']);
});
