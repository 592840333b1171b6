/**
 * A datastore's keys as a portable stream, to move a cluster from one Backend to another
 * (SQLite to etcd), the way `etcdctl get --prefix` piped into puts would, but consistent:
 *
 *  - export reads every key at one revision (the store's current one), page by page, so a
 *    writer running meanwhile cannot tear the copy;
 *  - the format is JSON lines: a header {"kind":"k8ts-datastore","version":1,"revision":N,
 *    "keys":K}, then one {"key":...,"value":...} per key in key order. Values are stored
 *    bytes as they are: objects keep their uids, secrets, tokens' references and
 *    ownerReferences; only revisions (resourceVersions) are the target's;
 *  - import creates each key (create-if-absent), so it refuses a target that already holds
 *    one of them, and checks the count it wrote against the header.
 */
import type { Backend } from './backend.js';

export const dumpKind = 'k8ts-datastore';
export const dumpVersion = 1;

export interface DumpHeader { kind: typeof dumpKind; version: number; revision: number; keys: number }
export interface DumpRecord { key: string; value: string }

const pageSize = 500;

/** Writes the header and every key of `backend`; resolves to the header written. */
export async function exportStore(backend: Backend, write: (line: string) => Promise<void>): Promise<DumpHeader> {
  const revision = await backend.currentRevision();
  const header: DumpHeader = { kind: dumpKind, version: dumpVersion, revision, keys: await backend.count('', { revision }) };
  await write(JSON.stringify(header));
  let startKey: string | undefined;
  let written = 0;
  for (;;) {
    const page = await backend.list('', { revision, limit: pageSize, startKey });
    for (const kv of page.kvs) {
      // A page starts at its startKey inclusive: that key ended the previous page.
      if (kv.key === startKey) continue;
      await write(JSON.stringify({ key: kv.key, value: kv.value } satisfies DumpRecord));
      written++;
    }
    if (!page.more || page.kvs.length === 0) break;
    startKey = page.kvs[page.kvs.length - 1]!.key;
  }
  if (written !== header.keys) throw new Error(`exported ${written} keys, expected ${header.keys} at revision ${revision}`);
  return header;
}

export class ImportError extends Error {}

/** Creates every key of a dump in `backend`, which must hold none of them. */
export async function importStore(backend: Backend, lines: AsyncIterable<string>): Promise<{ header: DumpHeader; imported: number }> {
  let header: DumpHeader | undefined;
  let imported = 0;
  let lineNo = 0;
  // Take the iterator before the first await: a readline interface emits lines as soon as its
  // input flows, and lines emitted before anyone iterates are lost.
  const iterator = lines[Symbol.asyncIterator]();
  const held = await backend.count('');
  if (held > 0) {
    await iterator.return?.();
    throw new ImportError(`the target datastore holds ${held} keys: import needs an empty one`);
  }
  let batch: DumpRecord[] = [];
  // A batch of creates in flight together: etcd commits them in one raft round and fsync.
  const flush = async () => { await Promise.all(batch.map((r) => createKey(backend, r))); imported += batch.length; batch = []; };
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
    const line = next.value;
    lineNo++;
    if (!line.trim()) continue;
    let parsed: unknown;
    try { parsed = JSON.parse(line); } catch { throw new ImportError(`line ${lineNo}: not JSON`); }
    if (!header) { header = checkHeader(parsed); continue; }
    const rec = parsed as Partial<DumpRecord>;
    if (typeof rec.key !== 'string' || typeof rec.value !== 'string') throw new ImportError(`line ${lineNo}: want {"key":string,"value":string}`);
    batch.push({ key: rec.key, value: rec.value });
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  if (!header) throw new ImportError('empty input: not a k8ts datastore export');
  if (imported !== header.keys) throw new ImportError(`imported ${imported} keys, the export has ${header.keys}: the file is truncated`);
  return { header, imported };
}

const batchSize = 32;

async function createKey(backend: Backend, rec: DumpRecord): Promise<void> {
  const res = await backend.create(rec.key, rec.value);
  if (!res.ok) throw new ImportError(`key "${rec.key}" already exists in the target datastore: import needs an empty one`);
}

function checkHeader(parsed: unknown): DumpHeader {
  const h = parsed as Partial<DumpHeader>;
  if (h?.kind !== dumpKind) throw new ImportError(`not a k8ts datastore export (first line's kind is ${JSON.stringify(h?.kind)}, want "${dumpKind}")`);
  if (h.version !== dumpVersion) throw new ImportError(`unsupported export version ${h.version} (this k8ts reads version ${dumpVersion})`);
  if (typeof h.keys !== 'number' || typeof h.revision !== 'number') throw new ImportError('export header lacks keys or revision');
  return h as DumpHeader;
}
