/**
 * Attack 4 of bench/bystander.ts (sixteen concurrent server-side applies of disjoint keys to one
 * ConfigMap) against a real `k8ts server`, for what its serving isolate's scavenges copy: the
 * server runs with V8's --trace-gc-nvp (stdout to a file), the sixteen appliers run in a closed
 * loop for `--seconds` after a warm-up, and the scavenges logged during that window are summed:
 * bytes allocated, kept (copied within the young generation or promoted) and scavenge time, per
 * apply; full collections counted; server CPU per apply from /proc. Bytes per apply hardly depend
 * on the machine's load; times do. With --baseline-cli another build's server runs the same
 * rounds, interleaved.
 *
 *   node dist/bench/apply-server-gc.js [--seconds=8] [--rounds=3] [--baseline-cli=/tmp/base/dist/src/cli/main.js]
 * Prints a Markdown table (medians over the rounds); results are copied into bench/RESULTS.md by hand.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiClient } from './lib/client.js';
import { startServer } from './lib/server.js';
import { table } from './lib/results.js';
import { benchArgs } from './lib/args.js';

/** utime + stime of a process, in ms (clock ticks of 10 ms). */
const processCpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

const thisCli = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'cli', 'main.js');

interface Round { applies: number; cpuUsPerApply: number; allocatedPerApply: number; keptPerApply: number; scavenges: number; scavengeMs: number; longestScavengeMs: number; fulls: number }

/** Sixteen appliers, each its own key and manager, until `until` (ms since epoch); the count of 200s. */
async function applyLoop(client: ApiClient, until: number): Promise<number> {
  let ok = 0;
  let n = 0;
  await Promise.all(Array.from({ length: 16 }, async (_, i) => {
    while (Date.now() < until) {
      const r = await client.request('PATCH', `/api/v1/namespaces/default/configmaps/ssa?fieldManager=m${i}`, {
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data: { [`k${i}`]: String(n++) } }),
        contentType: 'application/apply-patch+yaml',
      });
      if (r.status === 200 || r.status === 201) ok++; else throw new Error(`apply answered ${r.status}: ${r.body.toString().slice(0, 200)}`);
    }
  }));
  return ok;
}

async function round(cli: string, seconds: number): Promise<Round> {
  const dir = mkdtempSync(join(tmpdir(), 'apply-server-gc-'));
  const log = join(dir, 'gc.log');
  const server = await startServer({ cliPath: cli, dataDir: join(dir, 'data'), nodeArgs: ['--trace-gc-nvp'], serverArgs: ['--controllers', 'none'], stdoutFile: log });
  try {
    const client = new ApiClient(server.creds, 64);
    await applyLoop(client, Date.now() + 3000); // warm: the ring fills, the code is optimized
    const from = statSync(log).size;
    const cpu0 = processCpuMs(server.pid);
    const applies = await applyLoop(client, Date.now() + seconds * 1000);
    const cpu = processCpuMs(server.pid) - cpu0;
    const lines = readFileSync(log, 'utf8').slice(from).split('\n');
    const nvp = (line: string, name: string) => Number(new RegExp(` ${name}=([\\d.]+)`).exec(line)?.[1] ?? 0);
    const scav = lines.filter((l) => / gc=s /.test(l));
    const fulls = lines.filter((l) => / gc=(mc|ms|mmc) /.test(l)).length;
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    return {
      applies, cpuUsPerApply: cpu * 1000 / applies,
      allocatedPerApply: sum(lines.map((l) => nvp(l, 'allocated'))) / applies,
      keptPerApply: sum(scav.map((l) => nvp(l, 'new_space_survived') + nvp(l, 'promoted'))) / applies,
      scavenges: scav.length, scavengeMs: sum(scav.map((l) => nvp(l, 'pause'))), longestScavengeMs: Math.max(0, ...scav.map((l) => nvp(l, 'pause'))), fulls,
    };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = benchArgs("Attack 4 against a real server: what its scavenges allocate and copy per apply (V8's --trace-gc-nvp).", { options: {
    seconds: { type: 'string', default: '8', help: 'measured seconds per round (after 3 s of warm-up)' },
    rounds: { type: 'string', default: '3' },
    'baseline-cli': { type: 'string', help: "another build's dist/src/cli/main.js, run interleaved" },
  } });
  const builds = [{ label: 'this', cli: thisCli }, ...(values['baseline-cli'] ? [{ label: 'base', cli: values['baseline-cli'] }] : [])];
  const results = new Map<string, Round[]>(builds.map((b) => [b.label, []]));
  const loadBefore = loadavg().map((l) => l.toFixed(1)).join(' ');
  for (let r = 0; r < Number(values.rounds); r++) {
    for (const b of r % 2 ? [...builds].reverse() : builds) {
      const res = await round(b.cli, Number(values.seconds));
      results.get(b.label)!.push(res);
      console.error(`round ${r + 1} ${b.label}: ${JSON.stringify(res)}`);
    }
  }
  const med = (rs: Round[], f: (r: Round) => number) => { const v = rs.map(f).sort((a, b) => a - b); return v[v.length >> 1]!; };
  const kb = (x: number) => `${(x / 1024).toFixed(1)} KB`;
  console.log(`load average before: ${loadBefore}; after: ${loadavg().map((l) => l.toFixed(1)).join(' ')}; ${values.seconds} s a round, medians of ${values.rounds} rounds`);
  console.log(table(['server', 'applies a round', 'allocated per apply', 'kept by scavenges per apply (survived + promoted)', 'each round', 'scavenges a round', 'scavenge time per apply', 'longest scavenge', 'full GCs a round', 'server CPU per apply'], builds.map((b) => {
    const rs = results.get(b.label)!;
    return [b.label, String(med(rs, (r) => r.applies)), kb(med(rs, (r) => r.allocatedPerApply)), kb(med(rs, (r) => r.keptPerApply)), rs.map((r) => kb(r.keptPerApply)).join(', '),
      String(med(rs, (r) => r.scavenges)), `${(med(rs, (r) => r.scavengeMs / r.applies) * 1000).toFixed(0)} µs`, `${med(rs, (r) => r.longestScavengeMs).toFixed(1)} ms`,
      String(med(rs, (r) => r.fulls)), `${Math.round(med(rs, (r) => r.cpuUsPerApply))} µs`];
  })));
}

await main();
