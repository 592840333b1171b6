/**
 * A simulated pod's curl to the `kubernetes` Service over HTTPS
 * (in-cluster-apiserver.ts): a real TLS connection to a real HTTPS server
 * standing in for the API server (its certificate issued by a CA of
 * src/pki with kube-apiserver's names, sent alone as kube-apiserver sends
 * it), checked against the CA file the container holds and the name the URL
 * used, with curl 7.88's codes and words (checked against the machine's
 * curl 7.88.1), and busybox 1.28 wget's failed handshake.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { ConfigMap, Pod, Service } from 'kubernetes-types/core/v1.js';
import { SimulatedRuntime } from '../../src/kubelet/runtime/simulated/runtime.js';
import { SimulatedVolumeStore } from '../../src/kubelet/runtime/simulated/volumes.js';
import { FakeTimers } from '../../src/kubelet/timers.js';
import type { PodObjectGetter } from '../../src/kubelet/volumes/objects.js';
import { createCA, issueCertificate } from '../../src/pki/index.js';
import { collect, containersStarted, execRequest } from './sim-streams.js';

const notFound = (what: string) => Object.assign(new Error(`${what} not found`), { code: 404 });

/** The default namespace's `kubernetes` Service, kube-dns, and a ConfigMap holding the cluster's CA (as kube-root-ca.crt does). */
class Cluster implements PodObjectGetter {
  constructor(private readonly caPem: string) {}
  private readonly svcs: Record<string, Service> = {
    'default/kubernetes': { metadata: { name: 'kubernetes', namespace: 'default' }, spec: { clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'], ports: [{ name: 'https', port: 443, targetPort: 6443 }] } },
    'kube-system/kube-dns': { metadata: { name: 'kube-dns', namespace: 'kube-system' }, spec: { clusterIP: '10.96.0.10', ports: [{ name: 'dns', port: 53, protocol: 'UDP' }] } },
  };
  async claim(): Promise<never> { throw notFound('claim'); }
  async volume(): Promise<never> { throw notFound('volume'); }
  async configMap(ns: string, name: string): Promise<ConfigMap> {
    if (name !== 'kube-root-ca.crt') throw notFound(name);
    return { metadata: { name, namespace: ns }, data: { 'ca.crt': this.caPem } };
  }
  async secret(): Promise<never> { throw notFound('secret'); }
  async service(ns: string, name: string) { const s = this.svcs[`${ns}/${name}`]; if (!s) throw notFound(name); return s; }
  async services(ns: string) { return Object.values(this.svcs).filter((s) => s.metadata?.namespace === ns); }
  async endpointSlices() { return []; }
}

/** A pod whose /ca holds the cluster's ca.crt, and `api.example` in its /etc/hosts naming the Service IP. */
function curlPod(): Pod {
  return {
    metadata: { name: 'curl', namespace: 'default', uid: 'uid-curl' },
    spec: {
      nodeName: 'n', hostAliases: [{ ip: '10.96.0.1', hostnames: ['api.example'] }],
      containers: [{ name: 'curl', image: 'curlimages/curl:8.5.0', command: ['sleep', '3600'], volumeMounts: [{ name: 'ca', mountPath: '/ca' }] }],
      volumes: [{ name: 'ca', configMap: { name: 'kube-root-ca.crt' } }],
    },
    status: { phase: 'Pending' },
  };
}

const advice = 'More details here: https://curl.se/docs/sslcerts.html\n\ncurl failed to verify the legitimacy of the server and therefore could not\n' +
  'establish a secure connection to it. To learn more about this situation and\nhow to fix it, please visit the web page mentioned above.\n';

describe('simulated curl to the kubernetes Service: a real TLS connection to the API server', () => {
  let server: https.Server;
  let apiServer: string;
  let caPem: string;
  before(async () => {
    const ca = await createCA({ commonName: 'kubernetes', days: 1 });
    caPem = ca.certPem;
    const leaf = await issueCertificate({
      ca, commonName: 'kube-apiserver', usages: ['server'], days: 1,
      dnsNames: ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local', 'localhost'], ipAddresses: ['127.0.0.1', '10.96.0.1'],
    });
    // Echoes what reached it: method, path, the caller's Authorization and body.
    server = https.createServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => { body += d.toString(); });
      req.on('end', () => {
        res.setHeader('Content-Type', 'text/plain');
        res.end(`${req.method} ${req.url} host=${req.headers.host} auth=${req.headers.authorization ?? ''} body=${body}\n`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    apiServer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => { server.close(() => resolve()); }));

  const started = async (withAPIServer = true) => {
    const rt = new SimulatedRuntime({
      podCIDR: '10.244.1.0/24', hostIP: '127.0.0.1', timers: new FakeTimers(), nodeName: 'n', objects: new Cluster(caPem), volumes: new SimulatedVolumeStore(),
      ...(withAPIServer ? { apiServer } : {}),
    });
    const p = curlPod();
    rt.syncPod(p);
    await containersStarted(rt, p.metadata!.uid!);
    return { rt, p };
  };
  const exec = (rt: SimulatedRuntime, p: Pod, argv: string[]) => {
    const id = rt.status(p.metadata!.uid!)!.containers[0]!.id;
    return collect(rt.openStream(p.metadata!.uid!, id, execRequest(argv)));
  };

  it('the page\'s curl: --cacert, --header and -X reach the API server by each of the Service\'s names and its IP', async () => {
    const { rt, p } = await started();
    for (const host of ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local', '10.96.0.1', 'kubernetes:443']) {
      const r = await exec(rt, p, ['curl', '-s', '--cacert', '/ca/ca.crt', '--header', 'Authorization: Bearer T0KEN', '-X', 'GET', `https://${host}/api`]);
      // curl's Host leaves out the scheme's own port.
      assert.deepEqual(r, { out: `GET /api host=${host.replace(/:443$/, '')} auth=Bearer T0KEN body=\n`, err: '', code: 0 }, host);
    }
    // -d POSTs its body; -i prints the status line and headers; -w the code.
    const post = await exec(rt, p, ['curl', '-s', '-k', '-i', '-w', '%{http_code}', '-d', 'a=b', 'https://kubernetes/apis']);
    assert.match(post.out, /^HTTP\/1\.1 200 OK\r\nContent-Type: text\/plain\r\n[\s\S]*\r\n\r\nPOST \/apis host=kubernetes auth= body=a=b\n200$/);
  });

  it('the server is checked as curl checks it: no CA, a name the certificate does not hold, a CA file that is not there; -k checks nothing', async () => {
    const { rt, p } = await started();
    const cases: [string[], { out: string; err: string; code: number }][] = [
      [['curl', '-sS', 'https://kubernetes/api'], { out: '', err: `curl: (60) SSL certificate problem: unable to get local issuer certificate\n${advice}`, code: 60 }],
      [['curl', '-s', 'https://kubernetes/api'], { out: '', err: '', code: 60 }],
      [['curl', '-sS', '--cacert', '/ca/ca.crt', 'https://api.example/api'], { out: '', err: `curl: (60) SSL: no alternative certificate subject name matches target host name 'api.example'\n${advice}`, code: 60 }],
      [['curl', '-sS', '--cacert', '/nope.crt', 'https://kubernetes/api'], { out: '', err: 'curl: (77) error setting certificate file: /nope.crt\n', code: 77 }],
      [['curl', '-sS', '--cacert', '/etc/hostname', 'https://kubernetes/api'], { out: '', err: 'curl: (77) error setting certificate file: /etc/hostname\n', code: 77 }],
      [['curl', '-sS', '-k', '--cacert', '/nope.crt', 'https://api.example/x'], { out: 'GET /x host=api.example auth= body=\n', err: '', code: 0 }],
      [['curl', '-s', '--insecure', 'https://kubernetes/'], { out: 'GET / host=kubernetes auth= body=\n', err: '', code: 0 }],
      // Plain http to the TLS port: Go's net/http 400, its body printed.
      [['curl', '-sS', 'kubernetes:443'], { out: 'Client sent an HTTP request to an HTTPS server.\n', err: '', code: 0 }],
      [['curl', '-sS', '-w', '%{http_code}', '-o', '/dev/null', 'http://10.96.0.1:443/api'], { out: '400', err: '', code: 0 }],
      // Another port of the Service IP is not the API server: the pod network refuses it, as kube-proxy does.
      [['curl', '-sS', '-k', 'https://kubernetes:6443/'], { out: '', err: "curl: (7) Failed to connect to kubernetes port 6443 after 0 ms: Couldn't connect to server\n", code: 7 }],
    ];
    for (const [argv, want] of cases) assert.deepEqual(await exec(rt, p, argv), want, argv.join(' '));
    // Without -s the meter's line is written once more after the failed handshake, as curl 7.88 does.
    const meter = await exec(rt, p, ['curl', 'https://kubernetes/api']);
    assert.match(meter.err, /--:--:--     0\r {2}0 {5}0 .* {5}0\ncurl: \(60\) SSL certificate problem: unable to get local issuer certificate\n/);
  });

  it('busybox 1.28 wget fails the handshake, as against kube-apiserver\'s Go TLS', async () => {
    const { rt, p } = await started();
    assert.deepEqual(await exec(rt, p, ['wget', '-O-', 'https://kubernetes.default.svc/api']), {
      out: '', code: 1,
      err: 'Connecting to kubernetes.default.svc (10.96.0.1:443)\nwget: TLS error from peer (alert code 40): handshake failure\nwget: error getting response: Connection reset by peer\n',
    });
    // An init container's in-cluster call (netdata's chart, kubernetes/website issues): the same with -q, a token header and --no-check-certificate.
    assert.deepEqual(await exec(rt, p, ['wget', '-q', '-T', '5', '--no-check-certificate', '--header', 'Authorization: Bearer T', '-O', '-', 'https://kubernetes.default.svc/api/v1/nodes']), {
      out: '', code: 1, err: 'wget: TLS error from peer (alert code 40): handshake failure\nwget: error getting response: Connection reset by peer\n',
    });
  });

  it('busybox wget --header sends the header over http (echoserver echoes it)', async () => {
    const rt = new SimulatedRuntime({ podCIDR: '10.244.2.0/24', hostIP: '127.0.0.1', timers: new FakeTimers(), nodeName: 'n', volumes: new SimulatedVolumeStore() });
    const p: Pod = { metadata: { name: 'echo', namespace: 'default', uid: 'uid-echo' }, spec: { nodeName: 'n', containers: [{ name: 'echo', image: 'registry.k8s.io/echoserver:1.10' }] }, status: { phase: 'Pending' } };
    rt.syncPod(p);
    await containersStarted(rt, p.metadata!.uid!);
    const r = await exec(rt, p, ['wget', '-qO-', '--header', 'X-Token: abc', '--no-check-certificate', 'http://localhost:8080/']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /\tx-token=abc\n/);
  });

  it('a node that does not know the API server reaches nobody over https', async () => {
    const { rt, p } = await started(false);
    assert.deepEqual(await exec(rt, p, ['curl', '-sS', '-k', 'https://kubernetes/']), { out: '', err: "curl: (7) Failed to connect to kubernetes port 443 after 0 ms: Couldn't connect to server\n", code: 7 });
  });
});
