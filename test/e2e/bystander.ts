/**
 * A bystander: another client that keeps asking a server for `/readyz` and a
 * GET of an object while an attack runs, on its own connections. The
 * hardening regression tests assert with it that no single request stalls
 * the others: each answer must come within `limitMs` (1 s), while the attack
 * is still under way (see docs/threads.md). The time the threads on its way
 * waited for a CPU behind other processes is not counted (bystander-thread.ts:
 * on a loaded machine that wait alone passed 1 s).
 */
import { Worker } from 'node:worker_threads';
import assert from 'node:assert/strict';
import type { Cluster } from './harness.js';
import { adminCredentials } from './helpers.js';
import type { BystanderAnswer, BystanderJob } from './bystander-thread.js';

export interface BystanderReport {
  /** Requests answered, per path. */
  samples: number;
  /** The slowest answer, in milliseconds (a request still open at stop counts from its start). */
  worstMs: number;
  /** The most any answer over the limit was charged once its waits for a CPU are taken off (0 when none was over). */
  worstChargedMs: number;
  /** Non-200 answers, errors and answers slower than the limit, in words. */
  failures: string[];
  /** Answers over the limit in wall time that waits for a CPU brought under it, in words (printed, not failed). */
  waitedOut: string[];
}

export interface Bystander { stop(): Promise<BystanderReport> }

export interface BystanderOptions {
  /** How often each path is asked (default 100 ms). */
  intervalMs?: number;
  /** What is asked (default `/readyz` and the `default` namespace). */
  paths?: string[];
  /** An answer slower than this is a failure (default 1,000 ms). */
  limitMs?: number;
  /** The processes an answer passes through besides the server (a kubelet for nodes/proxy and pods/log). */
  pids?: number[];
  /**
   * Which answers count as served (default: 200 only). During a storage
   * outage the point is a prompt answer, and the right one is a 5xx.
   */
  accepts?: (path: string, status: number) => boolean;
}

/**
 * Starts asking, on a thread of its own (bystander-thread.ts: the test's own
 * loop runs the attacker's client work, which would delay the bystander's
 * clock); resolves once the first round is sent. `stop` ends the loop and
 * reports.
 */
export async function startBystander(cluster: Cluster, opts: BystanderOptions = {}): Promise<Bystander> {
  const limitMs = opts.limitMs ?? 1_000;
  const accepts = opts.accepts ?? ((_path: string, status: number) => status === 200);
  const job: BystanderJob = {
    url: cluster.url, tls: adminCredentials(cluster.kubeconfig), limitMs,
    paths: opts.paths ?? ['/readyz', '/api/v1/namespaces/default'], intervalMs: opts.intervalMs ?? 100,
    pids: [cluster.proc.pid!, ...(opts.pids ?? [])],
  };
  const thread = new Worker(new URL('./bystander-thread.js', import.meta.url), { workerData: job });
  const failed = new Promise<never>((_, reject) => { thread.once('error', reject); });
  const message = () => Promise.race([failed, new Promise<unknown>((resolve) => thread.once('message', resolve))]);
  await message();
  return {
    stop: async () => {
      thread.postMessage('stop');
      const answers = await message() as BystanderAnswer[];
      await thread.terminate();
      const report: BystanderReport = { samples: 0, worstMs: 0, worstChargedMs: 0, failures: [], waitedOut: [] };
      for (const a of answers) {
        report.worstMs = Math.max(report.worstMs, a.ms);
        const charged = a.chargedMs ?? a.ms;
        if (a.ms > limitMs) report.worstChargedMs = Math.max(report.worstChargedMs, charged);
        if (a.open) { if (charged > limitMs) report.failures.push(`${a.path}: no answer after ${Math.round(a.ms)} ms${waits(a)}`); continue; }
        report.samples++;
        if (a.error !== undefined) report.failures.push(`${a.path}: ${a.error}`);
        else if (!accepts(a.path, a.status!)) report.failures.push(`${a.path}: status ${a.status}`);
        else if (charged > limitMs) report.failures.push(`${a.path}: answered in ${Math.round(a.ms)} ms (limit ${limitMs} ms)${waits(a)}`);
        else if (a.ms > limitMs) report.waitedOut.push(`${a.path}: answered in ${Math.round(a.ms)} ms${waits(a)}`);
      }
      if (report.waitedOut.length) console.log(`bystander: over ${limitMs} ms only waiting for a CPU: ${report.waitedOut.join('; ')}`);
      return report;
    },
  };
}

/** How an answer's time splits, for a failure message. */
function waits(a: BystanderAnswer): string {
  if (a.waitedMs === undefined) return '';
  return `, ${Math.round(a.waitedMs)} ms of it on run queues while the processes' other threads ran ${Math.round(a.otherThreadsCpuMs!)} ms`
    + ` and their main threads ${Math.round(a.mainCpuMs!)} ms: charged ${Math.round(a.chargedMs!)} ms`;
}

/**
 * Runs `attack` with a bystander asking alongside, and asserts the bystander
 * was served throughout: at least `minSamples` answers, none slow or failed.
 * Returns what the attack returned, for the test's own assertions.
 */
export async function duringAttack<T>(cluster: Cluster, attack: () => Promise<T>, opts: BystanderOptions & { minSamples?: number } = {}): Promise<T> {
  const bystander = await startBystander(cluster, opts);
  let result: T;
  try {
    result = await attack();
  } finally {
    const report = await bystander.stop();
    assert.deepEqual(report.failures, [], `the bystander was not served while the attack ran (worst ${Math.round(report.worstMs)} ms)`);
    assert.ok(report.samples >= (opts.minSamples ?? 2), `the bystander got only ${report.samples} answers`);
  }
  return result!;
}
