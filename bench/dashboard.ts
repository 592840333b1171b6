/**
 * The dashboard's numbers (issue #24), against `k8ts up` (three simulated
 * nodes) in Debian's chromium headless through playwright-core:
 *  - first load: the page's bytes on the wire (every resource's transferSize,
 *    gzip as served) and its load time (navigation start to the load event),
 *    in a fresh browser context each time (cold cache), median of --loads runs;
 *    and login to the map's first card (SelfSubjectAccessReviews, list, render);
 *  - watch event to card: for --pods pods, one at a time, the time from sending
 *    the create (POST /api/v1/namespaces/default/pods, as kubectl create sends
 *    it, with the admin certificate) to the moment the pod's card is inserted
 *    in the page (a MutationObserver's Date.now(); one machine, one clock).
 *    It includes the create's own round trip, the watch fan-out, the
 *    browser's stream parsing and Preact's render;
 *  - the placement endpoint: GET /dashboard/api/placement/... for a pending
 *    pod, --pods times (3 nodes, --pods+2 pods), with the admin token.
 *
 *  - at scale (lib/dashboard-scale.ts): --nodes simulated nodes and --map-pods
 *    pods bound to them; the frame rate scrolling the map and while watch
 *    events arrive, and a pod create to its card on that cluster.
 *
 *   node dist/bench/dashboard.js [--pods 50] [--loads 5] [--nodes 5000] [--map-pods 50000] [--no-write]
 *   (--nodes 0 skips the scale phase)
 */
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPod, ms, pct } from './lib/dashboard-client.js';
import { parse } from 'yaml';
import { repoRoot } from '../test/e2e/harness.js';
import { adminCredentials } from '../test/e2e/helpers.js';
import { startUp } from '../test/e2e/up-cluster.js';
import { launchBrowser, loggedInPage } from '../test/e2e/dashboard-browser.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { measureScale, processCpuMs, type ScaleResult } from './lib/dashboard-scale.js';
import { loadavg } from 'node:os';
import { benchArgs } from './lib/args.js';

const { values } = benchArgs("The dashboard's first load, watch-event-to-card latency and scale numbers in headless chromium.", { options: { pods: { type: 'string', default: '50' }, loads: { type: 'string', default: '5' }, nodes: { type: 'string', default: '5000' },
  'map-pods': { type: 'string', default: '50000' }, 'no-write': { type: 'boolean' } } });
const podCount = Number(values.pods);
const loads = Number(values.loads);

function getPlacement(server: string, ca: string, token: string, ns: string, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    https.get(new URL(`/dashboard/api/placement/namespaces/${ns}/pods/${name}`, server), { ca, headers: { Authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`placement: ${res.statusCode}`))));
    }).on('error', reject);
  });
}

function scaleReport(r: ScaleResult, load: number): string[] {
  const f = (x: number) => x.toFixed(1);
  const kib = (b: number) => `${(b / 1024).toFixed(b < 10_240 ? 1 : 0)} KiB`;
  return [
    '',
    `### At scale: ${r.nodes} simulated nodes, ${r.pods} pods bound to them (${r.pods / r.nodes} a node); load average ${f(load)} when it began, ${f(loadavg()[0])} at the end`,
    '',
    `Created through the API in ${r.createSec.toFixed(0)} s (64 concurrent POSTs, admin certificate). The map draws only the columns in view.`,
    '',
    table(['measure', 'value', 'detail'], [
      ['pod summary, GET /dashboard/api/summary (every node\'s counts and the totals), gzip', `p50 ${f(r.summary.p50Ms)} ms`, `p99 ${f(r.summary.p99Ms)} ms; ${kib(r.summary.bytes)} on the wire (${kib(r.summary.plainBytes)} uncompressed); server CPU ${f(r.summary.serverCpuMs)} ms a GET (${r.summary.runs} GETs)`],
      ['12 columns\' pods, GET /dashboard/api/summary/pods, gzip', `p50 ${f(r.columns.p50Ms)} ms`, `p99 ${f(r.columns.p99Ms)} ms; ${kib(r.columns.bytes)} on the wire (${kib(r.columns.plainBytes)} uncompressed); server CPU ${f(r.columns.serverCpuMs)} ms a GET (${r.columns.runs} GETs)`],
      ['login to the first card (nodes listed, summary, columns in view fetched, render)', ms(r.loginToCardMs), `all ${r.nodes} nodes listed after ${ms(r.loginToAllMs)}; the counts strip showing every pod after ${ms(r.loginToCountsMs)}`],
      ['frame rate scrolling the map sideways (300 px a frame, 5 s)', `${f(r.scroll.fps)} fps`, `frame p50 ${f(r.scroll.p50FrameMs)} ms, p99 ${f(r.scroll.p99FrameMs)} ms; renderer CPU ${f(r.scroll.cpuMsPerFrame)} ms a frame (${r.scroll.frames} frames)`],
      ['frame rate while watch events arrive (pods relabelled, 5 s)', `${f(r.events.fps)} fps`, `${r.events.eventsSent} events; frame p50 ${f(r.events.p50FrameMs)} ms, p99 ${f(r.events.p99FrameMs)} ms; renderer CPU ${f(r.events.cpuMsPerFrame)} ms a frame; server CPU ${f(r.serverCpuMsPerEvent)} ms an event`],
      ['pod create sent to its card, on this cluster', `p50 ${ms(pct(r.latencies, 50))}`, `p99 ${ms(pct(r.latencies, 99))} (${r.latencies.length} pods)`],
      ['server peak RSS (VmHWM of the `k8ts up` process, everything in it)', `${r.serverPeakRssMiB.toFixed(0)} MiB`, ''],
      ['page\'s JS heap in use (CDP JSHeapUsedSize)', `${r.pageHeapMiB.login.toFixed(0)} MiB after login`, `${r.pageHeapMiB.end.toFixed(0)} MiB after scrolling, events and creates`],
    ]),
    '',
    'Headless chromium paces frames itself (no display): 60 fps is its ceiling here. Frame times and CPU are the renderer main thread\'s, on a machine where every other engineer is building and testing too.',
  ];
}

async function main(): Promise<void> {
  const up = await startUp('k8ts-bench-dashboard-');
  const browser = await launchBrowser();
  try {
    const server: string = parse(readFileSync(up.kubeconfig, 'utf8')).clusters[0].cluster.server;
    const dashboard = `${server}/dashboard/`;
    await up.kubectl(['create', 'serviceaccount', 'dashboard-admin', '-n', 'kube-system']);
    await up.kubectl(['create', 'clusterrolebinding', 'dashboard-admin', '--clusterrole=cluster-admin', '--serviceaccount=kube-system:dashboard-admin']);
    const token = (await up.kubectl(['create', 'token', 'dashboard-admin', '-n', 'kube-system'])).stdout.trim();
    await up.kubectl(['run', 'first', '--image=busybox']);

    const loadMs: number[] = []; const bytes: number[] = []; const loginMs: number[] = [];
    for (let i = 0; i < loads; i++) {
      const ctx = await browser.newContext({ ignoreHTTPSErrors: true });
      const page = await ctx.newPage();
      await page.goto(dashboard, { waitUntil: 'load' });
      const m = await page.evaluate(() => {
        const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
        const res = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
        return { load: nav.loadEventEnd - nav.startTime, bytes: nav.transferSize + res.reduce((s, r) => s + r.transferSize, 0) };
      });
      loadMs.push(m.load); bytes.push(m.bytes);
      await page.fill('#token', token);
      const t0 = Date.now();
      await page.click('button[type=submit]');
      await page.waitForSelector('[data-pod="default/first"]');
      loginMs.push(Date.now() - t0);
      await ctx.close();
    }

    const page = await loggedInPage(browser, dashboard, token);
    await page.waitForSelector('[data-pod="default/first"]');
    await page.evaluate(() => {
      const seen: Record<string, number> = {};
      (window as any).__seen = seen;
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('[data-pod]')) {
          const k = el.getAttribute('data-pod')!;
          if (!(k in seen)) seen[k] = Date.now();
        }
      }).observe(document.body, { childList: true, subtree: true });
    });
    const creds = adminCredentials(up.kubeconfig);
    const latencies: number[] = [];
    const cpu0 = processCpuMs(up.pid);
    for (let i = 0; i < podCount; i++) {
      const name = `bench-${i}`;
      const t0 = Date.now();
      await createPod(server, creds, name);
      await page.waitForFunction((k) => k in (window as any).__seen, `default/${name}`, { timeout: 30_000 });
      latencies.push(await page.evaluate((k) => (window as any).__seen[k], `default/${name}`) - t0);
      await new Promise((r) => setTimeout(r, 100));
    }
    const serverCpuPerCreate = (processCpuMs(up.pid) - cpu0) / podCount;
    await page.context().close();
    const placementMs: number[] = [];
    await up.kubectl(['run', 'too-big', '--image=busybox', '--overrides={"spec":{"containers":[{"name":"too-big","image":"busybox","resources":{"requests":{"cpu":"100"}}}]}}']);
    for (let i = 0; i < podCount; i++) {
      const t0 = performance.now();
      await getPlacement(server, creds.ca, token, 'default', 'too-big');
      placementMs.push(performance.now() - t0);
    }
    const loadBefore = loadavg()[0];
    const scale = Number(values.nodes) > 0
      ? await measureScale({ browser, dashboard, token, kubeconfig: up.kubeconfig, serverPid: up.pid, nodes: Number(values.nodes), pods: Number(values['map-pods']),
        samples: 30, kubectl: up.kubectl, log: (m) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${m}`) })
      : undefined;
    const body = [
      ...sectionHead(repoRoot, '## Dashboard: first load and watch event to card (bench/dashboard.ts)', '; chromium headless (Debian) via playwright-core, `k8ts up` with 3 simulated nodes'),
      '',
      table(['measure', 'p50 / median', 'p99 / max', 'runs'], [
        ['first load, bytes on the wire (gzip)', `${(pct(bytes, 50) / 1024).toFixed(1)} KiB`, `${(Math.max(...bytes) / 1024).toFixed(1)} KiB`, String(loads)],
        ['first load, navigation start to load event', ms(pct(loadMs, 50)), ms(Math.max(...loadMs)), String(loads)],
        ['login to the first pod card (access reviews, list, render)', ms(pct(loginMs, 50)), ms(Math.max(...loginMs)), String(loads)],
        ['pod create sent to its card in the page', ms(pct(latencies, 50)), ms(pct(latencies, 99)), String(podCount)],
        ['  server CPU per create (whole `k8ts up` process)', `${serverCpuPerCreate.toFixed(1)} ms`, '', String(podCount)],
        [`placement endpoint, GET for a pending pod (3 nodes, ${podCount + 2} pods)`, `${pct(placementMs, 50).toFixed(1)} ms`, `${pct(placementMs, 99).toFixed(1)} ms`, String(podCount)],
      ]),
      '',
      'The placement GET is three API calls made with the caller\'s token (get the pod, then list nodes and assigned pods together) over kept-alive connections; on this machine (load average ~16 on 2 cores) one such call takes 30-40 ms by curl, which is most of it.',
      '',
      ...(scale ? scaleReport(scale, loadBefore) : []),
    ].join('\n');
    console.log(body);
    if (!values['no-write']) writeSection(join(repoRoot, 'bench', 'RESULTS.md'), 'dashboard', body);
  } finally {
    await browser.close();
    await up.close();
  }
}

await main();
