/**
 * The rollout's timeline (bench/daemonset.ts --timeline): per bucket (100 ms) from the
 * DaemonSet create, how many daemon pods were created, bound and Ready (from a watch of
 * this process's own), the server's writes by kind and its 429 answers (apiserver_request_total,
 * read every bucket), and the CPU of the serving thread, the control loops' thread and this
 * process (/proc). Where a stage idles while the one before it has work queued, the pipeline
 * has a gap; where a thread is near 100 ms per bucket, it is the bottleneck.
 *
 * Costs what it measures a little: one more pod watcher at the server (three events a pod)
 * and a /metrics read every bucket, which is why it is off by default.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Clientset } from '../../src/client/index.js';
import type { WatchHandle } from '../../src/client/resource.js';
import { podIsReady } from '../../src/api/pods.js';
import { metricsText } from './request-counts.js';
import { readThreadCpuMs } from './server.js';

export interface Bucket {
  created: number; bound: number; ready: number;
  /** Server-counted requests in the bucket: POST pods, POST pods/binding, PUT pods/status, PUT daemonsets/status, and every 429. */
  posts: number; bindings: number; statuses: number; dsStatuses: number; tooMany: number;
  /** CPU ms in the bucket: serving thread, control loops' thread, this process. */
  mainMs: number; loopsMs: number; benchMs: number;
}

const emptyBucket = (): Bucket => ({ created: 0, bound: 0, ready: 0, posts: 0, bindings: 0, statuses: 0, dsStatuses: 0, tooMany: 0, mainMs: 0, loopsMs: 0, benchMs: 0 });

interface Sample { posts: number; bindings: number; statuses: number; dsStatuses: number; tooMany: number; tooManyBy: Map<string, number> }

/** The counters the timeline follows, from a /metrics text. */
export function sampleOf(text: string): Sample {
  const s: Sample = { posts: 0, bindings: 0, statuses: 0, dsStatuses: 0, tooMany: 0, tooManyBy: new Map() };
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const v = Number(line.slice(line.lastIndexOf(' ') + 1));
    const has = (l: string) => line.includes(l);
    if (has('code="429"')) {
      s.tooMany += v;
      const l = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(line)?.[1] ?? '';
      const key = `${l('verb')} ${l('resource')}${l('subresource') ? `/${l('subresource')}` : ''}`;
      s.tooManyBy.set(key, (s.tooManyBy.get(key) ?? 0) + v);
    }
    if (has('verb="POST"') && has('resource="pods"') && has('subresource=""')) s.posts += v;
    else if (has('verb="POST"') && has('subresource="binding"')) s.bindings += v;
    else if (has('verb="PUT"') && has('resource="pods"') && has('subresource="status"')) s.statuses += v;
    else if (has('verb="PUT"') && has('resource="daemonsets"') && has('subresource="status"')) s.dsStatuses += v;
  }
  return s;
}

/** The busiest thread of `pid` other than the main thread and the heavy lane's: the control loops' thread under load. */
export function busiestOtherThread(pid: number, sinceMs: Map<number, number>): number | undefined {
  let best: { tid: number; ms: number } | undefined;
  for (const t of readdirSync(`/proc/${pid}/task`).map(Number)) {
    if (t === pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').startsWith('k8ts-heavy')) continue;
      const ms = readThreadCpuMs(pid, t) - (sinceMs.get(t) ?? 0);
      if (!best || ms > best.ms) best = { tid: t, ms };
    } catch { /* the thread ended */ }
  }
  return best?.tid;
}

/** CPU ms of every thread of `pid`, by tid. */
export function threadCpu(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const t of readdirSync(`/proc/${pid}/task`).map(Number)) {
    try { out.set(t, readThreadCpuMs(pid, t)); } catch { /* the thread ended */ }
  }
  return out;
}

const selfCpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

export class Timeline {
  private readonly buckets: Bucket[] = [];
  private readonly seen = new Map<string, { bound: boolean; ready: boolean }>();
  private t0 = 0n;
  private timer?: NodeJS.Timeout;
  private watch?: WatchHandle;
  private last?: { s: Sample; main: number; loops: number; bench: number };
  private first?: Sample;
  private sampling = false;

  constructor(private readonly o: { clients: Clientset; pid: number; loopsTid: number; namespace: string; labelSelector: string; bucketMs?: number }) {}

  private get bucketMs(): number { return this.o.bucketMs ?? 100; }

  private bucket(): Bucket {
    const i = Math.max(0, Math.floor(Number(process.hrtime.bigint() - this.t0) / 1e6 / this.bucketMs));
    while (this.buckets.length <= i) this.buckets.push(emptyBucket());
    return this.buckets[i];
  }

  /** Opens the watch and the sampler; call just before the create, with the create's monotonic time. */
  async start(t0: bigint): Promise<void> {
    this.t0 = t0;
    const list = await this.o.clients.pods.list(this.o.namespace, { labelSelector: this.o.labelSelector, limit: 1 });
    this.watch = await this.o.clients.pods.watch(this.o.namespace, { labelSelector: this.o.labelSelector, resourceVersion: list.metadata.resourceVersion },
      (e) => this.onPod(e.type, e.object as Pod), { skipManagedFields: true });
    this.first = sampleOf(await metricsText(this.o.clients));
    this.last = { s: this.first, ...this.cpu() };
    this.timer = setInterval(() => { void this.sample(); }, this.bucketMs);
  }

  private cpu(): { main: number; loops: number; bench: number } {
    let loops = 0;
    try { loops = readThreadCpuMs(this.o.pid, this.o.loopsTid); } catch { /* gone */ }
    return { main: readThreadCpuMs(this.o.pid), loops, bench: selfCpuMs() };
  }

  private onPod(type: string, pod: Pod): void {
    if (type !== 'ADDED' && type !== 'MODIFIED') return;
    const name = pod.metadata!.name!;
    let st = this.seen.get(name);
    const b = this.bucket();
    if (!st) { st = { bound: false, ready: false }; this.seen.set(name, st); b.created++; }
    if (!st.bound && pod.spec?.nodeName) { st.bound = true; b.bound++; }
    if (!st.ready && podIsReady(pod)) { st.ready = true; b.ready++; }
  }

  private async sample(): Promise<void> {
    if (this.sampling || !this.last) return; // a slow /metrics read skips a bucket rather than piling up
    this.sampling = true;
    try {
      const cpu = this.cpu();
      const s = sampleOf(await metricsText(this.o.clients));
      const b = this.bucket();
      const l = this.last;
      b.posts += s.posts - l.s.posts; b.bindings += s.bindings - l.s.bindings; b.statuses += s.statuses - l.s.statuses;
      b.dsStatuses += s.dsStatuses - l.s.dsStatuses; b.tooMany += s.tooMany - l.s.tooMany;
      b.mainMs += cpu.main - l.main; b.loopsMs += cpu.loops - l.loops; b.benchMs += cpu.bench - l.bench;
      this.last = { s, ...cpu };
    } catch { /* the server is going away */ } finally {
      this.sampling = false;
    }
  }

  async stop(): Promise<Bucket[]> {
    if (this.timer) clearInterval(this.timer);
    await this.sample();
    this.watch?.close();
    return this.buckets;
  }

  /** The 429s of the window by request, "POST pods/binding 34, POST events 31". */
  tooManyByRequest(): string {
    const diff = [...(this.last?.s.tooManyBy ?? [])].map(([k, v]) => [k, v - (this.first?.tooManyBy.get(k) ?? 0)] as const).filter(([, v]) => v > 0);
    return diff.sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ') || 'none';
  }
}

/** The timeline as a text table, one line a bucket, with cumulative counts. */
export function renderTimeline(buckets: Bucket[], bucketMs = 100): string {
  const lines = ['   t(s) created bound ready |  cum.cr cum.bd cum.rd | POST bind stat dsst  429 | CPU ms main loops bench'];
  let cr = 0; let bd = 0; let rd = 0;
  const p = (n: number, w: number) => String(Math.round(n)).padStart(w);
  buckets.forEach((b, i) => {
    cr += b.created; bd += b.bound; rd += b.ready;
    lines.push(`${((i * bucketMs) / 1000).toFixed(1).padStart(7)} ${p(b.created, 7)} ${p(b.bound, 5)} ${p(b.ready, 5)} | ${p(cr, 7)} ${p(bd, 6)} ${p(rd, 6)} | `
      + `${p(b.posts, 4)} ${p(b.bindings, 4)} ${p(b.statuses, 4)} ${p(b.dsStatuses, 4)} ${p(b.tooMany, 4)} | ${p(b.mainMs, 12)} ${p(b.loopsMs, 5)} ${p(b.benchMs, 5)}`);
  });
  return lines.join('\n');
}
