/**
 * From k8ts's old etcd key layout to upstream's (./key-layout.ts): a k8ts before it stored
 * built-in objects under the registry's keys (<root>/core/pods/default/nginx); at start, before
 * serving, every such object moves to its upstream key (<root>/pods/default/nginx).
 *
 * Each object moves in one Txn: if the old key is still at the revision read and the new key is
 * absent, put the value at the new key and delete the old one. So nothing is lost or doubled
 * whatever stops the server mid-way (a Txn is all or nothing), a second run (or a second server
 * starting at once) moves only what is left, and a write to the old key between the read and the
 * move (an old server still running) makes the move read again. Where both keys exist (an
 * old-layout server wrote the old key after a new one wrote the new key) nothing is overwritten:
 * the old key stays and is reported. The moved objects get new revisions, hence new
 * resourceVersions: clients re-list, once, at the upgrade.
 */
import type { StorageLogger } from '../backend.js';
import type { EtcdClient } from './client.js';
import { oldLayoutMoves } from './key-layout.js';
import { prefixRange } from './keys.js';

export interface LayoutMigration { moved: number; left: number }

const pageSize = 500;

export async function migrateKeyLayout(client: EtcdClient, root: string, logger: StorageLogger): Promise<LayoutMigration> {
  const result: LayoutMigration = { moved: 0, left: 0 };
  const moves = oldLayoutMoves(root);
  // Whether there is anything to move: one count per old prefix, together (a few ms at every start).
  const counts = await Promise.all(moves.map((m) => client.range({ ...rangeOf(m.from), countOnly: true })));
  const pending = moves.filter((_, i) => counts[i]!.count > 0);
  if (!pending.length) return result;
  const total = counts.reduce((n, c) => n + c.count, 0);
  logger.info(`etcd key layout: moving ${total} objects from k8ts's old keys to upstream's (${pending[0]!.from}... -> ${pending[0]!.to}...); their resourceVersions change, clients re-list`);
  for (const m of pending) {
    for (let start: Buffer | undefined; ;) {
      const page = await client.range({ ...rangeOf(m.from, start), limit: pageSize });
      for (const kv of page.kvs) {
        const outcome = await moveOne(client, kv.key, m.to + kv.key.slice(m.from.length), kv.value, kv.modRevision);
        if (outcome !== 'gone') result[outcome]++;
      }
      if (!page.more || !page.kvs.length) break;
      // Keys moved away no longer answer; those left behind are skipped by starting after the last one read.
      start = Buffer.from(`${page.kvs[page.kvs.length - 1]!.key}\0`);
    }
  }
  logger.info(`etcd key layout: moved ${result.moved} objects to upstream's keys`, result.left ? { left: result.left } : undefined);
  if (result.left) logger.error(`etcd key layout: ${result.left} objects stay under k8ts's old keys because their upstream keys exist already`);
  return result;
}

function rangeOf(prefix: string, start?: Buffer) {
  const { key, range_end: rangeEnd } = prefixRange(prefix);
  return { key: start ?? key, rangeEnd };
}

/** moved: by this call; gone: the old key went meanwhile (another server moved or deleted it); left: the new key exists. */
async function moveOne(client: EtcdClient, from: string, to: string, value: string, modRevision: number): Promise<'moved' | 'gone' | 'left'> {
  for (;;) {
    if ((await client.move({ from, to, modRevision, value })).succeeded) return 'moved';
    // Lost: the old key changed or went (another server moving, an old server writing), or the new key exists.
    const now = (await client.range({ key: Buffer.from(from) })).kvs[0];
    if (!now) return 'gone';
    if (now.modRevision === modRevision) return 'left';
    value = now.value;
    modRevision = now.modRevision;
  }
}
