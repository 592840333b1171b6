/**
 * `etcdctl snapshot save` on etcd's Maintenance.Snapshot stream (etcd's clientv3/snapshot
 * Save): the member sends its whole backend (a bbolt file, with etcd's sha256 of it appended),
 * written to FILE.part, synced, then renamed to FILE so a cut-off transfer never leaves a
 * file that looks like a snapshot. Only one endpoint: a snapshot is one member's database
 * ("snapshot must be requested to one selected node, not multiple").
 */
import { open, rename, rm } from 'node:fs/promises';
import type { ISnapshotResponse } from 'etcd3';
import type { EtcdBackendOptions } from './options.js';
import { createClient } from './etcd3-client.js';

export interface SavedSnapshot {
  /** The store revision the snapshot holds (the first message's header). */
  revision: number;
  bytes: number;
}

export async function saveSnapshot(opts: Omit<EtcdBackendOptions, 'compactIntervalMs' | 'logger'>, file: string): Promise<SavedSnapshot> {
  if (opts.servers.length !== 1) throw new Error('snapshot must be requested to one selected node, not multiple');
  const client = createClient(opts);
  const part = `${file}.part`;
  const out = await open(part, 'w', 0o600);
  let saved: SavedSnapshot = { revision: 0, bytes: 0 };
  try {
    const stream = await client.maintenance.snapshot();
    saved = await new Promise<SavedSnapshot>((resolve, reject) => {
      let revision = 0;
      let bytes = 0;
      let writing = Promise.resolve();
      stream.on('data', (msg: ISnapshotResponse) => {
        if (!revision) revision = Number(msg.header?.revision ?? 0);
        bytes += msg.blob.length;
        const chunk = msg.blob;
        writing = writing.then(async () => { await out.write(chunk); });
      });
      stream.on('error', reject);
      stream.on('end', () => { writing.then(() => resolve({ revision, bytes }), reject); });
    });
    if (saved.bytes === 0) throw new Error('etcd sent an empty snapshot');
    await out.sync();
  } catch (err) {
    await out.close();
    await rm(part, { force: true });
    throw err;
  } finally {
    client.close();
  }
  await out.close();
  await rename(part, file);
  return saved;
}
