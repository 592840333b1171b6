/**
 * `k8ts up` on a terminal (what `npm start` shows a person): a few lines of
 * progress and the kubeconfig to use, with the JSON log lines of every part
 * (the API server, the control loops' thread, the simulated nodes) in
 * DATA/k8ts.log; `--log-format json` keeps them on stderr as before. Run
 * under `script`, which gives the process a real pseudo-terminal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath } from './harness.js';
import { underTerminal } from './helpers.js';

test('on a terminal, k8ts up prints at most 15 lines and writes its JSON logs to DATA/k8ts.log', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-up-tty-'));
  try {
    const data = join(dir, 'data');
    // timeout stops it with SIGTERM once its nodes have had time to register and the loops to start.
    const { out } = await underTerminal(`timeout -s TERM 15 ${process.execPath} ${cliPath} up --data-dir ${data} --port 0`, [], 60_000);
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
    const { out } = await underTerminal(`timeout -s TERM 8 ${process.execPath} ${cliPath} up --data-dir ${join(dir, 'data')} --port 0 --log-format json`, [], 60_000);
    assert.match(out, /"msg":"API server ready"/);
    assert.doesNotMatch(out, /Logs \(JSON lines\) go to/);
    const bad = await underTerminal(`${process.execPath} ${cliPath} up --data-dir ${join(dir, 'data')} --log-format yaml`, [], 30_000);
    assert.match(bad.out, /invalid argument "yaml" for "--log-format" flag: must be json or text/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
