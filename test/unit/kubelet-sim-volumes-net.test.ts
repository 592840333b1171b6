/**
 * The StatefulSet Basics tutorial's commands in a simulated container:
 * redirections into the layer and volumes (shell.ts, layer.ts), volumes
 * with upstream's lifetimes (volumes.ts), curl/wget to the pod's own
 * responders (http-commands.ts, listeners.ts) and busybox 1.28's nslookup
 * over the cluster DNS's records (nslookup.ts, pod-network.ts).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { PersistentVolume, PersistentVolumeClaim, Pod, Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { SimulatedRuntime } from '../../src/kubelet/runtime/simulated/runtime.js';
import { SimulatedVolumeStore } from '../../src/kubelet/runtime/simulated/volumes.js';
import { candidateNames } from '../../src/kubelet/runtime/simulated/nslookup.js';
import { parseExecLine } from '../../src/kubelet/runtime/simulated/shell.js';
import { nginxWelcomePage } from '../../src/kubelet/runtime/simulated/image-contents.js';
import { FakeTimers } from '../../src/kubelet/timers.js';
import type { PodObjectGetter } from '../../src/kubelet/volumes/objects.js';
import { collect, execRequest, containersStarted } from './sim-streams.js';

const notFound = (what: string) => Object.assign(new Error(`${what} not found`), { code: 404 });

/** The API objects the tutorial creates: the claims www-web-N bound to PVs, the headless Service nginx, kube-dns. */
class Cluster implements PodObjectGetter {
  claims = new Map<string, PersistentVolumeClaim>();
  pvs = new Map<string, PersistentVolume>();
  svcs = new Map<string, Service>();
  slices = new Map<string, EndpointSlice[]>();
  bind(claim: string, pv: string, uid: string) {
    this.claims.set(`default/${claim}`, { metadata: { name: claim, namespace: 'default' }, spec: { volumeName: pv } });
    this.pvs.set(pv, { metadata: { name: pv, uid } });
  }
  async claim(ns: string, name: string) { const c = this.claims.get(`${ns}/${name}`); if (!c) throw notFound(name); return c; }
  async volume(name: string) { const v = this.pvs.get(name); if (!v) throw notFound(name); return v; }
  async configMap(): Promise<never> { throw notFound('configmap'); }
  async secret(): Promise<never> { throw notFound('secret'); }
  async service(ns: string, name: string) { const s = this.svcs.get(`${ns}/${name}`); if (!s) throw notFound(name); return s; }
  async services(ns: string) { return [...this.svcs.values()].filter((s) => s.metadata?.namespace === ns); }
  async endpointSlices(ns: string, name: string) { return this.slices.get(`${ns}/${name}`) ?? []; }
}

function tutorialCluster(): Cluster {
  const c = new Cluster();
  c.svcs.set('kube-system/kube-dns', { metadata: { name: 'kube-dns', namespace: 'kube-system' }, spec: { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], ports: [{ name: 'dns', port: 53, protocol: 'UDP' }] } });
  c.svcs.set('default/nginx', { metadata: { name: 'nginx', namespace: 'default' }, spec: { clusterIP: 'None', ports: [{ name: 'web', port: 80 }] } });
  c.slices.set('default/nginx', [{
    addressType: 'IPv4', metadata: { name: 'nginx-abc', namespace: 'default', labels: { 'kubernetes.io/service-name': 'nginx' } }, ports: [{ name: 'web', port: 80, protocol: 'TCP' }],
    endpoints: [{ addresses: ['10.244.1.6'], hostname: 'web-0', conditions: { ready: true } }, { addresses: ['10.244.2.6'], hostname: 'web-1', conditions: { ready: true } }],
  }]);
  c.bind('www-web-0', 'pvc-0', 'uid-pv-0');
  c.bind('www-web-1', 'pvc-1', 'uid-pv-1');
  return c;
}

let seq = 0;
/** A pod of the tutorial's StatefulSet `web`: nginx-slim with the claim www-web-N at /usr/share/nginx/html. */
function webPod(n: number, extra: Partial<Pod['spec']> = {}): Pod {
  seq++;
  return {
    metadata: { name: `web-${n}`, namespace: 'default', uid: `uid-web-${seq}` },
    spec: {
      nodeName: 'n', hostname: `web-${n}`, subdomain: 'nginx',
      containers: [{ name: 'nginx', image: 'registry.k8s.io/nginx-slim:0.24', ports: [{ containerPort: 80, name: 'web' }], volumeMounts: [{ name: 'www', mountPath: '/usr/share/nginx/html' }] }],
      volumes: [{ name: 'www', persistentVolumeClaim: { claimName: `www-web-${n}` } }],
      ...extra,
    },
    status: { phase: 'Pending' },
  };
}

function node(name: string, cidr: string, objects: PodObjectGetter, volumes: SimulatedVolumeStore, podLogsDir?: string) {
  return new SimulatedRuntime({ podCIDR: cidr, hostIP: '127.0.0.1', timers: new FakeTimers(), nodeName: name, objects, volumes, podLogsDir });
}

const req = execRequest;

/** kubectl exec POD -- ARGV on the pod's first container. */
function exec(rt: SimulatedRuntime, p: Pod, argv: string[], container = 0) {
  const id = rt.status(p.metadata!.uid!)!.containers[container]!.id;
  return collect(rt.openStream(p.metadata!.uid!, id, req(argv)));
}

function get(conn: Duplex, path = '/'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const r = http.request({ path, host: 'localhost', createConnection: () => conn as never }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => { body += d.toString(); });
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    r.on('error', reject);
    r.end();
  });
}

/** curl's progress meter on stderr (no -s, stdout no terminal): its heading and first line, then the last for a body of n bytes (Content-Length known or not). */
const meterStart = '  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n' +
  '                                 Dload  Upload   Total   Spent    Left  Speed\n\r  0     0    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0';
/** After a refused connection curl writes the meter's line again and ends it (the machine's curl 7.88.1). */
const meterRefused = `${meterStart}\r  0     0    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0\n`;
const meterDone = (n: number, known: boolean) => `\r100 ${String(n).padStart(5)}  ${known ? '100' : '  0'} ${String(n).padStart(5)}    0     0      0      0 --:--:-- --:--:-- --:--:--     0\n`;

describe('simulated shell: redirections', () => {
  it('parses [n]> [n]>> n>&m as redirections, left to right', () => {
    const parsed = parseExecLine('echo a >/tmp/x 2>&1; echo b >> "/tmp/$N" 2>/dev/null');
    assert.ok('program' in parsed);
    assert.deepEqual(parsed.program.map((c) => (c.kind === 'simple' ? c.redirs : undefined)), [
      [{ fd: 1, append: false, target: [{ lit: '/tmp/x' }] }, { fd: 2, dup: 1 }],
      [{ fd: 1, append: true, target: [{ lit: '/tmp/' }, { var: 'N', quoted: true }] }, { fd: 2, append: false, target: [{ lit: '/dev/null' }] }],
    ]);
    assert.deepEqual(parseExecLine('cat <<EOF'), { unsupported: 'operator <' });
  });

  it('> writes, >> appends, 2>&1 and >/dev/null send the streams; the tutorial\'s echo "$(hostname)" > index.html', async () => {
    const rt = node('n1', '10.244.1.0/24', tutorialCluster(), new SimulatedVolumeStore());
    const p = webPod(0);
    rt.syncPod(p);
    assert.deepEqual(await exec(rt, p, ['sh', '-c', 'echo "$(hostname)" > /usr/share/nginx/html/index.html']), { out: '', err: '', code: 0 });
    assert.deepEqual(await exec(rt, p, ['cat', '/usr/share/nginx/html/index.html']), { out: 'web-0\n', err: '', code: 0 });
    const r = await exec(rt, p, ['sh', '-c', 'echo one > /tmp/log; echo two >> /tmp/log; cat /nope >> /tmp/log 2>&1; cat /nope 2>/dev/null >/dev/null; echo three 1>&2; cat /tmp/log']);
    assert.deepEqual(r, { out: "one\ntwo\ncat: can't open '/nope': No such file or directory\n", err: 'three\n', code: 0 });
    // The file is created (emptied) even when the command prints nothing.
    assert.deepEqual(await exec(rt, p, ['sh', '-c', 'true > /tmp/log; cat /tmp/log; ls /tmp']), { out: 'log\n', err: '', code: 0 });
  });

  it('a read-only mount and a missing directory refuse as busybox sh does: can\'t create, exit 1, the command not run', async () => {
    const rt = node('n1', '10.244.1.0/24', tutorialCluster(), new SimulatedVolumeStore());
    const p = webPod(0, {
      containers: [{ name: 'c', image: 'busybox', volumeMounts: [{ name: 'cfg', mountPath: '/etc/config' }, { name: 'www', mountPath: '/data', readOnly: true }] }],
      volumes: [{ name: 'cfg', configMap: { name: 'x', optional: true } }, { name: 'www', persistentVolumeClaim: { claimName: 'www-web-0' } }],
    });
    rt.syncPod(p);
    await containersStarted(rt, p.metadata!.uid!);
    assert.deepEqual(await exec(rt, p, ['sh', '-c', 'echo x > /etc/config/k && echo not-run']), { out: '', err: "sh: can't create /etc/config/k: Read-only file system\n", code: 1 });
    assert.deepEqual(await exec(rt, p, ['sh', '-c', 'echo x >> /data/k']), { out: '', err: "sh: can't create /data/k: Read-only file system\n", code: 1 });
    assert.deepEqual(await exec(rt, p, ['sh', '-c', 'echo x > /no/such/dir/f']), { out: '', err: "sh: can't create /no/such/dir/f: nonexistent directory\n", code: 1 });
  });
});

describe('simulated volumes: upstream\'s lifetimes', () => {
  it('a claim\'s PV keeps what a pod wrote for the next pod of the claim, on another node; a new PV starts empty', async () => {
    const cluster = tutorialCluster();
    const store = new SimulatedVolumeStore();
    const a = node('n1', '10.244.1.0/24', cluster, store);
    const b = node('n2', '10.244.2.0/24', cluster, store);
    const first = webPod(0);
    a.syncPod(first);
    await exec(a, first, ['sh', '-c', 'echo "$(hostname)" > /usr/share/nginx/html/index.html']);
    // Not in the container's own layer: another pod of another claim does not see it.
    const other = webPod(1);
    a.syncPod(other);
    assert.equal((await exec(a, other, ['cat', '/usr/share/nginx/html/index.html'])).code, 1);
    await a.killPod(first.metadata!.uid!, 0);
    a.removePod(first.metadata!.uid!);
    const again = webPod(0);
    b.syncPod(again);
    assert.deepEqual(await exec(b, again, ['curl', 'http://localhost/']), { out: 'web-0\n', err: `${meterStart}${meterDone(6, true)}`, code: 0 });
    // The PVC deleted and made again binds a new PV (another uid): empty.
    cluster.bind('www-web-0', 'pvc-0', 'uid-pv-0-new');
    const fresh = webPod(0);
    b.syncPod(fresh);
    assert.equal((await exec(b, fresh, ['cat', '/usr/share/nginx/html/index.html'])).code, 1);
  });

  it('an emptyDir is shared by the pod\'s containers and goes with the pod; writes outside volumes stay in the container', async () => {
    const store = new SimulatedVolumeStore();
    const rt = node('n1', '10.244.1.0/24', tutorialCluster(), store);
    const spec = {
      containers: [
        { name: 'a', image: 'busybox', volumeMounts: [{ name: 'shared', mountPath: '/shared' }] },
        { name: 'b', image: 'busybox', volumeMounts: [{ name: 'shared', mountPath: '/mnt' }] },
      ],
      volumes: [{ name: 'shared', emptyDir: {} }],
    };
    const p = webPod(0, spec);
    rt.syncPod(p);
    await exec(rt, p, ['sh', '-c', 'echo hi > /shared/f; echo mine > /tmp/f'], 0);
    assert.deepEqual(await exec(rt, p, ['cat', '/mnt/f'], 1), { out: 'hi\n', err: '', code: 0 });
    assert.equal((await exec(rt, p, ['cat', '/tmp/f'], 1)).code, 1);
    await rt.killPod(p.metadata!.uid!, 0);
    rt.removePod(p.metadata!.uid!);
    const next = { ...webPod(0, spec), metadata: { ...p.metadata, uid: 'another-uid' } };
    rt.syncPod(next);
    assert.equal((await exec(rt, next, ['cat', '/shared/f'], 0)).code, 1);
  });
});

describe('simulated curl, wget and the nginx responder', () => {
  it('nginx serves the volume\'s index.html to port-forward; an empty volume over the root is 403, as nginx answers', async () => {
    const rt = node('n1', '10.244.1.0/24', tutorialCluster(), new SimulatedVolumeStore());
    const p = webPod(1);
    rt.syncPod(p);
    assert.equal((await get(rt.dialPort(p.metadata!.uid!, 80))).status, 403);
    await exec(rt, p, ['sh', '-c', 'echo "$(hostname)" > /usr/share/nginx/html/index.html; echo page > /usr/share/nginx/html/p.html']);
    assert.deepEqual(await get(rt.dialPort(p.metadata!.uid!, 80)), { status: 200, body: 'web-1\n' });
    assert.deepEqual(await get(rt.dialPort(p.metadata!.uid!, 80), '/p.html'), { status: 200, body: 'page\n' });
    assert.equal((await get(rt.dialPort(p.metadata!.uid!, 80), '/missing')).status, 404);
    // Without a volume over the root the image's own page answers.
    const plain = webPod(0, { containers: [{ name: 'nginx', image: 'nginx:1.27.3' }], volumes: [] });
    rt.syncPod(plain);
    assert.deepEqual(await exec(rt, plain, ['curl', '-s', 'localhost']), { out: nginxWelcomePage, err: '', code: 0 });
  });

  it('curl and wget: the pod\'s own addresses reach its responders; other hosts fail with curl\'s and busybox\'s words and codes', async () => {
    const rt = node('n1', '10.244.1.0/24', tutorialCluster(), new SimulatedVolumeStore());
    const p = webPod(0, { containers: [{ name: 'app', image: 'gcr.io/google-samples/kubernetes-bootcamp:v1' }], volumes: [] });
    rt.syncPod(p);
    const ip = rt.status(p.metadata!.uid!)!.sandbox!.ip!;
    const hello = 'Hello Kubernetes bootcamp! | Running on: web-0 | v=1\n';
    for (const host of ['localhost:8080', '127.0.0.1:8080', `${ip}:8080`, 'http://web-0:8080/']) {
      assert.deepEqual(await exec(rt, p, ['curl', host]), { out: hello, err: `${meterStart}${meterDone(Buffer.byteLength(hello), false)}`, code: 0 }, host);
    }
    assert.deepEqual(await exec(rt, p, ['wget', '-qO-', 'http://localhost:8080']), { out: hello, err: '', code: 0 });
    // Without -q, busybox 1.35's lines (checked against /usr/bin/busybox and a local server).
    assert.deepEqual(await exec(rt, p, ['wget', '-O-', 'http://localhost:8080']), {
      out: hello, code: 0,
      err: `Connecting to localhost:8080 (127.0.0.1:8080)\nwriting to stdout\n-                    100% |********************************|    ${hello.length}  0:00:00 ETA\nwritten to stdout\n`,
    });
    assert.deepEqual(await exec(rt, p, ['sh', '-c', 'wget http://localhost:8080/ -O /tmp/got.html && cat /tmp/got.html']), {
      out: hello, code: 0,
      err: `Connecting to localhost:8080 (127.0.0.1:8080)\nsaving to '/tmp/got.html'\n/tmp/got.html        100% |********************************|    ${hello.length}  0:00:00 ETA\n'/tmp/got.html' saved\n`,
    });
    assert.deepEqual(await exec(rt, p, ['curl', 'http://localhost/']), { out: '', err: meterRefused + "curl: (7) Failed to connect to localhost port 80 after 0 ms: Couldn't connect to server\n", code: 7 });
    assert.deepEqual(await exec(rt, p, ['curl', '-s', 'http://localhost/']), { out: '', err: '', code: 7 });
    assert.deepEqual(await exec(rt, p, ['curl', 'example.com']), { out: '', err: meterStart + 'curl: (6) Could not resolve host: example.com\n', code: 6 });
    assert.deepEqual(await exec(rt, p, ['curl', '--bogus', 'localhost']), { out: '', err: "curl: option --bogus: is unknown\ncurl: try 'curl --help' or 'curl --manual' for more information\n", code: 2 });
    assert.deepEqual(await exec(rt, p, ['wget', '-qO-', 'http://example.com']), { out: '', err: "wget: bad address 'example.com'\n", code: 1 });
    assert.deepEqual(await exec(rt, p, ['wget', '-qO-', 'http://localhost:81']), { out: '', err: "wget: can't connect to remote host (127.0.0.1): Connection refused\n", code: 1 });
    // A name the cluster DNS resolves to another pod: found, but a simulated pod reaches no other pod.
    assert.deepEqual(await exec(rt, p, ['curl', 'web-1.nginx']), { out: '', err: meterRefused + "curl: (7) Failed to connect to web-1.nginx port 80 after 0 ms: Couldn't connect to server\n", code: 7 });
    assert.deepEqual(await exec(rt, p, ['wget', '-O-', 'web-1.nginx:8080']), { out: '', err: "Connecting to web-1.nginx:8080 (10.244.2.6:8080)\nwget: can't connect to remote host (10.244.2.6): Connection refused\n", code: 1 });
    const head = await exec(rt, p, ['curl', '-si', 'localhost:8080']);
    assert.match(head.out, /^HTTP\/1\.1 200 OK\r\nContent-Type: text\/plain\r\n/);
    assert.ok(head.out.endsWith(`\r\n\r\n${hello}`), head.out);
  });
});

describe('simulated nslookup: busybox 1.28 over the cluster DNS\'s records', () => {
  it('the search path and ndots decide the names tried', () => {
    const search = ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'];
    assert.deepEqual(candidateNames('web-0.nginx', search, 5), ['web-0.nginx.default.svc.cluster.local', 'web-0.nginx.svc.cluster.local', 'web-0.nginx.cluster.local', 'web-0.nginx']);
    assert.deepEqual(candidateNames('a.b.', search, 5), ['a.b']);
    assert.deepEqual(candidateNames('a.b.c.d.e.f', search, 5), ['a.b.c.d.e.f', 'a.b.c.d.e.f.default.svc.cluster.local', 'a.b.c.d.e.f.svc.cluster.local', 'a.b.c.d.e.f.cluster.local']);
  });

  it('nslookup web-0.nginx prints the kube-dns server block, then the pod\'s address and its name; a miss can\'t resolve, exit 1', async () => {
    const rt = node('n1', '10.244.3.0/24', tutorialCluster(), new SimulatedVolumeStore());
    const p = webPod(0, { containers: [{ name: 'dns-test', image: 'busybox:1.28' }], volumes: [] });
    rt.syncPod(p);
    const server = 'Server:    10.96.0.10\nAddress 1: 10.96.0.10 kube-dns.kube-system.svc.cluster.local\n\n';
    assert.deepEqual(await exec(rt, p, ['nslookup', 'web-0.nginx']), {
      out: `${server}Name:      web-0.nginx\nAddress 1: 10.244.1.6 web-0.nginx.default.svc.cluster.local\n\n`, err: '', code: 0,
    });
    assert.deepEqual(await exec(rt, p, ['nslookup', 'nginx.default.svc.cluster.local']), {
      out: `${server}Name:      nginx.default.svc.cluster.local\nAddress 1: 10.244.1.6 web-0.nginx.default.svc.cluster.local\nAddress 2: 10.244.2.6 web-1.nginx.default.svc.cluster.local\n\n`, err: '', code: 0,
    });
    assert.deepEqual(await exec(rt, p, ['nslookup', 'kube-dns.kube-system']), {
      out: `${server}Name:      kube-dns.kube-system\nAddress 1: 10.96.0.10 kube-dns.kube-system.svc.cluster.local\n\n`, err: '', code: 0,
    });
    assert.deepEqual(await exec(rt, p, ['nslookup', 'web-2.nginx']), { out: `${server}\n`, err: "nslookup: can't resolve 'web-2.nginx'\n", code: 1 });
    // /etc/hosts comes first: the pod's own name, and its FQDN first as the kubelet writes it for a pod with a subdomain.
    const self = await exec(rt, p, ['nslookup', 'web-0']);
    assert.equal(self.out, `${server}Name:      web-0\nAddress 1: ${rt.status(p.metadata!.uid!)!.sandbox!.ip!} web-0.nginx.default.svc.cluster.local\n\n`);
    assert.match((await exec(rt, p, ['cat', '/etc/hosts'])).out, /\n10\.244\.3\.\d+\tweb-0\.nginx\.default\.svc\.cluster\.local\tweb-0\n$/);
  });

  it('in the dnsutils image nslookup is BIND\'s: the server and port, the search candidate that answered; NXDOMAIN for a miss; PTR for an address', async () => {
    const rt = node('n1', '10.244.3.0/24', tutorialCluster(), new SimulatedVolumeStore());
    const p = webPod(0, { containers: [{ name: 'dnsutils', image: 'registry.k8s.io/e2e-test-images/jessie-dnsutils:1.3', command: ['sleep', 'infinity'] }], volumes: [] });
    rt.syncPod(p);
    const server = 'Server:\t\t10.96.0.10\nAddress:\t10.96.0.10#53\n\n';
    assert.deepEqual(await exec(rt, p, ['nslookup', 'web-0.nginx']), { out: `${server}Name:\tweb-0.nginx.default.svc.cluster.local\nAddress: 10.244.1.6\n\n`, err: '', code: 0 });
    assert.deepEqual(await exec(rt, p, ['nslookup', 'web-2.nginx']), { out: `${server}** server can't find web-2.nginx: NXDOMAIN\n\n`, err: '', code: 1 });
    assert.deepEqual(await exec(rt, p, ['nslookup', '10.96.0.10']), { out: `${server}10.0.96.10.in-addr.arpa\tname = kube-dns.kube-system.svc.cluster.local.\n\n`, err: '', code: 0 });
  });

  it('as a container\'s command (kubectl run ... -- nslookup web-0.nginx) its output is the container\'s log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-sim-nslookup-'));
    try {
      const rt = node('n1', '10.244.3.0/24', tutorialCluster(), new SimulatedVolumeStore(), dir);
      const p: Pod = { metadata: { name: 'dns-test', namespace: 'default', uid: 'uid-dns-test' }, spec: { nodeName: 'n1', restartPolicy: 'Never', containers: [{ name: 'dns-test', image: 'busybox:1.28', args: ['nslookup', 'web-0.nginx'] }] }, status: { phase: 'Pending' } };
      rt.syncPod(p);
      const exited = () => rt.status('uid-dns-test')?.containers[0]?.state === 'exited';
      if (!exited()) await new Promise<void>((resolve) => rt.onPodEvent(() => { if (exited()) resolve(); }));
      assert.deepEqual([rt.status('uid-dns-test')!.containers[0]!.state, rt.status('uid-dns-test')!.containers[0]!.exitCode], ['exited', 0]);
      const log = readFileSync(join(dir, 'default_dns-test_uid-dns-test', 'dns-test', '0.log'), 'utf8').split('\n').filter(Boolean).map((l) => l.split(' ').slice(3).join(' '));
      assert.deepEqual(log, ['Server:    10.96.0.10', 'Address 1: 10.96.0.10 kube-dns.kube-system.svc.cluster.local', '', 'Name:      web-0.nginx', 'Address 1: 10.244.1.6 web-0.nginx.default.svc.cluster.local', '']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
