/**
 * CPU to decode the watch events a DaemonSet rollout sends the control loops' informers, parsed
 * whole then stripped of managedFields (as before) or parsed without them
 * (src/client/skip-managed-fields.ts), then pooled as the control loops' transform does.
 *
 * The events are real: a fresh `k8ts server --controllers none`, N DaemonSet-style pods
 * (bench/lib/pods.ts) created, bound and given a Ready status as the scheduler and the simulated
 * kubelet write them (three events a pod), and N node Leases created and renewed once (two
 * events each), all read back through a pod watch and a Lease watch. Each event's text is what
 * the server sent (re-serialized in the same key order). Rounds alternate the two decoders;
 * CPU is this process's user + system time per event (process.cpuUsage), medians of the rounds.
 *
 *   node dist/bench/watch-decode.js [--pods 150] [--rounds 7] [--repeat 20]   (PROGRESS=1: count the captured events)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { startServer } from './lib/server.js';
import { daemonSetPod } from './lib/pods.js';
import { Clientset, loadKubeconfig, stripManagedFields } from '../src/client/index.js';
import type { WatchEvent } from '../src/client/index.js';
import { skipManagedFields } from '../src/client/skip-managed-fields.js';
import { StringPool } from '../src/util/intern.js';
import { benchArgs } from './lib/args.js';

const { values: args } = benchArgs('CPU to decode the watch events of a DaemonSet rollout, with and without managedFields.', { options: { pods: { type: 'string', default: '150' }, rounds: { type: 'string', default: '7' }, repeat: { type: 'string', default: '20' } } });
const n = Number(args.pods);
const rounds = Number(args.rounds);
const repeat = Number(args.repeat);
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

async function capture(clients: Clientset, resource: 'pods' | 'leases', namespace: string, want: number, write: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  let done!: () => void;
  let fail!: (e: Error) => void;
  const all = new Promise<void>((r, j) => { done = r; fail = j; });
  const handle = await clients.resource(resource).watch(namespace, { resourceVersion: '0' }, (e: WatchEvent) => {
    if (e.type === 'BOOKMARK') return;
    lines.push(JSON.stringify(e));
    if (process.env.PROGRESS && lines.length % 25 === 0) console.error(resource, lines.length, 'of', want);
    if (lines.length >= want) done();
  });
  // A stream the server ends early fails the run instead of waiting for events that will not come.
  void handle.done.then(() => { if (lines.length < want) fail(new Error(`${resource} watch ended after ${lines.length} of ${want} events`)); });
  // A stream that stops short fails the run rather than waiting forever.
  const stall = setTimeout(() => fail(new Error(`${resource}: ${lines.length} of ${want} events after 120 s`)), 120_000);
  try {
    await Promise.all([write(), all]);
  } finally {
    clearTimeout(stall);
  }
  handle.close();
  return lines;
}

async function writePods(clients: Clientset): Promise<void> {
  for (let i = 0; i < n; i++) {
    const name = `p-${i}`;
    await clients.pods.create('default', daemonSetPod('default', name, `node-${i}`));
    await clients.pods.createSub('default', name, 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { kind: 'Node', name: `node-${i}` } });
    const live = (await clients.pods.get('default', name)) as Pod;
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const pod: Pod = { ...live, metadata: { ...live.metadata, managedFields: undefined } };
    (pod as { status: Pod['status'] }).status = {
      ...pod.status, phase: 'Running', hostIP: '10.0.0.1', podIP: '10.244.0.5', startTime: now,
      conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastTransitionTime: now })),
      containerStatuses: [{ name: 'node-exporter', ready: true, restartCount: 0, started: true, image: 'prom/node-exporter:v1.8.2', imageID: 'sha256:0', containerID: 'containerd://0', state: { running: { startedAt: now } } }],
    };
    await clients.pods.updateStatus(pod);
  }
}

async function writeLeases(clients: Clientset): Promise<void> {
  const leases = clients.resource('leases');
  for (let i = 0; i < n; i++) {
    const lease: Lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: `node-${i}`, namespace: 'kube-node-lease' }, spec: { holderIdentity: `node-${i}`, leaseDurationSeconds: 40, renewTime: new Date().toISOString().replace('Z', '000Z') } };
    const created = (await leases.create('kube-node-lease', lease)) as Lease;
    // The renewal's time a second on: a renewal in the create's millisecond would be the same
    // object, an update that writes nothing and sends no event (as upstream's), and the capture
    // would wait for it (seen at --pods 300).
    const renewTime = new Date(Date.parse(lease.spec!.renewTime!) + 1000).toISOString().replace('Z', '000Z');
    await leases.update({ ...created, metadata: { ...created.metadata, managedFields: undefined }, spec: { ...created.spec, renewTime } });
  }
}

type Decoder = (line: string) => unknown;
const pool = new StringPool();
const whole: Decoder = (line) => { const e = JSON.parse(line); pool.internAll(stripManagedFields(e.object)); return e; };
const skipping: Decoder = (line) => { const e = JSON.parse(skipManagedFields(line)); pool.internAll(stripManagedFields(e.object)); return e; };

function cpuUsPerEvent(lines: string[], decode: Decoder): number {
  const start = process.cpuUsage();
  let keep = 0;
  for (let r = 0; r < repeat; r++) for (const l of lines) if (decode(l)) keep++;
  const used = process.cpuUsage(start);
  if (keep !== lines.length * repeat) throw new Error('lost events');
  return (used.user + used.system) / keep;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-bench-watch-decode-'));
  const server = await startServer({ cliPath: join(repoRoot, 'dist', 'src', 'cli', 'main.js'), dataDir, serverArgs: ['--controllers', 'none'] });
  const clients = new Clientset(loadKubeconfig(join(dataDir, 'admin.conf')), { qps: 0 });
  try {
    const sets: [string, string[]][] = [
      ['pod events (create, binding, status)', await capture(clients, 'pods', 'default', 3 * n, () => writePods(clients))],
      ['Lease events (create, renew)', await capture(clients, 'leases', 'kube-node-lease', 2 * n, () => writeLeases(clients))],
    ];
    if (process.env.DUMP) writeFileSync(process.env.DUMP, JSON.stringify(sets));
    for (const [name, lines] of sets) {
      for (const l of lines) if (JSON.stringify(whole(l)) !== JSON.stringify(skipping(l))) throw new Error(`decoders differ on ${l}`);
      const a: number[] = [];
      const b: number[] = [];
      for (let r = 0; r < rounds; r++) { a.push(cpuUsPerEvent(lines, whole)); b.push(cpuUsPerEvent(lines, skipping)); }
      const bytes = lines.reduce((s, l) => s + l.length, 0) / lines.length;
      const cut = lines.reduce((s, l) => s + skipManagedFields(l).length, 0) / lines.length;
      console.log(`| ${name} | ${lines.length} | ${bytes.toFixed(0)} → ${cut.toFixed(0)} | ${median(a).toFixed(1)} | ${median(b).toFixed(1)} | ${(median(a) / median(b)).toFixed(2)}× |`);
    }
  } finally {
    clients.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
