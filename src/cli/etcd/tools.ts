/**
 * Finds etcd's offline tool: etcdutl (etcd 3.5+, where `etcdctl snapshot restore` is
 * deprecated) first, else etcdctl (etcd 3.4, Debian bookworm's etcd-client), on PATH.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export interface EtcdTool { name: 'etcdutl' | 'etcdctl'; path: string }

export function findEtcdTool(path = process.env.PATH ?? ''): EtcdTool | undefined {
  for (const name of ['etcdutl', 'etcdctl'] as const) {
    for (const dir of path.split(delimiter).filter(Boolean)) {
      const candidate = join(dir, name);
      try { accessSync(candidate, constants.X_OK); return { name, path: candidate }; } catch { /* next */ }
    }
  }
  return undefined;
}
