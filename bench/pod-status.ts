/**
 * Pod status write cost: milliseconds of server CPU per PUT pods/status, the
 * write a kubelet sends once per DaemonSet pod when it starts (5,000 of them in
 * bench/daemonset.ts's rollout; issue #20).
 *
 * A fresh `k8ts server --controllers none` (SQLite, HTTPS) per round; N pods
 * created as the DaemonSet controller creates them (the http-go template with
 * the daemon tolerations, the node-name affinity and a controller reference),
 * already bound (spec.nodeName); then one pass that PUTs each pod's status
 * from the object the create returned, as the simulated kubelet's status
 * manager does (Pending to Running and Ready), C in flight. Server CPU
 * (user + system, /proc) over the pass divided by the writes; the main thread
 * (the serving loop) apart. With --cli-b, rounds alternate between two server
 * builds in the same run, so machine load hits both alike. --bodies alternates
 * request bodies instead, on this build: `returned` (the object the create
 * returned with the new status, managedFields and all: the default),
 * `no-managed-fields` (the same without them: the simulated kubelet's body
 * until 2026-12-06) and `kubelet` (what its status manager sends now,
 * status/manager.ts statusUpdate: metadata without managedFields, and status).
 *
 *   node dist/bench/pod-status.js [--pods 3000] [--concurrency 64] [--rounds 3]
 *     [--cli-b /path/to/other/dist/src/cli/main.js --label-b main]
 *     [--bodies returned,no-managed-fields,kubelet] [--write]
 *   (K8TS_BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" passes node flags to the server process)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Pod, PodStatus } from 'kubernetes-types/core/v1.js';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import { startServer, readCpuMs, readThreadCpuMs } from './lib/server.js';
import { machineLine, revisionLine, table, writeSection } from './lib/results.js';
import { median, msSince, percentile } from './lib/stats.js';
import { Clientset, loadKubeconfig } from '../src/client/index.js';
import { createPodTemplate, newDaemonPod } from '../src/controllers/daemonset/util.js';
import { benchArgs } from './lib/args.js';
import { statusUpdate } from '../src/kubelet/status/manager.js';
import { withoutManagedFields } from '../src/api/managedfields/update.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');
const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);
const rfc3339 = (d: Date) => d.toISOString().replace(/\.\d+Z$/, 'Z');

type Body = 'returned' | 'no-managed-fields' | 'kubelet';
const bodyOf: Record<Body, (pod: Pod, status: PodStatus) => Pod> = {
  returned: (pod, status) => ({ ...pod, status }),
  'no-managed-fields': (pod, status) => ({ ...withoutManagedFields(pod), status }),
  kubelet: statusUpdate,
};

interface Round { label: string; round: number; writes: number; bodyBytes: number; cpuMsPer: number; mainCpuMsPer: number; perSec: number; p50: number; p99: number; load: number }

async function forEachLimit<T>(items: T[], limit: number, fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

/** The DaemonSet of bench/daemonset.ts, as the controller sees it (uid and generation set). */
const httpGo = {
  apiVersion: 'apps/v1', kind: 'DaemonSet',
  metadata: { name: 'http-go', namespace: 'default', uid: '6f1b2c3d-0000-4000-8000-000000000001', generation: 1 },
  spec: {
    selector: { matchLabels: { app: 'http-go' } },
    template: {
      metadata: { labels: { app: 'http-go' } },
      spec: {
        tolerations: [
          { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' },
          { key: 'node-role.kubernetes.io/master', operator: 'Exists', effect: 'NoSchedule' },
        ],
        containers: [{ name: 'http-go', image: 'gasbugs/http-go' }],
      },
    },
  },
} as unknown as DaemonSet;

/** What the simulated kubelet writes once the pod's container runs and is ready (status/generate.ts). */
function runningStatus(pod: Pod, i: number): PodStatus {
  const now = rfc3339(new Date());
  const ip = `10.244.${i >> 8}.${(i & 255) + 1}`;
  const cond = (type: string) => ({ type, status: 'True', lastTransitionTime: now });
  return {
    phase: 'Running',
    conditions: [cond('PodReadyToStartContainers'), cond('Initialized'), cond('Ready'), cond('ContainersReady'), cond('PodScheduled')],
    hostIP: `172.16.${i >> 8}.${i & 255}`, hostIPs: [{ ip: `172.16.${i >> 8}.${i & 255}` }],
    podIP: ip, podIPs: [{ ip }], startTime: now, qosClass: pod.status?.qosClass,
    containerStatuses: [{
      containerID: `containerd://${i.toString(16).padStart(64, '0')}`, image: 'docker.io/gasbugs/http-go:latest',
      imageID: 'docker.io/gasbugs/http-go@sha256:0000000000000000000000000000000000000000000000000000000000000000',
      lastState: {}, name: 'http-go', ready: true, restartCount: 0, started: true, state: { running: { startedAt: now } },
    }],
  };
}

async function runRound(work: string, cliPath: string, label: string, round: number, pods: number, concurrency: number, body: Body): Promise<Round> {
  const dataDir = join(work, `${label.replace(/\W+/g, '-')}-${round}`);
  const server = await startServer({ cliPath, dataDir, serverArgs: ['--controllers', 'none'], nodeArgs: process.env.K8TS_BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) });
  const controller = new Clientset(loadKubeconfig(join(dataDir, 'admin.conf')), { qps: 0, userAgent: 'kube-controller-manager/v1.32.0 (linux/amd64) kubernetes/daemon-set-controller' });
  const kubelet = new Clientset(loadKubeconfig(join(dataDir, 'admin.conf')), { qps: 0, userAgent: 'kubelet/v1.32.0 (linux/amd64) kubernetes' });
  try {
    const template = createPodTemplate(httpGo.spec!.template, 1, '6d4c8b9f7');
    const created: Pod[] = new Array(pods);
    await forEachLimit(Array.from({ length: pods }, (_, i) => i), concurrency, async (i) => {
      const pod = newDaemonPod(httpGo, template, `node-${i}`);
      pod.spec!.nodeName = `node-${i}`;
      // Names of its own: 3,000 generated names of five characters may collide (a 409 ends the run).
      pod.metadata!.name = `http-go-${i}`;
      delete pod.metadata!.generateName;
      created[i] = await controller.pods.create('default', pod);
    });
    const latencies: number[] = [];
    const cpu0 = readCpuMs(server.pid);
    const main0 = readThreadCpuMs(server.pid);
    const t0 = process.hrtime.bigint();
    await forEachLimit(Array.from({ length: pods }, (_, i) => i), concurrency, async (i) => {
      const pod = created[i]!;
      const t = process.hrtime.bigint();
      await kubelet.pods.updateStatus(bodyOf[body](pod, runningStatus(pod, i)));
      latencies.push(msSince(t));
    });
    const wallMs = msSince(t0);
    const r: Round = {
      label, round, writes: pods, bodyBytes: Buffer.byteLength(JSON.stringify(bodyOf[body](created[0]!, runningStatus(created[0]!, 0)))),
      cpuMsPer: (readCpuMs(server.pid) - cpu0) / pods, mainCpuMsPer: (readThreadCpuMs(server.pid) - main0) / pods,
      perSec: pods / (wallMs / 1000), p50: percentile(latencies, 50), p99: percentile(latencies, 99), load: loadavg()[0],
    };
    log(`${label} round ${round}: ${r.bodyBytes} bytes a body, ${r.cpuMsPer.toFixed(3)} ms CPU per status write (main ${r.mainCpuMsPer.toFixed(3)}), ${r.perSec.toFixed(0)}/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, load ${r.load.toFixed(1)}`);
    return r;
  } finally {
    controller.close();
    kubelet.close();
    await server.stop();
  }
}

async function main(): Promise<void> {
  const { values } = benchArgs('Server CPU per PUT pods/status.', {
    options: {
      pods: { type: 'string', default: '3000' },
      concurrency: { type: 'string', default: '64' },
      rounds: { type: 'string', default: '3' },
      'cli-b': { type: 'string' },
      'label-b': { type: 'string', default: 'other build' },
      bodies: { type: 'string' },
      write: { type: 'boolean', default: false },
    },
  });
  const pods = Number(values.pods);
  const concurrency = Number(values.concurrency);
  const rounds = Number(values.rounds);
  const cli = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
  const bodies = (values.bodies ?? 'returned').split(',') as Body[];
  for (const b of bodies) if (!(b in bodyOf)) throw new Error(`--bodies: unknown body ${b} (returned, no-managed-fields, kubelet)`);
  const builds: { label: string; cli: string; body: Body }[] = values.bodies
    ? bodies.map((body) => ({ label: `this build, ${body} body`, cli, body }))
    : [{ label: 'this build', cli, body: 'returned' }];
  if (values['cli-b']) builds.push({ label: values['label-b']!, cli: values['cli-b'], body: bodies[0]! });
  const work = mkdtempSync(join(tmpdir(), 'k8ts-bench-podstatus-'));
  const command = `node ${relative(repoRoot, process.argv[1])} ${process.argv.slice(2).join(' ')}`.trim();
  const results: Round[] = [];
  try {
    for (let round = 1; round <= rounds; round++) {
      // Alternate which build goes first, so neither always runs on the warmer machine.
      const order = round % 2 ? builds : [...builds].reverse();
      for (const b of order) results.push(await runRound(work, b.cli, b.label, round, pods, concurrency, b.body));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const rows = builds.map((b) => {
    const rs = results.filter((r) => r.label === b.label);
    const med = (f: (r: Round) => number) => median(rs.map(f));
    return [b.label, String(rs.length), String(rs[0]?.bodyBytes ?? ''), `**${med((r) => r.cpuMsPer).toFixed(3)}** (${rs.map((r) => r.cpuMsPer.toFixed(3)).join(', ')})`,
      `${med((r) => r.mainCpuMsPer).toFixed(3)} (${rs.map((r) => r.mainCpuMsPer.toFixed(3)).join(', ')})`, med((r) => r.perSec).toFixed(0),
      `${med((r) => r.p50).toFixed(1)} ms`, `${med((r) => r.p99).toFixed(1)} ms`, rs.map((r) => r.load.toFixed(1)).join(', ')];
  });
  const md = [
    '## Pod status write: server CPU per PUT pods/status (bench/pod-status.ts, issue #20)',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${machineLine()}`,
    `- Revision: ${revisionLine(repoRoot)}`,
    `- Command: \`${command}\``,
    `- Setup: per round a fresh \`k8ts server --controllers none\` (SQLite, HTTPS); ${pods} DaemonSet pods (bench/daemonset.ts's http-go, as the controller builds them) created already bound; `
      + `then one PUT pods/status each from the object its create returned (Pending to Running and Ready, as the simulated kubelet writes it; body: ${bodies.join(', ')}), ${concurrency} in flight, one keep-alive client. `
      + 'CPU = user + system of the server process over the writes / writes; main = its main thread (the serving loop) alone. Builds alternate within each round.',
    '',
    table(['Server build', 'Rounds', 'Body bytes', 'Server CPU ms per status write, median (rounds)', 'Main thread ms per write (rounds)', 'Writes/s', 'p50', 'p99', 'Load avg (1 min) per round'], rows),
  ].join('\n');
  console.log(`\n${md}`);
  if (values.write) writeSection(resultsFile, 'pod-status', md);
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
