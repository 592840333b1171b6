/**
 * Issue #21's pod network on three "machines" (network namespaces this test
 * creates, each with its own private containerd, kubeadm-style init/join as
 * in kubeadm-netns.test.ts): control-plane and worker1 share a link
 * (10.77.0.0/24), worker2 sits on 10.78.0.0/24 behind a router namespace. With
 * init's default backend (auto): control-plane ↔ worker1 over host-gw routes,
 * both ↔ worker2 over the VXLAN overlay through the routed hop.
 *
 * Each containerd starts with a CNI network over a wrong range (10.250.x.0/24):
 * the pods must still take addresses from their Node's podCIDR. Busybox httpd
 * pods, pinned with nodeName, answer a CGI script that prints REMOTE_ADDR, so
 * a request shows both reachability and that pod-to-pod keeps the source
 * address while pod-to-outside (a server in the router namespace) is
 * masqueraded to the node's address. The joined workers' pods resolve
 * kubernetes.default through the kube-dns Service (their kubelets took
 * clusterDNS from the kubelet-config ConfigMap), a pod on worker2 calls the
 * API server through the kubernetes Service with its service-account token
 * (busybox wget's own TLS, and kubectl mounted from the host with in-cluster
 * config: 403, then 200 after a RoleBinding; @kubernetes/client-node with
 * in-cluster config from a pod on worker1). A Service whose only backend is
 * on worker2 answers by ClusterIP, NodePort, LoadBalancer address and DNS
 * name, and its backend through itself (hairpin); `nslookup web-0.nginx`
 * follows a StatefulSet's pod deleted and back with a new address; a
 * Deployment scaled up and down changes its Service's backends. A
 * NetworkPolicy on the
 * control plane's pod admits a pod over host-gw and drops one over VXLAN.
 * Then upstream's 3×3 truth table (netpol-matrix.ts) with each namespace
 * spread over the three nodes, probed from inside each pod's namespace.
 *
 * The seed's failure (issue #21): worker1 is reset, its Node deleted, and it
 * joins again; it gets a new podCIDR, its bridge carries the new gateway only,
 * a new pod there takes an address in the new range and reaches the others,
 * and the other nodes route the new range (and not the old one).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Node, Pod, Service } from 'kubernetes-types/core/v1.js';
import { createCA } from '../../src/pki/certificates.js';
import { testDepsModules } from './client-node-package.js';
import { eventually } from './harness.js';
import { startContainerd, busyboxImage, type PrivateContainerd } from './containerd.js';
import { k8ts, kubectl, tempPrefix, inNode, type OnNode } from './kubeadm-node.js';
import { buildTopology, type Topology } from './podnet-topology.js';
import { grid, namespaces, startPodAgent, type NetpolRoom, type PodAgent } from './netpol-netns.js';
import { criGridPod, matrix, ns, pod, policy } from './netpol-matrix.js';
import { netnsOfPod } from './pod-netns.js';

const run = promisify(execFile);

interface Machine { name: string; netns: string; address: string; prefix: string; on: OnNode; ctrd?: PrivateContainerd }

/** A CGI script that answers the caller's address. */
const cgi = '#!/bin/sh\necho Content-Type: text/plain\necho\necho "$REMOTE_ADDR"\n';
/** A CGI script that answers the server's host name (a pod's name). */
const nameCgi = '#!/bin/sh\necho Content-Type: text/plain\necho\nhostname\n';

describe('pod network (issue #21): pods reach pods across nodes by host-gw and VXLAN, outside traffic masqueraded, reset and rejoin with a new podCIDR', () => {
  const tag = randomBytes(3).toString('hex');
  let topo: Topology;
  let cp: Machine;
  let w1: Machine;
  let w2: Machine;
  let admin: string;
  let outside: ChildProcess | undefined;
  const outsideDir = mkdtempSync(join(tmpdir(), 'k8ts-podnet-outside-'));

  const kc = (args: string[]) => kubectl(admin, args, cp.on);
  const sh = (m: { netns: string }, args: string[]) => run('nsenter', [`--net=/run/netns/${m.netns}`, ...args]);
  const parseJoin = (out: string) => {
    const m = /k8ts (join [^\n]*?)(?: \\\n\s*)?(--discovery-token-ca-cert-hash \S+)/.exec(out);
    assert.ok(m, `no join command in: ${out}`);
    return `${m[1]} ${m[2]}`.split(/\s+/).filter(Boolean);
  };
  const join_ = async (w: Machine) => {
    const t = await k8ts(['token', 'create', '--print-join-command', '--kubeconfig', admin], undefined, cp.on);
    assert.equal(t.code, 0, t.stderr);
    const r = await k8ts([...parseJoin(t.stdout), '--prefix', w.prefix, '--cri-socket', w.ctrd!.endpoint], undefined, w.on);
    assert.equal(r.code, 0, r.stderr + r.stdout);
  };
  const node = async (name: string): Promise<Node> => JSON.parse((await kc(['get', 'node', name, '-o', 'json'])).stdout) as Node;
  const podCIDR = async (name: string) => (await node(name)).spec?.podCIDR;
  const inCIDR = (ip: string, cidr: string) => ip.startsWith(cidr.split('.').slice(0, 3).join('.') + '.') && cidr.endsWith('/24');

  /** A busybox httpd pod on `nodeName` whose /cgi-bin/ip answers the caller's address. */
  const serve = async (name: string, nodeName: string): Promise<string> => {
    const pod: Pod = {
      apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
      spec: {
        nodeName, terminationGracePeriodSeconds: 0,
        containers: [{
          name: 'web', image: busyboxImage,
          command: ['sh', '-c', `mkdir -p /www/cgi-bin && printf '${cgi.replace(/\n/g, '\\n')}' > /www/cgi-bin/ip && chmod +x /www/cgi-bin/ip && exec httpd -f -p 8080 -h /www`],
        }],
      },
    };
    const file = join(cp.prefix, `${name}.json`);
    writeFileSync(file, JSON.stringify(pod));
    const r = await kc(['apply', '-f', file]);
    assert.equal(r.code, 0, r.stderr);
    return eventually(async () => {
      const p = JSON.parse((await kc(['get', 'pod', name, '-o', 'json'])).stdout) as Pod;
      return p.status?.phase === 'Running' && p.status.podIP ? p.status.podIP : undefined;
    }, 120_000, `pod ${name} Running with an IP`);
  };
  /** A pod template of busybox httpd on 8080 whose /cgi-bin/name answers the pod's hostname. */
  const namePod = (labels: Record<string, string>) => ({
    metadata: { labels },
    spec: {
      terminationGracePeriodSeconds: 0,
      containers: [{
        name: 'web', image: busyboxImage,
        command: ['sh', '-c', `mkdir -p /www/cgi-bin && printf '${nameCgi.replace(/\n/g, '\\n')}' > /www/cgi-bin/name && chmod +x /www/cgi-bin/name && exec httpd -f -p 8080 -h /www`],
        readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1 },
      }],
    },
  });
  /**
   * The body `from` gets for `GET /cgi-bin/ip` from host:8080 (the caller address the server saw), sent with nc: the
   * image's static busybox wget crashes (SIGSEGV) resolving even a numeric address without the host's NSS libraries.
   */
  const fetchFrom = async (from: string, host: string, port = 8080, path = '/cgi-bin/ip') => {
    const r = await kc(['exec', from, '--', 'sh', '-c', `printf 'GET ${path} HTTP/1.0\\r\\n\\r\\n' | nc -w 5 ${host} ${port}`]);
    assert.equal(r.code, 0, `${from} → ${host}: ${r.stderr}`);
    assert.match(r.stdout, /^HTTP\/1\.[01] 200/, `${from} → ${host}: ${r.stdout}`);
    // busybox httpd listening on [::] reports an IPv4 caller as [::ffff:a.b.c.d].
    return r.stdout.trim().split(/\r?\n/).pop()!.trim().replace(/^\[::ffff:(.*)\]$/, '$1');
  };
  const routes = async (m: Machine) => (await sh(m, ['ip', 'route', 'show', 'proto', '77'])).stdout;

  before(async () => {
    topo = await buildTopology(tag, ['control-plane', 'worker1'], ['worker2']);
    const machine = (name: string): Machine => {
      const t = topo.machines.find((x) => x.name === name)!;
      return { ...t, prefix: tempPrefix(`pn-${name}`), on: inNode(t.netns, name) };
    };
    [cp, w1, w2] = [machine('control-plane'), machine('worker1'), machine('worker2')];
    admin = join(cp.prefix, 'etc/kubernetes/admin.conf');
    // A wrong range in every runtime's CNI network: the pod network must replace it with the Node's podCIDR.
    for (const [i, m] of [cp, w1, w2].entries()) m.ctrd = await startContainerd({ netns: m.netns, podSubnet: `10.250.${i}.0/24` });
    // "The outside": a server in the router namespace, on the link's address, answering the caller's address.
    mkdirSync(join(outsideDir, 'cgi-bin'));
    writeFileSync(join(outsideDir, 'cgi-bin', 'ip'), cgi);
    chmodSync(join(outsideDir, 'cgi-bin', 'ip'), 0o755);
    outside = spawn('nsenter', [`--net=/run/netns/${topo.router.netns}`, 'busybox', 'httpd', '-f', '-p', `${topo.router.linkAddress}:8080`, '-h', outsideDir], { stdio: 'ignore' });
  });
  after(async () => {
    outside?.kill();
    // K8TS_PODNET_KEEP=1 keeps the cluster for a look (it prints how to remove it).
    if (process.env.K8TS_PODNET_KEEP) { console.error(`kept: ${[cp, w1, w2].map((m) => `${m.netns} ${m.prefix}`).join(' ')}`); return; }
    for (const m of [w1, w2, cp]) if (m) await k8ts(['reset', '--force', '--prefix', m.prefix], undefined, m.on);
    for (const m of [cp, w1, w2]) await m?.ctrd?.stop();
    await topo?.remove();
    for (const m of [cp, w1, w2]) if (m) rmSync(m.prefix, { recursive: true, force: true });
    rmSync(outsideDir, { recursive: true, force: true });
  });

  it('init with --pod-network-cidr records backend auto; two workers join (one behind a router); every node gets a podCIDR and its routes', async () => {
    const init = await k8ts(['init', '--prefix', cp.prefix, '--apiserver-advertise-address', cp.address, '--cri-socket', cp.ctrd!.endpoint,
      '--pod-network-cidr', '10.244.0.0/16'], undefined, cp.on);
    assert.equal(init.code, 0, init.stderr + init.stdout);
    assert.match(init.stdout, /\[upload-config\] Storing the configuration used in ConfigMap "kubeadm-config" in the "kube-system" Namespace/);
    const cm = await kc(['get', 'configmap', '-n', 'kube-system', 'kubeadm-config', '-o', 'jsonpath={.data.podNetworkBackend}']);
    assert.equal(cm.stdout, 'auto');
    await join_(w1);
    await join_(w2);
    const cidrs = await eventually(async () => {
      const c = await Promise.all([cp, w1, w2].map((m) => podCIDR(m.name)));
      return c.every(Boolean) ? c as string[] : undefined;
    }, 30_000, 'a podCIDR on every node');
    assert.equal(new Set(cidrs).size, 3);
    // worker2 is reached through the router: its VXLAN endpoint is published, and the others route to it over the overlay.
    const data = await eventually(async () => (await node('worker2')).metadata?.annotations?.['podnet.k8ts.io/backend-data'], 15_000, 'worker2 publishes its VTEP');
    assert.match(data, /^\{"VNI":1,"VtepMAC":"([0-9a-f]{2}:){5}[0-9a-f]{2}"\}$/);
    const [cpCIDR, w1CIDR, w2CIDR] = cidrs as [string, string, string];
    await eventually(async () => {
      const [onCP, onW1, onW2] = await Promise.all([routes(cp), routes(w1), routes(w2)]);
      return onCP.includes(`${w1CIDR} via ${w1.address}`)
        && onCP.includes(`${w2CIDR} via ${w2CIDR.split('/')[0]} dev k8ts.1`) && onCP.includes('onlink')
        && onW1.includes(`${cpCIDR} via ${cp.address}`) && onW1.includes(`${w2CIDR} via ${w2CIDR.split('/')[0]} dev k8ts.1`)
        && onW2.includes(`${cpCIDR} via ${cpCIDR.split('/')[0]} dev k8ts.1`) && onW2.includes(`${w1CIDR} via ${w1CIDR.split('/')[0]} dev k8ts.1`);
    }, 15_000, 'host-gw routes between control-plane and worker1, VXLAN routes to and from worker2');
  });

  it('pods take addresses from their node\'s podCIDR and reach each other by IP without NAT, over host-gw and over VXLAN', async () => {
    const ips: Record<string, string> = {};
    for (const m of [cp, w1, w2]) {
      ips[m.name] = await serve(`web-${m.name}`, m.name);
      const cidr = (await podCIDR(m.name))!;
      assert.ok(inCIDR(ips[m.name]!, cidr), `${m.name}'s pod ${ips[m.name]} is in its podCIDR ${cidr}`);
    }
    // control-plane → worker1: host-gw; worker1 → worker2 and worker2 → control-plane: VXLAN through the router.
    for (const [from, to] of [['control-plane', 'worker1'], ['worker1', 'control-plane'], ['worker1', 'worker2'], ['worker2', 'control-plane'], ['control-plane', 'worker2']] as const) {
      assert.equal(await fetchFrom(`web-${from}`, ips[to]!), ips[from], `${from} → ${to}: the server sees the client pod's own address`);
    }
    const ping = await kc(['exec', 'web-worker2', '--', 'ping', '-c', '1', '-W', '3', ips['worker1']!]);
    assert.equal(ping.code, 0, ping.stderr + ping.stdout);
  });

  it('pods on the joined workers resolve kubernetes.default through the cluster DNS: join took clusterDNS from the kubelet-config ConfigMap', async () => {
    for (const pod of ['web-worker1', 'web-worker2']) {
      const conf = await kc(['exec', pod, '--', 'cat', '/etc/resolv.conf']);
      assert.match(conf.stdout, /^nameserver 10\.96\.0\.10$/m, `${pod}: ${conf.stdout}`);
      assert.match(conf.stdout, /^search default\.svc\.cluster\.local svc\.cluster\.local cluster\.local\b/m, `${pod}: ${conf.stdout}`);
      // Through the kube-dns Service: kube-proxy on the worker DNATs to a coredns pod (a host process on some node).
      let last = '';
      await eventually(async () => {
        const r = await kc(['exec', pod, '--', 'sh', '-c', 'nslookup kubernetes.default.svc.cluster.local 2>&1']);
        last = r.stdout + r.stderr;
        return /^Address:\s*10\.96\.0\.1$/m.test(r.stdout) ? true : undefined;
      }, 120_000, `${pod} resolves kubernetes.default.svc.cluster.local`).catch((e) => { throw new Error(`${(e as Error).message}; the last answer: ${last}`); });
    }
  });

  it('pods on every node reach the API server through the kubernetes Service (10.96.0.1:443)', async () => {
    // The lease endpoint reconciler published the control plane's advertised address in the kubernetes
    // EndpointSlice, which kube-proxy on each node routes 10.96.0.1:443 to (without it: refused).
    const slice = await kc(['get', 'endpointslice', 'kubernetes', '-n', 'default', '-o', 'jsonpath={.endpoints[*].addresses[0]}:{.ports[0].port}']);
    assert.equal(slice.stdout, `${cp.address}:6443`);
    for (const pod of ['web-control-plane', 'web-worker1', 'web-worker2']) {
      let last = '';
      await eventually(async () => {
        const r = await kc(['exec', pod, '--', 'sh', '-c', 'nc -w 3 10.96.0.1 443 </dev/null && echo connected']);
        last = r.stdout + r.stderr;
        return /^connected$/m.test(r.stdout) ? true : undefined;
      }, 60_000, `${pod} connects to 10.96.0.1:443`).catch((e) => { throw new Error(`${(e as Error).message}; the last answer: ${last}`); });
    }
  });

  it('a pod on worker2 calls the API server through the kubernetes Service with its service-account token: 403, then 200 after a RoleBinding (busybox wget over TLS, kubectl with in-cluster config)', async () => {
    // kubectl, a static Go binary, mounted from the host into a busybox pod: client-go's in-cluster config
    // (KUBERNETES_SERVICE_HOST/PORT, the mounted token and ca.crt, the certificate verified for 10.96.0.1).
    const kubectlBinary = realpathSync('/usr/bin/kubectl');
    assert.equal((await kc(['create', 'serviceaccount', 'reader'])).code, 0);
    const pod: Pod = {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'in-cluster', namespace: 'default' },
      spec: {
        nodeName: 'worker2', serviceAccountName: 'reader', terminationGracePeriodSeconds: 0,
        containers: [{
          name: 'client', image: busyboxImage, command: ['sleep', '3600'], env: [{ name: 'HOME', value: '/tmp' }],
          volumeMounts: [{ name: 'kubectl', mountPath: '/opt/kubectl', readOnly: true }],
        }],
        volumes: [{ name: 'kubectl', hostPath: { path: kubectlBinary, type: 'File' } }],
      },
    };
    const file = join(cp.prefix, 'in-cluster.json');
    writeFileSync(file, JSON.stringify(pod));
    assert.equal((await kc(['apply', '-f', file])).code, 0);
    await eventually(async () => (JSON.parse((await kc(['get', 'pod', 'in-cluster', '-o', 'json'])).stdout) as Pod).status?.phase === 'Running' || undefined,
      120_000, 'pod in-cluster Running');
    const sa = '/var/run/secrets/kubernetes.io/serviceaccount';
    // busybox's own TLS (the image has no openssl to hand the connection to): its ClientHello has no
    // signature_algorithms, which the API server must accept as Go's does. It cannot verify certificates
    // at all ("TLS certificate validation not implemented"), so ca.crt is kubectl's to check.
    const wget = () => kc(['exec', 'in-cluster', '--', 'sh', '-c',
      `wget -S -O- --header "Authorization: Bearer $(cat ${sa}/token)" https://10.96.0.1/api/v1/namespaces/default/pods 2>&1`]);
    const kubectlInPod = () => kc(['exec', 'in-cluster', '--', '/opt/kubectl', 'get', 'pods', '-o', 'name']);
    let last = '';
    await eventually(async () => {
      const r = await wget();
      last = r.stdout + r.stderr;
      return /HTTP\/1\.1 403 Forbidden/.test(r.stdout) ? true : undefined;
    }, 60_000, 'busybox wget from in-cluster answered 403').catch((e) => { throw new Error(`${(e as Error).message}; the last answer: ${last}`); });
    assert.doesNotMatch(last, /alert|handshake/i);
    const refused = await kubectlInPod();
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /pods is forbidden: User "system:serviceaccount:default:reader" cannot list resource "pods" in API group "" in the namespace "default"/);

    assert.equal((await kc(['create', 'role', 'pod-reader', '--verb=get,list', '--resource=pods'])).code, 0);
    assert.equal((await kc(['create', 'rolebinding', 'reader-reads-pods', '--role=pod-reader', '--serviceaccount=default:reader'])).code, 0);
    const list = await eventually(async () => {
      const r = await wget();
      last = r.stdout + r.stderr;
      return r.code === 0 && /HTTP\/1\.1 200 OK/.test(r.stdout) ? r.stdout : undefined;
    }, 30_000, 'busybox wget from in-cluster answered 200 after the RoleBinding').catch((e) => { throw new Error(`${(e as Error).message}; the last answer: ${last}`); });
    const body = JSON.parse(list.slice(list.indexOf('{'), list.lastIndexOf('}') + 1)) as { kind: string; items: Pod[] };
    assert.equal(body.kind, 'PodList');
    assert.ok(body.items.some((p) => p.metadata?.name === 'in-cluster'), 'the list holds the calling pod');
    const allowed = await kubectlInPod();
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.match(allowed.stdout, /^pod\/in-cluster$/m);
    // RBAC still applies: the Role grants pods only.
    const secrets = await kc(['exec', 'in-cluster', '--', '/opt/kubectl', 'get', 'secrets']);
    assert.match(secrets.stderr, /secrets is forbidden: User "system:serviceaccount:default:reader" cannot list resource "secrets"/);
    assert.equal((await kc(['delete', 'pod', 'in-cluster', '--wait=false'])).code, 0);
  });

  it('@kubernetes/client-node with in-cluster config in a pod on worker1 reaches the API server through the kubernetes Service: ca.crt verified, pods listed with its token, secrets refused (403)', async () => {
    // Node.js and client-node mounted from the host into a busybox pod (the binary needs only the host's libc,
    // libstdc++ and loader); KubeConfig.loadFromCluster reads KUBERNETES_SERVICE_HOST/PORT and the mounted
    // token, ca.crt and namespace. The reader service account holds the pod-reader Role of the test above.
    const app = join(cp.prefix, 'client-node-app');
    mkdirSync(app, { recursive: true });
    writeFileSync(join(app, 'other-ca.crt'), (await createCA({ commonName: 'not-the-cluster-ca', days: 1 })).certPem);
    writeFileSync(join(app, 'client.mjs'), `
import { readFileSync } from 'node:fs';
import { KubeConfig, CoreV1Api } from '/opt/deps/node_modules/@kubernetes/client-node/dist/index.js';
const kc = new KubeConfig();
kc.loadFromCluster();
const cluster = kc.getCurrentCluster();
const out = { server: cluster.server, caFile: cluster.caFile, namespace: kc.getContextObject(kc.getCurrentContext()).namespace };
const why = (e) => ({ code: e.code ?? e.cause?.code, message: String(e.message ?? e).slice(0, 600) });
const api = kc.makeApiClient(CoreV1Api);
try { out.pods = (await api.listNamespacedPod({ namespace: 'default' })).items.map((p) => p.metadata.name); } catch (e) { out.podsError = why(e); }
try { await api.listNamespacedSecret({ namespace: 'default' }); out.secrets = 'allowed'; } catch (e) { out.secretsError = why(e); }
// The same call trusting another CA must fail the certificate check.
const wrong = new KubeConfig();
wrong.loadFromOptions({
  clusters: [{ name: 'c', server: cluster.server, caData: readFileSync('/opt/app/other-ca.crt').toString('base64') }],
  users: [{ name: 'u', token: readFileSync('/var/run/secrets/kubernetes.io/serviceaccount/token', 'utf8') }],
  contexts: [{ name: 'x', cluster: 'c', user: 'u' }], currentContext: 'x',
});
try { await wrong.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: 'default' }); out.otherCA = 'accepted'; } catch (e) { out.otherCAError = why(e); }
console.log(JSON.stringify(out));
`);
    const hostPath = (name: string, path: string, mountPath: string, type: 'File' | 'Directory') =>
      ({ volume: { name, hostPath: { path: realpathSync(path), type } }, mount: { name, mountPath, readOnly: true } });
    const mounts = [
      hostPath('node', process.execPath, '/opt/node/bin/node', 'File'),
      hostPath('libs', '/lib/x86_64-linux-gnu', '/lib/x86_64-linux-gnu', 'Directory'),
      hostPath('loader', '/lib64', '/lib64', 'Directory'),
      hostPath('deps', testDepsModules, '/opt/deps/node_modules', 'Directory'),
      hostPath('app', app, '/opt/app', 'Directory'),
    ];
    const pod: Pod = {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'client-node', namespace: 'default' },
      spec: {
        nodeName: 'worker1', serviceAccountName: 'reader', terminationGracePeriodSeconds: 0,
        containers: [{ name: 'client', image: busyboxImage, command: ['sleep', '3600'], volumeMounts: mounts.map((m) => m.mount) }],
        volumes: mounts.map((m) => m.volume),
      },
    };
    const file = join(cp.prefix, 'client-node.json');
    writeFileSync(file, JSON.stringify(pod));
    assert.equal((await kc(['apply', '-f', file])).code, 0);
    await eventually(async () => (JSON.parse((await kc(['get', 'pod', 'client-node', '-o', 'json'])).stdout) as Pod).status?.phase === 'Running' || undefined,
      120_000, 'pod client-node Running');
    const env = await kc(['exec', 'client-node', '--', 'sh', '-c', 'echo $KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT']);
    assert.equal(env.stdout.trim(), '10.96.0.1:443');
    const r = await kc(['exec', 'client-node', '--', '/opt/node/bin/node', '/opt/app/client.mjs']);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
      server: string; caFile: string; namespace: string; pods?: string[]; podsError?: unknown;
      secrets?: string; secretsError?: { code: number; message: string }; otherCA?: string; otherCAError?: { code: string; message: string };
    };
    assert.equal(out.server, 'https://10.96.0.1:443');
    assert.equal(out.caFile, '/var/run/secrets/kubernetes.io/serviceaccount/ca.crt');
    assert.equal(out.namespace, 'default');
    assert.ok(out.pods?.includes('client-node'), `the pods it listed: ${JSON.stringify(out)}`);
    assert.equal(out.secretsError?.code, 403, `secrets: ${JSON.stringify(out)}`);
    assert.match(out.secretsError!.message, /secrets is forbidden: User \W*system:serviceaccount:default:reader\W* cannot list resource \W*secrets/);
    assert.equal(out.otherCA, undefined, 'a CA that did not sign the serving certificate is refused');
    assert.match(`${out.otherCAError?.code} ${out.otherCAError?.message}`, /certificate|UNABLE_TO_VERIFY|SELF_SIGNED/i, JSON.stringify(out.otherCAError));
    assert.equal((await kc(['delete', 'pod', 'client-node', '--wait=false'])).code, 0);
  });

  it('a Service whose only backend is on worker2 answers a pod on the control plane by ClusterIP, NodePort, LoadBalancer address and DNS name; the backend reaches itself through it (hairpin)', async () => {
    const w2IP = JSON.parse((await kc(['get', 'pod', 'web-worker2', '-o', 'json'])).stdout).status.podIP as string;
    const cpIP = JSON.parse((await kc(['get', 'pod', 'web-control-plane', '-o', 'json'])).stdout).status.podIP as string;
    assert.equal((await kc(['label', 'pod', 'web-worker2', 'serves=only-worker2'])).code, 0);
    const file = join(cp.prefix, 'only-worker2.json');
    writeFileSync(file, JSON.stringify({
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'only-worker2', namespace: 'default' },
      spec: { type: 'LoadBalancer', selector: { serves: 'only-worker2' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
    }));
    assert.equal((await kc(['apply', '-f', file])).code, 0);
    const svc = await eventually(async () => {
      const s = JSON.parse((await kc(['get', 'service', 'only-worker2', '-o', 'json'])).stdout) as Service;
      return s.status?.loadBalancer?.ingress?.length ? s : undefined;
    }, 30_000, 'the LoadBalancer Service gets its ingress addresses');
    const nodePort = svc.spec!.ports![0]!.nodePort!;
    const ingress = svc.status!.loadBalancer!.ingress!.map((i) => i.ip!);
    assert.deepEqual([...ingress].sort(), [cp.address, w1.address, w2.address].sort(), 'the nodes\' addresses (ServiceLB)');
    // Every path lands on web-worker2, across the VXLAN overlay; through the ClusterIP the backend sees the client pod itself.
    const through = async (what: string, host: string, port: number) =>
      eventually(async () => fetchFrom('web-control-plane', host, port).catch(() => undefined), 30_000, `web-control-plane → ${what}`);
    assert.equal(await through('ClusterIP', svc.spec!.clusterIP!, 80), cpIP, 'ClusterIP: the client pod\'s own address');
    for (const node of [cp, w1]) assert.ok(await through(`NodePort on ${node.name}`, node.address, nodePort));
    for (const ip of ingress) assert.ok(await through(`LoadBalancer address ${ip}`, ip, 80));
    // The short name through the pod's search path (busybox nc resolves with it), answered by kube-dns.
    assert.equal(await through('the DNS name only-worker2', 'only-worker2', 80), cpIP);
    // Hairpin: the only backend calls its own Service and is answered by itself (masqueraded, as upstream's hairpin rule).
    const hairpin = await eventually(async () => fetchFrom('web-worker2', svc.spec!.clusterIP!, 80).catch(() => undefined), 30_000, 'web-worker2 → its own ClusterIP');
    const gateway = (await podCIDR('worker2'))!.replace(/0\/24$/, '1');
    assert.equal(hairpin, gateway, `hairpin traffic is masqueraded to worker2's bridge address (not ${w2IP}), so the reply comes back through the DNAT`);
    assert.equal((await kc(['delete', '-f', file])).code, 0);
  });

  it('nslookup web-0.nginx from a pod follows web-0 when it is deleted and comes back with a new IP', async () => {
    const file = join(cp.prefix, 'web-sts.json');
    writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'nginx', namespace: 'default' },
        spec: { clusterIP: 'None', selector: { app: 'web-sts' }, ports: [{ name: 'web', port: 8080 }] } },
      { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'web', namespace: 'default' },
        spec: { serviceName: 'nginx', replicas: 1, selector: { matchLabels: { app: 'web-sts' } }, template: namePod({ app: 'web-sts' }) } },
    ] }));
    assert.equal((await kc(['apply', '-f', file])).code, 0);
    const running = (notUID?: string) => eventually(async () => {
      const r = await kc(['get', 'pod', 'web-0', '-o', 'json']);
      const p = r.code === 0 ? JSON.parse(r.stdout) as Pod : undefined;
      return p?.status?.phase === 'Running' && p.status.podIP && p.metadata?.uid !== notUID && !p.metadata?.deletionTimestamp ? p : undefined;
    }, 120_000, 'web-0 Running');
    const first = await running();
    // busybox nslookup asks the name as given (no search path): the FQDN; the last Address line is the answer.
    let last = '';
    const resolvesTo = (ip: string) => eventually(async () => {
      last = (await kc(['exec', 'web-control-plane', '--', 'nslookup', 'web-0.nginx.default.svc.cluster.local'])).stdout;
      return [...last.matchAll(/^Address:\s*(\S+)$/gm)].pop()?.[1] === ip || undefined;
    }, 30_000, `web-0.nginx resolves to ${ip}`).catch((e) => { throw new Error(`${(e as Error).message}; last: ${last}`); });
    await resolvesTo(first.status!.podIP!);
    assert.equal((await kc(['delete', 'pod', 'web-0', '--wait=false'])).code, 0);
    const second = await running(first.metadata!.uid);
    assert.notEqual(second.status!.podIP, first.status!.podIP, 'the new web-0 has a new address');
    await resolvesTo(second.status!.podIP!);
    // The short name through the pod's search path, as the seed's `web-0.nginx`: busybox nc resolves with it.
    assert.equal(await eventually(async () => fetchFrom('web-control-plane', 'web-0.nginx', 8080, '/cgi-bin/name').catch(() => undefined), 30_000, 'GET web-0.nginx:8080'), 'web-0');
    assert.equal((await kc(['delete', '-f', file, '--wait=false'])).code, 0);
  });

  it('scaling a Deployment changes its Service\'s backends; a removed pod gets no new connections', async () => {
    const file = join(cp.prefix, 'echo.json');
    writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'echo', namespace: 'default' },
        spec: { selector: { app: 'echo' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } },
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'echo', namespace: 'default' },
        spec: { replicas: 1, selector: { matchLabels: { app: 'echo' } }, template: namePod({ app: 'echo' }) } },
    ] }));
    assert.equal((await kc(['apply', '-f', file])).code, 0);
    const ip = (JSON.parse((await kc(['get', 'service', 'echo', '-o', 'json'])).stdout) as Service).spec!.clusterIP!;
    const ready = async () => (JSON.parse((await kc(['get', 'pods', '-l', 'app=echo', '-o', 'json'])).stdout) as { items: Pod[] }).items
      .filter((p) => !p.metadata?.deletionTimestamp && p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).map((p) => p.metadata!.name!);
    const answered = async () => fetchFrom('web-control-plane', ip, 80, '/cgi-bin/name').catch(() => undefined);
    const seen = new Set<string>();
    const allAnswer = (want: string[]) => eventually(async () => {
      const a = await answered();
      if (a) seen.add(a);
      return want.every((n) => seen.has(n)) || undefined;
    }, 60_000, `answers from ${want.join(', ')} through the ClusterIP (seen: ${[...seen].join(', ')})`);
    const one = await eventually(async () => { const r = await ready(); return r.length === 1 ? r : undefined; }, 120_000, 'one echo pod Ready');
    await allAnswer(one);
    assert.equal((await kc(['scale', 'deployment', 'echo', '--replicas=3'])).code, 0);
    const three = await eventually(async () => { const r = await ready(); return r.length === 3 ? r : undefined; }, 120_000, 'three echo pods Ready');
    await allAnswer(three);
    assert.equal((await kc(['scale', 'deployment', 'echo', '--replicas=1'])).code, 0);
    const kept = await eventually(async () => {
      const r = await ready();
      const slice = (await kc(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=echo', '-o', 'jsonpath={.items[*].endpoints[*].targetRef.name}'])).stdout.trim().split(/\s+/);
      return r.length === 1 && slice.length === 1 && slice[0] === r[0] ? r[0] : undefined;
    }, 120_000, 'one echo pod left, alone in the EndpointSlice');
    // Once the slice names one pod, every new connection reaches it (kube-proxy follows the slice within its sync).
    await eventually(async () => (await answered()) === kept || undefined, 10_000, `the ClusterIP answers from ${kept}`);
    for (let i = 0; i < 10; i++) assert.equal(await answered(), kept, `connection ${i + 1} after the scale-down`);
    assert.equal((await kc(['delete', '-f', file, '--wait=false'])).code, 0);
  });

  it('a NetworkPolicy holds across nodes: web-control-plane admits web-worker1 (host-gw) and drops web-worker2 (VXLAN) until it is deleted', async () => {
    const cpIP = JSON.parse((await kc(['get', 'pod', 'web-control-plane', '-o', 'json'])).stdout).status.podIP as string;
    /** Whether `from` gets an HTTP answer from host:8080; false when dropped (nc gives up after 3 s). */
    const reaches = async (from: string, host: string) =>
      /^HTTP\/1\.[01] 200/.test((await kc(['exec', from, '--', 'sh', '-c', `printf 'GET /cgi-bin/ip HTTP/1.0\\r\\n\\r\\n' | nc -w 3 ${host} 8080; true`])).stdout);
    assert.equal((await kc(['label', 'pod', 'web-control-plane', 'netpol=target'])).code, 0);
    assert.equal((await kc(['label', 'pod', 'web-worker1', 'netpol=client'])).code, 0);
    const file = join(cp.prefix, 'netpol.json');
    writeFileSync(file, JSON.stringify({
      apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'target-from-client', namespace: 'default' },
      spec: { podSelector: { matchLabels: { netpol: 'target' } }, ingress: [{ from: [{ podSelector: { matchLabels: { netpol: 'client' } } }] }] },
    }));
    assert.equal((await kc(['apply', '-f', file])).code, 0);
    try {
      await eventually(async () => !(await reaches('web-worker2', cpIP)), 60_000, 'web-worker2 is dropped once the control plane\'s agent enforces the policy');
      // One probe may time out on a loaded machine (nc -w 3): an admitted peer must get through within a few tries.
      await eventually(async () => (await reaches('web-worker1', cpIP)) || undefined, 30_000, 'web-worker1 is admitted');
    } finally {
      assert.equal((await kc(['delete', '-f', file])).code, 0);
    }
    await eventually(async () => reaches('web-worker2', cpIP), 60_000, 'web-worker2 reaches web-control-plane once the policy is gone');
  });

  it('the NetworkPolicy truth table across containerd nodes: each namespace\'s a on the control plane, b on worker1 (host-gw), c on worker2 (VXLAN)', async () => {
    const nodeOf: Record<string, Machine> = { a: cp, b: w1, c: w2 };
    const agents = new Map<string, PodAgent>();
    const ips = new Map<string, string>();
    const applyJSON = async (args: string[], input?: string) => {
      const file = join(cp.prefix, `in-${randomBytes(3).toString('hex')}.json`);
      if (input !== undefined) writeFileSync(file, input);
      const r = await kc(input !== undefined ? [...args.filter((a) => a !== '-'), file] : args);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    };
    try {
      for (const n of namespaces) await kc(['create', 'namespace', n]);
      await applyJSON(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: grid.map((id) => criGridPod(id, nodeOf[pod(id)]!.name)) }));
      for (const id of grid) {
        const p = await eventually(async () => {
          const got = JSON.parse((await kc(['get', 'pod', '-n', ns(id), pod(id), '-o', 'json'])).stdout) as Pod;
          return got.status?.phase === 'Running' && got.status.podIP && got.status.containerStatuses?.[0]?.ready ? got : undefined;
        }, 180_000, `pod ${id} Running`);
        ips.set(id, p.status!.podIP!);
        agents.set(id, await startPodAgent(await netnsOfPod(nodeOf[pod(id)]!.ctrd!.socket, p), true));
      }
      const room: NetpolRoom = {
        pods: agents, proxyLog: [], cleanup: async () => undefined, kubectl: applyJSON,
        nft: async (args) => (await sh(cp, ['nft', ...args])).stdout,
      };
      const m = matrix(room, false, (id) => ips.get(id)!);
      const inNs = (name: string) => ({ matchLabels: { 'kubernetes.io/metadata.name': name } });
      const within = 60_000;
      await m.expectTruthTable('tcp', 80, () => true, 'no policy', within);
      await m.apply(policy('x', 'and', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: inNs('y'), podSelector: { matchLabels: { pod: 'c' } } }] }] }));
      await m.expectTruthTable('tcp', 80, (f, to) => ns(to) !== 'x' || f === 'y/c', 'x admits only y/c (VXLAN to a and b)', within);
      await m.apply(policy('x', 'and', { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '10.244.0.0/16', except: [`${ips.get('y/b')}/32`] } }] }] }));
      await m.expectTruthTable('tcp', 80, (f, to) => ns(to) !== 'x' || f !== 'y/b', 'ipBlock except y/b', within);
      // The same policy rewritten for each peer shape: a podSelector alone, a namespaceSelector alone, both as two peers.
      await m.apply(policy('x', 'and', { podSelector: {}, ingress: [{ from: [{ podSelector: { matchLabels: { pod: 'c' } } }] }] }));
      await m.expectTruthTable('tcp', 80, (f, to) => ns(to) !== 'x' || f === 'x/c', 'x admits only x/c (podSelector)', within);
      await m.apply(policy('x', 'and', { podSelector: { matchLabels: { pod: 'a' } }, ingress: [{ from: [{ namespaceSelector: inNs('z') }] }] }));
      await m.expectTruthTable('tcp', 80, (f, to) => to !== 'x/a' || ns(f) === 'z', 'x/a admits only namespace z (namespaceSelector)', within);
      await m.apply(policy('x', 'and', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: inNs('y') }, { podSelector: { matchLabels: { pod: 'b' } } }] }] }));
      await m.expectTruthTable('tcp', 80, (f, to) => ns(to) !== 'x' || ns(f) === 'y' || f === 'x/b', 'all of y and x/b (two peers)', within);
      await kc(['delete', 'networkpolicy', '-n', 'x', 'and']);
      await m.apply(policy('x', 'deny-egress', { podSelector: {}, policyTypes: ['Egress'] }));
      await m.expectTruthTable('udp', 80, (f) => ns(f) !== 'x', 'default deny egress in x (UDP)', within);
      await kc(['delete', 'networkpolicy', '-n', 'x', 'deny-egress']);
      await m.apply(policy('x', 'range', { podSelector: {}, ingress: [{ ports: [{ protocol: 'TCP', port: 81, endPort: 90 }] }] }));
      await m.expectTruthTable('tcp', 80, (_f, to) => ns(to) !== 'x', 'endPort 81..90 refuses 80', within);
      await m.expectTruthTable('tcp', 81, () => true, 'endPort 81..90 admits 81', within);
      await kc(['delete', 'networkpolicy', '-n', 'x', 'range']);
      // Egress to DNS only: x reaches no pod, but x/c on worker2 still resolves through kube-dns (a DNAT to a node's port 53).
      await m.apply(policy('x', 'dns-only', { podSelector: {}, policyTypes: ['Egress'], egress: [{ ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }] }] }));
      await m.expectTruthTable('tcp', 80, (f) => ns(f) !== 'x', 'egress to DNS only', within);
      let answer = '';
      await eventually(async () => {
        answer = (await kc(['exec', '-n', 'x', 'c', '--', 'nslookup', 'kubernetes.default.svc.cluster.local'])).stdout;
        return /^Address:\s*10\.96\.0\.1$/m.test(answer) || undefined;
      }, within, 'nslookup from x/c (worker2) under DNS-only egress').catch((e) => { throw new Error(`${(e as Error).message}; last: ${answer}`); });
      await kc(['delete', 'networkpolicy', '-n', 'x', 'dns-only']);
      await m.apply(
        policy('z', 'egress-to-y', { podSelector: {}, policyTypes: ['Egress'], egress: [{ to: [{ namespaceSelector: inNs('y') }], ports: [{ port: 'serve-81-tcp', protocol: 'TCP' }] }] }),
        policy('y', 'ingress-from-z', { podSelector: { matchLabels: { pod: 'a' } }, ingress: [{ from: [{ namespaceSelector: inNs('z') }] }] }),
      );
      await m.expectTruthTable('tcp', 81, (f, to) => (ns(f) !== 'z' || ns(to) === 'y') && (to !== 'y/a' || ns(f) === 'z'), 'both sides, a named port', within);
      await m.expectTruthTable('tcp', 80, (f, to) => ns(f) !== 'z' && (to !== 'y/a' || ns(f) === 'z'), 'both sides, port 80', within);
    } finally {
      for (const a of agents.values()) a.close();
      await kc(['delete', 'namespace', ...namespaces, '--wait=false']);
    }
  });

  it('pod-to-outside traffic is masqueraded to the node\'s address (table ip k8ts-podnet)', async () => {
    assert.equal(await fetchFrom('web-worker1', topo.router.linkAddress), w1.address);
    assert.equal(await fetchFrom('web-control-plane', topo.router.linkAddress), cp.address);
    const table = await sh(w1, ['nft', 'list', 'table', 'ip', 'k8ts-podnet']);
    assert.match(table.stdout, /masquerade/);
  });

  it('the seed walk: worker1 reset, its Node deleted, joins again with a new podCIDR; the bridge, its pods and the others\' routes follow', async () => {
    const oldCIDR = (await podCIDR('worker1'))!;
    assert.equal((await kc(['delete', 'pod', 'web-worker1', '--wait=false'])).code, 0);
    assert.equal((await kc(['delete', 'node', 'worker1'])).code, 0);
    const reset = await k8ts(['reset', '--force', '--prefix', w1.prefix], undefined, w1.on);
    assert.equal(reset.code, 0, reset.stderr);
    assert.match(reset.stdout, /\[reset\] Removing the pod network/);
    // reset removed what the pod network set up on worker1.
    const links = (await sh(w1, ['ip', '-o', 'link', 'show'])).stdout;
    assert.doesNotMatch(links, /k8ts0|k8ts\.1/);
    assert.equal(await routes(w1), '');
    assert.notEqual((await sh(w1, ['nft', 'list', 'tables'])).stdout.includes('k8ts-podnet'), true);
    await join_(w1);
    const newCIDR = await eventually(async () => podCIDR('worker1'), 30_000, 'worker1 has a podCIDR again');
    assert.notEqual(newCIDR, oldCIDR, 'the rejoined node gets a new podCIDR (the seed: 10.244.1.0/24 → 10.244.4.0/24)');
    const ip = await serve('web-worker1-again', 'worker1');
    assert.ok(inCIDR(ip, newCIDR), `the new pod's ${ip} is in the new podCIDR ${newCIDR}`);
    const bridge = (await sh(w1, ['ip', '-4', '-o', 'addr', 'show', 'dev', 'k8ts0'])).stdout;
    assert.match(bridge, new RegExp(`inet ${newCIDR.replace(/0\/24$/, '1').replace(/\./g, '\\.')}/24`));
    assert.equal(bridge.trim().split('\n').length, 1, `only the new gateway on k8ts0: ${bridge}`);
    await eventually(async () => {
      const onCP = await routes(cp);
      return onCP.includes(`${newCIDR} via ${w1.address}`) && !onCP.includes(oldCIDR);
    }, 15_000, 'control-plane routes the new podCIDR, not the old one');
    const cpIP = JSON.parse((await kc(['get', 'pod', 'web-control-plane', '-o', 'json'])).stdout).status.podIP as string;
    const w2IP = JSON.parse((await kc(['get', 'pod', 'web-worker2', '-o', 'json'])).stdout).status.podIP as string;
    assert.equal(await fetchFrom('web-worker1-again', cpIP), ip);
    assert.equal(await fetchFrom('web-worker1-again', w2IP), ip);
    assert.equal(await fetchFrom('web-worker2', ip), w2IP);
  });
});
