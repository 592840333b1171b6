/**
 * The managed fields of a create, per object, for what a DaemonSet rollout creates in thousands:
 * the DaemonSet controller's pods (as newDaemonPod builds them, defaulted as the server defaults
 * them before tracking) and the scheduler's Scheduled Events, each for another node. This build
 * beside another (`--base DIR`, a built checkout), in the same process, rounds interleaved.
 *
 *   node dist/bench/create-managed-fields.js [--objects 5000] [--rounds 3] [--base /tmp/base/checkout]
 */
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import { median } from './lib/stats.js';
import { benchArgs } from './lib/args.js';

const here = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Build {
  label: string;
  newDaemonPod: (ds: DaemonSet, template: unknown, node: string) => any;
  createPodTemplate: (t: unknown, gen: number, hash: string) => unknown;
  defaultPod: (pod: unknown) => void;
  updateManagedFields: (live: unknown, next: unknown, ctx: object) => unknown;
}

async function load(root: string, label: string): Promise<Build> {
  const m = (p: string) => import(pathToFileURL(join(root, 'dist', 'src', p)).href);
  const [util, defaults, mf] = await Promise.all([m('controllers/daemonset/util.js'), m('api/defaults/pod.js'), m('api/managedfields/index.js')]);
  return { label, newDaemonPod: util.newDaemonPod, createPodTemplate: util.createPodTemplate, defaultPod: defaults.defaultPod, updateManagedFields: mf.updateManagedFields };
}

const ds: DaemonSet = {
  apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'http-go', namespace: 'default', uid: 'u-1', generation: 1 },
  spec: {
    selector: { matchLabels: { app: 'http-go' } },
    template: { metadata: { labels: { app: 'http-go' } }, spec: { tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }], containers: [{ name: 'http-go', image: 'gasbugs/http-go' }] } },
  },
};

/** ms per create's managed fields, pods and Events, objects built beforehand (not timed). */
function round(b: Build, n: number, salt: string): { podMs: number; eventMs: number } {
  const template = b.createPodTemplate(ds.spec!.template, 1, 'abc');
  const pods = Array.from({ length: n }, (_, i) => {
    const p = b.newDaemonPod(ds, template, `node-${salt}-${i}`);
    Object.assign(p, { apiVersion: 'v1', kind: 'Pod' });
    Object.assign(p.metadata, { name: `http-go-${salt}-${i}`, namespace: 'default' });
    b.defaultPod(p);
    return p;
  });
  const events = Array.from({ length: n }, (_, i) => ({
    apiVersion: 'v1', kind: 'Event', metadata: { name: `http-go-${salt}-${i}.1`, namespace: 'default' },
    involvedObject: { kind: 'Pod', namespace: 'default', name: `http-go-${salt}-${i}`, uid: `uid-${salt}-${i}`, apiVersion: 'v1', resourceVersion: String(i) },
    reason: 'Scheduled', message: `Successfully assigned default/http-go-${salt}-${i} to node-${salt}-${i}`, type: 'Normal', count: 1,
    firstTimestamp: '2026-12-03T15:00:00Z', lastTimestamp: '2026-12-03T15:00:00Z', source: { component: 'default-scheduler' }, reportingComponent: 'default-scheduler',
  }));
  const now = new Date();
  let t = process.hrtime.bigint();
  for (const p of pods) b.updateManagedFields(undefined, p, { kindKey: 'v1/Pod', apiVersion: 'v1', manager: 'kube-controller-manager', now, ignoredFields: ['status'] });
  const podMs = Number(process.hrtime.bigint() - t) / 1e6 / n;
  t = process.hrtime.bigint();
  for (const e of events) b.updateManagedFields(undefined, e, { kindKey: 'v1/Event', apiVersion: 'v1', manager: 'kube-scheduler', now });
  return { podMs, eventMs: Number(process.hrtime.bigint() - t) / 1e6 / n };
}

async function main(): Promise<void> {
  const { values } = benchArgs('Managed fields CPU per create of DaemonSet pods and Scheduled Events.', { options: { objects: { type: 'string', default: '5000' }, rounds: { type: 'string', default: '3' }, base: { type: 'string' } } });
  const n = Number(values.objects);
  const builds = [await load(here, 'this build'), ...(values.base ? [await load(values.base, `base (${values.base})`)] : [])];
  const out = new Map(builds.map((b) => [b.label, { pod: [] as number[], event: [] as number[] }]));
  for (let r = 0; r < Number(values.rounds); r++) {
    for (const b of builds) {
      const { podMs, eventMs } = round(b, n, `${r}`);
      out.get(b.label)!.pod.push(podMs);
      out.get(b.label)!.event.push(eventMs);
      console.log(`round ${r + 1} ${b.label}: ${podMs.toFixed(3)} ms per daemon pod, ${eventMs.toFixed(3)} ms per Scheduled Event (load ${loadavg()[0].toFixed(1)})`);
    }
  }
  for (const [label, v] of out) console.log(`${label}: median ${median(v.pod).toFixed(3)} ms per daemon pod create, ${median(v.event).toFixed(3)} ms per Event create (${v.pod.length} rounds of ${n})`);
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
