/**
 * CPU of the managed fields of wide objects (issue #19): fuzz-bodies' default seed creates a
 * ConfigMap of 51,698 keys, whose managed fields took ~195 ms of the serving loop. Per round, for
 * this build and another (`--base DIR`, a built checkout) in the same process, interleaved:
 *  - create: a ConfigMap of `--keys` keys (`k0`..`kN`, as fuzz-bodies writes them) from nothing;
 *  - update: the created object with one value changed (a PUT: the live entry's set is kept);
 *  - pod: a Pod with `--keys` env entries over containers of 2,000 (fuzz-bodies' wide Pod).
 * CPU time (process.cpuUsage) of the one call, objects built beforehand as a decoded body (JSON.parse),
 * median over rounds; with --expose-gc a full collection before each call keeps the garbage of one
 * build's round from being collected in the other's.
 *
 *   node --expose-gc dist/bench/wide-managed-fields.js [--keys 50000] [--rounds 7] [--base /tmp/base/checkout]
 */
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ConfigMap, Pod } from 'kubernetes-types/core/v1.js';
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import { median } from './lib/stats.js';
import { benchArgs } from './lib/args.js';

const here = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

type Update = (live: unknown, next: unknown, ctx: object) => ManagedFieldsEntry[] | undefined;
interface Build { label: string; updateManagedFields: Update }

async function load(root: string, label: string): Promise<Build> {
  const mf = await import(pathToFileURL(join(root, 'dist', 'src', 'api', 'managedfields', 'index.js')).href);
  return { label, updateManagedFields: mf.updateManagedFields };
}

function configMap(name: string, keys: number): ConfigMap {
  const data: Record<string, string> = {};
  for (let i = 0; i < keys; i++) data[`k${i}`] = 'v'.repeat(8);
  return decoded({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data });
}

function pod(name: string, keys: number): Pod {
  const env = Array.from({ length: Math.min(keys, 2_000) }, (_, i) => ({ name: `E${i}`, value: 'v'.repeat(8) }));
  const containers = Array.from({ length: Math.max(1, Math.floor(keys / 2_000)) }, (_, i) => ({ name: `c${i}`, image: 'busybox', env }));
  return decoded({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers } });
}

/** As the server holds a body: decoded from JSON (a wide map is then a V8 dictionary). */
const decoded = <T>(o: T): T => JSON.parse(JSON.stringify(o)) as T;

const gc = (globalThis as { gc?: () => void }).gc;

const cpuMs = (f: () => unknown): number => {
  gc?.();
  const t = process.cpuUsage();
  f();
  const d = process.cpuUsage(t);
  return (d.user + d.system) / 1000;
};

function round(b: Build, keys: number, salt: string): { create: number; update: number; pod: number } {
  const now = new Date();
  const cm = configMap(`wide-${salt}`, keys);
  let entries: ManagedFieldsEntry[] | undefined;
  const create = cpuMs(() => { entries = b.updateManagedFields(undefined, cm, { kindKey: 'v1/ConfigMap', apiVersion: 'v1', manager: 'kubectl-create', now }); });
  if (!entries?.length) throw new Error(`${b.label}: no managed fields for the create`);
  const live = { ...cm, metadata: { ...cm.metadata, managedFields: entries } };
  const next = decoded({ ...cm, metadata: { ...cm.metadata, managedFields: entries }, data: { ...cm.data, k1: 'changed' } });
  const update = cpuMs(() => b.updateManagedFields(live, next, { kindKey: 'v1/ConfigMap', apiVersion: 'v1', manager: 'kubectl-edit', now }));
  const p = pod(`wide-${salt}`, keys);
  const podMs = cpuMs(() => b.updateManagedFields(undefined, p, { kindKey: 'v1/Pod', apiVersion: 'v1', manager: 'kubectl-create', now, ignoredFields: ['status'] }));
  return { create, update, pod: podMs };
}

async function main(): Promise<void> {
  const { values } = benchArgs('CPU of the managed fields of wide objects (create, update, pod create).', { options: { keys: { type: 'string', default: '50000' }, rounds: { type: 'string', default: '7' }, base: { type: 'string' } } });
  const keys = Number(values.keys);
  const builds = [await load(here, 'this build'), ...(values.base ? [await load(values.base, `base (${values.base})`)] : [])];
  const out = new Map(builds.map((b) => [b.label, { create: [] as number[], update: [] as number[], pod: [] as number[] }]));
  for (let r = 0; r < Number(values.rounds); r++) {
    for (const b of builds) {
      const ms = round(b, keys, `${r}`);
      const o = out.get(b.label)!;
      o.create.push(ms.create);
      o.update.push(ms.update);
      o.pod.push(ms.pod);
      console.log(`round ${r + 1} ${b.label}: create ${ms.create.toFixed(1)} ms, update ${ms.update.toFixed(1)} ms, pod create ${ms.pod.toFixed(1)} ms CPU (load ${loadavg()[0].toFixed(1)})`);
    }
  }
  for (const [label, v] of out) {
    console.log(`${label}: median CPU ${median(v.create).toFixed(1)} ms per ${keys}-key ConfigMap create, ${median(v.update).toFixed(1)} ms per one-key update, ${median(v.pod).toFixed(1)} ms per ${keys}-env Pod create (${v.create.length} rounds)`);
  }
}

await main();
