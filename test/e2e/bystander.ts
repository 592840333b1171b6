/**
 * A bystander: another client that keeps asking a server for `/readyz` and a
 * GET of an object while an attack runs, on its own connections. The
 * hardening regression tests assert with it that no single request stalls
 * the others: each answer must come within `limitMs` (1 s), while the attack
 * is still under way (see docs/threads.md).
 */
import https from 'node:https';
import assert from 'node:assert/strict';
import type { Cluster } from './harness.js';
import { adminCredentials } from './helpers.js';

export interface BystanderReport {
  /** Requests answered, per path. */
  samples: number;
  /** The slowest answer, in milliseconds (a request still open at stop counts from its start). */
  worstMs: number;
  /** Non-200 answers, errors and answers slower than the limit, in words. */
  failures: string[];
}

export interface Bystander { stop(): Promise<BystanderReport> }

export interface BystanderOptions {
  /** How often each path is asked (default 100 ms). */
  intervalMs?: number;
  /** What is asked (default `/readyz` and the `default` namespace). */
  paths?: string[];
  /** An answer slower than this is a failure (default 1,000 ms). */
  limitMs?: number;
  /**
   * Which answers count as served (default: 200 only). During a storage
   * outage the point is a prompt answer, and the right one is a 5xx.
   */
  accepts?: (path: string, status: number) => boolean;
}

/** Starts asking at once; `stop` ends the loop and reports. */
export function startBystander(cluster: Cluster, opts: BystanderOptions = {}): Bystander {
  const intervalMs = opts.intervalMs ?? 100;
  const limitMs = opts.limitMs ?? 1_000;
  const paths = opts.paths ?? ['/readyz', '/api/v1/namespaces/default'];
  const accepts = opts.accepts ?? ((_path: string, status: number) => status === 200);
  const agent = new https.Agent({ keepAlive: true, ...adminCredentials(cluster.kubeconfig) });
  const report: BystanderReport = { samples: 0, worstMs: 0, failures: [] };
  const open = new Map<number, { path: string; started: number }>();
  let seq = 0;
  const ask = (path: string) => {
    const id = seq++;
    const started = performance.now();
    open.set(id, { path, started });
    const done = (failure?: string) => {
      if (!open.delete(id)) return;
      const ms = performance.now() - started;
      report.samples++;
      report.worstMs = Math.max(report.worstMs, ms);
      if (failure) report.failures.push(`${path}: ${failure}`);
      else if (ms > limitMs) report.failures.push(`${path}: answered in ${Math.round(ms)} ms (limit ${limitMs} ms)`);
    };
    const req = https.get(new URL(path, cluster.url), { agent, headers: { Accept: 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => done(accepts(path, res.statusCode ?? 0) ? undefined : `status ${res.statusCode}`));
      res.on('error', (e) => done(e.message));
    });
    req.on('error', (e) => done(e.message));
  };
  const timer = setInterval(() => { for (const p of paths) ask(p); }, intervalMs);
  for (const p of paths) ask(p);
  return {
    stop: async () => {
      clearInterval(timer);
      // Give the requests in flight their limit to answer; one still open after that is a stall.
      const deadline = performance.now() + limitMs;
      while (open.size && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      for (const [id, { path, started }] of open) {
        open.delete(id);
        const ms = performance.now() - started;
        report.worstMs = Math.max(report.worstMs, ms);
        report.failures.push(`${path}: no answer after ${Math.round(ms)} ms`);
      }
      agent.destroy();
      return report;
    },
  };
}

/**
 * Runs `attack` with a bystander asking alongside, and asserts the bystander
 * was served throughout: at least `minSamples` answers, none slow or failed.
 * Returns what the attack returned, for the test's own assertions.
 */
export async function duringAttack<T>(cluster: Cluster, attack: () => Promise<T>, opts: BystanderOptions & { minSamples?: number } = {}): Promise<T> {
  const bystander = startBystander(cluster, opts);
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
