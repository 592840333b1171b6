import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { parseInt64, parseResourceVersion, validateListOptions, tooLargeResourceVersion } from '../../src/api/list-options.js';
import { StatusError } from '../../src/api/status.js';
import { waitUntilFresh } from '../../src/registry/fresh.js';
import { Registry } from '../../src/registry/registry.js';
import { openSqliteBackend } from '../../src/storage/sqlite/index.js';
import type { Backend } from '../../src/storage/backend.js';
import { realClock } from '../../src/util/clock.js';
import { maxTimerDelayMs, setLongTimeout } from '../../src/util/long-timeout.js';

const quiet = { info() {}, error() {} };

function openMemory(t: TestContext): Backend {
  const backend = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: quiet });
  t.after(() => backend.close());
  return backend;
}

function statusOf(fn: () => unknown): { code: number; message?: string } {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError);
    return { code: e.status.code, message: e.status.message };
  }
  assert.fail('expected a StatusError');
}

test('parseInt64 follows strconv.ParseInt(s, 10, 64)', () => {
  const ok: Array<[string, bigint]> = [['0', 0n], ['-5', -5n], ['+7', 7n], ['007', 7n],
    ['9223372036854775807', 2n ** 63n - 1n], ['-9223372036854775808', -(2n ** 63n)]];
  for (const [s, want] of ok) assert.equal(parseInt64(s), want, s);
  const bad: Array<[string, string]> = [
    ['', 'strconv.ParseInt: parsing "": invalid syntax'],
    ['1e20', 'strconv.ParseInt: parsing "1e20": invalid syntax'],
    ['1.5', 'strconv.ParseInt: parsing "1.5": invalid syntax'],
    [' 1', 'strconv.ParseInt: parsing " 1": invalid syntax'],
    ['0x10', 'strconv.ParseInt: parsing "0x10": invalid syntax'],
    ['1_000', 'strconv.ParseInt: parsing "1_000": invalid syntax'],
    ['9223372036854775808', 'strconv.ParseInt: parsing "9223372036854775808": value out of range'],
    ['-9223372036854775809', 'strconv.ParseInt: parsing "-9223372036854775809": value out of range'],
  ];
  for (const [s, message] of bad) assert.deepEqual(statusOf(() => parseInt64(s)), { code: 400, message }, s);
});

test('parseResourceVersion follows the versioner: "" and "0" are 0, else strconv.ParseUint', () => {
  assert.equal(parseResourceVersion(undefined), 0n);
  assert.equal(parseResourceVersion(''), 0n);
  assert.equal(parseResourceVersion('0'), 0n);
  assert.equal(parseResourceVersion('42'), 42n);
  assert.equal(parseResourceVersion('18446744073709551615'), 2n ** 64n - 1n);
  for (const [rv, why] of [['-1', 'invalid syntax'], ['+1', 'invalid syntax'], ['abc', 'invalid syntax'], ['18446744073709551616', 'value out of range']]) {
    assert.deepEqual(statusOf(() => parseResourceVersion(rv)), {
      code: 400, message: `invalid resource version: resourceVersion: Invalid value: "${rv}": strconv.ParseUint: parsing "${rv}": ${why}`,
    });
  }
});

test('validateListOptions: the match rules, in upstream\'s order and words', () => {
  validateListOptions({});
  validateListOptions({ resourceVersion: '5', resourceVersionMatch: 'Exact' });
  validateListOptions({ resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' });
  const prefix = 'ListOptions.meta.k8s.io "" is invalid: ';
  assert.deepEqual(statusOf(() => validateListOptions({ resourceVersion: '5', resourceVersionMatch: 'Exact', continue: 'x' })),
    { code: 422, message: `${prefix}resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided` });
  assert.deepEqual(statusOf(() => validateListOptions({ resourceVersion: '0', resourceVersionMatch: 'exact' })),
    { code: 422, message: `${prefix}resourceVersionMatch: Unsupported value: "exact": supported values: "Exact", "NotOlderThan", ""` });
});

test('tooLargeResourceVersion is upstream\'s NewTooLargeResourceVersionError with retry after 1 s', () => {
  assert.deepEqual(tooLargeResourceVersion(10n, 3).status, {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Timeout', code: 504,
    message: 'Timeout: Too large resource version: 10, current: 3',
    details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
  });
});

test('waitUntilFresh: at once for a revision already there', async (t) => {
  const backend = openMemory(t);
  await backend.create('/a', '{}');
  await waitUntilFresh(backend, 1n, 60_000);
});

test('waitUntilFresh: resolves at the write that reaches the revision, not before', async (t) => {
  const backend = openMemory(t);
  let done = false;
  const waiting = waitUntilFresh(backend, 2n, 60_000).then(() => { done = true; });
  await backend.create('/a', '{}');
  await new Promise((r) => setImmediate(r));
  assert.equal(done, false);
  await backend.create('/b', '{}');
  await waiting;
  assert.equal(done, true);
});

test('waitUntilFresh: 504 with the current revision when the wait runs out', async (t) => {
  const backend = openMemory(t);
  await backend.create('/a', '{}');
  await assert.rejects(waitUntilFresh(backend, 5n, 20), (e: unknown) =>
    e instanceof StatusError && e.status.code === 504 && e.status.message === 'Timeout: Too large resource version: 5, current: 1');
});

test('Store.list and Store.watch use the registry\'s wait', async (t) => {
  const backend = openMemory(t);
  const registry = new Registry(backend, realClock, undefined, { freshnessWaitMs: 10 });
  const cms = registry.store('', 'v1', 'configmaps')!;
  await assert.rejects(cms.list('default', { resourceVersion: '100', resourceVersionMatch: 'Exact' }), (e: unknown) => e instanceof StatusError && e.status.code === 504);
  await assert.rejects(cms.watch('default', { resourceVersion: '100', sendInitialEvents: true }, () => {}, () => {}), (e: unknown) => e instanceof StatusError && e.status.code === 504);
  // A plain watch from the future is open, and starts (for bookmarks) at the current revision.
  const w = await cms.watch('default', { resourceVersion: '100' }, () => {}, () => {});
  assert.equal(w.startRevision, await backend.currentRevision());
  w.close();
});

test('setLongTimeout: a delay past 2^31-1 ms does not fire at once', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  let fired = 0;
  setLongTimeout(() => fired++, maxTimerDelayMs * 2 + 5);
  t.mock.timers.tick(maxTimerDelayMs);
  assert.equal(fired, 0);
  t.mock.timers.tick(maxTimerDelayMs);
  assert.equal(fired, 0);
  t.mock.timers.tick(5);
  assert.equal(fired, 1);
  t.mock.timers.tick(maxTimerDelayMs * 3);
  assert.equal(fired, 1);
});

test('setLongTimeout: cancel stops it; Infinity never fires; a negative delay fires next', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  let fired = 0;
  setLongTimeout(() => fired++, 1000).cancel();
  setLongTimeout(() => fired += 10, Infinity);
  t.mock.timers.tick(maxTimerDelayMs * 4);
  assert.equal(fired, 0);
  setLongTimeout(() => fired += 100, -5);
  t.mock.timers.tick(0);
  assert.equal(fired, 100);
});
