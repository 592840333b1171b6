/**
 * Concurrent writers of one object take turns (registry/key-turns.ts) and each starts from the
 * watch cache's copy as it is when its turn comes: none merges against a copy that went stale
 * while it waited in line, so none loses its guard and merges a second time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { Registry } from '../../src/registry/registry.js';
import { openSqliteBackend } from '../../src/storage/sqlite/index.js';
import { realClock } from '../../src/util/clock.js';

import { silentLogger as quiet } from '../../src/util/log.js';

test('sixteen concurrent updates of one ConfigMap from the watch cache: each mutate runs once, none is lost', async (t) => {
  const backend = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: quiet });
  const registry = new Registry(backend, realClock);
  t.after(async () => { registry.closeWatchCache(); await backend.close(); });
  await registry.startWatchCache({ capacity: 100, logger: quiet });
  await registry.namespaces.create(undefined, { metadata: { name: 'ns1' } });
  const cms = registry.store('', 'v1', 'configmaps')!;
  await cms.create('ns1', { metadata: { name: 'one' }, data: {} });
  let mutates = 0;
  await Promise.all(Array.from({ length: 16 }, (_, i) => cms.guaranteedUpdate('ns1', 'one', (cur: ConfigMap) => {
    mutates++;
    return { ...cur, data: { ...cur.data, [`k${i}`]: 'v' } };
  })));
  const final = await cms.get('ns1', 'one') as ConfigMap;
  assert.equal(Object.keys(final.data ?? {}).length, 16, 'every write kept');
  assert.equal(mutates, 16, 'no writer merged against a stale copy');
});
