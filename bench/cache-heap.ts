/**
 * The serving isolate's memory per cached pod, in process (issue #20; the scratch of
 * bench/RESULTS.md `memsrv-2026-12-06`, kept): a Registry on SQLite in memory with its watch
 * cache, `--pods` Running pods (a DaemonSet's pod body with the service-account token volume's
 * random name, created through the store, then one status write as a kubelet's), then the
 * cache's sweep run until nothing more goes cold (builds with cold pods; others have none),
 * and full GCs. Memory is V8's heap used plus the array buffers (where cold pods' bytes live:
 * outside the heap, but memory all the same), measured at `--pods` and at `--more` pods: the
 * marginal bytes per pod between them. Then CPU, each over every pod or `--ops` of them:
 *  - the sweep that made them cold (none in a build without cold pods), per pod;
 *  - a list of all pods as JSON text from the cache (resourceVersion=0), per pod;
 *  - `kubectl get pods -A`'s pages of 500 (the first from the cache, the rest from storage by
 *    their continue token), per pod;
 *  - the cache's copy of a pod an update starts from (WatchCache.current) and a status write of
 *    a pod nobody touched since the sweep (cold in a build with cold pods), per call.
 * Each build runs in a fresh child process (`node --expose-gc`), the builds alternating by round.
 *
 *   node dist/bench/cache-heap.js [--pods 10000] [--more 30000] [--rounds 3] [--ops 500] [--baseline-dist /tmp/base/dist]
 *
 * Prints a Markdown table; results are copied into bench/RESULTS.md by hand.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { benchArgs } from './lib/args.js';
import { daemonSetPod } from './lib/pods.js';
import { median } from './lib/stats.js';
import { table } from './lib/results.js';
import { thisDist } from './lib/builds-in-children.js';

interface Figures { perPodAtN: number; marginal: number; heapMiB: number; sweepUs: number; listUs: number; pagesUs: number; currentUs: number; statusWriteUs: number; cold: number }

/** What the benchmark reads of a cache's insides (both builds have them; coldSweep only with cold pods). */
interface CacheInsides { objects: Map<string, unknown>; coldSweep?: { turnedAt: number } }

async function child(dist: string, n: number, more: number, ops: number): Promise<Figures> {
  const load = (p: string) => import(pathToFileURL(join(dist, 'src', ...p.split('/'))).href);
  // Another build's modules, loaded by path: typed as this checkout's.
  const { Registry } = await load('registry/registry.js') as typeof import('../src/registry/registry.js');
  const { openSqliteBackend } = await load('storage/sqlite/index.js') as typeof import('../src/storage/sqlite/index.js');
  const { realClock } = await load('util/clock.js') as typeof import('../src/util/clock.js');
  const { silentLogger } = await load('util/log.js') as typeof import('../src/util/log.js');
  const backend = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: silentLogger });
  const registry = new Registry(backend, realClock);
  await registry.startWatchCache({ capacity: 1024, logger: silentLogger });
  await registry.namespaces.create(undefined, { metadata: { name: 'bench' } });
  const pods = registry.store('', 'v1', 'pods')!;
  const cache = pods.watchCache!;
  const insides = cache as unknown as CacheInsides;
  // Every pod untouched over two turns of the sweep's generations goes cold (a build without cold pods: nothing).
  const sweepAll = () => {
    if (typeof cache.sweepCold !== 'function' || !insides.coldSweep) return;
    for (let turn = 0; turn < 2; turn++) { insides.coldSweep.turnedAt = -Infinity; while (cache.sweepCold(Infinity) > 0); }
  };
  let sweepCpu = 0;
  const make = async (from: number, to: number) => {
    for (let i = from; i < to; i++) await pods.create('bench', podBody(i));
    for (let i = from; i < to; i++) await pods.guaranteedUpdate('bench', `p-${i}`, (p: Pod) => ({ ...p, status: running(i) }), { subresource: 'status' });
    await cache.waitFor(Number(await backend.currentRevision()), 60_000);
    const t0 = process.cpuUsage();
    sweepAll();
    const t = process.cpuUsage(t0);
    sweepCpu += t.user + t.system;
  };
  const used = () => {
    for (let i = 0; i < 4; i++) (globalThis as { gc?: () => void }).gc!();
    const m = process.memoryUsage();
    if (process.env.CACHE_HEAP_DEBUG) console.error(JSON.stringify({ heapUsed: m.heapUsed, arrayBuffers: m.arrayBuffers, external: m.external, rss: m.rss }));
    return m.heapUsed + m.arrayBuffers;
  };
  const base = used();
  await make(0, n);
  const atN = used();
  await make(n, more);
  const atMore = used();
  // A ColdObject or a subclass of it (a cold pod is a ColdPod since mem12), by name: either build's class.
  const isColdEntry = (o: unknown) => {
    for (let p = Object.getPrototypeOf(o) as object | null; p; p = Object.getPrototypeOf(p) as object | null) if (p.constructor.name === 'ColdObject') return true;
    return false;
  };
  const cold = [...insides.objects.values()].filter(isColdEntry).length;
  const cpu = (f: () => unknown) => { const t0 = process.cpuUsage(); f(); const t = process.cpuUsage(t0); return t.user + t.system; };
  const cpuAsync = async (f: () => Promise<unknown>) => { const t0 = process.cpuUsage(); await f(); const t = process.cpuUsage(t0); return t.user + t.system; };
  const listUs = await cpuAsync(() => pods.listJSON(undefined, { resourceVersion: '0' })) / more;
  const pagesUs = await cpuAsync(async () => {
    let cont: string | undefined;
    do { const page = await pods.listJSON(undefined, { limit: 500, continue: cont }); cont = page.continue; } while (cont);
  }) / more;
  // Pods nobody touched since the sweep: spread over the whole range.
  const picks = Array.from({ length: ops }, (_, k) => Math.floor((k * more) / ops));
  const currentUs = cpu(() => { for (const i of picks) cache.current(`${pods.resourcePrefix}bench/p-${i}`); }) / ops;
  // The sweep again (those just read are touched: they stay), then status writes of other untouched pods.
  sweepAll();
  const statusWriteUs = await cpuAsync(async () => {
    for (const i of picks) await pods.guaranteedUpdate('bench', `p-${i + 1}`, (p: Pod) => ({ ...p, status: { ...p.status, message: 'x' } }), { subresource: 'status' });
  }) / ops;
  registry.closeWatchCache();
  await backend.close();
  return {
    perPodAtN: (atN - base) / n, marginal: (atMore - atN) / (more - n), heapMiB: atMore / 2 ** 20, sweepUs: sweepCpu / more,
    listUs, pagesUs, currentUs, statusWriteUs, cold,
  };
}

/** The DaemonSet pod body with the token volume the service-account admission adds (its random name). */
function podBody(i: number): Pod {
  const pod = daemonSetPod('bench', `p-${i}`, `node-${i % 5000}`) as Pod;
  const volume = `kube-api-access-${Math.random().toString(36).slice(2, 7)}`;
  pod.spec!.nodeName = `node-${i % 5000}`;
  pod.spec!.serviceAccountName = 'default';
  pod.spec!.volumes!.push({ name: volume, projected: { defaultMode: 420, sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }, { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }] } });
  pod.spec!.containers[0]!.volumeMounts!.push({ name: volume, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' });
  return pod;
}

function running(i: number): Pod['status'] {
  const at = new Date(Date.UTC(2026, 11, 6, 12, 0, Math.floor(i / 100))).toISOString().replace('.000', '');
  const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  return {
    phase: 'Running', hostIP: `172.16.${(i % 5000) >> 8}.${(i % 5000) & 255}`, podIP: ip, podIPs: [{ ip }], startTime: at, qosClass: 'Burstable',
    conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastProbeTime: null as unknown as string, lastTransitionTime: at })),
    containerStatuses: [{
      name: 'node-exporter', ready: true, started: true, restartCount: 0, image: 'quay.io/prometheus/node-exporter:v1.8.2',
      imageID: 'quay.io/prometheus/node-exporter@sha256:4032c6d5bfd752342c3e631c2f1de93ba6b86c41db6b167b9a35372c139e7706',
      containerID: `containerd://${randomUUID().replace(/-/g, '')}${randomUUID().replace(/-/g, '')}`, state: { running: { startedAt: at } },
    }],
  };
}

const { values } = benchArgs('The watch cache\'s memory per cached Running pod and the CPU of lists, reads and writes over it, in process, builds interleaved.', {
  options: {
    pods: { type: 'string', default: '10000', help: 'pods at the first measurement' },
    more: { type: 'string', default: '30000', help: 'pods at the second (the marginal pod is between the two)' },
    rounds: { type: 'string', default: '3', help: 'rounds, each build once a round' },
    ops: { type: 'string', default: '500', help: 'reads and status writes timed' },
    'baseline-dist': { type: 'string', help: "another build's dist directory, run in the same rounds" },
    child: { type: 'string', help: '(internal) one round in this process for the build at DIST' },
  },
});
const [n, more, ops] = [Number(values.pods), Number(values.more), Number(values.ops)];
if (values.child) {
  console.log(JSON.stringify(await child(values.child, n, more, ops)));
} else {
  const builds: Array<[string, string]> = [['this checkout', thisDist(import.meta.url)]];
  if (values['baseline-dist']) builds.push(['baseline', values['baseline-dist']]);
  const results = new Map<string, Figures[]>(builds.map(([name]) => [name, []]));
  const loads = [loadavg()[0]!.toFixed(1)];
  for (let r = 0; r < Number(values.rounds); r++) {
    for (const [name, dist] of r % 2 ? [...builds].reverse() : builds) {
      const out = execFileSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child', dist, '--pods', String(n), '--more', String(more), '--ops', String(ops)], { encoding: 'utf8', maxBuffer: 1 << 20 });
      const f = JSON.parse(out.trim().split('\n').pop()!) as Figures;
      results.get(name)!.push(f);
      console.error(`[${new Date().toISOString().slice(11, 19)}] round ${r + 1} ${name}: ${JSON.stringify(f)} load ${loadavg()[0]!.toFixed(1)}`);
      loads.push(loadavg()[0]!.toFixed(1));
    }
  }
  const col = (xs: Figures[], k: keyof Figures, d: number) => `**${median(xs.map((x) => x[k] ?? 0)).toFixed(d)}** (${xs.map((x) => (x[k] ?? 0).toFixed(d)).join(', ')})`;
  console.log(`cache-heap: ${n} -> ${more} Running pods, ${ops} reads/writes timed, load ${loads.join(' -> ')}`);
  console.log(table(
    ['Build', `bytes per pod at ${n}`, `marginal bytes per pod ${n}-${more}`, 'cold pods', 'sweep, µs per pod', `list of all (rv=0), µs per pod`, 'pages of 500, µs per pod', 'current(), µs', 'status write of an untouched pod, µs'],
    [...results].map(([name, xs]) => [name, col(xs, 'perPodAtN', 0), col(xs, 'marginal', 0), String(median(xs.map((x) => x.cold))), col(xs, 'sweepUs', 1), col(xs, 'listUs', 1), col(xs, 'pagesUs', 1), col(xs, 'currentUs', 1), col(xs, 'statusWriteUs', 0)]),
  ));
}
