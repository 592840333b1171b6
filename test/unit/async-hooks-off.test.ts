/**
 * No async hooks in the serving process (docs/threads.md, "The serving loop's
 * share of a create"): while any AsyncLocalStorage is in use, Node 20 runs
 * its async hooks for every promise, tick and stream of the process (3-5% of
 * the serving loop per pod create), so the request context is passed down as
 * a parameter (apiserver/request-context.ts) and nothing else may turn them
 * on. The probe (test/fixtures/async-hooks-probe.ts) serves ordinary requests
 * through a real control plane in a process of its own, where node:test's
 * runner has turned on no hooks of its own, and reports Node's counts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const probe = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'async-hooks-probe.js');
const off = { init: 0, before: 0, after: 0, destroy: 0, promiseResolve: 0, promiseHooks: 0 };

test('serving creates, reads, watches, updates, applies, evictions and deletes turns on no async hook', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-async-hooks-'));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [probe, dir], { timeout: 120_000 });
    const report = JSON.parse(stdout.trim().split('\n').pop()!);
    assert.deepEqual(report.started, off, 'after start-up');
    assert.deepEqual(report.served, off, 'after the requests');
    // The check sees an AsyncLocalStorage when there is one.
    assert.ok(report.withStorage.init > 0 && report.withStorage.promiseHooks > 0, JSON.stringify(report.withStorage));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
