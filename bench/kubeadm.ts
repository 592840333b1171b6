/**
 * kubeadm-style cluster bring-up: wall time of `k8ts init` (which returns
 * once the control-plane node is Ready) and of `k8ts join` (returns once the
 * worker is Ready), each on a fresh prefix in a temp dir, reset afterwards.
 * Target: under 10 s each (kubeadm takes minutes). Runs: `--runs N` (default 3), each
 * once on init's default local etcd (a static pod) and once with `--datastore sqlite`.
 * `--runtime cri` (as root): each node's kubelet runs its pods on a private containerd of
 * its own (started before the clock starts, as a machine's containerd is already running),
 * found through `--cri-socket`; the control plane's static pods stay host processes, as on
 * any init node. Default `--runtime process` (control plane) with a simulated worker.
 *
 * Results go to bench/RESULTS.md, section "kubeadm".
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sectionHead, table, writeSection } from './lib/results.js';
import { benchArgs } from './lib/args.js';
import { startContainerd, type PrivateContainerd } from '../test/e2e/containerd.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');

function k8ts(args: string[]): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? 1 : 0, stdout, stderr, ms: performance.now() - started });
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); });
  });
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.floor(s.length / 2)]! : NaN; };

type Datastore = 'etcd' | 'sqlite';

type Runtime = 'process' | 'cri';

/** The runtime flags of one node: a private containerd of its own for `cri`. */
async function nodeRuntime(runtime: Runtime, fallback: string, podSubnet: string, started: PrivateContainerd[]): Promise<string[]> {
  if (runtime !== 'cri') return ['--runtime', fallback];
  const ctrd = await startContainerd({ podSubnet });
  started.push(ctrd);
  return ['--cri-socket', ctrd.endpoint];
}

async function run(datastore: Datastore, runtime: Runtime): Promise<{ initMs: number; joinMs?: number; joinError?: string }> {
  const cp = mkdtempSync(join(tmpdir(), 'k8ts-bench-cp-'));
  const worker = mkdtempSync(join(tmpdir(), 'k8ts-bench-w-'));
  const api = await freePort();
  const containerds: PrivateContainerd[] = [];
  try {
    const cpRuntime = await nodeRuntime(runtime, 'process', '10.244.0.0/24', containerds);
    const workerRuntime = await nodeRuntime(runtime, 'simulated', '10.244.1.0/24', containerds);
    const init = await k8ts(['init', '--prefix', cp, '--apiserver-advertise-address', '127.0.0.1', '--apiserver-bind-port', String(api), '--node-name', 'cp',
      '--kubelet-port', String(await freePort()), '--controller-manager-port', String(await freePort()), '--scheduler-port', String(await freePort()),
      '--datastore', datastore, '--etcd-client-port', String(await freePort()), '--etcd-peer-port', String(await freePort()), '--etcd-metrics-port', String(await freePort()),
      ...cpRuntime]);
    if (init.code !== 0) throw new Error(`init failed: ${init.stderr}`);
    const joinCmd = /k8ts join (\S+) --token (\S+) \\\n\t--discovery-token-ca-cert-hash (\S+)/.exec(init.stdout)!;
    const join = await k8ts(['join', joinCmd[1]!, '--token', joinCmd[2]!, '--discovery-token-ca-cert-hash', joinCmd[3]!, '--prefix', worker,
      '--node-name', 'worker1', '--node-ip', '127.0.0.2', '--kubelet-port', String(await freePort()), ...workerRuntime]);
    return join.code === 0 ? { initMs: init.ms, joinMs: join.ms } : { initMs: init.ms, joinError: join.stderr.trim().split('\n')[0] };
  } finally {
    await k8ts(['reset', '--force', '--prefix', worker]);
    await k8ts(['reset', '--force', '--prefix', cp]);
    rmSync(cp, { recursive: true, force: true });
    rmSync(worker, { recursive: true, force: true });
    for (const c of containerds) await c.stop();
  }
}

async function main(): Promise<void> {
  const { values } = benchArgs('Wall time of `k8ts init` and `k8ts join` on a fresh prefix, on local etcd and on SQLite.', { options: {
    runs: { type: 'string', default: '3', help: 'runs, each once per datastore' },
    runtime: { type: 'string', default: 'process', help: "the nodes' runtime: process, or cri (as root: a private containerd per node)" },
  } });
  const runs = Number(values.runs);
  const runtime: Runtime = values.runtime === 'cri' ? 'cri' : 'process';
  const results: Record<Datastore, Awaited<ReturnType<typeof run>>[]> = { etcd: [], sqlite: [] };
  for (let i = 0; i < runs; i++) {
    for (const ds of ['etcd', 'sqlite'] as const) {
      const r = await run(ds, runtime);
      console.log(`run ${i + 1} (${ds}): init ${(r.initMs / 1000).toFixed(2)} s, join ${r.joinMs ? `${(r.joinMs / 1000).toFixed(2)} s` : `failed: ${r.joinError}`}`);
      results[ds].push(r);
    }
  }
  const fmt = (ms: number) => (Number.isNaN(ms) ? 'n/a' : `${(ms / 1000).toFixed(2)} s`);
  const rows = (ds: Datastore) => {
    const inits = results[ds].map((r) => r.initMs);
    const joins = results[ds].flatMap((r) => (r.joinMs === undefined ? [] : [r.joinMs]));
    return [
      [`init → control-plane node Ready (${ds})`, String(inits.length), fmt(median(inits)), fmt(Math.min(...inits)), fmt(Math.max(...inits))],
      [`join → worker Ready (${ds})`, String(joins.length), fmt(median(joins)), joins.length ? fmt(Math.min(...joins)) : 'n/a', joins.length ? fmt(Math.max(...joins)) : 'n/a'],
    ];
  };
  const body = [
    ...sectionHead(repoRoot, '## kubeadm-style bring-up: `k8ts init` to a Ready control-plane node, `k8ts join` to a Ready worker (bench/kubeadm.ts)'),
    `- Setup: each run on fresh prefixes in a temp dir, loopback addresses (control plane 127.0.0.1, worker 127.0.0.2), free ports; the control plane runs as static pods on the host-process runtime (etcd: Debian's etcd 3.4 as the etcd static pod; sqlite: \`--datastore sqlite\`); ${runtime === 'cri'
      ? 'both kubelets run their pods on containerd (`--runtime cri`: a private containerd 1.6 per node in a network namespace of its own, started before the clock, found through `--cri-socket`, as kubeadm finds the machine\'s); '
      : 'the worker on the simulated runtime; '}`
      + 'init returns once its node is Ready, join once the worker is Ready; both nodes reset after each run. Target: under 10 s each.',
    '',
    table(['Step', 'Runs', 'Median', 'Min', 'Max'], [...rows('etcd'), ...rows('sqlite')]),
    '',
    ...(['etcd', 'sqlite'] as const).flatMap((ds) => results[ds].flatMap((r, i) => (r.joinError ? [`Run ${i + 1} (${ds}): join failed: \`${r.joinError}\``] : []))),
  ].join('\n');
  writeSection(resultsFile, 'kubeadm', body);
  console.log(body);
}

main().catch((e) => { console.error(e); process.exit(1); });
