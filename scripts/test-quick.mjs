// `npm run test:quick`: the contributor's loop (docs/contributing.md). The unit
// tests and the end-to-end tests of the API's core as users meet it (kubectl's
// verbs, the seed walkthroughs, the guide), none of which needs root,
// containerd or etcd. `npm test` stays the full gate that CI runs.
//
// Left to the full gate: unit/openapi-generator (it reruns scripts/gen-openapi.mjs,
// which this loop's build does not run, to check the build's output is
// deterministic). The end-to-end files go first: they are the longest (15-60 s
// each, against a median of a second for a unit file), so starting them early
// keeps the last minutes from being one file running alone.
//
// At the end it prints its wall time, the CPU of everything it ran (test
// processes, their servers and kubectl: /proc's waited-for children) and the
// load average, so a figure measured on a busy machine can still be compared.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';

const e2e = ['commands', 'cli-errors', 'server-side-apply', 'errors', 'walkthrough-statefulset', 'api-machinery', 'walkthrough-daemonset', 'get', 'guide', 'scheduler'];
const fullGateOnly = new Set(['openapi-generator.test.js']);
const files = [
  ...e2e.map((name) => `dist/test/e2e/${name}.test.js`),
  ...readdirSync('dist/test/unit').filter((f) => f.endsWith('.test.js') && !fullGateOnly.has(f)).map((f) => `dist/test/unit/${f}`),
];

/** CPU seconds (user + system) of this process's waited-for children, from /proc/self/stat. */
function childrenCpuSeconds() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from the 3rd (state) on
    return (Number(fields[13]) + Number(fields[14])) / 100; // cutime, cstime (16th, 17th) in USER_HZ ticks
  } catch {
    return NaN; // not Linux: no figure
  }
}

const started = Date.now();
const concurrency = Math.max(2, availableParallelism());
const r = spawnSync(process.execPath, ['--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files], { stdio: 'inherit' });
const wall = (Date.now() - started) / 1000;
const cpu = childrenCpuSeconds();
console.log(`test:quick: ${files.length} files, ${wall.toFixed(0)} s wall, ${Number.isNaN(cpu) ? '?' : cpu.toFixed(0)} s CPU, `
  + `concurrency ${concurrency}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
process.exit(r.status ?? 1);
