/**
 * The dashboard's exec terminal, against `k8ts up --runtime process` (one
 * real node: `sh` really runs) in Debian's chromium headless:
 *  - open: the click on "Open terminal" to the shell's session connected
 *    (the terminal chunk's fetch the first time, then the WebSocket
 *    handshake: API server → kubelet → process runtime), --opens times;
 *    and the terminal chunk's bytes on the wire (gzip, as served);
 *  - keystroke to echo: --keys single keys typed one at a time; each from
 *    its keydown in xterm's textarea to the moment the pty's echo is drawn
 *    on the terminal's screen (a MutationObserver; one page clock). The
 *    path: stdin frame page → API server → kubelet → pty, echo back the
 *    same way, xterm's render;
 *  - server CPU per key: the `k8ts up` process (API server and node agent)
 *    over the keys, divided by their number.
 *
 *   node dist/bench/dashboard-exec.js [--keys 200] [--opens 10] [--no-write]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { parse } from 'yaml';
import { eventually, repoRoot } from '../test/e2e/harness.js';
import { startUp } from '../test/e2e/up-cluster.js';
import { launchBrowser, loggedInPage } from '../test/e2e/dashboard-browser.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { processCpuMs } from './lib/dashboard-scale.js';
import { benchArgs } from './lib/args.js';

const { values } = benchArgs("The dashboard's exec terminal: open time and keystroke-to-echo latency in headless chromium.", { options: { keys: { type: 'string', default: '200' }, opens: { type: 'string', default: '10' }, 'no-write': { type: 'boolean' } } });
const keys = Number(values.keys);
const opens = Number(values.opens);
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]; };
const ms = (x: number) => `${x.toFixed(1)} ms`;

async function main(): Promise<void> {
  const loadBefore = loadavg()[0];
  const up = await startUp('k8ts-bench-dashexec-', ['--runtime', 'process', '--node-name', 'bench-exec-node', '--node-ip', '127.0.0.1', '--kubelet-port', '0']);
  const browser = await launchBrowser();
  try {
    await up.kubectl(['run', 'box', '--image=busybox', '--command', '--', 'sleep', '3600']);
    await eventually(async () => (await up.kubectl(['get', 'pod', 'box', '-o', 'jsonpath={.status.phase}'])).stdout === 'Running', 90_000, 'box Running');
    await up.kubectl(['create', 'serviceaccount', 'bench', '-n', 'kube-system']);
    await up.kubectl(['create', 'clusterrolebinding', 'bench', '--clusterrole=cluster-admin', '--serviceaccount=kube-system:bench']);
    const token = (await up.kubectl(['create', 'token', 'bench', '-n', 'kube-system'])).stdout.trim();
    const server = parse(readFileSync(up.kubeconfig, 'utf8')).clusters[0].cluster.server;
    const page = await loggedInPage(browser, `${server}/dashboard/`, token);
    await page.locator('[data-pod="default/box"]').click();
    const section = page.locator('aside [aria-label="terminal"]');
    const openMs: number[] = [];
    let chunkBytes = 0;
    for (let i = 0; i < opens; i++) {
      await section.getByRole('button', { name: 'Open terminal' }).click();
      const t0 = Date.now();
      await section.locator('.exec-terminal[data-connected=true]').waitFor({ timeout: 60_000 });
      openMs.push(Date.now() - t0);
      if (i === 0) {
        chunkBytes = await page.evaluate(() => (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
          .filter((e) => /\/(chunk-[^/]+\.js|xterm\.css)$/.test(e.name)).reduce((n, e) => n + e.transferSize, 0));
      }
      if (i < opens - 1) await section.getByRole('button', { name: 'Close terminal' }).click();
    }
    // Keys: each typed once the previous one's echo is drawn; the page times keydown → echo drawn.
    await page.locator('[aria-label="terminal"] .xterm-helper-textarea').focus();
    await page.evaluate(() => {
      const w = window as unknown as { lat: number[]; t: number; expect: number; pending: boolean };
      w.lat = []; w.pending = false;
      const rows = document.querySelector('[aria-label="terminal"] .xterm-rows')!;
      const count = () => (rows.textContent ?? '').split('x').length - 1;
      document.querySelector('[aria-label="terminal"] .xterm-helper-textarea')!.addEventListener('keydown', (e) => {
        if ((e as KeyboardEvent).key !== 'x') return;
        w.t = performance.now(); w.expect = count() + 1; w.pending = true;
      }, true);
      new MutationObserver(() => { if (w.pending && count() >= w.expect) { w.pending = false; w.lat.push(performance.now() - w.t); } })
        .observe(rows, { subtree: true, childList: true, characterData: true });
    });
    const measured = () => page.evaluate(() => (window as unknown as { lat: number[] }).lat.length);
    const cpu0 = processCpuMs(up.pid);
    for (let i = 1; i <= keys; i++) {
      if (i % 40 === 0) {
        // The line killed now and then (Ctrl-U, the tty's kill character), so it never wraps; not a measured key.
        await page.keyboard.press('Control+U');
        await eventually(async () => await page.locator('[aria-label="terminal"] .xterm-rows').evaluate((r) => !(r.textContent ?? '').includes('x')), 30_000, 'the line killed');
      }
      await page.keyboard.press('x');
      await eventually(async () => await measured() >= i, 30_000, `key ${i} echoed`);
    }
    const cpu = processCpuMs(up.pid) - cpu0;
    const lat = await page.evaluate(() => (window as unknown as { lat: number[] }).lat);
    const body = [
      ...sectionHead(repoRoot, '## Dashboard: the exec terminal (bench/dashboard-exec.ts)', '; chromium headless (Debian) via playwright-core, `k8ts up --runtime process`'),
      '',
      `Load average ${loadBefore.toFixed(1)} when it began, ${loadavg()[0].toFixed(1)} at the end (2 cores shared with other work).`,
      '',
      table(['measure', 'p50', 'p99 / max', 'runs'], [
        ['"Open terminal" to the shell connected (chunk fetched the first time, then the handshake)', ms(pct(openMs, 50)), ms(Math.max(...openMs)), String(opens)],
        ['  the first open alone (xterm.js chunk and stylesheet fetched)', ms(openMs[0]), '', '1'],
        ['terminal chunk and stylesheet on the wire (gzip)', `${(chunkBytes / 1024).toFixed(1)} KiB`, '', '1'],
        ['key typed to its echo drawn (stdin → pty → stdout → xterm)', ms(pct(lat, 50)), ms(pct(lat, 99)), String(lat.length)],
        ['  server CPU per key (whole `k8ts up` process: API server and node agent; the line kills included)', ms(cpu / keys), '', String(keys)],
      ]),
      '',
      'The first load of the page does not carry xterm.js (see the dashboard section for its bytes); the terminal chunk comes with the first "Open terminal".',
    ].join('\n');
    console.log(body);
    if (!values['no-write']) writeSection(join(repoRoot, 'bench', 'RESULTS.md'), 'dashboard-exec', body);
  } finally {
    await browser.close();
    await up.close();
  }
}

await main();
