/**
 * The dashboard's timeline and replay, against `k8ts up` (three simulated
 * nodes) in Debian's chromium headless through playwright-core:
 *  - pod create to its `Created` line in the Timeline view: for --pods pods,
 *    one at a time, from sending the create (POST, admin certificate) to the
 *    line's insertion in the page (a MutationObserver's Date.now(); one
 *    machine, one clock);
 *  - the renderer's CPU per pod and node watch event during a burst of
 *    --burst pod creates (16 at a time), once with the Cluster map shown and
 *    once with the Timeline shown (the difference is the timeline's drawing;
 *    the recording runs in both), from CDP Performance.getMetrics
 *    TaskDuration, and the JS heap before and after;
 *  - replay: a seek of the slider to a random point, from the input event
 *    to the replayed map drawn (p50/p99 of --seeks seeks).
 *
 *   node dist/bench/dashboard-timeline.js [--pods 50] [--burst 400] [--seeks 20] [--no-write]
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createPod, ms, pct } from './lib/dashboard-client.js';
import { parse } from 'yaml';
import type { Page } from 'playwright-core';
import { repoRoot } from '../test/e2e/harness.js';
import { adminCredentials } from '../test/e2e/helpers.js';
import { startUp } from '../test/e2e/up-cluster.js';
import { launchBrowser, loggedInPage } from '../test/e2e/dashboard-browser.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { processCpuMs } from './lib/dashboard-scale.js';
import { benchArgs } from './lib/args.js';

const { values } = benchArgs("The dashboard's timeline and replay in headless chromium against `k8ts up`.", { options: { pods: { type: 'string', default: '50' }, burst: { type: 'string', default: '400' }, seeks: { type: 'string', default: '20' },
  'no-write': { type: 'boolean' } } });
const podCount = Number(values.pods);
const burst = Number(values.burst);
const seeks = Number(values.seeks);

/** Watch events recorded so far (the replay slider's span). */
const recorded = async (page: Page) => Number(await page.locator('.replay-at').getAttribute('data-of'));

interface BurstCost { events: number; cpuMsPerEvent: number; heapMiB: number; wallSec: number }

/** Creates `n` pods 16 at a time while `page` shows `view`; the renderer's CPU per recorded watch event. */
async function burstCost(page: Page, timeline: Page, view: string, prefix: string, n: number, create: (name: string) => Promise<void>): Promise<BurstCost> {
  await page.getByRole('button', { name: view }).click();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const metric = async (name: string) => (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === name)?.value ?? 0;
  const events0 = await recorded(timeline);
  const cpu0 = await metric('TaskDuration');
  const heap0 = await metric('JSHeapUsedSize');
  const t0 = Date.now();
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => { while (next < n) await create(`${prefix}-${next++}`); }));
  // Settled: every pod Running (simulated nodes) and no new watch event for 2 s.
  let last = -1;
  for (;;) {
    await new Promise((r) => setTimeout(r, 2000));
    const now = await recorded(timeline);
    if (now === last) break;
    last = now;
  }
  const events = last - events0;
  const cpu = (await metric('TaskDuration')) - cpu0;
  const heap = (await metric('JSHeapUsedSize')) - heap0;
  await cdp.detach();
  return { events, cpuMsPerEvent: (cpu * 1000) / events, heapMiB: heap / 2 ** 20, wallSec: (Date.now() - t0) / 1000 };
}

async function main(): Promise<void> {
  const load0 = loadavg()[0];
  const up = await startUp('k8ts-bench-timeline-');
  const browser = await launchBrowser();
  try {
    const server: string = parse(readFileSync(up.kubeconfig, 'utf8')).clusters[0].cluster.server;
    const dashboard = `${server}/dashboard/`;
    await up.kubectl(['create', 'serviceaccount', 'dashboard-admin', '-n', 'kube-system']);
    await up.kubectl(['create', 'clusterrolebinding', 'dashboard-admin', '--clusterrole=cluster-admin', '--serviceaccount=kube-system:dashboard-admin']);
    const token = (await up.kubectl(['create', 'token', 'dashboard-admin', '-n', 'kube-system'])).stdout.trim();
    const creds = adminCredentials(up.kubeconfig);
    const create = (name: string) => createPod(server, creds, name);

    const page = await loggedInPage(browser, dashboard, token);
    await page.getByRole('button', { name: 'Timeline' }).click();
    await page.locator('section[aria-label="timeline"]').waitFor();
    await page.evaluate(() => {
      const seen: Record<string, number> = {};
      (window as any).__created = seen;
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('.cluster-timeline li[data-entry="watch"][data-reason="Created"]')) {
          const k = el.getAttribute('data-name')!;
          if (!(k in seen)) seen[k] = Date.now();
        }
      }).observe(document.body, { childList: true, subtree: true });
    });
    const latencies: number[] = [];
    const cpu0 = processCpuMs(up.pid);
    for (let i = 0; i < podCount; i++) {
      const name = `line-${i}`;
      const t0 = Date.now();
      await create(name);
      await page.waitForFunction((k) => k in (window as any).__created, name, { timeout: 60_000 });
      latencies.push(await page.evaluate((k) => (window as any).__created[k], name) - t0);
      await new Promise((r) => setTimeout(r, 100));
    }
    const serverCpuPerCreate = (processCpuMs(up.pid) - cpu0) / podCount;

    // A second page measures the bursts, so its view can be switched; the first one reads the recording's size.
    const other = await loggedInPage(browser, dashboard, token);
    await other.getByRole('button', { name: 'Timeline' }).click();
    await other.locator('.replay-at').waitFor();
    const onMap = await burstCost(other, page, 'Cluster map', 'map', burst, create);
    const onTimeline = await burstCost(other, page, 'Timeline', 'tl', burst, create);

    const slider = page.locator('input[aria-label="replay position"]');
    const min = Number(await slider.getAttribute('min'));
    const max = Number(await slider.getAttribute('max'));
    const seekMs: number[] = [];
    for (let i = 0; i < seeks; i++) {
      const v = min + Math.floor(Math.random() * (max - min));
      seekMs.push(await slider.evaluate((el: HTMLInputElement, to) => new Promise<number>((resolve) => {
        const at = document.querySelector('.replay-at')!;
        const want = String(to - Number(el.min));
        const t0 = performance.now();
        new MutationObserver((_, obs) => { if (at.getAttribute('data-at') === want) { obs.disconnect(); requestAnimationFrame(() => resolve(performance.now() - t0)); } })
          .observe(at, { attributes: true });
        el.value = String(to);
        el.dispatchEvent(new Event('input', { bubbles: true }));
      }), v));
    }
    const pods = Number((await up.kubectl(['get', 'pods', '-A', '--no-headers'])).stdout.trim().split('\n').length);
    const f = (x: number) => x.toFixed(2);
    const body = [
      ...sectionHead(repoRoot, '## Dashboard: the timeline and replay (bench/dashboard-timeline.ts)', '; chromium headless (Debian) via playwright-core, `k8ts up` with 3 simulated nodes'),
      `- Load average: ${load0.toFixed(1)} when it began, ${loadavg()[0].toFixed(1)} at the end`,
      '',
      table(['measure', 'p50 / value', 'p99 / detail', 'runs'], [
        ['pod create sent to its `Created` line in the Timeline view', ms(pct(latencies, 50)), ms(pct(latencies, 99)), String(podCount)],
        ['  server CPU per create (whole `k8ts up` process)', `${serverCpuPerCreate.toFixed(1)} ms`, '', String(podCount)],
        [`renderer CPU per recorded watch event, Cluster map shown (${burst} pods created 16 at a time)`, `${f(onMap.cpuMsPerEvent)} ms`,
          `${onMap.events} events in ${onMap.wallSec.toFixed(0)} s; JS heap ${onMap.heapMiB >= 0 ? '+' : ''}${onMap.heapMiB.toFixed(1)} MiB`, '1'],
        [`renderer CPU per recorded watch event, Timeline shown (${burst} more pods)`, `${f(onTimeline.cpuMsPerEvent)} ms`,
          `${onTimeline.events} events in ${onTimeline.wallSec.toFixed(0)} s; JS heap ${onTimeline.heapMiB >= 0 ? '+' : ''}${onTimeline.heapMiB.toFixed(1)} MiB`, '1'],
        [`replay seek to a random point, input to the map drawn (${max - min} watch events recorded, ${pods} pods now)`, ms(pct(seekMs, 50)), ms(pct(seekMs, 99)), String(seeks)],
      ]),
      '',
      'Renderer CPU is the page\'s main thread busy time (CDP TaskDuration) over the whole burst: the map\'s own watches, the recording and what the shown view draws; on a loaded 2-core machine it includes time spent waiting for a core, so compare the two rows with each other, not with a quiet machine. The JS heap difference is before and after the burst, garbage collection permitting.',
    ].join('\n');
    console.log(body);
    if (!values['no-write']) writeSection(join(repoRoot, 'bench', 'RESULTS.md'), 'dashboard-timeline', body);
  } finally {
    await browser.close();
    await up.close();
  }
}

main().catch((e) => { console.error(e); process.exitCode = 1; });
