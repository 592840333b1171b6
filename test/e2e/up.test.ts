/**
 * `k8ts up` as a new user meets it: the real process, then the real kubectl
 * with the kubeconfig it prints. Its simulated nodes serve the kubelet API on
 * 127.0.0.1, so `kubectl logs` shows a pod's simulated lifecycle, and
 * authorize every caller as upstream's kubelets do; `k8ts sim`
 * nodes have no kubelet API, and the API server says so rather than dialling
 * their made-up 172.16.x addresses.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import https from 'node:https';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { startCluster, eventually, cliPath, type Cluster } from './harness.js';
import { killChild } from './helpers.js';
import { startUp, type UpCluster } from './up-cluster.js';

const exec = promisify(execFile);

const pod = (name: string, extra = '') => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
${extra}  containers:
  - name: web
    image: nginx:1.27
`;

describe('k8ts up: a first look with kubectl', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);

  before(async () => { up = await startUp('k8ts-e2e-up-'); });
  after(async () => { await up.close(); });

  it('registers three Ready nodes whose kubelets listen on 127.0.0.1', async () => {
    const nodes = await eventually(async () => {
      const list = JSON.parse((await kubectl(['get', 'nodes', '-o', 'json'])).stdout).items;
      const ready = list.filter((n: any) => n.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True'));
      return ready.length === 3 ? list : undefined;
    }, 30_000, 'three Ready nodes');
    for (const n of nodes) {
      assert.deepEqual(n.status.addresses.find((a: any) => a.type === 'InternalIP')?.address, '127.0.0.1');
      assert.ok(n.status.daemonEndpoints.kubeletEndpoint.Port > 0, `${n.metadata.name} advertises a kubelet port`);
    }
  });

  it('kubectl logs shows what nginx\'s entrypoint writes; exec runs in the simulated shell; attach to nginx shows nothing until the container ends', async () => {
    await kubectl(['apply', '-f', '-'], pod('web'));
    await kubectl(['wait', '--for=condition=Ready', 'pod/web', '--timeout=60s']);
    const logs = await eventually(async () => {
      const r = await kubectl(['logs', 'web']);
      return r.stdout.includes('start worker processes') ? r.stdout : undefined;
    }, 20_000, 'nginx\'s log');
    assert.match(logs, /^\/docker-entrypoint\.sh: \/docker-entrypoint\.d\/ is not empty, will attempt to perform configuration\n/);
    assert.match(logs, /\n\/docker-entrypoint\.sh: Configuration complete; ready for start up\n\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d \[notice\] 1#1: using the "epoll" event method\n/);
    assert.match(logs, /\[notice\] 1#1: nginx\/1\.27\.\d+\n/);
    const stamped = (await kubectl(['logs', 'web', '--timestamps', '--tail', '1'])).stdout;
    assert.match(stamped, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z \S+ \S+ \[notice\] 1#1: start worker process \d+\n$/);
    const ex = await kubectl(['exec', 'web', '--', 'ls']);
    assert.equal(ex.code, 0);
    assert.ok(ex.stdout.split('\n').includes('etc'), ex.stdout);
    const nginx = await kubectl(['exec', 'web', '--', 'nginx', '-v']);
    assert.match(nginx.stderr, /^nginx version: nginx\/1\.27\.\d+\n$/);
    // procps is not in the nginx image until apt-get installs it: run directly, the runtime cannot start it (kubectl exits 1).
    const ps = await kubectl(['exec', 'web', '--', 'ps', 'aux'], undefined, true);
    assert.equal(ps.code, 1);
    assert.match(ps.stderr, /^error: Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "[0-9a-f]{64}": OCI runtime exec failed: exec failed: unable to start container process: exec: "ps": executable file not found in \$PATH: unknown\n$/);
    // Through a shell, the shell's own words and 127.
    const shPs = await kubectl(['exec', 'web', '--', 'sh', '-c', 'ps aux'], undefined, true);
    assert.equal(shPs.code, 127);
    assert.equal(shPs.stderr, 'sh: 1: ps: not found\ncommand terminated with exit code 127\n');
    // nginx's container runs nothing the simulation writes for: the attach connects and shows nothing, and ends with the container.
    const attach = spawn('kubectl', ['--kubeconfig', up.kubeconfig, 'attach', '-i', 'web'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    attach.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    await new Promise<void>((resolve) => attach.stderr.on('data', (d: Buffer) => { out += d.toString(); if (out.includes('try pressing enter')) resolve(); }));
    const exited = new Promise<number | null>((resolve) => attach.on('exit', resolve));
    await kubectl(['delete', 'pod', 'web']);
    assert.equal(await exited, 0);
    assert.equal(out, "If you don't see a command prompt, try pressing enter.\n");
  });

  it('kubectl cp copies into a simulated pod and back out: text and binary files, a directory; a ConfigMap volume is read-only', async () => {
    await kubectl(['create', 'configmap', 'cp-conf', '--from-literal=mode=demo']);
    await kubectl(['apply', '-f', '-'], `${pod('cp')}    volumeMounts:
    - name: conf
      mountPath: /etc/config
  volumes:
  - name: conf
    configMap:
      name: cp-conf
`);
    await kubectl(['wait', '--for=condition=Ready', 'pod/cp', '--timeout=60s']);
    const src = join(up.dir, 'cp-src');
    mkdirSync(join(src, 'sub'), { recursive: true });
    writeFileSync(join(src, 'a.txt'), 'hello from the host\n');
    const binary = randomBytes(70_000);
    writeFileSync(join(src, 'sub', 'blob.bin'), binary);
    const longName = `${'n'.repeat(120)}.txt`;
    writeFileSync(join(src, longName), 'a name longer than ustar holds\n');
    const into = await kubectl(['cp', src, 'cp:/tmp/copied']);
    assert.equal(into.code, 0, into.stderr);
    assert.equal((await kubectl(['exec', 'cp', '--', 'cat', '/tmp/copied/a.txt'])).stdout, 'hello from the host\n');
    assert.deepEqual((await kubectl(['exec', 'cp', '--', 'ls', '/tmp/copied'])).stdout.split('\n').filter(Boolean), [longName, 'a.txt', 'sub'].sort());
    const back = join(up.dir, 'cp-back');
    const out = await kubectl(['cp', 'cp:/tmp/copied', back]);
    assert.equal(out.code, 0, out.stderr);
    assert.ok(readFileSync(join(back, 'sub', 'blob.bin')).equals(binary), 'the binary file came back byte for byte');
    assert.equal(readFileSync(join(back, longName), 'utf8'), 'a name longer than ustar holds\n');
    const conf = join(up.dir, 'mode');
    assert.equal((await kubectl(['cp', 'cp:/etc/config/mode', conf])).code, 0);
    assert.equal(readFileSync(conf, 'utf8'), 'demo');
    const ro = await kubectl(['cp', join(src, 'a.txt'), 'cp:/etc/config/mode'], undefined, true);
    assert.notEqual(ro.code, 0);
    // nginx is a Debian image: GNU tar's words.
    assert.match(ro.stderr, /tar: mode: Cannot open: Read-only file system/);
    // kubectl cp's exit code and stderr here race the empty archive that ends the copy (upstream's too), so the
    // missing path's error is read from the same tar run by exec, which waits for its exit.
    await kubectl(['cp', 'cp:/no/such/file', join(up.dir, 'none')], undefined, true);
    assert.ok(!existsSync(join(up.dir, 'none')));
    const missing = await kubectl(['exec', 'cp', '--', 'tar', 'cf', '-', '/no/such/file'], undefined, true);
    assert.equal(missing.code, 2);
    assert.equal(missing.stderr, "tar: Removing leading `/' from member names\ntar: /no/such/file: Cannot stat: No such file or directory\ntar: Exiting with failure status due to previous errors\ncommand terminated with exit code 2\n");
  });

  it('a second k8ts up on the same data directory (npm start in another terminal) refuses to start and leaves the running one alone', async () => {
    const dataDir = join(up.dir, 'data');
    const before = readFileSync(join(dataDir, 'admin.conf'), 'utf8');
    const second = await exec(process.execPath, [cliPath, 'up', '--data-dir', dataDir, '--port', '0'], { timeout: 60_000 }).then(() => ({ code: 0, stderr: '' }), (e) => e);
    assert.equal(second.code, 1);
    assert.match(second.stderr, new RegExp(`^Error: cannot start on the data directory ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: another k8ts is running on it; ` +
      'stop that one first \\(Ctrl-C where it runs\\), or start this one with another --data-dir$', 'm'));
    assert.equal(readFileSync(join(dataDir, 'admin.conf'), 'utf8'), before, 'the running cluster\'s kubeconfig is untouched');
    assert.match((await kubectl(['get', 'nodes', '--no-headers'])).stdout, /^control-plane +Ready /m);
  });
});

/** A GET to a kubelet's port with a bearer token. */
function kubeletGet(port: number, path: string, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path, headers: { Authorization: `Bearer ${token}` }, rejectUnauthorized: false, agent: false }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('k8ts up --runtime process: the first command it prints', () => {
  let up: UpCluster;
  before(async () => { up = await startUp('k8ts-e2e-up-proc-', ['--runtime', 'process', '--node-name', 'up-proc', '--node-ip', '127.0.0.1', '--kubelet-port', '0']); });
  after(async () => { await up?.close(); });

  it('runs as printed: the web Deployment becomes available (its port is not one the cluster\'s own DNS pod holds on the node)', async () => {
    const line = await eventually(async () => up.output.find((l) => l.trim().startsWith('kubectl create deployment web ')), 60_000, 'the suggested command');
    const args = line.trim().split(/\s+/).slice(1);
    assert.deepEqual(args.slice(0, 4), ['create', 'deployment', 'web', '--image=k8ts.local/busybox:1']);
    await up.kubectl(args);
    await up.kubectl(['rollout', 'status', 'deployment/web', '--timeout=120s']);
    const pod = JSON.parse((await up.kubectl(['get', 'pods', '-l', 'app=web', '-o', 'json'])).stdout).items[0];
    assert.equal(pod.status.containerStatuses[0].restartCount, 0, JSON.stringify(pod.status.containerStatuses[0]));
    assert.ok(pod.status.containerStatuses[0].state.running, JSON.stringify(pod.status.containerStatuses[0]));
  });
});

describe('k8ts up: the simulated nodes\' kubelet API authorizes its callers', () => {
  let up: UpCluster;

  before(async () => { up = await startUp('k8ts-e2e-up-authz-'); });
  after(async () => { await up.close(); });

  it('a service account token is refused with upstream\'s 403 until bound to system:kubelet-api-admin; an unknown token gets 401', async () => {
    const node = await eventually(async () => JSON.parse((await up.kubectl(['get', 'node', 'worker1', '-o', 'json'], undefined, true)).stdout || 'null'), 30_000, 'worker1');
    const port = node.status.daemonEndpoints.kubeletEndpoint.Port;
    await up.kubectl(['create', 'serviceaccount', 'peeker']);
    const token = (await up.kubectl(['create', 'token', 'peeker'])).stdout.trim();
    assert.deepEqual(await kubeletGet(port, '/pods', token),
      { status: 403, body: 'Forbidden (user=system:serviceaccount:default:peeker, verb=get, resource=nodes, subresource=proxy)' });
    assert.deepEqual(await kubeletGet(port, '/pods', 'no-such-token'), { status: 401, body: 'Unauthorized' });
    // Upstream's system:kubelet-api-admin opens every kubelet path (nodes/stats here, never asked before, so no refusal is cached).
    await up.kubectl(['create', 'clusterrolebinding', 'peeker-kubelet-admin', '--clusterrole=system:kubelet-api-admin', '--serviceaccount=default:peeker']);
    const stats = await eventually(async () => {
      const r = await kubeletGet(port, '/stats/summary', token);
      return r.status !== 403 ? r : undefined;
    }, 10_000, 'the grant');
    assert.equal(stats.status, 200);
    assert.equal(JSON.parse(stats.body).node.nodeName, 'worker1');
  });
});

describe('k8ts sim nodes have no kubelet API', () => {
  let cluster: Cluster;
  let sim: ChildProcess;

  before(async () => {
    cluster = await startCluster({ controllers: 'none' });
    sim = spawn(process.execPath, [cliPath, 'sim', '--kubeconfig', cluster.kubeconfig, '--nodes', '1', '--prefix', 'nokubelet-'],
      { stdio: ['ignore', 'ignore', 'pipe'] });
    await eventually(async () => (await cluster.kubectl(['get', 'node', 'nokubelet-0'], { allowFail: true })).code === 0, 30_000, 'the sim node');
  });

  after(async () => {
    await killChild(sim);
    await cluster.cleanup();
  });

  it('advertises kubelet port 0, and kubectl logs gets the reason instead of a dial to 172.16.x', async () => {
    const node = JSON.parse((await cluster.kubectl(['get', 'node', 'nokubelet-0', '-o', 'json'])).stdout);
    assert.equal(node.status.daemonEndpoints.kubeletEndpoint.Port, 0);
    assert.match(node.status.addresses.find((a: any) => a.type === 'InternalIP').address, /^172\.16\./);
    await cluster.kubectl(['apply', '-f', '-'], { input: pod('bound', '  nodeName: nokubelet-0\n') });
    await eventually(async () => {
      const p = JSON.parse((await cluster.kubectl(['get', 'pod', 'bound', '-o', 'json'])).stdout);
      return p.status?.phase === 'Running';
    }, 30_000, 'the pod running');
    const r = await cluster.kubectl(['logs', 'bound'], { allowFail: true });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /node "nokubelet-0" is simulated by k8ts and serves no kubelet API/);
    assert.doesNotMatch(r.stderr, /172\.16\./);
    // Nor does pods/proxy dial it: without a kubelet API nothing answers for the pod.
    const proxied = await cluster.kubectl(['get', '--raw', '/api/v1/namespaces/default/pods/bound:80/proxy/'], { allowFail: true });
    assert.match(proxied.stderr, /error trying to reach service: node "nokubelet-0" is simulated by k8ts and runs no processes, so nothing listens on [\d.]+:80;/);
    // The server still serves.
    assert.equal((await exec('kubectl', ['--kubeconfig', cluster.kubeconfig, 'get', '--raw', '/version'])).stderr, '');
  });
});
