/**
 * `k8ts datastore export|import`: moves a cluster's objects between datastores, the
 * documented way from the embedded SQLite database of `k8ts up`/`k8ts server` onto etcd
 * (docs/storage.md). export writes the store's keys at one revision as JSON lines to stdout
 * (or -o FILE); import creates them in an empty datastore. The API server is then started on
 * the new datastore with the same data directory (its PKI and service-account keys), so
 * kubeconfigs, service-account tokens and certificates keep working.
 */
import { existsSync, createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { Backend } from '../storage/backend.js';
import { exportStore, importStore, ImportError } from '../storage/dump.js';
import { openSqliteBackend } from '../storage/sqlite/index.js';
import { etcdConfig, etcdFlagOptions, etcdFlagsHelp, openEtcdStorage } from './storage.js';

export const datastoreHelp = `Export a cluster's objects from its datastore and import them into another.

Usage:
  k8ts datastore export [--datastore sqlite] [--data-dir DIR] [-o FILE]
  k8ts datastore export --datastore etcd --etcd-servers URL [--etcd-cafile ...] [-o FILE]
  k8ts datastore import FILE --etcd-servers URL [--etcd-cafile FILE --etcd-certfile FILE --etcd-keyfile FILE]
  k8ts datastore import FILE --datastore sqlite --data-dir DIR

export reads every key at one revision and writes JSON lines (stdout unless -o); stop the
API server first so that no write lands after the export. import needs an empty datastore
and keeps every object as it was (uids, secrets, tokens' secrets, owner references); only
resourceVersions are the new store's. Then start the server on the new datastore with the
same --data-dir (docs/storage.md: moving a SQLite cluster onto etcd).

Flags:
      --datastore string         sqlite or etcd (default: etcd when --etcd-servers is given, else sqlite)
      --data-dir string          the API server's data directory, holding state.db (default ".k8ts")
  -o, --output string            export: write to this file instead of stdout
${etcdFlagsHelp}`;

export async function runDatastore(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args, strict: true, allowPositionals: true,
    options: {
      datastore: { type: 'string' }, 'data-dir': { type: 'string', default: '.k8ts' }, output: { type: 'string', short: 'o' },
      ...etcdFlagOptions,
    },
  });
  const [verb, file, ...extra] = positionals;
  if (verb !== 'export' && verb !== 'import') return fail(`unknown command "${verb ?? ''}" for "k8ts datastore"\nRun 'k8ts datastore --help' for usage.`);
  if (extra.length || (verb === 'export' && file)) return fail(`unknown command "${verb === 'export' ? file : extra[0]}" for "k8ts datastore ${verb}"`);
  if (verb === 'import' && !file) return fail('accepts 1 arg(s), received 0');
  const kind = values.datastore ?? (values['etcd-servers'] ? 'etcd' : 'sqlite');
  if (kind !== 'sqlite' && kind !== 'etcd') return fail(`invalid argument "${kind}" for "--datastore" flag: must be sqlite or etcd`);
  let backend: Backend;
  try {
    backend = await openDatastore(kind, resolve(values['data-dir']!), values, verb === 'import');
  } catch (err) { return fail((err as Error).message); }
  try {
    if (verb === 'export') await runExport(backend, values.output);
    else await runImport(backend, file!);
    return 0;
  } catch (err) {
    return fail(err instanceof ImportError ? `import: ${err.message}` : (err as Error).message);
  } finally {
    await backend.close();
  }
}

async function openDatastore(kind: 'sqlite' | 'etcd', dataDir: string, values: Parameters<typeof etcdConfig>[0], forImport: boolean): Promise<Backend> {
  if (kind === 'sqlite') {
    const path = join(dataDir, 'state.db');
    // An export of a directory without a database would create an empty one and export nothing.
    if (!forImport && !existsSync(path)) throw new Error(`no SQLite datastore at ${path} (--data-dir)`);
    return openSqliteBackend(path, { compactIntervalMs: 0 });
  }
  const etcd = etcdConfig({ ...values, 'etcd-compaction-interval': '0s' });
  if (!etcd) throw new Error('--etcd-servers is required with --datastore etcd');
  // One try; an etcd of an older k8ts moves to upstream's keys first, as at a server's start.
  return openEtcdStorage(etcd, 0);
}

async function runExport(backend: Backend, output: string | undefined): Promise<void> {
  const out = output ? await open(output, 'w', 0o600) : undefined;
  let buffered = '';
  // Lines are gathered into ~1 MiB writes: one write per key would be a syscall per object.
  const write = async (line: string) => {
    buffered += `${line}\n`;
    if (buffered.length >= 1 << 20) await drain();
  };
  const drain = async () => {
    const chunk = buffered;
    buffered = '';
    if (out) await out.write(chunk);
    else if (!process.stdout.write(chunk)) await new Promise((r) => process.stdout.once('drain', r));
  };
  try {
    const header = await exportStore(backend, write);
    await drain();
    if (out) await out.sync();
    process.stderr.write(`exported ${header.keys} keys at revision ${header.revision}${output ? ` to ${output}` : ''}\n`);
  } finally {
    await out?.close();
  }
}

async function runImport(backend: Backend, file: string): Promise<void> {
  if (file !== '-' && !existsSync(file)) throw new Error(`open ${file}: no such file or directory`);
  const input = file === '-' ? process.stdin : createReadStream(file);
  const lines = createInterface({ input, crlfDelay: Infinity });
  const { header, imported } = await importStore(backend, lines);
  process.stderr.write(`imported ${imported} keys (exported at revision ${header.revision})\n`);
}

function fail(message: string): number {
  console.error(`Error: ${message}`);
  return 1;
}
