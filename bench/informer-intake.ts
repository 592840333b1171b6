/**
 * CPU per pod as the scheduler's informer takes it in (the control loops' informers,
 * cli/controller-manager.ts): each pod of bench/scheduler.ts arrives twice, as the create's ADDED
 * event and the binding's MODIFIED event; each is parsed without managedFields
 * (client/skip-managed-fields.ts) and compacted (util/shared-objects.ts: the ADDED pod beside the
 * pod created before it, the MODIFIED pod beside its previous version). The events are real: a
 * fresh `k8ts server --controllers none` of this checkout creates and binds one scheduler_perf
 * pod-default pod (bench/lib/scheduler-perf-objects.ts) while a watch reads the lines it sends;
 * each measured pod is that pair of lines with its own name, uid, resourceVersion and token
 * volume name, as the service-account admission gives every pod. In a fresh process per build and
 * round: `--batches` batches of `--batch` pods, each batch's events parsed (not timed), then
 * compacted in order (timed, CPU by process.cpuUsage), the pods kept as an informer keeps them;
 * medians of the batches after the first five, then of the rounds. `--parse` times the parse
 * instead. With `--baseline-dist` another build's modules run the same rounds, interleaved.
 *
 *   node dist/bench/informer-intake.js [--rounds 5] [--batches 25] [--batch 2000] [--baseline-dist /tmp/base/dist] [--parse]
 *
 * Prints a Markdown table; results are copied into bench/RESULTS.md by hand.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ApiClient } from './lib/client.js';
import { startServer } from './lib/server.js';
import { median } from './lib/stats.js';
import { buildRoundsMain, thisDist } from './lib/builds-in-children.js';
import { benchNode, benchPod } from './lib/scheduler-perf-objects.js';

const linesFile = process.env.K8TS_BENCH_INTAKE_LINES;
// --parse reaches the children (which get only --child, --batches and --batch) through the environment.
if (process.argv.includes('--parse')) { process.argv.splice(process.argv.indexOf('--parse'), 1); process.env.K8TS_BENCH_INTAKE_PARSE = '1'; }
const timeParse = process.env.K8TS_BENCH_INTAKE_PARSE === '1';

/** The ADDED and MODIFIED lines a pod watch sends for one pod created and bound, from a fresh server of this checkout. */
async function captureLines(): Promise<{ added: string; modified: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-intake-'));
  const server = await startServer({ cliPath: join(thisDist(import.meta.url), 'src', 'cli', 'main.js'), dataDir: dir, serverArgs: ['--controllers', 'none'] });
  try {
    const api = new ApiClient(server.creds, 4);
    const json = { 'content-type': 'application/json' };
    await api.expect(201, 'POST', '/api/v1/namespaces', { body: JSON.stringify({ metadata: { name: 'namespace-2' } }), headers: json });
    await api.expect(201, 'POST', '/api/v1/nodes', { body: benchNode(1), headers: json });
    const url = new URL(server.creds.server);
    const text = await new Promise<string>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: '/api/v1/namespaces/namespace-2/pods?watch=true', ca: server.creds.ca, cert: server.creds.cert, key: server.creds.key });
      req.on('error', reject);
      req.on('response', (res) => {
        let body = '';
        res.on('data', (d: Buffer) => {
          body += d.toString();
          if (body.includes('"type":"MODIFIED"') && body.endsWith('\n')) { resolve(body); req.destroy(); }
        });
        void (async () => {
          await api.expect(201, 'POST', '/api/v1/namespaces/namespace-2/pods', { body: benchPod(0, 'pod', 'namespace-2'), headers: json });
          const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'pod-000000' }, target: { kind: 'Node', name: 'node-00001' } };
          await api.expect(201, 'POST', '/api/v1/namespaces/namespace-2/pods/pod-000000/binding', { body: JSON.stringify(binding), headers: json });
        })().catch(reject);
      });
      req.end();
    });
    const lines = text.split('\n');
    return { added: lines.find((l) => l.startsWith('{"type":"ADDED"'))!, modified: lines.find((l) => l.startsWith('{"type":"MODIFIED"'))! };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The captured pair as pod `i`'s: its own name, uid, resourceVersions and token volume name. */
function podLines(lines: { added: string; modified: string }, i: number): [string, string] {
  const volume = /kube-api-access-([a-z0-9]{5})/.exec(lines.added)![1]!;
  const uid = /"uid":"([^"]+)"/.exec(lines.added)![1]!;
  const own = (l: string, rv: number) => l.replaceAll('pod-000000', `pod-${String(i).padStart(6, '0')}`)
    .replaceAll(volume, (i.toString(36) + 'xxxxx').slice(0, 5))
    .replaceAll(uid, `${uid.slice(0, 24)}${String(i).padStart(12, '0')}`)
    .replace(/"resourceVersion":"\d+"/, `"resourceVersion":"${rv}"`);
  return [own(lines.added, 2 * i + 1000), own(lines.modified, 2 * i + 1001)];
}

/** One round in this process for the build at `dist`: µs of CPU per pod (its two events), the median of the measured batches. */
async function child(dist: string, batches: number, batch: number): Promise<number> {
  const mod = (path: string) => import(pathToFileURL(join(dist, 'src', ...path.split('/'))).href);
  const { skipManagedFields } = await mod('client/skip-managed-fields.js') as { skipManagedFields(line: string): string };
  const { stripManagedFields } = await mod('client/index.js') as { stripManagedFields<T>(o: T): T };
  const { ObjectSharing } = await mod('util/shared-objects.js') as { ObjectSharing: new () => { compact<T>(o: T, prev: unknown, members: readonly string[], like?: unknown): T } };
  const lines = JSON.parse(readFileSync(linesFile!, 'utf8')) as { added: string; modified: string };
  // As cli/controller-manager.ts's controlLoopInformers: one ObjectSharing, pods' spec, status and metadata shared.
  const sharing = new ObjectSharing();
  const members = ['spec', 'status', 'metadata'];
  const parse = (line: string): { object: object } => { const cut = skipManagedFields(line); return JSON.parse(cut) as { object: object }; };
  const kept = new Map<number, object>();
  let like: object | undefined;
  const perPod: number[] = [];
  const cpuUs = (f: () => void): number => { const t0 = process.cpuUsage(); f(); const t = process.cpuUsage(t0); return t.user + t.system; };
  for (let b = 0; b < batches; b++) {
    const texts = Array.from({ length: batch }, (_, i) => podLines(lines, b * batch + i));
    let added: object[] = [];
    let modified: object[] = [];
    const parseAdded = cpuUs(() => { added = texts.map(([a]) => parse(a).object); });
    const compactAdded = cpuUs(() => {
      for (let i = 0; i < batch; i++) { like = sharing.compact(stripManagedFields(added[i]!), undefined, members, like); kept.set(b * batch + i, like); }
    });
    const parseModified = cpuUs(() => { modified = texts.map(([, m]) => parse(m).object); });
    const compactModified = cpuUs(() => {
      for (let i = 0; i < batch; i++) kept.set(b * batch + i, sharing.compact(stripManagedFields(modified[i]!), kept.get(b * batch + i), members));
    });
    if (b >= 5) perPod.push((timeParse ? parseAdded + parseModified : compactAdded + compactModified) / batch);
  }
  return median(perPod);
}

/** The parent captures the event lines once, for every child (which finds them through the environment). */
async function prepare(): Promise<void> {
  const file = join(mkdtempSync(join(tmpdir(), 'k8ts-intake-lines-')), 'lines.json');
  writeFileSync(file, JSON.stringify(await captureLines()));
  process.env.K8TS_BENCH_INTAKE_LINES = file;
}

await buildRoundsMain({
  prepare,
  script: import.meta.url, description: 'CPU per pod as the scheduler\'s informer takes in its ADDED and MODIFIED events (compacted; --parse: parsed), in a fresh process per build and round.',
  defaults: { rounds: '5', batches: '25', batch: '2000' }, child,
  title: `informer-intake${timeParse ? ' --parse' : ''}`, column: `CPU µs per pod, its two events ${timeParse ? 'parsed' : 'compacted'} (median)`, digits: 2,
});
