/**
 * resourceVersion from the future, and the integer parameters of list and watch, sent as raw
 * requests to a real server. Upstream (kube-apiserver 1.32, watch cache): a list at a revision
 * the store has not reached waits briefly for it, then answers 504 Timeout `Too large resource
 * version` with a ResourceVersionTooLarge cause and Retry-After: 1; a plain watch from such a
 * revision stays open until writes pass it; limit and timeoutSeconds are Go int64s (a bad one
 * is a 400); ListOptions validation is a 422. The server keeps serving after each of them.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, Cluster } from './harness.js';
import { apiRequest, apiServerOnly, apiStream } from './helpers.js';

/** Short, so the failing waits stay cheap; one test below checks the 3 s default. */
const waitMs = 1000;
let cluster: Cluster;

before(async () => { cluster = await startCluster({ extraArgs: [...apiServerOnly.extraArgs, '--resource-version-wait', `${waitMs}ms`] }); });
after(async () => { await cluster?.cleanup(); });

const cms = '/api/v1/namespaces/default/configmaps';
const far = '999999999';

async function currentRevision(): Promise<number> {
  const res = await apiRequest(cluster, cms);
  assert.equal(res.status, 200, res.body);
  return Number(res.json().metadata.resourceVersion);
}

async function createConfigMap(name: string): Promise<any> {
  const res = await apiRequest(cluster, cms, { method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }) });
  assert.equal(res.status, 201, res.body);
  return res.json();
}

/** Proves the server still answers and still writes. */
async function assertServing(name: string) {
  assert.equal((await apiRequest(cluster, '/version')).status, 200);
  await createConfigMap(name);
}

function assertTooLarge(res: { status: number; headers: Record<string, unknown>; json(): any }, requested: string, atLeast: number) {
  assert.equal(res.status, 504);
  assert.equal(res.headers['retry-after'], '1');
  const body = res.json();
  assert.equal(body.kind, 'Status');
  assert.equal(body.reason, 'Timeout');
  assert.equal(body.code, 504);
  const m = /^Timeout: Too large resource version: (\d+), current: (\d+)$/.exec(body.message);
  assert.ok(m, body.message);
  assert.equal(m[1], requested);
  assert.ok(Number(m[2]) >= atLeast, body.message);
  assert.deepEqual(body.details, { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 });
}

describe('a list at a resourceVersion the store has not reached', () => {
  for (const match of ['Exact', 'NotOlderThan', undefined]) {
    test(`resourceVersionMatch=${match ?? '(none)'}: waits, then 504 Too large resource version`, async () => {
      const before = await currentRevision();
      const started = Date.now();
      const res = await apiRequest(cluster, `${cms}?resourceVersion=${far}${match ? `&resourceVersionMatch=${match}` : ''}`);
      assertTooLarge(res, far, before);
      assert.ok(Date.now() - started >= waitMs - 50, `answered after ${Date.now() - started} ms`);
      await assertServing(`after-list-${(match ?? 'none').toLowerCase()}`);
    });
  }

  test('a revision beyond uint64 is a 400, one within it but past 2^53 a 504 with its exact digits', async () => {
    const huge = await apiRequest(cluster, `${cms}?resourceVersion=18446744073709551616`);
    assert.equal(huge.status, 400);
    assert.equal(huge.json().message, 'invalid resource version: resourceVersion: Invalid value: "18446744073709551616": strconv.ParseUint: parsing "18446744073709551616": value out of range');
    assertTooLarge(await apiRequest(cluster, `${cms}?resourceVersion=18446744073709551615`), '18446744073709551615', 1);
  });

  for (const match of ['Exact', 'NotOlderThan']) {
    test(`resourceVersionMatch=${match}: a write arriving during the wait answers the list`, async () => {
      const wanted = (await currentRevision()) + 1;
      const listing = apiRequest(cluster, `${cms}?resourceVersion=${wanted}&resourceVersionMatch=${match}`);
      const created = await createConfigMap(`during-wait-${match.toLowerCase()}`);
      const res = await listing;
      assert.equal(res.status, 200, res.body);
      const rv = Number(res.json().metadata.resourceVersion);
      if (match === 'Exact') assert.equal(rv, wanted);
      else assert.ok(rv >= wanted, `list at ${rv}, asked for at least ${wanted}`);
      if (Number(created.metadata.resourceVersion) <= rv) {
        assert.ok(res.json().items.some((i: any) => i.metadata.name === created.metadata.name));
      }
    });
  }

  test('the default wait is upstream\'s 3 s', async () => {
    const other = await startCluster(apiServerOnly);
    try {
      const started = Date.now();
      const res = await apiRequest(other, `${cms}?resourceVersion=${far}&resourceVersionMatch=NotOlderThan`);
      const took = Date.now() - started;
      assertTooLarge(res, far, 1);
      assert.ok(took >= 2950, `answered after ${took} ms`);
    } finally {
      await other.cleanup();
    }
  });
});

describe('ListOptions validation, in upstream\'s words', () => {
  const cases: Array<[string, number, string]> = [
    ['resourceVersion=0&resourceVersionMatch=Exact', 422, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
    ['resourceVersionMatch=Exact', 422, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
    ['resourceVersion=1&resourceVersionMatch=Newest', 422, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""'],
    ['resourceVersionMatch=Nope', 422, 'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Unsupported value: "Nope": supported values: "Exact", "NotOlderThan", ""]'],
    ['resourceVersion=abc', 400, 'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax'],
    ['resourceVersion=-1&resourceVersionMatch=NotOlderThan', 400, 'invalid resource version: resourceVersion: Invalid value: "-1": strconv.ParseUint: parsing "-1": invalid syntax'],
    ['limit=abc', 400, 'strconv.ParseInt: parsing "abc": invalid syntax'],
    ['limit=1e3', 400, 'strconv.ParseInt: parsing "1e3": invalid syntax'],
    ['limit=99999999999999999999', 400, 'strconv.ParseInt: parsing "99999999999999999999": value out of range'],
    ['timeoutSeconds=1e20', 400, 'strconv.ParseInt: parsing "1e20": invalid syntax'],
  ];
  for (const [q, code, message] of cases) {
    test(`GET ${cms}?${q}`, async () => {
      const res = await apiRequest(cluster, `${cms}?${q}`);
      assert.equal(res.status, code, res.body);
      assert.equal(res.json().message, message);
      if (code === 422) assert.deepEqual({ kind: res.json().details.kind, group: res.json().details.group }, { kind: 'ListOptions', group: 'meta.k8s.io' });
    });
  }

  test('a continue token with a resourceVersion is a 400', async () => {
    await createConfigMap('page-a');
    await createConfigMap('page-b');
    const first = (await apiRequest(cluster, `${cms}?limit=1`)).json();
    assert.ok(first.metadata.continue);
    const res = await apiRequest(cluster, `${cms}?limit=1&continue=${first.metadata.continue}&resourceVersion=5`);
    assert.equal(res.status, 400);
    assert.equal(res.json().message, 'specifying resource version is not allowed when using continue');
    const next = await apiRequest(cluster, `${cms}?limit=1&continue=${first.metadata.continue}&resourceVersion=0`);
    assert.equal(next.status, 200, next.body);
  });
});

describe('absurd limits', () => {
  for (const limit of ['-5', '0', '9223372036854775807', '-9223372036854775808']) {
    test(`limit=${limit} lists everything`, async () => {
      const all = (await apiRequest(cluster, cms)).json();
      const res = await apiRequest(cluster, `${cms}?limit=${limit}`);
      assert.equal(res.status, 200, res.body);
      assert.equal(res.json().metadata.continue, undefined);
      assert.deepEqual(res.json().items.map((i: any) => i.metadata.name), all.items.map((i: any) => i.metadata.name));
    });
  }
});

describe('a watch from a resourceVersion the store has not reached', () => {
  test('stays open, silently, until writes pass it, as upstream\'s watch cache does', async () => {
    const from = (await currentRevision()) + 2;
    const watch = await apiStream(cluster, `${cms}?watch=1&resourceVersion=${from}`);
    try {
      assert.equal(watch.status, 200);
      const made = [await createConfigMap('future-1'), await createConfigMap('future-2'), await createConfigMap('future-3')];
      const expected = made.filter((cm) => Number(cm.metadata.resourceVersion) > from).map((cm) => cm.metadata.name);
      assert.ok(expected.includes('future-3'));
      await watch.waitFor((e) => e.object?.metadata?.name === 'future-3', 'the ADDED event of future-3');
      assert.deepEqual(watch.events.map((e) => [e.type, e.object.metadata.name]), expected.map((n) => ['ADDED', n]));
    } finally {
      watch.close();
    }
  });

  test(`?watch=1&resourceVersion=${far}&timeoutSeconds=1 ends after its timeout with no events`, async () => {
    const started = Date.now();
    const watch = await apiStream(cluster, `${cms}?watch=1&resourceVersion=${far}&timeoutSeconds=1`);
    assert.equal(watch.status, 200);
    await watch.ended;
    assert.ok(Date.now() - started >= 950, `ended after ${Date.now() - started} ms`);
    assert.deepEqual(watch.events, []);
    await assertServing('after-future-watch');
  });

  test('with sendInitialEvents it waits, then sends one ERROR event with the 504 Status', async () => {
    const watch = await apiStream(cluster, `${cms}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=${far}`);
    assert.equal(watch.status, 200);
    await watch.ended;
    assert.equal(watch.events.length, 1, JSON.stringify(watch.events));
    const [ev] = watch.events;
    assert.equal(ev.type, 'ERROR');
    assert.equal(ev.object.code, 504);
    assert.match(ev.object.message, new RegExp(`^Timeout: Too large resource version: ${far}, current: \\d+$`));
    assert.deepEqual(ev.object.details.causes, [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }]);
    await assertServing('after-initial-events-watch');
  });

  test('a resourceVersion that is not a revision is a 400 before the stream', async () => {
    const res = await apiRequest(cluster, `${cms}?watch=1&resourceVersion=abc`);
    assert.equal(res.status, 400);
    assert.equal(res.json().message, 'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax');
  });
});

describe('watch timeoutSeconds', () => {
  test('timeoutSeconds=1e20 is upstream\'s 400, not a watch that ends at once', async () => {
    const res = await apiRequest(cluster, `${cms}?watch=1&timeoutSeconds=1e20`);
    assert.equal(res.status, 400);
    assert.equal(res.json().reason, 'BadRequest');
    assert.equal(res.json().message, 'strconv.ParseInt: parsing "1e20": invalid syntax');
    const range = await apiRequest(cluster, `${cms}?watch=1&timeoutSeconds=100000000000000000000`);
    assert.equal(range.status, 400);
    assert.equal(range.json().message, 'strconv.ParseInt: parsing "100000000000000000000": value out of range');
    await assertServing('after-timeout-1e20');
  });

  for (const t of ['9223372036854775807', '2147484']) {
    test(`timeoutSeconds=${t} (past setTimeout's 2^31-1 ms) keeps the watch open`, async () => {
      const rv = await currentRevision();
      const watch = await apiStream(cluster, `${cms}?watch=1&resourceVersion=${rv}&timeoutSeconds=${t}`);
      try {
        assert.equal(watch.status, 200);
        const name = `long-timeout-${t.length}`;
        await createConfigMap(name);
        await watch.waitFor((e) => e.type === 'ADDED' && e.object.metadata.name === name, `the ADDED event of ${name}`);
      } finally {
        watch.close();
      }
    });
  }

  test('a negative timeoutSeconds ends the watch at once, as upstream\'s expired timer does', async () => {
    const watch = await apiStream(cluster, `${cms}?watch=1&resourceVersion=${await currentRevision()}&timeoutSeconds=-1`);
    assert.equal(watch.status, 200);
    await watch.ended;
    assert.deepEqual(watch.events, []);
    await assertServing('after-negative-timeout');
  });
});
