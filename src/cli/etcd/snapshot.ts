/**
 * `k8ts etcd snapshot save|restore|status`: etcdctl's snapshot verbs (and k3s's
 * `etcd-snapshot`) for the etcd a cluster stores its objects in.
 *
 *  - save streams etcd's Maintenance.Snapshot to FILE through the etcd3 client (no etcdctl
 *    needed), with etcdctl's flags and its closing line "Snapshot saved at FILE";
 *  - restore and status run etcd's own tool (etcdutl when installed, as etcd 3.5+ asks, else
 *    etcdctl 3.4's `snapshot restore`, Debian's etcd-client): restoring writes a new member's
 *    data directory (bbolt database with its consistent index reset, a WAL and raft snapshot
 *    naming the new cluster), which only etcd's code does faithfully.
 *
 * The TLS files default to kubeadm's under --prefix (pki/etcd/ca.crt and the API server's
 * etcd client pair), and apply to https:// endpoints only, so a plain http:// etcd also works.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { nodeLayout } from '../kubeadm/layout.js';
import { findEtcdTool } from './tools.js';

export const etcdSnapshotHelp = `Manage etcd snapshots of a cluster's datastore (as etcdctl snapshot and k3s etcd-snapshot).

Usage:
  k8ts etcd snapshot save FILE [--endpoints URL] [--cacert FILE --cert FILE --key FILE] [--prefix /]
  k8ts etcd snapshot restore FILE --data-dir DIR [--name NAME] [--initial-cluster NAME=PEER_URL]
                                 [--initial-advertise-peer-urls PEER_URL] [--initial-cluster-token TOKEN]
  k8ts etcd snapshot status FILE

save streams a member's database to FILE (through FILE.part, renamed once complete).
restore writes a new etcd data directory from FILE with etcdutl, or etcdctl 3.4 where
etcdutl is not installed (Debian: apt-get install etcd-client); start etcd on DIR with the
same --name and peer URL. status prints the snapshot's hash, revision, keys and size.

Flags:
      --endpoints string      the etcd member to snapshot (default "https://127.0.0.1:2379")
      --cacert string         CA of etcd's serving certificate (default PREFIX/etc/kubernetes/pki/etcd/ca.crt for https)
      --cert string           client certificate (default PREFIX/etc/kubernetes/pki/apiserver-etcd-client.crt for https)
      --key string            client key (default PREFIX/etc/kubernetes/pki/apiserver-etcd-client.key for https)
      --prefix string         root of this node's files, as given to init (default "/")
      --data-dir string       restore: the data directory to create (must not exist)
      --name string           restore: the member's name (etcd's default "default")
      --initial-cluster string              restore: the new cluster's members (default NAME=http://localhost:2380)
      --initial-advertise-peer-urls string  restore: this member's peer URLs (default http://localhost:2380)
      --initial-cluster-token string        restore: the new cluster's token (default "etcd-cluster")`;

const restoreFlags = ['data-dir', 'name', 'initial-cluster', 'initial-advertise-peer-urls', 'initial-cluster-token'] as const;

export async function runEtcdSnapshot(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args, strict: true, allowPositionals: true,
    options: {
      endpoints: { type: 'string', default: 'https://127.0.0.1:2379' },
      cacert: { type: 'string' }, cert: { type: 'string' }, key: { type: 'string' }, prefix: { type: 'string', default: '/' },
      ...Object.fromEntries(restoreFlags.map((f) => [f, { type: 'string' }])) as Record<typeof restoreFlags[number], { type: 'string' }>,
    },
  });
  const [verb, file, ...extra] = positionals;
  if (extra.length) return fail(`unknown command "${extra[0]}" for "k8ts etcd snapshot ${verb}"`);
  if (verb !== 'save' && verb !== 'restore' && verb !== 'status') {
    return fail(`unknown command "${verb ?? ''}" for "k8ts etcd snapshot"\nRun 'k8ts etcd snapshot --help' for usage.`);
  }
  // etcdctl's words for a missing argument (cobra ExactArgs is not used there; it checks itself).
  if (!file) return fail(`snapshot ${verb} expects one argument`);
  if (verb === 'save') return save(file, values);
  if (verb === 'restore' && !values['data-dir']) return fail('required flag(s) "data-dir" not set');
  const passed = verb === 'restore' ? restoreFlags.flatMap((f) => (values[f] === undefined ? [] : [`--${f}`, values[f]!])) : [];
  return runEtcdTool(['snapshot', verb, file, ...passed, ...(verb === 'status' ? ['--write-out', 'table'] : [])]);
}

interface SaveFlags { endpoints?: string; cacert?: string; cert?: string; key?: string; prefix?: string }

async function save(file: string, values: SaveFlags): Promise<number> {
  const servers = values.endpoints!.split(',').map((s) => s.trim()).filter(Boolean);
  const pki = nodeLayout(values.prefix).certDir;
  // kubeadm's files are the default for TLS endpoints only: a bare http:// etcd needs none.
  const tls = servers.some((s) => s.startsWith('https://'));
  const caFile = values.cacert ?? (tls ? join(pki, 'etcd/ca.crt') : undefined);
  const certFile = values.cert ?? (tls ? join(pki, 'apiserver-etcd-client.crt') : undefined);
  const keyFile = values.key ?? (tls ? join(pki, 'apiserver-etcd-client.key') : undefined);
  try {
    // etcd3 and its gRPC stack load only here, not for --help or a flag error.
    const { saveSnapshot } = await import('../../storage/etcd/snapshot.js');
    const saved = await saveSnapshot({ servers, caFile, certFile, keyFile }, file);
    // etcd 3.4 sends no header with the stream, so the revision is known from 3.5 on only.
    process.stderr.write(`fetched snapshot: endpoint ${servers[0]}${saved.revision ? `, revision ${saved.revision}` : ''}, ${saved.bytes} bytes\n`);
    console.log(`Snapshot saved at ${file}`);
    return 0;
  } catch (err) {
    return fail((err as Error).message);
  }
}

/** Runs etcdutl (or etcdctl 3.4) with the terminal's output; its exit code is ours. */
async function runEtcdTool(args: string[]): Promise<number> {
  const tool = findEtcdTool();
  if (!tool) return fail('neither etcdutl nor etcdctl is installed (Debian: apt-get install etcd-client); restore needs etcd\'s own tool');
  const child = spawn(tool.path, args, { stdio: 'inherit', env: { ...process.env, ETCDCTL_API: '3' } });
  return new Promise((resolve) => {
    child.on('error', (err) => resolve(fail(`${tool.path}: ${err.message}`)));
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

function fail(message: string): number {
  console.error(`Error: ${message}`);
  return 1;
}
