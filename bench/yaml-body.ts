/**
 * The heavy lane's pure function (src/apiserver/heavy/object-body.ts) on the
 * hardening issue's YAML ConfigMap: 200,000 keys, 2.6 MiB, created with
 * fieldValidation=Strict as kubectl sends it. Prints each round's wall and
 * CPU time (all of the process's threads: V8's GC helpers too; less moved by
 * other work on a shared machine than wall time) and their medians; the
 * answer must be etcd's size refusal, as the e2e test wants.
 *
 *   node dist/bench/yaml-body.js [rounds=5] [keys=200000]
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof dist/bench/yaml-body.js 1   (where the time goes)
 */
import { readObjectBody, type ObjectBodyJob } from '../src/apiserver/heavy/object-body.js';
import { percentile, fmtMs } from './lib/stats.js';
import { benchArgs } from './lib/args.js';

const { positionals } = benchArgs("CPU and wall time of the heavy lane's object-body read of a 200,000-key YAML ConfigMap (ROUNDS default 5, KEYS default 200000).",
  { allowPositionals: true, positionals: '[ROUNDS [KEYS]]' });
const rounds = Number(positionals[0] ?? 5);
const keys = Number(positionals[1] ?? 200_000);

/** The body of test/e2e/large-bodies.ts's yamlConfigMap. */
function yamlConfigMapBody(n: number): Buffer {
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: yaml-200k', 'data:'];
  for (let i = 0; i < n; i++) lines.push(`  k${i}: v`);
  return Buffer.from(lines.join('\n') + '\n');
}

const job = (): ObjectBodyJob => ({
  body: yamlConfigMapBody(keys), type: 'application/yaml', into: { apiVersion: 'v1', kind: 'ConfigMap' },
  endpoint: { group: '', version: 'v1', kind: 'ConfigMap' }, endpointApiVersion: 'v1', fieldValidation: 'Strict', builtIn: true, create: true,
});

const times: number[] = [];
const cpuTimes: number[] = [];
for (let r = 0; r < rounds; r++) {
  const j = job();
  const started = performance.now();
  const cpu = process.cpuUsage();
  const result = readObjectBody(j);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  if (keys === 200_000 && !(result.refusal && 'tooLarge' in result.refusal)) throw new Error('expected the etcd size refusal');
  times.push(ms);
  cpuTimes.push(cpuMs);
  console.log(`round ${r + 1}: ${fmtMs(ms)} wall, ${fmtMs(cpuMs)} CPU (${(j.body.byteLength / 1024 / 1024).toFixed(2)} MiB, ${keys} keys)`);
}
console.log(`median ${fmtMs(percentile(times, 50))} wall, ${fmtMs(percentile(cpuTimes, 50))} CPU of ${rounds} rounds; load ${(await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ')}`);
