/**
 * pods/proxy and services/proxy end to end, as the Kubernetes Basics
 * tutorial ("Explore your app") uses them:
 *
 *  - A network namespace this test creates holds everything of the first
 *    cluster: a veth pair (both ends inside) with 10.83.0.1 (a global unicast address:
 *    upstream refuses to proxy to loopback pod IPs, and so does k8ts), a
 *    real `k8ts server`, a real `k8ts agent --runtime process` whose node IP
 *    (so every pod's IP) is 10.83.0.1, the real kubectl and `kubectl proxy`.
 *    An echo pod (a `node` HTTP server on port 18080, container port `web`)
 *    and a Service `echo` (port `http` 80 → `web`) answer through both
 *    subresources: by port number and name, through `kubectl get --raw` and
 *    through `kubectl proxy` + curl (GET, POST with a body, an Upgrade);
 *    a user allowed to read pods but not pods/proxy gets upstream's 403; a
 *    Service without endpoints and a closed port get upstream's 503s.
 *  - `k8ts up` (what `npm start` runs, simulated nodes) on loopback:
 *    `kubectl cluster-info` has upstream's shape and its CoreDNS URL answers
 *    503 naming the simulated node and how to get one that runs containers;
 *    so does the tutorial's kubernetes-bootcamp pod on port 8080.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import tls from 'node:tls';
import { parse } from 'yaml';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cliPath, eventually } from './harness.js';
import { killChild, lineReader } from './helpers.js';
import { startUp, type UpCluster } from './up-cluster.js';

const run = promisify(execFile);
const tag = randomBytes(3).toString('hex');
const netns = `k8ts-rp-${tag}`;
const nodeIP = '10.83.0.1';
const inNs = (argv: string[]) => ['nsenter', `--net=/run/netns/${netns}`, ...argv];

/** The echo pod: method, path, a header and the body back; an Upgrade to `echo` is accepted and echoes bytes. */
const echoServer = `const http = require('http');
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => { body += c; });
  req.on('end', () => {
    res.setHeader('Content-Type', 'text/plain');
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.end(req.method + ' ' + req.url + ' uri=' + req.headers['x-forwarded-uri'] + ' auth=' + (req.headers.authorization ? 'yes' : 'no') + ' body=' + body);
  });
});
server.on('upgrade', (req, socket) => {
  socket.write('HTTP/1.1 101 Switching Protocols\\r\\nConnection: Upgrade\\r\\nUpgrade: echo\\r\\n\\r\\n');
  socket.pipe(socket);
});
server.listen(18080, '0.0.0.0');
process.on('SIGTERM', () => process.exit(0));`;

const manifests = (node: string) => JSON.stringify({
  apiVersion: 'v1', kind: 'List', items: [
    {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'echo', namespace: 'default', labels: { app: 'echo' } },
      spec: { nodeName: node, containers: [{ name: 'echo', image: 'k8ts.local/node:1', command: [process.execPath, '-e', echoServer], ports: [{ name: 'web', containerPort: 18080 }] }] },
    },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'echo', namespace: 'default' }, spec: { selector: { app: 'echo' }, ports: [{ name: 'http', port: 80, targetPort: 'web' }] } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'lonely', namespace: 'default' }, spec: { selector: { app: 'nobody' }, ports: [{ port: 80 }] } },
    // alice may read pods (view) but not pods/proxy or services/proxy (edit and admin have them, view does not: upstream's roles).
    {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'alice-view', namespace: 'default' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
    },
  ],
});

/** Resolves at the first stderr line of `child` that matches (the server logs JSON there). */
function stderrLine(child: ChildProcess, match: (line: string) => boolean, what: string, ms = 120_000): Promise<void> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`${what} not seen in ${ms} ms: ${buf.slice(-2000)}`)), ms);
    const onData = (d: Buffer) => {
      buf += d.toString();
      if (buf.split('\n').some(match)) { clearTimeout(timer); child.stderr!.off('data', onData); child.stderr!.resume(); resolve(); }
    };
    child.stderr!.on('data', onData);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`${what}: exited (${code}): ${buf.slice(-2000)}`)); });
  });
}

describe('pods/proxy and services/proxy to a process-runtime pod in a network namespace', () => {
  const work = mkdtempSync(join(tmpdir(), 'k8ts-e2e-rp-'));
  const dataDir = join(work, 'data');
  const kubeconfig = join(dataDir, 'admin.conf');
  const children: ChildProcess[] = [];
  let proxyPort = 0;

  const kubectl = async (args: string[], allowFail = false) => {
    const argv = inNs(['kubectl', '--kubeconfig', kubeconfig, '--cache-dir', join(work, 'cache'), ...args]);
    try {
      const r = await run(argv[0]!, argv.slice(1), { maxBuffer: 16 * 1024 * 1024 });
      return { stdout: r.stdout, stderr: r.stderr, code: 0 };
    } catch (e) {
      const err = e as { stdout?: string; stderr?: string; code?: number };
      if (!allowFail) throw new Error(`kubectl ${args.join(' ')}: ${err.stderr}`);
      return { stdout: err.stdout ?? '', stderr: err.stderr ?? '', code: err.code ?? 1 };
    }
  };
  /** curl inside the namespace, through `kubectl proxy`: status line and body. */
  const curl = async (path: string, extra: string[] = []) => {
    const argv = inNs(['curl', '-s', '-S', '-w', '\n%{http_code}', ...extra, `http://127.0.0.1:${proxyPort}${path}`]);
    const { stdout } = await run(argv[0]!, argv.slice(1));
    const at = stdout.lastIndexOf('\n');
    return { body: stdout.slice(0, at), code: Number(stdout.slice(at + 1)) };
  };
  const spawnIn = (argv: string[]) => {
    const full = inNs(argv);
    const child = spawn(full[0]!, full.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    return child;
  };

  before(async () => {
    for (const cmd of [['netns', 'add', netns], ['-n', netns, 'link', 'set', 'lo', 'up'], ['-n', netns, 'link', 'add', 'n0', 'type', 'veth', 'peer', 'name', 'n1'],
      ['-n', netns, 'addr', 'add', `${nodeIP}/24`, 'dev', 'n0'], ['-n', netns, 'link', 'set', 'n0', 'up'], ['-n', netns, 'link', 'set', 'n1', 'up']]) await run('ip', cmd);
    const server = spawnIn([process.execPath, cliPath, 'server', '--data-dir', dataDir, '--port', '0']);
    server.stdout!.resume();
    await stderrLine(server, (l) => l.includes('"API server ready"'), 'the API server ready');
    const agent = spawnIn([process.execPath, cliPath, 'agent', '--kubeconfig', kubeconfig, '--runtime', 'process', '--node-name', 'proc-node', '--node-ip', nodeIP,
      '--root-dir', join(work, 'kubelet'), '--pod-logs-dir', join(work, 'pods'), '--address', nodeIP, '--kubelet-port', '0']);
    agent.stdout!.resume();
    agent.stderr!.resume();
    const apply = inNs(['kubectl', '--kubeconfig', kubeconfig, '--cache-dir', join(work, 'cache'), 'apply', '-f', '-']);
    await eventually(async () => {
      const child = execFile(apply[0]!, apply.slice(1));
      child.stdin!.end(manifests('proc-node'));
      return new Promise<boolean>((resolve) => child.on('close', (code) => resolve(code === 0)));
    }, 60_000, 'the manifests applied');
    await eventually(async () => (await kubectl(['get', '--raw', '/api/v1/namespaces/default/pods/echo:18080/proxy/ready'], true)).stdout.startsWith('GET /ready'),
      120_000, 'the echo pod answering through pods/proxy', async () => (await kubectl(['describe', 'pod', 'echo'], true)).stdout);
    const proxy = spawnIn(['kubectl', '--kubeconfig', kubeconfig, 'proxy', '--port', '0']);
    const out = lineReader(proxy);
    const at = await out.waitFor((l) => l.startsWith('Starting to serve on'), 'kubectl proxy', 0, 60_000);
    proxyPort = Number(/:(\d+)$/.exec(out.lines[at]!.trim())![1]);
  });

  after(async () => {
    // The echo process is the agent's: deleting the pod while the agent runs stops it (a process outlives its agent).
    await kubectl(['delete', 'pod', 'echo', '--grace-period=1', '--timeout=60s'], true);
    for (const child of children.reverse()) await killChild(child);
    await run('ip', ['netns', 'delete', netns]).catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  });

  it('GET by port number through kubectl get --raw: method, path, query and X-Forwarded-Uri; no credentials passed on', async () => {
    const { stdout } = await kubectl(['get', '--raw', '/api/v1/namespaces/default/pods/echo:18080/proxy/hello/world?x=1&y=2']);
    assert.equal(stdout, 'GET /hello/world?x=1&y=2 uri=/api/v1/namespaces/default/pods/echo:18080/proxy/hello/world auth=no body=');
  });

  it('the tutorial\'s form through kubectl proxy and an HTTP client, by port name too, with the scheme', async () => {
    const byNumber = await curl('/api/v1/namespaces/default/pods/echo:18080/proxy/');
    assert.deepEqual(byNumber, { code: 200, body: 'GET / uri=/api/v1/namespaces/default/pods/echo:18080/proxy/ auth=no body=' });
    const byName = await curl('/api/v1/namespaces/default/pods/http:echo:web/proxy/named');
    assert.equal(byName.code, 200);
    assert.match(byName.body, /^GET \/named uri=/);
  });

  it('the bare .../proxy is redirected to .../proxy/ (upstream\'s 301)', async () => {
    const r = await curl('/api/v1/namespaces/default/pods/echo:18080/proxy?a=b', ['-o', '/dev/null', '-D', '-']);
    assert.equal(r.code, 301);
    assert.match(r.body, /Location: \/api\/v1\/namespaces\/default\/pods\/echo:18080\/proxy\/\?a=b/i);
  });

  it('POST with a body, answered with the pod\'s status and headers (CORS headers dropped)', async () => {
    const r = await curl('/api/v1/namespaces/default/pods/echo:web/proxy/submit', ['-X', 'POST', '--data-binary', 'hello body']);
    assert.deepEqual(r, { code: 200, body: 'POST /submit uri=/api/v1/namespaces/default/pods/echo:web/proxy/submit auth=no body=hello body' });
    const head = await curl('/api/v1/namespaces/default/pods/echo:web/proxy/h', ['-o', '/dev/null', '-D', '-']);
    assert.match(head.body, /content-type: text\/plain/i);
    assert.doesNotMatch(head.body, /access-control-allow-origin/i);
  });

  it('services/proxy by port name and by port number, to the endpoint\'s target port', async () => {
    await eventually(async () => (await curl('/api/v1/namespaces/default/services/echo:http/proxy/svc')).code === 200, 60_000, 'the echo Service\'s endpoints');
    assert.deepEqual(await curl('/api/v1/namespaces/default/services/echo:http/proxy/svc'),
      { code: 200, body: 'GET /svc uri=/api/v1/namespaces/default/services/echo:http/proxy/svc auth=no body=' });
    const { stdout } = await kubectl(['get', '--raw', '/api/v1/namespaces/default/services/echo:80/proxy/by-number']);
    assert.match(stdout, /^GET \/by-number /);
    const post = await curl('/api/v1/namespaces/default/services/http:echo:80/proxy/p', ['-X', 'PUT', '--data-binary', 'put body']);
    assert.match(post.body, /^PUT \/p .* body=put body$/);
  });

  it('an Upgrade passes through kubectl proxy and the API server to the pod, bytes echoed both ways', async () => {
    const script = `const net = require('net');
const s = net.connect(${proxyPort}, '127.0.0.1', () => s.write('GET /api/v1/namespaces/default/pods/echo:18080/proxy/up HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nConnection: Upgrade\\r\\nUpgrade: echo\\r\\n\\r\\n'));
let got = ''; let sent = false;
s.on('data', (d) => { got += d; if (!sent && got.includes('\\r\\n\\r\\n')) { sent = true; s.write('ping'); } if (got.endsWith('ping')) { console.log(got.split('\\r\\n')[0] + ' ' + got.slice(-4)); s.destroy(); } });
setTimeout(() => { console.log('timeout: ' + JSON.stringify(got)); process.exit(1); }, 20000).unref();`;
    const argv = inNs([process.execPath, '-e', script]);
    const { stdout } = await run(argv[0]!, argv.slice(1));
    assert.equal(stdout.trim(), 'HTTP/1.1 101 Switching Protocols ping');
  });

  it('a user who may read pods but not pods/proxy or services/proxy: upstream\'s 403', async () => {
    assert.equal((await kubectl(['get', 'pod', 'echo', '--as', 'alice', '-o', 'name'])).stdout.trim(), 'pod/echo');
    const pod = await kubectl(['get', '--raw', '/api/v1/namespaces/default/pods/echo:18080/proxy/', '--as', 'alice'], true);
    assert.notEqual(pod.code, 0);
    assert.match(pod.stderr, /Error from server \(Forbidden\): pods "echo:18080" is forbidden: User "alice" cannot get resource "pods\/proxy" in API group "" in the namespace "default"/);
    const svc = await kubectl(['get', '--raw', '/api/v1/namespaces/default/services/echo:http/proxy/', '--as', 'alice'], true);
    assert.match(svc.stderr, /services "echo:http" is forbidden: User "alice" cannot get resource "services\/proxy" in API group "" in the namespace "default"/);
  });

  it('503s in upstream\'s words: a Service without endpoints, a port nothing listens on, a port the Service lacks', async () => {
    const lonely = await kubectl(['get', '--raw', '/api/v1/namespaces/default/services/lonely:80/proxy/'], true);
    assert.match(lonely.stderr, /Error from server \(ServiceUnavailable\): no endpoints available for service "lonely"/);
    const closed = await kubectl(['get', '--raw', '/api/v1/namespaces/default/pods/echo:18081/proxy/'], true);
    assert.match(closed.stderr, /Error from server \(ServiceUnavailable\): error trying to reach service: dial tcp 10\.83\.0\.1:18081: connect: connection refused/);
    const noPort = await curl('/api/v1/namespaces/default/services/echo:81/proxy/');
    assert.equal(noPort.code, 503);
    assert.match(noPort.body, /no service port 81 found for service \\"echo\\"/);
    const missing = await curl('/api/v1/namespaces/default/pods/nope:80/proxy/');
    assert.equal(missing.code, 404);
  });

  it('discovery lists pods/proxy and services/proxy with upstream\'s verbs', async () => {
    const list = JSON.parse((await kubectl(['get', '--raw', '/api/v1'])).stdout) as { resources: { name: string; kind: string; verbs: string[] }[] };
    for (const [name, kind] of [['pods/proxy', 'PodProxyOptions'], ['services/proxy', 'ServiceProxyOptions']]) {
      const r = list.resources.find((x) => x.name === name);
      assert.deepEqual({ kind: r?.kind, verbs: r?.verbs }, { kind, verbs: ['create', 'delete', 'get', 'patch', 'update'] });
    }
  });
});

describe('kubectl cluster-info on `k8ts up` (simulated nodes): upstream\'s shape, and its URLs answer', () => {
  let up: UpCluster;
  before(async () => { up = await startUp('k8ts-e2e-rp-up-'); });
  after(async () => { await up?.close(); });

  it('lists the control plane and CoreDNS; the CoreDNS URL answers 503: nothing listens on port 53 of its simulated pod', async () => {
    const { stdout } = await up.kubectl(['cluster-info']);
    const lines = stdout.replace(/\x1b\[[0-9;]*m/g, '').trim().split('\n').filter(Boolean);
    assert.match(lines[0]!, /^Kubernetes control plane is running at https:\/\/127\.0\.0\.1:\d+$/);
    const dns = lines.find((l) => l.startsWith('CoreDNS is running at '));
    assert.match(dns ?? '', /^CoreDNS is running at https:\/\/127\.0\.0\.1:\d+\/api\/v1\/namespaces\/kube-system\/services\/kube-dns:dns\/proxy$/, stdout);
    assert.match(lines[lines.length - 1]!, /^To further debug and diagnose cluster problems, use 'kubectl cluster-info dump'\.$/);
    const path = new URL(dns!.replace('CoreDNS is running at ', '')).pathname;
    const answer = await eventually(async () => {
      const r = await up.kubectl(['get', '--raw', `${path}/`], undefined, true);
      return r.stderr.includes('connection refused') ? r : undefined;
    }, 60_000, 'the CoreDNS URL answering', async () => (await up.kubectl(['get', '--raw', `${path}/`], undefined, true)).stderr);
    // The simulated node's kubelet forwards the port; the simulator knows no listener of the coredns image.
    assert.match(answer.stderr, /^Error from server \(ServiceUnavailable\): error trying to reach service: dial tcp [\d.]+:53: connect: connection refused$/m);
  });

  it('the tutorial\'s kubernetes-bootcamp pod: pods/NAME:8080/proxy/ answers as the image does, through the simulated node\'s kubelet', async () => {
    await up.kubectl(['create', 'deployment', 'kubernetes-bootcamp', '--image=gcr.io/google-samples/kubernetes-bootcamp:v1']);
    const pod = await eventually(async () => {
      const r = await up.kubectl(['get', 'pods', '-l', 'app=kubernetes-bootcamp', '-o', 'jsonpath={.items[0].metadata.name} {.items[0].status.podIP}'], undefined, true);
      const [name, ip] = r.stdout.trim().split(' ');
      return name && ip ? { name, ip } : undefined;
    }, 60_000, 'the bootcamp pod with an IP');
    const r = await up.kubectl(['get', '--raw', `/api/v1/namespaces/default/pods/${pod.name}:8080/proxy/`]);
    assert.equal(r.stdout, `Hello Kubernetes bootcamp! | Running on: ${pod.name} | v=1\n`);
  });

  it('an Upgrade through pods/proxy to the simulated bootcamp pod goes through its kubelet too, and gets the image\'s plain answer', async () => {
    const name = (await up.kubectl(['get', 'pods', '-l', 'app=kubernetes-bootcamp', '-o', 'jsonpath={.items[0].metadata.name}'])).stdout;
    const kc = parse(readFileSync(up.kubeconfig, 'utf8'));
    const server = new URL(kc.clusters[0].cluster.server);
    const user = kc.users[0].user;
    const b64 = (s: string) => Buffer.from(s, 'base64');
    const answer = await new Promise<string>((resolve, reject) => {
      const s = tls.connect({ host: server.hostname, port: Number(server.port), cert: b64(user['client-certificate-data']), key: b64(user['client-key-data']), rejectUnauthorized: false }, () => {
        s.write(`GET /api/v1/namespaces/default/pods/${name}:8080/proxy/ HTTP/1.1\r\nHost: ${server.host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n`);
      });
      let got = '';
      s.on('data', (d: Buffer) => { got += d.toString(); if (got.includes('| v=1\n')) { s.destroy(); resolve(got); } });
      s.on('error', reject);
      s.on('close', () => resolve(got));
    });
    // The image's server does not speak the protocol asked for: its ordinary answer comes back, as from a real pod.
    assert.match(answer, /^HTTP\/1\.1 200 /);
    assert.ok(answer.endsWith(`Hello Kubernetes bootcamp! | Running on: ${name} | v=1\n`), answer);
  });
});
