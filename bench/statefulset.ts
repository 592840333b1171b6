/**
 * StatefulSet benchmark: a fresh `k8ts server`, the StatefulSet controller in
 * this process, and simulated nodes (a small pod simulator that binds each
 * new pod to a node round-robin, reports it Running and Ready after a
 * readiness delay, and finishes terminating pods). Measures, from
 * `create` of the StatefulSet to status.readyReplicas == replicas:
 *   1. 500 replicas, Parallel (issue target: under 10 s);
 *   2. 50 replicas, OrderedReady with a readiness delay D: bounded below by
 *      50 x D; the rest, per pod, is the overhead of the controller, the API
 *      server and the simulated kubelet together (target: at most 50 ms).
 * The server's and this process's CPU time are reported too.
 *
 *   node dist/bench/statefulset.js [--parallel 500] [--ordered 50] [--delay-ms 100] [--nodes 10] [--runs 3] [--write]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, readCpuMs, type ServerProcess } from './lib/server.js';
import { machineLine, revisionLine, table, writeSection } from './lib/results.js';
import { median, msSince } from './lib/stats.js';
import { Clientset, EventRecorder, InformerFactory, Informer, loadKubeconfig, isConflict, isNotFound } from '../src/client/index.js';
import type { Controller } from '../src/controllers/types.js';
import { defaultControllerConfig } from '../src/controllers/types.js';
import { statefulSetController } from '../src/controllers/statefulset/index.js';
import { silentLogger } from '../src/util/log.js';
import { realClock, rfc3339 } from '../src/util/clock.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cliPath = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');

const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);

/** Binds pods round-robin, makes them Ready after `readyDelayMs`, deletes terminating pods. */
class PodSimulator {
  readyDelayMs = 0;
  private next = 0;
  private readonly seen = new Set<string>();
  private readonly informers: InformerFactory;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly clients: Clientset, private readonly nodes: string[]) {
    this.informers = new InformerFactory(clients);
    const pods: Informer = this.informers.informer('pods');
    pods.addEventHandler({ add: (p) => this.handle(p), update: (_o, p) => this.handle(p) });
  }

  async start(): Promise<void> {
    const now = rfc3339(new Date());
    await Promise.all(this.nodes.map((name) => this.clients.nodes.create(undefined, {
      metadata: { name, labels: { 'kubernetes.io/hostname': name } },
      status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: now, lastTransitionTime: now }] },
    })));
    this.informers.start();
    await this.informers.waitForSync();
  }

  stop(): void {
    this.informers.stop();
    for (const t of this.timers) clearTimeout(t);
  }

  /** Milestones (ms since `mark()`): pods seen created, bound, made Ready; reaction times of the controller. */
  private t0 = process.hrtime.bigint();
  created: number[] = [];
  bound: number[] = [];
  readied: number[] = [];
  private lastReadyAt?: number;
  /** For each pod after the first: its Ready write finishing to the next pod's creation seen (OrderedReady). */
  reactions: number[] = [];

  mark(): void {
    this.t0 = process.hrtime.bigint();
    this.created = []; this.bound = []; this.readied = []; this.reactions = []; this.lastReadyAt = undefined;
  }

  private handle(pod: any): void {
    const { namespace, name, uid } = pod.metadata;
    if (!this.seen.has(`a/${uid}`)) {
      this.seen.add(`a/${uid}`);
      const t = msSince(this.t0);
      this.created.push(t);
      if (this.lastReadyAt !== undefined) { this.reactions.push(t - this.lastReadyAt); this.lastReadyAt = undefined; }
    }
    if (pod.spec.nodeName && !this.seen.has(`n/${uid}`)) { this.seen.add(`n/${uid}`); this.bound.push(msSince(this.t0)); }
    const swallow = (e: unknown) => { if (!isNotFound(e) && !isConflict(e)) log(`simulator: ${(e as Error).message}`); };
    if (pod.metadata.deletionTimestamp) {
      if (this.seen.has(`d/${uid}`)) return;
      this.seen.add(`d/${uid}`);
      this.clients.pods.delete(namespace, name, { gracePeriodSeconds: 0, preconditions: { uid } }).catch(swallow);
      return;
    }
    if (!pod.spec.nodeName) {
      if (this.seen.has(`b/${uid}`)) return;
      this.seen.add(`b/${uid}`);
      const node = this.nodes[this.next++ % this.nodes.length];
      this.clients.pods.createSub(namespace, name, 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { apiVersion: 'v1', kind: 'Node', name: node } })
        .catch(swallow);
      return;
    }
    if (pod.status?.phase !== 'Pending' || this.seen.has(`r/${uid}`)) return;
    this.seen.add(`r/${uid}`);
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.setReady(pod).then(() => { const at = msSince(this.t0); this.readied.push(at); this.lastReadyAt = at; }, swallow);
    }, this.readyDelayMs);
    this.timers.add(t);
  }

  private async setReady(pod: any): Promise<void> {
    const now = rfc3339(new Date());
    const cond = (type: string) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: now });
    const status = {
      ...pod.status, phase: 'Running', hostIP: '10.0.0.1', podIP: '10.244.0.2', startTime: now,
      conditions: [cond('Initialized'), cond('Ready'), cond('ContainersReady'), cond('PodScheduled')],
      containerStatuses: pod.spec.containers.map((c: any) => ({ name: c.name, image: c.image, imageID: '', ready: true, started: true, restartCount: 0, state: { running: { startedAt: now } } })),
    };
    // Status is the kubelet's alone: write it without a precondition, as a merge patch.
    await this.clients.pods.patch(pod.metadata.namespace, pod.metadata.name, { metadata: { uid: pod.metadata.uid }, status }, 'merge', 'status');
  }
}

function statefulSet(name: string, replicas: number, policy: 'Parallel' | 'OrderedReady'): any {
  return {
    apiVersion: 'apps/v1', kind: 'StatefulSet',
    metadata: { name },
    spec: {
      replicas, serviceName: name, podManagementPolicy: policy,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } },
    },
  };
}

interface Run {
  ms: number; controllerCpuMs: number; serverCpuMs: number;
  /** When the last pod was seen created, bound and made Ready (ms after the create). */
  lastCreated: number; lastBound: number; lastReady: number;
  /** OrderedReady: median time from a pod's Ready write to the next pod's creation seen. */
  reaction: number;
}

/** Creates the set and waits until every replica is Ready; then deletes it and its pods. */
async function timeToReady(env: Env, name: string, replicas: number, policy: 'Parallel' | 'OrderedReady'): Promise<Run> {
  const ns = 'default';
  const serverCpu = readCpuMs(env.server.pid);
  const selfCpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  env.sim.mark();
  const done = new Promise<void>((resolve) => {
    const check = (s: any) => { if (s.metadata.name === name && (s.status?.readyReplicas ?? 0) >= replicas) resolve(); };
    env.sets.addEventHandler({ add: check, update: (_o, s) => check(s) });
  });
  await env.clients.statefulsets.create(ns, statefulSet(name, replicas, policy));
  await done;
  const ms = msSince(started);
  const cpu = process.cpuUsage(selfCpu);
  const last = (xs: number[]) => (xs.length ? Math.max(...xs) : NaN);
  const run: Run = {
    ms, controllerCpuMs: (cpu.user + cpu.system) / 1000, serverCpuMs: readCpuMs(env.server.pid) - serverCpu,
    lastCreated: last(env.sim.created), lastBound: last(env.sim.bound), lastReady: last(env.sim.readied), reaction: median(env.sim.reactions),
  };
  // Clean up: scale to zero (the simulator finishes the pods), then delete the set and its revisions.
  await env.clients.statefulsets.patch(ns, name, { spec: { replicas: 0 } });
  for (;;) {
    const left = (await env.clients.pods.list(ns, { labelSelector: `app=${name}` })).items.length;
    if (!left) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await env.clients.statefulsets.delete(ns, name);
  for (const r of (await env.clients.controllerrevisions.list(ns, { labelSelector: `app=${name}` })).items) {
    await env.clients.controllerrevisions.delete(ns, r.metadata.name).catch(() => undefined);
  }
  return run;
}

interface Env { server: ServerProcess; clients: Clientset; sets: Informer; sim: PodSimulator }

async function main(): Promise<void> {
  const { values } = benchArgs('StatefulSet rollout with simulated nodes: parallel and ordered pod management.', {
    options: {
      parallel: { type: 'string', default: '500' },
      ordered: { type: 'string', default: '50' },
      'delay-ms': { type: 'string', default: '100' },
      nodes: { type: 'string', default: '10' },
      runs: { type: 'string', default: '3' },
      write: { type: 'boolean', default: false },
    },
  });
  const parallel = Number(values.parallel);
  const ordered = Number(values.ordered);
  const delayMs = Number(values['delay-ms']);
  const runs = Number(values.runs);
  const work = mkdtempSync(join(tmpdir(), 'k8ts-bench-sts-'));
  const server = await startServer({ cliPath, dataDir: work, serverArgs: ['--controllers', 'none'] });
  const config = loadKubeconfig(join(work, 'admin.conf'));
  const clients = new Clientset(config, { qps: 0 });
  const simClients = new Clientset(config, { qps: 0 });
  const sim = new PodSimulator(simClients, Array.from({ length: Number(values.nodes) }, (_, i) => `sim-node-${i}`));
  const informers = new InformerFactory(clients);
  const controller: Controller = statefulSetController({
    clients, informers, logger: silentLogger, clock: realClock, config: defaultControllerConfig,
    recorder: (c) => new EventRecorder(clients, c),
  });
  const watchInformers = new InformerFactory(new Clientset(config, { qps: 0 }));
  const sets = watchInformers.informer('statefulsets');
  try {
    await sim.start();
    informers.start();
    watchInformers.start();
    await Promise.all([informers.waitForSync(), watchInformers.waitForSync()]);
    controller.run();
    const env: Env = { server, clients, sets, sim };

    const par: Run[] = [];
    sim.readyDelayMs = 0;
    for (let i = 0; i < runs; i++) {
      par.push(await timeToReady(env, `par-${i}`, parallel, 'Parallel'));
      log(`Parallel ${parallel}: ${par[i].ms.toFixed(0)} ms (all created ${par[i].lastCreated.toFixed(0)}, bound ${par[i].lastBound.toFixed(0)}, Ready ${par[i].lastReady.toFixed(0)} ms)`);
    }
    const ord: Run[] = [];
    sim.readyDelayMs = delayMs;
    for (let i = 0; i < runs; i++) {
      ord.push(await timeToReady(env, `ord-${i}`, ordered, 'OrderedReady'));
      log(`OrderedReady ${ordered} (delay ${delayMs} ms): ${ord[i].ms.toFixed(0)} ms, overhead ${((ord[i].ms - ordered * delayMs) / ordered).toFixed(1)} ms/pod, controller reaction ${ord[i].reaction.toFixed(1)} ms`);
    }

    const med = (rs: Run[], f: (r: Run) => number) => median(rs.map(f));
    const parMs = med(par, (r) => r.ms);
    const ordMs = med(ord, (r) => r.ms);
    const overhead = (ordMs - ordered * delayMs) / ordered;
    const body = [
      '## StatefulSet controller',
      '',
      `Command: \`node dist/bench/statefulset.js --parallel ${parallel} --ordered ${ordered} --delay-ms ${delayMs} --nodes ${values.nodes} --runs ${runs} --write\``,
      `Machine: ${machineLine()}. Revision: ${revisionLine(repoRoot)}.`,
      '',
      'Create of the StatefulSet to status.readyReplicas == replicas; the controller and a pod simulator (binds round-robin to simulated',
      'nodes, reports Running and Ready after the readiness delay) run in the benchmark process against a fresh `k8ts server`. Medians of',
      `${runs} runs; CPU is the whole run (controller and simulator share this process).`,
      '',
      table(['Case', 'Time to Ready', 'Target', 'Milestones', 'Server CPU', 'Bench process CPU'], [
        [`${parallel} replicas, Parallel, readiness delay 0`, `${(parMs / 1000).toFixed(2)} s`, '< 10 s',
          `all created ${(med(par, (r) => r.lastCreated) / 1000).toFixed(2)} s, bound ${(med(par, (r) => r.lastBound) / 1000).toFixed(2)} s, Ready ${(med(par, (r) => r.lastReady) / 1000).toFixed(2)} s`,
          `${(med(par, (r) => r.serverCpuMs) / 1000).toFixed(2)} s`, `${(med(par, (r) => r.controllerCpuMs) / 1000).toFixed(2)} s`],
        [`${ordered} replicas, OrderedReady, readiness delay ${delayMs} ms`, `${(ordMs / 1000).toFixed(2)} s`, '≤ 50 ms controller overhead per pod',
          `controller reaction ${med(ord, (r) => r.reaction).toFixed(1)} ms per pod; all overhead ${overhead.toFixed(1)} ms per pod`,
          `${(med(ord, (r) => r.serverCpuMs) / 1000).toFixed(2)} s`, `${(med(ord, (r) => r.controllerCpuMs) / 1000).toFixed(2)} s`],
      ]),
      '',
      'Controller reaction: from the simulated kubelet\'s Ready write of pod n returning to pod n+1 appearing in its watch (the controller',
      'seeing Ready, planning, creating the pod, plus two watch deliveries). All overhead = (time - replicas x delay) / replicas, which adds',
      'the simulated kubelet\'s own binding and status round trips.',
    ].join('\n');
    console.log(`\n${body}\n`);
    if (values.write) writeSection(resultsFile, 'statefulset', body);
  } finally {
    controller.stop();
    informers.stop();
    watchInformers.stop();
    sim.stop();
    clients.close();
    simClients.close();
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
