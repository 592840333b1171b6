/**
 * CPU of a simulated pod's curl, per exec (process.cpuUsage, never wall
 * time): `curl -s http://localhost/` to the pod's own nginx (the pod
 * network's path, which every tutorial's curl and wget takes), in this
 * build and in a baseline build (`--baseline DIR`), each in a child process
 * of its own, interleaved round by round; and, in this build only, the
 * Accessing the Kubernetes API from a Pod page's `curl --cacert ca.crt -H
 * "Authorization: Bearer T" https://kubernetes.default.svc/api` to a real
 * HTTPS server on 127.0.0.1 standing in for the API server (a TLS
 * handshake per exec, as each curl makes one; the server's CPU is counted
 * too, as it runs in the same process).
 *
 *   node dist/bench/sim-curl.js [--baseline /tmp/base-incluster] [--runs 5] [--execs 400]
 */
import { execFileSync } from 'node:child_process';
import https from 'node:https';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { AddressInfo } from 'node:net';
import type { ConfigMap, Pod, Service } from 'kubernetes-types/core/v1.js';
import type { LocalStream, StreamRequest } from '../src/kubelet/runtime/runtime.js';
import type { SimulatedRuntime, SimulatedRuntimeOptions } from '../src/kubelet/runtime/simulated/runtime.js';
import type { PodObjectGetter } from '../src/kubelet/volumes/objects.js';
import { benchArgs } from './lib/args.js';

const { values } = benchArgs('CPU per simulated curl exec: http to the pod itself (A/B against a baseline build) and https to the kubernetes Service.', { options: {
  baseline: { type: 'string', default: '/tmp/base-incluster', help: 'a built checkout of the baseline, measured beside this build' },
  runs: { type: 'string', default: '5', help: 'interleaved rounds' },
  execs: { type: 'string', default: '400', help: 'curl execs per round and build, after 50 of warm-up' },
  child: { type: 'string', help: '(internal) measure the build at DIR in this process' },
  mode: { type: 'string', default: 'http', help: '(internal) http or https' },
} });

const notFound = () => Object.assign(new Error('not found'), { code: 404 });

/** The `kubernetes` and `kube-dns` Services and the CA ConfigMap the https pod mounts. */
function objects(caPem: string): PodObjectGetter {
  const svc: Service = { metadata: { name: 'kubernetes', namespace: 'default' }, spec: { clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443 }] } };
  const dns: Service = { metadata: { name: 'kube-dns', namespace: 'kube-system' }, spec: { clusterIP: '10.96.0.10', ports: [{ name: 'dns', port: 53, protocol: 'UDP' }] } };
  const services: Record<string, Service> = { 'default/kubernetes': svc, 'kube-system/kube-dns': dns };
  return {
    claim: async () => { throw notFound(); }, volume: async () => { throw notFound(); }, secret: async () => { throw notFound(); },
    configMap: async (): Promise<ConfigMap> => ({ metadata: { name: 'kube-root-ca.crt' }, data: { 'ca.crt': caPem } }),
    service: async (ns, name) => { const found = services[`${ns}/${name}`]; if (found) return found; throw notFound(); },
    services: async (ns) => (ns === 'default' ? [svc] : []), endpointSlices: async () => [],
  };
}

async function exec(rt: SimulatedRuntime, uid: string, cmd: string[]): Promise<string> {
  const id = rt.status(uid)!.containers[0]!.id;
  const req: StreamRequest = { cmd, stdin: false, stdout: true, stderr: true, tty: false };
  const s: LocalStream = rt.openStream(uid, id, req);
  let out = '';
  s.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  s.stderr?.resume();
  await s.done;
  return out;
}

/** One build's figure: µs of CPU per curl exec. */
async function child(dir: string, mode: string, execs: number): Promise<void> {
  const load = (p: string) => import(pathToFileURL(join(dir, 'dist', 'src', ...p.split('/'))).href);
  const { SimulatedRuntime: Runtime } = await load('kubelet/runtime/simulated/runtime.js') as { SimulatedRuntime: new (o: SimulatedRuntimeOptions) => SimulatedRuntime };
  const { FakeTimers } = await load('kubelet/timers.js');
  const pod: Pod = { metadata: { name: 'p', namespace: 'default', uid: 'u' }, spec: { nodeName: 'n', containers: [{ name: 'c', image: 'nginx:1.27' }] }, status: { phase: 'Pending' } };
  let cmd = ['curl', '-s', 'http://localhost/'];
  let server: https.Server | undefined;
  let opts: SimulatedRuntimeOptions = { podCIDR: '10.244.9.0/24', hostIP: '127.0.0.1', timers: new FakeTimers() };
  if (mode === 'https') {
    const { createCA, issueCertificate } = await load('pki/index.js');
    const ca = await createCA({ commonName: 'kubernetes', days: 1 });
    const leaf = await issueCertificate({ ca, commonName: 'kube-apiserver', usages: ['server'], days: 1, dnsNames: ['kubernetes.default.svc'], ipAddresses: ['127.0.0.1'] });
    server = https.createServer({ cert: leaf.certPem, key: leaf.keyPem }, (_req, res) => res.end('{"kind":"APIVersions"}\n'));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    opts = { ...opts, objects: objects(ca.certPem), apiServer: `https://127.0.0.1:${(server.address() as AddressInfo).port}` };
    pod.spec!.containers[0]!.volumeMounts = [{ name: 'ca', mountPath: '/ca' }];
    pod.spec!.volumes = [{ name: 'ca', configMap: { name: 'kube-root-ca.crt' } }];
    cmd = ['curl', '-s', '--cacert', '/ca/ca.crt', '-H', 'Authorization: Bearer T', 'https://kubernetes.default.svc/api'];
  }
  const rt = new Runtime(opts);
  rt.syncPod(pod);
  for (let i = 0; i < 100 && !rt.status('u')?.containers.length; i++) await new Promise((r) => setImmediate(r));
  const want = (await exec(rt, 'u', cmd));
  if (!want) throw new Error(`no answer to ${cmd.join(' ')}`);
  for (let i = 0; i < 50; i++) await exec(rt, 'u', cmd);
  const start = process.cpuUsage();
  for (let i = 0; i < execs; i++) if ((await exec(rt, 'u', cmd)) !== want) throw new Error('a different answer');
  const used = process.cpuUsage(start);
  console.log(((used.user + used.system) / execs).toFixed(1));
  await rt.close();
  server?.close();
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2; };

if (values.child) {
  await child(resolve(values.child), values.mode!, Number(values.execs));
} else {
  const self = resolve(fileURLToPath(import.meta.url), '..', '..', '..');
  const run = (dir: string, mode: string) => Number(execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', dir, '--mode', mode, '--execs', values.execs!], { encoding: 'utf8' }).trim());
  const rows: Record<string, number[]> = { 'http, this build': [], 'http, baseline': [], 'https to the API server, this build': [] };
  const before = loadavg()[0]!.toFixed(1);
  for (let r = 0; r < Number(values.runs); r++) {
    // Alternate which build goes first, so a load change within a round falls on both.
    const order = r % 2 ? [['http, baseline', resolve(values.baseline!)], ['http, this build', self]] : [['http, this build', self], ['http, baseline', resolve(values.baseline!)]];
    for (const [name, dir] of order) rows[name!]!.push(run(dir!, 'http'));
    rows['https to the API server, this build']!.push(run(self, 'https'));
  }
  for (const [name, xs] of Object.entries(rows)) console.log(`${name}: median ${median(xs).toFixed(1)} µs CPU per exec (runs: ${xs.map((x) => x.toFixed(1)).join(', ')})`);
  console.log(`http ratio this/baseline: ${(median(rows['http, this build']!) / median(rows['http, baseline']!)).toFixed(3)}`);
  console.log(`load average (1 min) before ${before}, after ${loadavg()[0]!.toFixed(1)}`);
}
