/**
 * CPU per pod create in the registry's store, without HTTP: what the serving loop does for a
 * create between decoding the body and writing the answer (defaults, managed fields, omitempty
 * zeros, validation, the stored JSON's encode, the SQLite transaction, the watch cache's apply of
 * the event, the answer's JSON). 16 creates in flight at a time, as 16 clients keep the server
 * busy; each body is the side-by-side pod, parsed fresh per create, and an admission hook adds
 * what the server's pod admission adds (the service account's token volume with its random
 * suffix and mount, the default tolerations, the priority: the plugins themselves and their
 * informers are the API server's, not measured here). SQLite in memory (no fsync: this thread's work
 * alone); CPU is process.cpuUsage per create over the batches after the first five; medians of
 * the batches, then of the rounds. In a fresh process per build and round; with `--baseline-dist`
 * another build runs the same rounds, interleaved with this one's, the order alternating by round.
 *
 *   node dist/bench/store-create-cpu.js [--rounds 6] [--batches 25] [--batch 2000] [--baseline-dist /tmp/base/dist]
 *
 * Prints a Markdown table; results are copied into bench/RESULTS.md by hand.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { median } from './lib/stats.js';
import { buildRoundsMain } from './lib/builds-in-children.js';

const inFlight = 16;

interface PodStore { create(ns: string, body: unknown, opts: object): Promise<object> }
interface RegistryLike {
  namespaces: { create(ns: undefined, body: unknown): Promise<unknown> };
  store(group: string, version: string, plural: string): PodStore | undefined;
  startWatchCache(opts: { capacity: number }): Promise<void>;
  useNamespaceCache(lister: unknown): void;
}

/** side-by-side.ts's pod, as its clients send it. */
const body = (name: string) => JSON.stringify({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { load: 'yes' } },
  spec: { containers: [{ name: 'c', image: 'busybox' }], schedulerName: 'no-such-scheduler' },
});

/** What the server's pod admission adds to it: the service account and its token volume, the default tolerations, the priority. */
function admitter(mountServiceAccountToken: (pod: Pod) => void) {
  return (op: string, info: { plural: string }, pod: Pod) => {
    if (op !== 'create' || info.plural !== 'pods') return;
    const spec = pod.spec!;
    spec.serviceAccountName ??= 'default';
    mountServiceAccountToken(pod);
    spec.tolerations = [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ];
    spec.priority = 0;
    spec.preemptionPolicy = 'PreemptLowerPriority';
  };
}

async function child(dist: string, batches: number, batch: number): Promise<number> {
  const load = async <T>(path: string) => await import(pathToFileURL(join(dist, 'src', path)).href) as T;
  const { Registry } = await load<{ Registry: new (backend: unknown, clock: unknown, admit: unknown) => RegistryLike }>('registry/registry.js');
  const { mountServiceAccountToken } = await load<{ mountServiceAccountToken(pod: Pod): void }>('apiserver/admission/serviceaccount.js');
  const { openSqliteBackend } = await load<{ openSqliteBackend(path: string, opts: object): { close(): Promise<void> } }>('storage/sqlite/index.js');
  const { realClock } = await load<{ realClock: unknown }>('util/clock.js');
  const { silentLogger } = await load<{ silentLogger: unknown }>('util/log.js');
  const { renderedJSON } = await load<{ renderedJSON(o: object): string }>('registry/watch-cache/rendered-json.js');
  const backend = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: silentLogger });
  const registry = new Registry(backend, realClock, admitter(mountServiceAccountToken));
  await registry.startWatchCache({ capacity: 1000 });
  await registry.namespaces.create(undefined, { metadata: { name: 'load' } });
  // NamespaceLifecycle reads a watch-fed lister, as the server's (cli/control-plane.ts): no storage read per create.
  const { Lister } = await load<{ Lister: new (store: unknown) => { start(): Promise<void> } }>('registry/lister.js');
  const namespaces = new Lister(registry.namespaces);
  await namespaces.start();
  registry.useNamespaceCache(namespaces);
  const pods = registry.store('', 'v1', 'pods')!;
  const perCreate: number[] = [];
  let answered = 0;
  for (let b = 0; b < batches; b++) {
    const bodies = Array.from({ length: batch }, (_, i) => body(`p-${b}-${i}`));
    let next = 0;
    const client = async () => {
      while (next < bodies.length) {
        const text = bodies[next++]!;
        const created = await pods.create('load', JSON.parse(text), { fieldManager: { manager: 'kubectl' }, resultShared: true, inputOwned: true });
        answered += renderedJSON(created).length;
      }
    };
    const t0 = process.cpuUsage();
    await Promise.all(Array.from({ length: inFlight }, client));
    const t = process.cpuUsage(t0);
    if (b >= 5) perCreate.push((t.user + t.system) / batch);
  }
  await backend.close();
  if (answered === 0) throw new Error('no answers');
  return median(perCreate);
}

await buildRoundsMain({
  script: import.meta.url, description: 'CPU per pod create in the registry\'s store (SQLite in memory, the watch cache on), in a fresh process per build and round.',
  defaults: { rounds: '6', batches: '25', batch: '2000' }, child,
  title: 'store-create-cpu', column: 'CPU µs per create (median)', digits: 1, unit: 'creates',
});
