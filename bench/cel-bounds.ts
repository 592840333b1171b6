/**
 * Hardening findings 1 and 2, measured: how long each attack request takes
 * to be answered (the CRDs of finding 1 refused by the cost estimate, a
 * custom resource cut off at PerCallLimit, the `^(a+)+$` pattern against
 * 'a'×40+'!'), and a bystander's GET latency (p50, p99, max) on its own
 * connection while the attacks run back to back, beside the same on an idle
 * server.
 *
 *   node dist/bench/cel-bounds.js [--rounds N] [--no-write]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiClient } from './lib/client.js';
import { startServer } from './lib/server.js';
import { fmtMs, percentile } from './lib/stats.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cliPath = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');
const group = 'bench.example.com';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function crd(plural: string, spec: Record<string, unknown>, rules: { rule: string }[] = []) {
  const kind = plural[0].toUpperCase() + plural.slice(1, -1);
  return JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `${plural}.${group}` },
    spec: { group, scope: 'Namespaced', names: { plural, singular: plural.slice(0, -1), kind, listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: {
        type: 'object', properties: spec, ...(rules.length ? { 'x-kubernetes-validations': rules } : {}) } } } } }] },
  });
}
const cr = (plural: string, name: string, spec: unknown) => JSON.stringify({ apiVersion: `${group}/v1`, kind: plural[0].toUpperCase() + plural.slice(1, -1), metadata: { name }, spec });
const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const list = { type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 8 } };

/** A GET every 20 ms on its own connection until stopped; the latencies. */
function bystander(client: ApiClient): { stop(): Promise<number[]> } {
  const samples: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const r = await client.request('GET', '/api/v1/namespaces/default', { discard: true });
      samples.push(r.ms);
      await sleep(20);
    }
  })();
  return { stop: async () => { running = false; await loop; return samples; } };
}

interface Attack { name: string; status: number; send(c: ApiClient, i: number): Promise<{ status: number; ms: number }> }

const attacks: Attack[] = [
  { name: 'finding 1 CRD: triple all() over maxItems 1000 (refused at create)', status: 422,
    send: (c, i) => c.request('POST', crdPath, { body: crd(`triples${i}s`, { l: list }, [{ rule: 'self.l.all(a, self.l.all(b, self.l.all(c, a != b || b != c || c == a)))' }]) }) },
  { name: 'finding 1 CRD: seven chained replace() (refused at create)', status: 422,
    send: (c, i) => c.request('POST', crdPath, { body: crd(`replaces${i}s`, { s: { type: 'string' } }, [{ rule: `self.s${".replace('a','aaaaaaaaaa')".repeat(7)}.size() > 0` }]) }) },
  { name: 'custom resource, 1,000 items, rule all(a, all(b, ...)) (cut at PerCallLimit)', status: 422,
    send: (c, i) => c.request('POST', `/apis/${group}/v1/namespaces/default/pairs`, { body: cr('pairs', `large${i}`, { l: Array.from({ length: 1000 }, (_, k) => `v${k}`) }) }) },
  { name: "finding 2: pattern '^(a+)+$', 'a'x40+'!'", status: 422,
    send: (c, i) => c.request('POST', `/apis/${group}/v1/namespaces/default/patterns`, { body: cr('patterns', `p${i}`, { s: `${'a'.repeat(40)}!` }) }) },
];

async function main(): Promise<void> {
  const { values } = benchArgs('Hardening findings 1 and 2: attack answer times and a bystander GET latency.', { options: { rounds: { type: 'string', default: '10' }, 'no-write': { type: 'boolean', default: false } } });
  const rounds = Number(values.rounds);
  const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-bench-cel-'));
  const server = await startServer({ cliPath, dataDir, serverArgs: ['--controllers', 'none'] });
  const rows: string[][] = [];
  try {
    const admin = new ApiClient(server.creds, 4);
    for (const body of [crd('pairs', { l: list }, [{ rule: 'self.l.all(a, self.l.all(b, a != b || a == b))' }]), crd('patterns', { s: { type: 'string', pattern: '^(a+)+$' } })]) {
      const r = await admin.request('POST', crdPath, { body });
      if (r.status !== 201) throw new Error(`CRD: ${r.status} ${r.body}`);
    }
    for (const plural of ['pairs', 'patterns']) {
      while ((await admin.request('GET', `/apis/${group}/v1/namespaces/default/${plural}`, { discard: true })).status !== 200) await sleep(100);
    }
    const idleClient = new ApiClient(server.creds, 1);
    const idle = bystander(idleClient);
    await sleep(3000);
    const idleMs = await idle.stop();
    idleClient.close();
    rows.push(['idle server (no attack)', '-', '-', '-', fmtMs(percentile(idleMs, 50)), fmtMs(percentile(idleMs, 99)), fmtMs(Math.max(...idleMs))]);
    for (const attack of attacks) {
      const byClient = new ApiClient(server.creds, 1);
      const by = bystander(byClient);
      const took: number[] = [];
      for (let i = 0; i < rounds; i++) {
        const r = await attack.send(admin, i);
        if (r.status !== attack.status) throw new Error(`${attack.name}: ${r.status}`);
        took.push(r.ms);
      }
      const byMs = await by.stop();
      byClient.close();
      rows.push([attack.name, String(rounds), fmtMs(percentile(took, 50)), fmtMs(Math.max(...took)), fmtMs(percentile(byMs, 50)), fmtMs(percentile(byMs, 99)), fmtMs(Math.max(...byMs))]);
      console.log(rows.at(-1)!.join(' | '));
    }
    admin.close();
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const body = [
    ...sectionHead(repoRoot, '## CEL cost and RE2 patterns under attack (bench/cel-bounds.ts)'),
    `\`node dist/bench/cel-bounds.js --rounds ${rounds}\`: each attack sent ${rounds} times back to back on one connection; a bystander GETs /api/v1/namespaces/default every 20 ms on another.`,
    '',
    table(['attack', 'requests', 'answer p50', 'answer max', 'bystander p50', 'bystander p99', 'bystander max'], rows),
  ].join('\n');
  console.log(body);
  if (!values['no-write']) writeSection(resultsFile, 'cel-bounds', body);
}

main().catch((e) => { console.error(e); process.exit(1); });
