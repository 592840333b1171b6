/**
 * CPU time per simulated probe (SimulatedRuntime.simulateProbe) for the
 * probe paths of the simulated runtime: an httpGet answered by a simulated
 * server (nginx's, which reads the container's files; agnhost liveness's),
 * a tcpSocket connecting to goproxy, and an httpGet of an image the
 * simulator does not know (the annotations' answer). process.cpuUsage
 * over N sequential probes after a warm-up, in this process alone.
 *
 *   node dist/bench/sim-probes.js [--root DIR] [--n 2000]
 *
 * --root is a checkout whose dist/ is built (default: this one), so the
 * same script measures a base build for an A/B comparison.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Container, Pod, Probe } from 'kubernetes-types/core/v1.js';
import { benchArgs } from './lib/args.js';

const { values } = benchArgs('CPU time per simulated probe (SimulatedRuntime.simulateProbe), in this process.', { options: {
  root: { type: 'string', help: 'a checkout whose dist/ is built (default: this one), for an A/B comparison' },
  n: { type: 'string', default: '2000', help: 'probes per path' },
} });
const root = resolve(values.root ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..'));
const n = Number(values.n);

interface Runtime {
  syncPod(p: Pod): void;
  status(uid: string): { containers: { id: string }[] } | undefined;
  simulateProbe(uid: string, id: string, type: 'liveness', probe: Probe): Promise<unknown>;
}

const load = async (path: string) => import(pathToFileURL(join(root, 'dist', 'src', path)).href) as Promise<Record<string, unknown>>;
const { SimulatedRuntime } = await load('kubelet/runtime/simulated/runtime.js') as { SimulatedRuntime: new (o: object) => Runtime };
const { FakeTimers } = await load('kubelet/timers.js') as { FakeTimers: new () => { advance(ms: number): void } };
const timers = new FakeTimers();
const rt = new SimulatedRuntime({ podCIDR: '10.244.9.0/24', hostIP: '172.16.0.19', timers });

const cases: [string, Container, Probe][] = [
  ['nginx httpGet / :80', { name: 'c', image: 'nginx:1.27' }, { httpGet: { path: '/', port: 80 } }],
  ['agnhost liveness httpGet /healthz :8080', { name: 'c', image: 'registry.k8s.io/e2e-test-images/agnhost:2.40', args: ['liveness'] }, { httpGet: { path: '/healthz', port: 8080 } }],
  ['goproxy tcpSocket :8080', { name: 'c', image: 'registry.k8s.io/goproxy:0.1' }, { tcpSocket: { port: 8080 } }],
  ['unknown image httpGet :8080', { name: 'c', image: 'example.com/app:1' }, { httpGet: { path: '/healthz', port: 8080 } }],
];

let seq = 0;
for (const [name, container, probe] of cases) {
  seq++;
  const uid = `bench-${seq}`;
  rt.syncPod({ metadata: { name: `p${seq}`, namespace: 'default', uid }, spec: { nodeName: 'n', containers: [container] }, status: { phase: 'Pending' } });
  timers.advance(10);
  const id = rt.status(uid)!.containers[0]!.id;
  for (let i = 0; i < 200; i++) await rt.simulateProbe(uid, id, 'liveness', probe);
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) await rt.simulateProbe(uid, id, 'liveness', probe);
  const d = process.cpuUsage(before);
  console.log(`${name}: ${((d.user + d.system) / n).toFixed(1)} µs CPU per probe (n=${n})`);
}
process.exit(0);
