/** `k8ts etcd ...`: the etcd operations of a cluster's datastore (today: snapshot). */
import { etcdSnapshotHelp, runEtcdSnapshot } from './snapshot.js';

export const etcdHelp = etcdSnapshotHelp;

export async function runEtcd(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'snapshot') return runEtcdSnapshot(rest);
  console.error(`Error: unknown command "${sub ?? ''}" for "k8ts etcd"\nRun 'k8ts etcd --help' for usage.`);
  return 1;
}
