/**
 * The dashboard's exec terminal in a real browser (chromium through
 * playwright-core) against `k8ts up --runtime process`: one real node whose
 * pods are host processes, so `sh` really runs. Typed keys go to the
 * command over the API server's exec WebSocket (stdin, channel 0), its
 * output comes back into xterm.js, the terminal's size reaches the pty
 * (channel 4: `stty size`), and the exit status (channel 3) is shown in
 * kubectl's words. The same through `k8ts dashboard --kubeconfig`, where
 * the proxy holds the identity (no login, no Log out).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { Browser, Page } from 'playwright-core';
import { cliPath, eventually, repoRoot } from './harness.js';
import { killChild, lineReader } from './helpers.js';
import { startUp, type UpCluster } from './up-cluster.js';
import { launchBrowser, loggedInPage } from './dashboard-browser.js';

let up: UpCluster;
let browser: Browser;
let proxy: ChildProcess | undefined;
const shotsDir = process.env.K8TS_SCREENSHOTS === 'docs' ? join(repoRoot, 'docs', 'dashboard') : mkdtempSync(join(tmpdir(), 'k8ts-dashexec-shots-'));

before(async () => {
  up = await startUp('k8ts-dashexec-', ['--runtime', 'process', '--node-name', 'dashexec-node', '--node-ip', '127.0.0.1', '--kubelet-port', '0']);
  await up.kubectl(['create', '-f', '-'], JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'box', namespace: 'default' },
    spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: 'busybox', command: ['sleep', '3600'] }] },
  }));
  await eventually(async () => (await up.kubectl(['get', 'pod', 'box', '-o', 'jsonpath={.status.phase}'])).stdout === 'Running', 90_000, 'box Running');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  if (proxy) await killChild(proxy);
  await up?.close();
});

/** The terminal's screen as text, one string per row, trailing blanks trimmed. */
const screen = (p: Page) => p.locator('[aria-label="terminal"] .xterm-rows > div').evaluateAll((rows) => rows.map((r) => (r.textContent ?? '').replace(/\s+$/, '')));

/** Opens box's terminal from the map and waits for the shell. */
async function openTerminal(p: Page): Promise<void> {
  await p.locator('[data-pod="default/box"]').click();
  const section = p.locator('aside [aria-label="terminal"]');
  await section.getByRole('button', { name: 'Open terminal' }).click({ timeout: 30_000 });
  await section.locator('.exec-terminal[data-connected=true][data-size]').waitFor({ timeout: 60_000 });
}

/** Types a line into xterm as a user does (keyboard events into its focused textarea). */
async function typeLine(p: Page, text: string): Promise<void> {
  await p.locator('[aria-label="terminal"] .xterm-helper-textarea').focus();
  await p.keyboard.type(text);
  await p.keyboard.press('Enter');
}

test('the exec terminal: typed input runs in the pod, output, the terminal size and the exit status come back', async () => {
  await up.kubectl(['create', 'serviceaccount', 'dashboard-admin', '-n', 'kube-system']);
  await up.kubectl(['create', 'clusterrolebinding', 'dashboard-admin', '--clusterrole=cluster-admin', '--serviceaccount=kube-system:dashboard-admin']);
  const token = (await up.kubectl(['create', 'token', 'dashboard-admin', '-n', 'kube-system'])).stdout.trim();
  const server = parse(readFileSync(up.kubeconfig, 'utf8')).clusters[0].cluster.server;
  const page = await loggedInPage(browser, `${server}/dashboard/`, token);
  try {
    await openTerminal(page);
    const section = page.locator('aside [aria-label="terminal"]');
    assert.equal(await section.locator('.command').innerText(), 'kubectl exec -it -n default box -c main -- sh');
    await typeLine(page, 'echo hi-from-terminal');
    // The echoed command line holds the words too; the output is a row of its own.
    await eventually(async () => (await screen(page)).includes('hi-from-terminal'), 30_000, 'the output in the terminal');
    // Channel 4: the pty has the size the page's terminal has.
    const size = await section.locator('.exec-terminal').getAttribute('data-size');
    assert.match(size!, /^\d+ \d+$/);
    await typeLine(page, 'stty size');
    await eventually(async () => (await screen(page)).includes(size!), 30_000, `stty size ${size}`);
    await section.locator('.exec-terminal').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shotsDir, 'terminal.png') });
    await typeLine(page, 'exit 3');
    await section.locator('[data-exec-outcome]').waitFor({ timeout: 30_000 });
    assert.equal(await section.locator('[data-exec-outcome]').innerText(), 'command terminated with exit code 3');
    // Again: a clean exit says so.
    await section.getByRole('button', { name: 'Open again' }).click();
    await section.locator('.exec-terminal[data-connected=true]').waitFor({ timeout: 60_000 });
    await typeLine(page, 'exit');
    await section.locator('[data-exec-outcome]').waitFor({ timeout: 30_000 });
    assert.equal(await section.locator('[data-exec-outcome]').innerText(), 'exit code 0');
  } finally {
    await page.context().close();
  }
});

test('through `k8ts dashboard --kubeconfig`: the terminal works with the kubeconfig\'s identity, and there is no Log out', async () => {
  proxy = spawn(process.execPath, [cliPath, 'dashboard', '--kubeconfig', up.kubeconfig, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const out = lineReader(proxy);
  const at = await out.waitFor((l) => l.startsWith('Starting to serve the dashboard on '), 'the URL line', 0, 60_000);
  const url = out.lines[at].replace('Starting to serve the dashboard on ', '').trim();
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 640 } })).newPage();
  try {
    await page.goto(url);
    await page.waitForSelector('.map');
    assert.equal(await page.getByRole('button', { name: 'Log out' }).count(), 0);
    assert.match(await page.locator('header .identity').innerText(), /^as the kubeconfig's user \(context [^)]+\)$/);
    await openTerminal(page);
    await typeLine(page, 'echo via-proxy');
    await eventually(async () => (await screen(page)).includes('via-proxy'), 30_000, 'the output through the proxy');
    // The exec-check (why a handshake was refused) acts as the kubeconfig's user too, and says it in the API's words.
    const check = (container: string) => page.evaluate(async (c) => {
      const r = await fetch(`/dashboard/api/exec-check/namespaces/default/pods/box?container=${c}`);
      return { code: r.status, body: await r.json() };
    }, container);
    assert.deepEqual(await check('main'), { code: 200, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 } });
    const wrong = await check('nope');
    assert.equal(wrong.code, 400);
    assert.equal(wrong.body.message, 'container nope is not valid for pod box');
  } finally {
    await page.context().close();
  }
});
