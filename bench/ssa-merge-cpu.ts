/**
 * The managed-fields work of one server-side apply, without a server: CPU per
 * applyConfiguration on a ConfigMap that M managers own one key each (issue #19, finding 4;
 * bench/ssa-managers.ts measures the whole server). The live object is parsed afresh for each
 * apply, as the store hands each write a private copy; the parse is not counted. Work that grows
 * linearly with the managers doubles from 1,000 to 2,000; quadratic work quadruples.
 * With --baseline-dist another build's module runs the same rounds, interleaved with this one's.
 *
 *   node dist/bench/ssa-merge-cpu.js [--managers=200,1000,2000] [--applies=40] [--rounds=3]
 *     [--baseline-dist=/tmp/base/dist]
 * Prints a Markdown table (medians over rounds of each round's median); results are copied into
 * bench/RESULTS.md by hand.
 */
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import type { ApplyContext } from '../src/api/managedfields/index.js';
import { table } from './lib/results.js';
import { benchArgs } from './lib/args.js';

type Apply = (live: unknown, config: unknown, ctx: ApplyContext) => unknown;

const thisDist = join(dirname(fileURLToPath(import.meta.url)), '..');
const start = Date.parse('2026-01-02T00:00:00Z');
const at = (second: number) => new Date(start + second * 1000);
const rfc3339 = (d: Date) => d.toISOString().replace(/\.\d+Z$/, 'Z');

/** The stored text of a ConfigMap after `managers` applies of one key each, a second apart. */
function liveText(managers: number): string {
  const data: Record<string, string> = {};
  const managedFields: ManagedFieldsEntry[] = [];
  for (let i = 0; i < managers; i++) {
    data[`key-${i}`] = 'v1';
    managedFields.push({ manager: `manager-${i}`, operation: 'Apply', apiVersion: 'v1', time: rfc3339(at(i)), fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { [`f:key-${i}`]: {} } } });
  }
  const cm: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'many', namespace: 'default', resourceVersion: '5', managedFields }, data };
  return JSON.stringify(cm);
}

/** Median CPU ms of `applies` applies, each by one of the managers changing its own key. */
function round(apply: Apply, text: string, managers: number, applies: number): number {
  const samples: number[] = [];
  for (let r = 0; r < applies + 5; r++) {
    const live: unknown = JSON.parse(text);
    const i = (r * 37) % managers;
    const config: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'many' }, data: { [`key-${i}`]: `v${r + 2}` } };
    const ctx: ApplyContext = { kindKey: 'v1/ConfigMap', apiVersion: 'v1', manager: `manager-${i}`, force: false, now: at(managers + r) };
    const before = process.cpuUsage();
    apply(live, config, ctx);
    const used = process.cpuUsage(before);
    if (r >= 5) samples.push((used.user + used.system) / 1000);
  }
  return median(samples);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function load(dist: string): Promise<Apply> {
  const mod = await import(pathToFileURL(join(dist, 'src', 'api', 'managedfields', 'index.js')).href) as { applyConfiguration: Apply };
  return mod.applyConfiguration;
}

async function main(): Promise<void> {
  const { values } = benchArgs('CPU per server-side apply merge on a ConfigMap with M managers, without a server.', { options: {
    managers: { type: 'string', default: '200,1000,2000' }, applies: { type: 'string', default: '40' }, rounds: { type: 'string', default: '3' }, 'baseline-dist': { type: 'string' },
  } });
  const builds = [{ label: 'this', apply: await load(thisDist) }, ...(values['baseline-dist'] ? [{ label: 'base', apply: await load(values['baseline-dist']) }] : [])];
  const counts = values.managers.split(',').map(Number);
  const applies = Number(values.applies);
  const rows: string[][] = [];
  const loadBefore = loadavg()[0].toFixed(1);
  for (const managers of counts) {
    const text = liveText(managers);
    const perBuild = new Map<string, number[]>(builds.map((b) => [b.label, []]));
    for (let r = 0; r < Number(values.rounds); r++) for (const b of builds) perBuild.get(b.label)!.push(round(b.apply, text, managers, applies));
    for (const b of builds) {
      const ms = perBuild.get(b.label)!;
      rows.push([b.label, String(managers), `${(text.length / 1024).toFixed(0)} KiB`, median(ms).toFixed(2), ms.map((m) => m.toFixed(2)).join(', ')]);
    }
  }
  console.log(`load average (1 min) ${loadBefore} before, ${loadavg()[0].toFixed(1)} after`);
  console.log(table(['build', 'managers', 'object', 'CPU ms per apply (median of rounds)', 'each round'], rows));
}

main().catch((e) => { console.error(e); process.exitCode = 1; });
