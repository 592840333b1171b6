/**
 * The serving thread's CPU per wide ConfigMap create on a real server (issue #19): this build's and
 * another's (`--base DIR`, a built checkout) servers side by side, creates interleaved. The main
 * thread's utime+stime (/proc/<pid>/task/<pid>/stat, 10 ms ticks) across each POST and 300 ms after
 * it; the first two creates per server are warm-up and not counted.
 *
 * `--value-bytes` sets each value's length (default 12); `--keys 51698 --value-bytes 13` is fuzz-bodies'
 * default seed, whose stored form is over 1.5 MiB: its creates answer etcd's 500, which is counted too.
 *
 *   node dist/bench/wide-create-server.js [--keys 40000] [--value-bytes 12] [--creates 8] [--base /tmp/base/checkout]
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { Cluster } from '../test/e2e/harness.js';
import type { apiRequest as ApiRequest } from '../test/e2e/helpers.js';
import { benchArgs } from './lib/args.js';

const here = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** utime + stime of the process's main thread, in clock ticks (100 a second). */
function mainThreadTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

interface Server { label: string; cluster: Cluster; apiRequest: typeof ApiRequest; ticks: number; counted: number }

async function start(root: string, label: string): Promise<Server> {
  const m = (p: string) => import(pathToFileURL(join(root, 'dist', 'test', 'e2e', p)).href);
  const [harness, helpers] = await Promise.all([m('harness.js'), m('helpers.js')]);
  return { label, cluster: await harness.startCluster(), apiRequest: helpers.apiRequest, ticks: 0, counted: 0 };
}

async function main(): Promise<void> {
  const { values } = benchArgs("The serving thread's CPU per wide ConfigMap create on a real server.", { options: { keys: { type: 'string', default: '40000' }, 'value-bytes': { type: 'string', default: '12' }, creates: { type: 'string', default: '8' }, base: { type: 'string' } } });
  const keys = Number(values.keys);
  const servers = [await start(here, 'this build'), ...(values.base ? [await start(values.base, `base (${values.base})`)] : [])];
  const data: Record<string, string> = {};
  for (let i = 0; i < keys; i++) data[`k${i}`] = 'v'.repeat(Number(values['value-bytes']));
  try {
    for (let r = 0; r < Number(values.creates); r++) {
      for (const s of servers) {
        const cm: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `wide-${r}` }, data };
        const pid = s.cluster.proc.pid!;
        const t0 = mainThreadTicks(pid);
        const res = await s.apiRequest(s.cluster, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: Buffer.from(JSON.stringify(cm)), contentType: 'application/json' });
        const tooLarge = res.status === 500 && res.body.includes('etcdserver: request is too large');
        if (res.status !== 201 && !tooLarge) throw new Error(`${s.label}: create answered ${res.status}`);
        await new Promise((ok) => setTimeout(ok, 300));
        const ticks = mainThreadTicks(pid) - t0;
        if (r >= 2) { s.ticks += ticks; s.counted++; }
        console.log(`create ${r + 1} ${s.label}: ${res.status}, main thread ${ticks * 10} ms CPU (load ${loadavg()[0].toFixed(1)})`);
      }
    }
    for (const s of servers) console.log(`${s.label}: mean main-thread CPU ${(s.ticks * 10 / s.counted).toFixed(0)} ms per ${keys}-key ConfigMap create (${s.counted} creates after 2 warm-up)`);
  } finally {
    for (const s of servers) await s.cluster.cleanup();
  }
}

await main();
