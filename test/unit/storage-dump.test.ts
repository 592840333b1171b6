/**
 * exportStore/importStore (src/storage/dump.ts) between two real SQLite backends: every key
 * and value across several export pages, read at one revision (a write during the export is
 * not in it), deleted keys absent, and the refusals of import (non-empty target, truncated file).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openSqliteBackend } from '../../src/storage/sqlite/index.js';
import { exportStore, importStore, ImportError } from '../../src/storage/dump.js';
import type { Backend } from '../../src/storage/backend.js';

const quiet = { info() {}, error() {} };
const open = (t: { after(fn: () => Promise<void>): void }): Backend => {
  const b = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: quiet });
  t.after(() => b.close());
  return b;
};
async function* linesOf(lines: string[]) { for (const l of lines) yield l; }
async function all(b: Backend): Promise<Map<string, string>> {
  const { kvs } = await b.list('');
  return new Map(kvs.map((kv) => [kv.key, kv.value]));
}

test('export then import copies every live key across pages, at the export revision', async (t) => {
  const source = open(t);
  for (let i = 0; i < 1234; i++) await source.create(`/registry/configmaps/ns/cm-${String(i).padStart(4, '0')}`, JSON.stringify({ i }));
  const gone = await source.create('/registry/secrets/ns/gone', '{}');
  assert.ok(gone.ok);
  await source.delete('/registry/secrets/ns/gone', gone.kv.modRevision);
  const lines: string[] = [];
  let wroteDuring = false;
  const header = await exportStore(source, async (line) => {
    lines.push(line);
    // A write landing mid-export (after the first page) is past the export's revision.
    if (lines.length === 600 && !wroteDuring) { wroteDuring = true; await source.create('/registry/configmaps/ns/zz-late', '{}'); }
  });
  assert.equal(header.keys, 1234);
  assert.equal(lines.length, 1235);
  const target = open(t);
  const { imported } = await importStore(target, linesOf(lines));
  assert.equal(imported, 1234);
  const copied = await all(target);
  const original = await all(source);
  original.delete('/registry/configmaps/ns/zz-late');
  assert.deepEqual(copied, original);
});

test('import refuses a non-empty target and a truncated export', async (t) => {
  const source = open(t);
  await source.create('/registry/a', '1');
  await source.create('/registry/b', '2');
  const lines: string[] = [];
  await exportStore(source, async (l) => { lines.push(l); });
  await assert.rejects(importStore(source, linesOf(lines)), new ImportError('the target datastore holds 2 keys: import needs an empty one'));
  await assert.rejects(importStore(open(t), linesOf(lines.slice(0, 2))),
    new ImportError('imported 1 keys, the export has 2: the file is truncated'));
  await assert.rejects(importStore(open(t), linesOf(['{"kind":"k8ts-datastore","version":2,"revision":1,"keys":0}'])),
    new ImportError('unsupported export version 2 (this k8ts reads version 1)'));
});
