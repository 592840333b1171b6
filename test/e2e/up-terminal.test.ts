/**
 * `k8ts up` on a terminal (what `npm start` shows a person): a few lines of
 * progress and the kubeconfig to use, with the JSON log lines of every part
 * (the API server, the control loops' thread, the simulated nodes) in
 * DATA/k8ts.log; `--log-format json` keeps them on stderr as before. Run
 * under `script`, which gives the process a real pseudo-terminal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, minEventuallyMs } from './harness.js';
import { underTerminal } from './helpers.js';

/**
 * Runs `k8ts up ARGS` under a pseudo-terminal until `ready(out)` holds, then sends it SIGTERM (as Ctrl-C's
 * neighbour, `timeout`, did after a fixed 8 or 15 s: at machine load 30 and more a cluster could still be
 * starting then); resolves with what the terminal showed once it has exited.
 */
function upUntil(args: string, ready: (out: string) => boolean, timeoutMs = 4 * minEventuallyMs): Promise<string> {
  return new Promise((resolve, reject) => {
    // exec: k8ts is script's child, so the signal reaches it and not a shell.
    const child = spawn('script', ['-qec', `exec ${process.execPath} ${cliPath} up ${args}`, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let out = '';
    let signalled = false;
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    const poll = setInterval(() => {
      if (signalled || !ready(out)) return;
      const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(' ').filter(Boolean);
      if (!children.length) return;
      signalled = true;
      process.kill(Number(children[0]), 'SIGTERM');
    }, 200);
    const timer = setTimeout(() => {
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ }
      reject(new Error(`k8ts up was not ready in ${timeoutMs} ms: ${out}`));
    }, timeoutMs);
    child.on('exit', () => { clearInterval(poll); clearTimeout(timer); child.stdin.destroy(); resolve(out); });
  });
}

/** The JSON records of DATA/k8ts.log so far (a last line still being written is left out). */
function logRecords(data: string): Record<string, unknown>[] {
  const file = join(data, 'k8ts.log');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').flatMap((l) => { try { return [JSON.parse(l)]; } catch { return []; } });
}

test('on a terminal, k8ts up prints at most 15 lines and writes its JSON logs to DATA/k8ts.log', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-up-tty-'));
  try {
    const data = join(dir, 'data');
    // Stopped with SIGTERM once its nodes have registered (the kubeconfig line) and the control loops have logged.
    const out = await upUntil(`--data-dir ${data} --port 0`,
      (o) => o.includes('export KUBECONFIG=') && logRecords(data).some((r) => String(r.component).startsWith('k8ts.controller-manager')));
    const lines = out.replace(/\r/g, '').split('\n').filter((l) => l.trim() !== '');
    assert.ok(lines.length <= 15, `printed ${lines.length} lines:\n${out}`);
    assert.match(out, /^k8ts is up at https:\/\/127\.0\.0\.1:\d+/m);
    assert.match(out, new RegExp(`export KUBECONFIG=${data}/admin.conf`));
    assert.match(out, new RegExp(`Logs \\(JSON lines\\) go to ${data}/k8ts.log`));
    assert.doesNotMatch(out, /"level":/, 'a JSON log line reached the terminal');
    const records = readFileSync(join(data, 'k8ts.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.ok(records.some((r) => r.msg === 'API server ready'), 'the server logged to the file');
    assert.ok(records.some((r) => String(r.component).startsWith('k8ts.controller-manager')), 'the control loops\' thread logged to the file');
    assert.ok(records.some((r) => r.msg === 'shutting down'), 'SIGTERM was logged to the file');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--log-format json keeps the JSON lines on stderr under a terminal too', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-up-json-'));
  try {
    const out = await upUntil(`--data-dir ${join(dir, 'data')} --port 0 --log-format json`,
      (o) => o.includes('"msg":"API server ready"') && o.includes('export KUBECONFIG='));
    assert.match(out, /"msg":"API server ready"/);
    assert.doesNotMatch(out, /Logs \(JSON lines\) go to/);
    const bad = await underTerminal(`${process.execPath} ${cliPath} up --data-dir ${join(dir, 'data')} --log-format yaml`, [], 30_000);
    assert.match(bad.out, /invalid argument "yaml" for "--log-format" flag: must be json or text/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
