/**
 * Pods reaching each other on `npm start`'s simulated nodes, as the
 * tutorials and `helm create`'s chart expect, with the real kubectl 1.32
 * and Helm 3:
 *
 *  - `helm install` then `helm test` of the chart `helm create` generates:
 *    its test pod runs `wget demo-mychart:80`, which must reach the nginx
 *    pod through the Service (it once failed with "Connection refused").
 *  - busybox wget to a Service by name, by FQDN, by the Service's
 *    environment variable and to another pod's IP; a Service without
 *    endpoints and a port the Service does not have are refused, as
 *    kube-proxy rejects them; each connection goes to one of the endpoints.
 *
 * Every wait is on a condition, with a deadline.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, repoRoot } from './harness.js';
import { startUp, type UpCluster } from './up-cluster.js';

const emptyServiceYAML = `apiVersion: v1
kind: Service
metadata:
  name: empty
spec:
  selector:
    app: nothing-has-this-label
  ports:
  - port: 80
`;

const clientYAML = `apiVersion: v1
kind: Pod
metadata:
  name: client
spec:
  containers:
  - name: client
    image: busybox:1.28
    command: ["sleep", "3600"]
`;

describe('pod network on npm start\'s simulated nodes: Services and pod IPs reach other simulated pods', () => {
  let up: UpCluster;
  let dir: string;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const helm = (args: string[]) => new Promise<{ code: number; out: string }>((resolve) => {
    const env = { ...process.env, KUBECONFIG: up.kubeconfig, HELM_CACHE_HOME: join(dir, 'cache'), HELM_CONFIG_HOME: join(dir, 'config'), HELM_DATA_HOME: join(dir, 'data') };
    execFile(join(repoRoot, 'build', 'bin', 'helm'), args, { env, cwd: dir, timeout: 180_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: `${stdout}${stderr}` });
    });
  });
  const wget = (target: string) => kubectl(['exec', 'client', '--', 'wget', '-qO-', target], undefined, true);

  before(async () => {
    assert.ok(existsSync(join(repoRoot, 'build', 'bin', 'helm')), 'build/bin/helm is unpacked by scripts/ci-setup-containerd.sh (npm test\'s pretest)');
    dir = mkdtempSync(join(tmpdir(), 'k8ts-e2e-podnet-helm-'));
    up = await startUp('k8ts-e2e-up-podnet-');
    await kubectl(['create', 'deployment', 'web', '--image=nginx', '--replicas=2']);
    await kubectl(['expose', 'deployment', 'web', '--port=80']);
    await kubectl(['apply', '-f', '-'], emptyServiceYAML);
    await kubectl(['rollout', 'status', 'deployment/web', '--timeout=120s']);
    // Created after the Services: its environment has WEB_SERVICE_HOST.
    await kubectl(['apply', '-f', '-'], clientYAML);
    await kubectl(['wait', '--for=condition=Ready', 'pod/client', '--timeout=120s']);
  });
  after(async () => {
    await up?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('helm create, helm install --wait, then helm test passes: the test pod\'s wget reaches nginx through the Service', async () => {
    assert.equal((await helm(['create', 'mychart'])).code, 0);
    const install = await helm(['install', 'demo', './mychart', '--wait', '--timeout', '120s']);
    assert.equal(install.code, 0, install.out);
    const test = await helm(['test', 'demo', '--timeout', '120s']);
    assert.equal(test.code, 0, test.out);
    assert.match(test.out, /TEST SUITE:\s+demo-mychart-test-connection[\s\S]*Phase:\s+Succeeded/);
    const logs = (await kubectl(['logs', 'demo-mychart-test-connection'])).stdout;
    assert.match(logs, /^Connecting to demo-mychart \(10\.\d+\.\d+\.\d+:80\)\n/);
    assert.match(logs, /'index\.html' saved\n$/);
  });

  it('wget to a Service by name, FQDN and environment variable reaches nginx', async () => {
    for (const target of ['web', 'http://web.default.svc.cluster.local/']) {
      const r = await wget(target);
      assert.equal(r.code, 0, `${target}: ${r.stderr}`);
      assert.match(r.stdout, /<title>Welcome to nginx!<\/title>/, target);
    }
    const env = await kubectl(['exec', 'client', '--', 'sh', '-c', 'wget -qO- http://$WEB_SERVICE_HOST:$WEB_SERVICE_PORT/']);
    assert.match(env.stdout, /Welcome to nginx!/);
  });

  it('wget to another pod\'s IP reaches that pod, and each connection to the Service goes to one of its endpoints', async () => {
    const pods = (await kubectl(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.status.podIP}{"\\n"}{end}'])).stdout.trim().split('\n').map((l) => l.split(' '));
    assert.equal(pods.length, 2);
    for (const [name] of pods) await kubectl(['exec', name!, '--', 'sh', '-c', 'echo "$(hostname)" > /usr/share/nginx/html/index.html']);
    for (const [name, ip] of pods) assert.equal((await wget(`http://${ip}/`)).stdout, `${name}\n`);
    const seen = new Set<string>();
    await eventually(async () => {
      seen.add((await wget('web')).stdout.trim());
      assert.deepEqual([...seen].sort(), pods.map(([name]) => name).sort());
      return true;
    }, 60_000, 'both endpoints answered through the Service');
  });

  it('a connection to a Service reads no Service or EndpointSlice from the API (the simulated network watches them, as kube-proxy and CoreDNS do)', async () => {
    // apiserver_request_total of get and list on services and endpointslices, summed over codes and scopes.
    const reads = async () => {
      const text = (await kubectl(['get', '--raw', '/metrics'])).stdout;
      let n = 0;
      for (const m of text.matchAll(/^apiserver_request_total\{(.*)\} (\d+)$/gm)) {
        if (/resource="(services|endpointslices)"/.test(m[1]!) && /verb="(GET|LIST)"/.test(m[1]!)) n += Number(m[2]);
      }
      return n;
    };
    assert.equal((await wget('web')).code, 0);
    const before = await reads();
    for (let i = 0; i < 10; i++) assert.equal((await wget('web')).code, 0);
    assert.equal(await reads(), before, 'ten wgets through the Service by name read Services or EndpointSlices from the API');
  });

  it('a Service without endpoints and a port the Service does not have are refused', async () => {
    const ip = (await kubectl(['get', 'service', 'empty', '-o', 'jsonpath={.spec.clusterIP}'])).stdout;
    const empty = await wget('empty');
    assert.equal(empty.code, 1);
    assert.match(empty.stderr, new RegExp(`^wget: can't connect to remote host \\(${ip.replace(/\./g, '\\.')}\\): Connection refused\n`));
    const webIP = (await kubectl(['get', 'service', 'web', '-o', 'jsonpath={.spec.clusterIP}'])).stdout;
    const otherPort = await wget('web:81');
    assert.equal(otherPort.code, 1);
    assert.match(otherPort.stderr, new RegExp(`wget: can't connect to remote host \\(${webIP.replace(/\./g, '\\.')}\\): Connection refused`));
  });
});
