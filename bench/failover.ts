/**
 * Control-plane failover: three kubeadm-style control planes on stacked etcd
 * (`k8ts init --control-plane-endpoint --upload-certs`, two `k8ts join
 * --control-plane`) behind a TCP balancer, the node whose controller manager
 * leads SIGKILLed (kubelet and every pod: API server, etcd member, controller
 * manager, scheduler), a one-replica Deployment created at once; measured:
 * SIGKILL → Lease kube-controller-manager held by another → the Deployment's
 * first pod bound by the scheduler. The lease duration is 15 s (upstream's
 * default), so most of the time is the wait for the old lease to run out.
 * CPU: the whole machine's busy CPU time (/proc/stat) over the failover window,
 * beside the wall time, because the machine is shared. `--runs N` (default 1).
 *
 * Results go to bench/RESULTS.md, section "failover".
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sectionHead, table, writeSection } from './lib/results.js';
import { startTCPBalancer } from '../test/e2e/tcp-balancer.js';
import { freePort } from '../test/e2e/kubeadm-node.js';
import { benchArgs } from './lib/args.js';
import { listRecords } from '../src/kubelet/runtime/process/records.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');

function exec(file: string, args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const c = execFile(file, args, { maxBuffer: 16 << 20 }, (err, stdout, stderr) => resolve({ code: err ? 1 : 0, stdout, stderr }));
    c.stdin!.end(input ?? '');
  });
}
const k8ts = (args: string[]) => exec(process.execPath, [cli, ...args]);

/** Busy and total jiffies of all CPUs. */
function cpuTimes(): { busy: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = f[3]! + f[4]!;
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

interface Node { name: string; prefix: string; api: number; args: string[] }

async function node(name: string): Promise<Node> {
  const prefix = mkdtempSync(join(tmpdir(), `k8ts-bench-ha-${name}-`));
  const api = await freePort();
  const p = async () => String(await freePort());
  return {
    name, prefix, api,
    args: ['--prefix', prefix, '--node-name', name, '--apiserver-advertise-address', '127.0.0.1', '--apiserver-bind-port', String(api),
      '--kubelet-port', await p(), '--controller-manager-port', await p(), '--scheduler-port', await p(), '--etcd-client-port', await p(),
      '--etcd-peer-port', await p(), '--etcd-metrics-port', await p(), '--runtime', 'process'],
  };
}

function killNode(n: Node): void {
  const kill = (pid: number) => { for (const p of [-pid, pid]) { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } } };
  kill(Number(readFileSync(join(n.prefix, 'var/lib/kubelet/k8ts-kubelet.pid'), 'utf8').trim()));
  for (const pod of listRecords(join(n.prefix, 'var/lib/kubelet'))) for (const i of pod.instances) kill(i.rec.pid);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(f: () => Promise<T | undefined>, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await f().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(100);
  }
}

/** Times from the SIGKILL; CPU in seconds (USER_HZ is 100 on Linux). */
interface Run { leaseMs: number; podMs: number; cpuSeconds: number }

async function run(): Promise<Run> {
  const lb = await startTCPBalancer();
  const nodes = [await node('cp1'), await node('cp2'), await node('cp3')];
  lb.backends.push(...nodes.map((n) => ({ host: '127.0.0.1', port: n.api })));
  try {
    const init = await k8ts(['init', ...nodes[0]!.args, '--control-plane-endpoint', `127.0.0.1:${lb.port}`, '--upload-certs']);
    if (init.code) throw new Error(`init: ${init.stderr}`);
    const m = /k8ts join (\S+) --token (\S+) \\\n\t--discovery-token-ca-cert-hash (\S+) \\\n\t--control-plane --certificate-key (\S+)/.exec(init.stdout)!;
    for (const n of nodes.slice(1)) {
      const j = await k8ts(['join', m[1]!, '--token', m[2]!, '--discovery-token-ca-cert-hash', m[3]!, '--control-plane', '--certificate-key', m[4]!, ...n.args]);
      if (j.code) throw new Error(`join ${n.name}: ${j.stderr}`);
    }
    const admin = join(nodes[1]!.prefix, 'etc/kubernetes/admin.conf');
    const kubectl = (args: string[], input?: string) => exec('kubectl', ['--kubeconfig', admin, ...args], input);
    const holder = async () => {
      const r = await kubectl(['get', 'lease', '-n', 'kube-system', 'kube-controller-manager', '-o', 'jsonpath={.spec.holderIdentity}']);
      return r.code === 0 && r.stdout ? r.stdout : undefined;
    };
    const before = await until(holder, 120_000, 'a leader');
    const leader = nodes.find((n) => grepSync(before, n.prefix));
    console.log(`leader: ${leader?.name} (${before})`);
    if (!leader) throw new Error(`no node logged ${before}`);
    const cpu0 = cpuTimes();
    const t0 = performance.now();
    killNode(leader);
    const dep = `apiVersion: apps/v1
kind: Deployment
metadata: {name: failover, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: failover}}
  template:
    metadata: {labels: {app: failover}}
    spec:
      tolerations: [{key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}]
      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/hostname, operator: NotIn, values: [${leader.name}]}]}]}}}
      containers: [{name: sleep, image: busybox, command: [sleep, '3600']}]
`;
    await until(async () => ((await kubectl(['apply', '-f', '-'], dep)).code === 0 ? true : undefined), 60_000, 'apply');
    await until(async () => { const h = await holder(); return h && h !== before ? h : undefined; }, 120_000, 'a new leader');
    const leaseMs = performance.now() - t0;
    await until(async () => {
      const r = await kubectl(['get', 'pods', '-l', 'app=failover', '-o', 'jsonpath={.items[*].spec.nodeName}']);
      return r.code === 0 && r.stdout.trim() ? true : undefined;
    }, 120_000, 'a scheduled pod');
    const podMs = performance.now() - t0;
    const cpu1 = cpuTimes();
    return { leaseMs, podMs, cpuSeconds: (cpu1.busy - cpu0.busy) / 100 };
  } finally {
    for (const n of [...nodes].reverse()) { await k8ts(['reset', '--force', '--prefix', n.prefix]); rmSync(n.prefix, { recursive: true, force: true }); }
    await lb.close();
  }
}

/** Whether the node's controller manager logged `identity` (only its pod logs: etcd's files name the holder on every node). */
function grepSync(identity: string, prefix: string): boolean {
  const pods = join(prefix, 'var/log/pods');
  const dirs = readdirSync(pods).filter((d) => d.startsWith('kube-system_kube-controller-manager-')).map((d) => join(pods, d));
  if (dirs.length === 0) return false;
  try {
    return execFileSync('grep', ['-rlF', identity, ...dirs], { encoding: 'utf8' }).trim() !== '';
  } catch { return false; }
}

async function main(): Promise<void> {
  const { values } = benchArgs('Control-plane failover: SIGKILL of the leading control plane to a new controller-manager leader and the first pod scheduled.', {
    options: { runs: { type: 'string', default: '1', help: 'failovers, each on a fresh three-node cluster' } },
  });
  const runs = Number(values.runs);
  const results: Run[] = [];
  for (let i = 0; i < runs; i++) {
    const r = await run();
    console.log(`run ${i + 1}: lease ${(r.leaseMs / 1000).toFixed(2)} s, first pod scheduled ${(r.podMs / 1000).toFixed(2)} s, machine CPU ${r.cpuSeconds.toFixed(1)} s`);
    results.push(r);
  }
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const body = [
    ...sectionHead(repoRoot, '## Control-plane failover: SIGKILL of the leading controller manager\'s node to the first pod scheduled by the new leaders (bench/failover.ts)'),
    '- Setup: three control planes (init --control-plane-endpoint --upload-certs, two join --control-plane) on stacked etcd, host-process runtime, loopback ports, a TCP balancer as the endpoint; '
      + 'the node holding Lease kube-controller-manager is SIGKILLed (kubelet, API server, etcd member, controller manager, scheduler) and a one-replica Deployment applied at once. '
      + 'Lease duration 15 s (upstream\'s default), retry period 2 s: the floor is the old lease running out. CPU: the machine\'s busy CPU seconds over the window (every process, not only k8ts\'s).',
    '',
    table(['Run', 'SIGKILL → new Lease holder', 'SIGKILL → first pod scheduled', 'Machine busy CPU in the window'],
      results.map((r, i) => [String(i + 1), s(r.leaseMs), s(r.podMs), `${r.cpuSeconds.toFixed(1)} s`])),
  ].join('\n');
  writeSection(resultsFile, 'failover', body);
  console.log(body);
}

main().catch((e) => { console.error(e); process.exit(1); });
