/**
 * Pod start latency on containerd (issue #7): a `k8ts server`, one
 * `k8ts agent --runtime cri` and a private containerd (test/e2e/containerd.ts:
 * its own netns, socket and dirs, the local busybox and pause images).
 *
 *  - steady: 100 pods created at 10/s; create→Running and create→Ready;
 *  - burst: 30 pods created at once (after the steady pods are gone);
 *  - the agent's VmRSS (/proc/PID/status) idle, and with the 100 pods running;
 *  - the floor: the same two phases sent straight to containerd over the CRI
 *    (RunPodSandbox, PodSandboxStatus, CreateContainer, StartContainer with
 *    the configs the kubelet builds), no API server and no kubelet: what the
 *    runtime alone takes on this machine;
 *  - CPU per pod in each phase: the server, the agent, containerd, and the
 *    rest of the machine (shims, runc, CNI plugins, the pods), from
 *    /proc/PID/stat and /proc/stat.
 *
 * Pods name their node (spec.nodeName), so the numbers are the API server,
 * the kubelet and containerd (sandbox, CNI, container), not the scheduler.
 * "create" is the moment the POST is sent; Running and Ready are the moments
 * this process's watch first sees the phase and the Ready condition.
 *
 *   node dist/bench/podstart.js [--steady N] [--rate N] [--burst N] [--no-write] [--no-floor] [--cpu-prof DIR] [--agent-node-args '...']
 *
 * --cpu-prof DIR: the server and the agent write V8 CPU profiles into DIR.
 * --agent-node-args=...: node flags for the agent instead of the ones a real node's agent
 *   ships with (src/cli/agent-node-flags.ts), for memory experiments.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import https from 'node:https';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { ApiClient, type Credentials } from './lib/client.js';
import { readCpuMs, readMemory, startServer } from './lib/server.js';
import { fmtMB, fmtMs, percentile } from './lib/stats.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { startContainerd, busyboxImage } from '../test/e2e/containerd.js';
import type { CRIClient } from '../src/kubelet/runtime/cri/client.js';
import { containerConfig, podSandboxConfig, type PodContext } from '../src/kubelet/runtime/cri/config.js';
import { realAgentNodeFlags } from '../src/cli/agent-node-flags.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cliPath = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');
const nodeName = 'bench-node';
const namespace = 'default';

interface Seen { created?: number; running?: number; ready?: number }

/** Watches the namespace's pods and records when each is first Running and first Ready. */
class PodWatch {
  readonly seen = new Map<string, Seen>();
  private req?: ReturnType<typeof https.get>;
  private waiters: (() => void)[] = [];
  count = 0;

  start(creds: Credentials): Promise<void> {
    const url = new URL(`/api/v1/namespaces/${namespace}/pods?watch=1&allowWatchBookmarks=false`, creds.server);
    return new Promise((resolve, reject) => {
      this.req = https.get(url, { ca: creds.ca, cert: creds.cert, key: creds.key, agent: false }, (res) => {
        if (res.statusCode !== 200) { reject(new Error(`watch: HTTP ${res.statusCode}`)); return; }
        resolve();
        let buf = '';
        res.on('data', (d: Buffer) => {
          buf += d.toString();
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            if (line.trim()) this.onEvent(JSON.parse(line));
          }
        });
      });
      this.req.on('error', (e) => { if (!this.closed) reject(e); });
    });
  }

  private closed = false;

  private onEvent(ev: { type: string; object: Pod }): void {
    const now = performance.now();
    const name = ev.object.metadata?.name ?? '';
    const s = this.seen.get(name);
    if (!s || ev.type === 'DELETED') { if (ev.type === 'DELETED') this.seen.delete(name); this.notify(); return; }
    if (s.running === undefined && ev.object.status?.phase === 'Running') s.running = now;
    if (s.ready === undefined && ev.object.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) s.ready = now;
    this.notify();
  }

  private notify(): void { const w = this.waiters; this.waiters = []; for (const f of w) f(); }

  async until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (agentExit) throw new Error(`agent exited (${agentExit}) while waiting for ${what}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((r) => { this.waiters.push(r); setTimeout(r, 500); });
    }
  }

  close(): void { this.closed = true; this.req?.destroy(); }
}

const benchContainer = { name: 'main', image: busyboxImage, command: ['sh', '-c', "trap 'exit 0' TERM; sleep 2147483647 & wait $!"] };

function pod(name: string): string {
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, labels: { bench: 'podstart' } },
    spec: { nodeName, terminationGracePeriodSeconds: 1, containers: [benchContainer] },
  });
}

interface Phase { name: string; label: string; count: number; running: number[]; ready: number[]; wallMs: number; cpu?: CpuPerPod }

interface CpuPids { server?: number; agent?: number; containerd: number }
interface CpuPerPod { server: number; agent: number; containerd: number; rest: number }

/** Busy CPU time of the whole machine (every core; all but idle and iowait), in ms, from /proc/stat. */
function machineBusyMs(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = f as [number, number, number, number, number, number, number, number];
  return ((user + nice + system + irq + softirq + steal) * 1000) / 100;
}

/** Starts counting CPU; the returned function gives each process's CPU per pod since, and the rest of the machine's. */
function countCpu(pids: CpuPids, pods: number): () => CpuPerPod {
  const read = (pid?: number) => (pid ? readCpuMs(pid) : 0);
  const start = { server: read(pids.server), agent: read(pids.agent), containerd: read(pids.containerd), machine: machineBusyMs() };
  return () => {
    const server = read(pids.server) - start.server;
    const agent = read(pids.agent) - start.agent;
    const containerd = read(pids.containerd) - start.containerd;
    const rest = machineBusyMs() - start.machine - server - agent - containerd;
    return { server: server / pods, agent: agent / pods, containerd: containerd / pods, rest: rest / pods };
  };
}

/** Waits until `at` (performance.now() time), for a steady creation rate. */
async function pace(t0: number, i: number, perSec: number): Promise<void> {
  if (perSec <= 0) return;
  const wait = t0 + (i * 1000) / perSec - performance.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}

const phaseLabel = (count: number, perSec: number) => (perSec > 0 ? `${count} pods at ${perSec}/s` : `${count} pods at once`);

async function createAndWait(client: ApiClient, watch: PodWatch, prefix: string, count: number, perSec: number, pids?: CpuPids): Promise<Phase> {
  const names = Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);
  const cpu = pids && countCpu(pids, count);
  const t0 = performance.now();
  const posts: Promise<unknown>[] = [];
  for (let i = 0; i < count; i++) {
    await pace(t0, i, perSec);
    const name = names[i]!;
    watch.seen.set(name, { created: performance.now() });
    posts.push(client.expect(201, 'POST', `/api/v1/namespaces/${namespace}/pods`, { body: pod(name) }));
  }
  await Promise.all(posts);
  await watch.until(() => names.every((n) => watch.seen.get(n)?.ready !== undefined), 300_000, `${prefix}: ${count} pods Ready`);
  const wallMs = performance.now() - t0;
  const s = names.map((n) => watch.seen.get(n)!);
  return {
    name: prefix, label: phaseLabel(count, perSec), count, running: s.map((x) => x.running! - x.created!), ready: s.map((x) => x.ready! - x.created!), wallMs, cpu: cpu?.(),
  };
}

/**
 * The floor: pods sent straight to containerd as the kubelet would send them
 * (same sandbox and container configs, no volumes), timed from the first call
 * to StartContainer's answer. The sandboxes are removed afterwards.
 */
async function criFloor(cri: CRIClient, logsDir: string, count: number, perSec: number, pids: CpuPids): Promise<Phase> {
  const imageRef = (await cri.imageStatus(busyboxImage))!.id;
  const ctx: PodContext = { nodeName: 'bench-floor', podLogsDir: logsDir, hostIP: '127.0.0.1' };
  const sandboxes: string[] = [];
  const startOne = async (name: string): Promise<number> => {
    const started = performance.now();
    const p: Pod = { metadata: { name, namespace: 'floor', uid: randomUUID() }, spec: { terminationGracePeriodSeconds: 1, containers: [benchContainer] } };
    const sandboxConfig = podSandboxConfig(p, ctx, 0);
    mkdirSync(join(sandboxConfig.logDirectory!, benchContainer.name), { recursive: true });
    const id = await cri.runPodSandbox(sandboxConfig);
    sandboxes.push(id);
    const st = await cri.podSandboxStatus(id);
    const config = containerConfig({ pod: p, container: benchContainer, imageRef, restartCount: 0, mounts: [], podIP: st.network?.ip }, ctx);
    await cri.startContainer(await cri.createContainer(id, config, sandboxConfig));
    return performance.now() - started;
  };
  const cpu = countCpu(pids, count);
  const t0 = performance.now();
  const runs: Promise<number>[] = [];
  for (let i = 0; i < count; i++) {
    await pace(t0, i, perSec);
    runs.push(startOne(`floor-${String(i).padStart(3, '0')}`));
  }
  const times = await Promise.all(runs);
  const wallMs = performance.now() - t0;
  const used = cpu();
  for (const id of sandboxes) { await cri.stopPodSandbox(id); await cri.removePodSandbox(id); }
  return { name: 'floor', label: `${phaseLabel(count, perSec)}, CRI only`, count, running: times, ready: times, wallMs, cpu: used };
}

async function deleteAll(client: ApiClient, watch: PodWatch): Promise<void> {
  await client.expect(200, 'DELETE', `/api/v1/namespaces/${namespace}/pods?labelSelector=bench%3Dpodstart`);
  await watch.until(() => watch.seen.size === 0, 300_000, 'pods deleted');
}

function startAgent(kubeconfig: string, endpoint: string, podCIDR: string, dir: string, nodeArgs: string[]): ChildProcess {
  const proc = spawn(process.execPath, [
    ...nodeArgs, cliPath, 'agent', '--kubeconfig', kubeconfig, '--runtime', 'cri', '--container-runtime-endpoint', endpoint,
    '--node-name', nodeName, '--node-ip', '127.0.0.1', '--pod-cidr', podCIDR, '--root-dir', join(dir, 'kubelet'), '--pod-logs-dir', join(dir, 'pods'),
    '--address', '127.0.0.1', '--kubelet-port', '0',
  ], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, K8TS_LOG_LEVEL: 'info' } });
  let tail = '';
  proc.stderr!.on('data', (d: Buffer) => {
    tail = (tail + d.toString()).slice(-8000);
    if (d.toString().includes('"level":"error"')) process.stderr.write(`agent: ${d}`);
  });
  proc.on('exit', (code, signal) => { agentExit = String(code ?? signal); if (!stopping) process.stderr.write(`agent exited (${code ?? signal}); its last output:\n${tail}\n`); });
  return proc;
}

let stopping = false;
let agentExit: string | undefined;

async function stop(proc: ChildProcess): Promise<void> {
  stopping = true;
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  await exited;
}

async function main(): Promise<void> {
  const { values } = benchArgs('Pod start latency on containerd (as root).', { options: {
    steady: { type: 'string', default: '100' }, rate: { type: 'string', default: '10' }, burst: { type: 'string', default: '30' }, 'no-write': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' }, 'no-floor': { type: 'boolean', default: false }, 'agent-node-args': { type: 'string' },
  } });
  const nodeArgs = values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', values['cpu-prof']] : [];
  const steady = Number(values.steady);
  const rate = Number(values.rate);
  const burst = Number(values.burst);
  const work = mkdtempSync(join(tmpdir(), 'k8ts-bench-podstart-'));
  const ctrd = await startContainerd({ podSubnet: '10.244.0.0/22' });
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  let agent: ChildProcess | undefined;
  const watch = new PodWatch();
  const phases: Phase[] = [];
  let idleKB = 0;
  let loadedKB = 0;
  let peakKB = 0;
  try {
    server = await startServer({ cliPath, dataDir: join(work, 'server'), serverArgs: ['--controllers', 'root-ca-cert-publisher'], nodeArgs });
    const client = new ApiClient(server.creds, 16);
    agent = startAgent(join(work, 'server', 'admin.conf'), ctrd.endpoint, ctrd.podSubnet, join(work, 'agent'), [
      ...(values['agent-node-args'] !== undefined ? values['agent-node-args'].split(' ').filter(Boolean) : realAgentNodeFlags), ...nodeArgs,
    ]);
    const nodeReady = async () => {
      const r = await client.request('GET', `/api/v1/nodes/${nodeName}`);
      return r.status === 200 && JSON.parse(r.body.toString()).status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True');
    };
    for (const deadline = Date.now() + 60_000; !(await nodeReady());) {
      if (Date.now() > deadline) throw new Error('node not Ready in 60 s');
      await new Promise((r) => setTimeout(r, 200));
    }
    await watch.start(server.creds);
    // Warm-up: one pod first, so the numbers do not include the first image unpack.
    await createAndWait(client, watch, 'warm', 1, 0);
    await deleteAll(client, watch);
    await new Promise((r) => setTimeout(r, 5000));
    idleKB = readMemory(agent.pid!).rssKB;
    const pids: CpuPids = { server: server.pid, agent: agent.pid!, containerd: ctrd.pid };
    phases.push(await createAndWait(client, watch, 'steady', steady, rate, pids));
    // Steady state: 30 s after the last pod became Ready (relists, heartbeats and status syncs go on; the start-up garbage is collected).
    await new Promise((r) => setTimeout(r, 30_000));
    ({ rssKB: loadedKB, hwmKB: peakKB } = readMemory(agent.pid!));
    console.log(JSON.stringify({ phase: 'steady', wallMs: phases[0]!.wallMs, idleKB, loadedKB, peakKB }));
    await deleteAll(client, watch);
    phases.push(await createAndWait(client, watch, 'burst', burst, 0, pids));
    console.log(JSON.stringify({ phase: 'burst', wallMs: phases[1]!.wallMs }));
    await deleteAll(client, watch);
    client.close();
    // The agent is idle now (no pods); the floor's sandboxes carry another node's label, which it leaves alone.
    if (!values['no-floor']) {
    await new Promise((r) => setTimeout(r, 5000));
    phases.push(await criFloor(ctrd.client, join(work, 'floor-logs'), steady, rate, pids));
    console.log(JSON.stringify({ phase: 'floor steady', wallMs: phases[2]!.wallMs }));
    await new Promise((r) => setTimeout(r, 5000));
    phases.push(await criFloor(ctrd.client, join(work, 'floor-logs'), burst, 0, pids));
    console.log(JSON.stringify({ phase: 'floor burst', wallMs: phases[3]!.wallMs }));
    }
  } finally {
    watch.close();
    if (agent) await stop(agent);
    await server?.stop();
    await ctrd.stop();
    rmSync(work, { recursive: true, force: true });
  }
  const body = [
    ...sectionHead(repoRoot, '## Pod start latency on containerd (issue #7)',
      '. The load average includes the benchmark\'s own pods: each is a containerd shim and an idle sh; the load is the creation (runc, CNI) itself.'),
    '- One `k8ts server --controllers root-ca-cert-publisher` (pods mount the service-account token volume, whose kube-root-ca.crt that controller publishes), one `k8ts agent --runtime cri` and a private containerd (runc, CNI bridge) on the same host. Pods name their node (no scheduler); each runs k8ts.local/busybox:1 (`sh` waiting on one `sleep`: an idle pod, as upstream\'s density test uses pause pods), no probes, so Ready follows Running.',
    '- create = POST sent; Running / Ready = first watch event with phase Running / condition Ready=True, seen by the benchmark.',
    '',
    table(['phase', 'pods', 'create→Running p50', 'p99', 'create→Ready p50', 'p99', 'all Ready after'], phases.map((p) => [
      p.label, String(p.count),
      fmtMs(percentile(p.running, 50)), fmtMs(percentile(p.running, 99)), fmtMs(percentile(p.ready, 50)), fmtMs(percentile(p.ready, 99)), fmtMs(p.wallMs),
    ])),
    '',
    'CRI only: the time from RunPodSandbox sent to StartContainer answered, for pods sent straight to the same containerd. CPU per pod over each phase (ms; the rest is the machine\'s other busy time: shims, runc, CNI plugins, the pods themselves):',
    '',
    table(['phase', 'server', 'agent', 'containerd', 'rest', 'all'], phases.map((p) => {
      const c = p.cpu!;
      return [p.label, c.server.toFixed(0), c.agent.toFixed(0), c.containerd.toFixed(0), c.rest.toFixed(0), (c.server + c.agent + c.containerd + c.rest).toFixed(0)];
    })),
    '',
    `Agent VmRSS (node flags \`${(values['agent-node-args'] ?? realAgentNodeFlags.join(' ')) || 'none'}\`): idle (node registered, no pods) ${fmtMB(idleKB)}; with ${steady} pods running, 30 s after the last became Ready, ${fmtMB(loadedKB)}; peak (VmHWM) up to then ${fmtMB(peakKB)}.`,
  ].join('\n');
  console.log(body);
  if (!values['no-write']) writeSection(resultsFile, 'podstart', body);
}

main().catch((e) => { console.error(e); process.exitCode = 1; });
