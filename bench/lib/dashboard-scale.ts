/**
 * The dashboard at scale (bench/dashboard.ts --nodes N --map-pods M): N
 * Nodes with no kubelet behind them (simulated: created through the API, as
 * bench/scheduler.ts does) and M pods bound to them by spec.nodeName at
 * creation (no scheduler involved), M/N per node. The pods tolerate every
 * taint, so the node lifecycle controller's unreachable taint (these nodes
 * never heartbeat) does not evict them while we measure.
 *
 * Measured against the server: the pod summary (GET /dashboard/api/summary,
 * every node's counts) and one fetch of a dozen columns' pods
 * (/dashboard/api/summary/pods), time, bytes and server CPU each, asked as
 * the page asks (Accept-Encoding: gzip; the bytes on the wire), with the
 * uncompressed size beside; the server's peak RSS (VmHWM) at the end.
 *
 * Measured in the page (chromium headless):
 *  - login to the first card (nodes listed, summary, the columns in view fetched),
 *    and to the counts strip showing every pod;
 *  - the page's JS heap (CDP JSHeapUsedSize) after login and after the events;
 *  - frame rate while the map scrolls sideways 300 px a frame (a fast
 *    drag through ~360 columns in 5 s), and while watch events arrive
 *    (pods relabelled through the API as fast as it takes them);
 *  - the renderer's CPU per frame (CDP Performance.getMetrics TaskDuration);
 *  - a pod create to its card, p50/p99, on a cluster of this size.
 */
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { ApiClient, readAdminCredentials } from './client.js';
import { runConcurrent } from './load.js';
import { loggedInPage } from '../../test/e2e/dashboard-browser.js';

export interface ScaleResult {
  nodes: number; pods: number; createSec: number;
  loginToCardMs: number; loginToAllMs: number; loginToCountsMs: number;
  /** The server's peak RSS (VmHWM) and the page's JS heap after login and at the end, in MiB. */
  serverPeakRssMiB: number; pageHeapMiB: { login: number; end: number };
  scroll: FrameStats; events: FrameStats & { eventsSent: number };
  latencies: number[];
  serverCpuMsPerEvent: number;
  summary: EndpointStats; columns: EndpointStats;
}

export interface EndpointStats { p50Ms: number; p99Ms: number; bytes: number; plainBytes: number; serverCpuMs: number; runs: number }

export interface FrameStats { fps: number; p50FrameMs: number; p99FrameMs: number; cpuMsPerFrame: number; frames: number }

const nodeName = (i: number) => `node-${String(i).padStart(5, '0')}`;

function simulatedNode(i: number): string {
  const resources = { cpu: '4', memory: '32Gi', pods: '110' };
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Node',
    metadata: { name: nodeName(i), labels: { 'kubernetes.io/hostname': nodeName(i), 'kubernetes.io/os': 'linux' } },
    status: { capacity: resources, allocatable: resources, conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: now, lastTransitionTime: now }] },
  });
}

function boundPod(name: string, node: string, namespace = 'default'): string {
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, labels: { app: 'map-bench' } },
    spec: { nodeName: node, tolerations: [{ operator: 'Exists' }], containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.10' }] },
  });
}

/** utime + stime of a process, in ms (clock ticks of 10 ms). */
export function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]; };

/** A process's peak resident set (VmHWM), in MiB. */
export function peakRssMiB(pid: number): number {
  return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

/**
 * `runs` sequential GETs of `path` (admin certificate) asking for gzip as a browser does: time, bytes on
 * the wire, and the server's CPU per GET; then one without, for the uncompressed size.
 */
async function endpoint(client: ApiClient, serverPid: number, path: string, runs: number): Promise<EndpointStats> {
  const times: number[] = [];
  let bytes = 0;
  const cpu0 = processCpuMs(serverPid);
  for (let i = 0; i < runs; i++) {
    const r = await client.expect(200, 'GET', path, { headers: { 'Accept-Encoding': 'gzip' } });
    times.push(r.ms);
    bytes = r.body.length;
  }
  const serverCpuMs = (processCpuMs(serverPid) - cpu0) / runs;
  const plainBytes = (await client.expect(200, 'GET', path)).body.length;
  return { p50Ms: pct(times, 50), p99Ms: pct(times, 99), bytes, plainBytes, serverCpuMs, runs };
}

/** The page's JS heap in use (CDP Performance.getMetrics), in MiB. */
async function heapMiB(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const used = (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0;
  await cdp.detach();
  return used / 2 ** 20;
}

/** Frame timestamps for `ms` of animation frames, scrolling the map `step` px a frame; with the renderer's CPU over the same span. */
async function frames(page: Page, ms: number, step: number): Promise<FrameStats> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const task = async () => ((await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0) * 1000;
  const cpu0 = await task();
  const times = await page.evaluate(([duration, px]) => new Promise<number[]>((resolve) => {
    const map = document.querySelector('.map')!;
    const ts: number[] = [];
    const tick = (t: number) => {
      ts.push(t);
      if (px) map.scrollLeft = map.scrollLeft + px >= map.scrollWidth - map.clientWidth ? 0 : map.scrollLeft + px;
      if (t - ts[0] < duration) requestAnimationFrame(tick); else resolve(ts);
    };
    requestAnimationFrame(tick);
  }), [ms, step] as const);
  const cpu = (await task()) - cpu0;
  await cdp.detach();
  const gaps = times.slice(1).map((t, i) => t - times[i]);
  return { fps: (gaps.length * 1000) / (times[times.length - 1] - times[0]), p50FrameMs: pct(gaps, 50), p99FrameMs: pct(gaps, 99), cpuMsPerFrame: cpu / gaps.length, frames: gaps.length };
}

export async function measureScale(o: { browser: Browser; dashboard: string; token: string; kubeconfig: string; serverPid: number; nodes: number; pods: number; samples: number;
  kubectl(args: string[]): Promise<unknown>; log(m: string): void }): Promise<ScaleResult> {
  const client = new ApiClient(readAdminCredentials(o.kubeconfig), 64);
  const t0 = Date.now();
  await runConcurrent(0, o.nodes, 64, async (i) => (await client.expect(201, 'POST', '/api/v1/nodes', { body: simulatedNode(i) })).ms);
  o.log(`${o.nodes} nodes in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  await runConcurrent(0, o.pods, 64, async (i) => (await client.expect(201, 'POST', '/api/v1/namespaces/default/pods', { body: boundPod(`map-${String(i).padStart(6, '0')}`, nodeName(i % o.nodes)) })).ms);
  const createSec = (Date.now() - t0) / 1000;
  o.log(`${o.nodes} nodes and ${o.pods} pods in ${createSec.toFixed(0)} s`);

  const summary = await endpoint(client, o.serverPid, '/dashboard/api/summary', 20);
  const columnsPath = `/dashboard/api/summary/pods?${Array.from({ length: 12 }, (_, i) => `node=${nodeName(i)}`).join('&')}`;
  const columns = await endpoint(client, o.serverPid, columnsPath, 20);
  o.log(`summary p50 ${summary.p50Ms.toFixed(1)} ms (${summary.bytes} bytes), 12 columns p50 ${columns.p50Ms.toFixed(1)} ms`);

  const l0 = Date.now();
  const page = await loggedInPage(o.browser, o.dashboard, o.token);
  await page.waitForSelector('[data-pod^="default/map-"]', { timeout: 600_000 });
  const loginToCardMs = Date.now() - l0;
  await page.waitForFunction((want) => Number(/(\d+) nodes/.exec(document.querySelector('header .counts')?.textContent ?? '')?.[1]) >= want, o.nodes, { timeout: 600_000, polling: 500 });
  const loginToAllMs = Date.now() - l0;
  // Where the login's time went: the page's requests on its own clock (ms since navigation), for the log.
  const requests = await page.evaluate(() => (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
    .filter((e) => /\/api\/v1\/nodes|\/dashboard\/api\/summary|\/apis\/authorization/.test(e.name))
    .map((e) => `${e.name.replace(location.origin, '').slice(0, 70)} start ${e.startTime.toFixed(0)} first byte ${e.responseStart.toFixed(0)} end ${e.responseEnd.toFixed(0)} (${e.transferSize} B)`));
  o.log(`the page's requests:\n  ${requests.join('\n  ')}`);
  // The strip counts every pod (the server's totals): the bench's pods and the cluster's own.
  await page.waitForFunction((want) => Number(document.querySelector('.counts-strip [data-count="pods"] strong')?.textContent) >= want, o.pods, { timeout: 600_000, polling: 100 });
  const loginToCountsMs = Date.now() - l0;
  const heapAtLogin = await heapMiB(page);
  o.log(`login to first card ${loginToCardMs} ms, to all nodes ${loginToAllMs} ms, to the counts ${loginToCountsMs} ms; heap ${heapAtLogin.toFixed(0)} MiB`);

  const scroll = await frames(page, 5000, 300);
  await page.evaluate(() => { document.querySelector('.map')!.scrollLeft = 0; });
  // Watch events while the page idles: relabel pods as fast as the API takes them (each a MODIFIED event the page applies).
  let sent = 0; let stop = false;
  const cpuBefore = processCpuMs(o.serverPid);
  const relabel = runConcurrent(0, o.pods, 16, async (i) => {
    if (stop) return 0;
    const r = await client.expect(200, 'PATCH', `/api/v1/namespaces/default/pods/map-${String(i).padStart(6, '0')}`, { body: JSON.stringify({ metadata: { labels: { touched: String(i) } } }), contentType: 'application/merge-patch+json' });
    sent++;
    return r.ms;
  });
  const events = await frames(page, 5000, 0);
  stop = true;
  await relabel;
  const serverCpuMsPerEvent = (processCpuMs(o.serverPid) - cpuBefore) / Math.max(1, sent);
  o.log(`scroll ${scroll.fps.toFixed(1)} fps, with ${sent} events ${events.fps.toFixed(1)} fps`);

  await o.kubectl(['create', 'namespace', 'bench-latency']);
  await page.evaluate(() => {
    const seen: Record<string, number> = {};
    (window as any).__seen = seen;
    new MutationObserver(() => {
      for (const el of document.querySelectorAll('[data-pod^="bench-latency/"]')) {
        const k = el.getAttribute('data-pod')!;
        if (!(k in seen)) seen[k] = Date.now();
      }
    }).observe(document.body, { childList: true, subtree: true });
  });
  const latencies: number[] = [];
  for (let i = 0; i < o.samples; i++) {
    const name = `lat-${i}`;
    const s = Date.now();
    await client.expect(201, 'POST', '/api/v1/namespaces/bench-latency/pods', { body: boundPod(name, nodeName(0), 'bench-latency') });
    await page.waitForFunction((k) => k in (window as any).__seen, `bench-latency/${name}`, { timeout: 60_000 });
    latencies.push(await page.evaluate((k) => (window as any).__seen[k], `bench-latency/${name}`) - s);
  }
  const pageHeapMiB = { login: heapAtLogin, end: await heapMiB(page) };
  await page.context().close();
  return { summary, columns, nodes: o.nodes, pods: o.pods, createSec, loginToCardMs, loginToAllMs, loginToCountsMs, scroll, events: { ...events, eventsSent: sent }, latencies,
    serverCpuMsPerEvent, serverPeakRssMiB: peakRssMiB(o.serverPid), pageHeapMiB };
}
