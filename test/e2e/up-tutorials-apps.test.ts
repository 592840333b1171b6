/**
 * A newcomer's first pages on `k8ts up`'s simulated nodes, with the real
 * kubectl 1.32, command by command:
 *
 *  - Configure Liveness, Readiness and Startup Probes: the http-liveness
 *    pod (agnhost liveness: /healthz 200 for 10 s, then 500) fails its
 *    probe with `HTTP probe failed with statuscode: 500` and restarts;
 *    goproxy's TCP probes connect and it turns Ready; etcd-with-grpc's
 *    gRPC probe is described (kubectl describe used to panic on the
 *    undefaulted `grpc.service`); named ports reach
 *    the server; a probe to a port nothing listens on is refused.
 *  - Deploying PHP Guestbook application with Redis: redis-leader's log,
 *    `kubectl port-forward svc/frontend`, the page and its guestbook.php
 *    writing through the leader and reading through a follower, scaling.
 *  - Example: Deploying WordPress and MySQL with Persistent Volumes:
 *    `kubectl apply -k ./` with its secretGenerator, the claims Bound by
 *    the default StorageClass, WordPress's installer behind the
 *    LoadBalancer's node port, `kubectl delete -k ./`.
 *  - Assign Pods to Nodes (nodeSelector) and Node Affinity (required,
 *    preferred): `kubectl get pods --output=wide` shows the labelled node.
 *
 * Every wait is on a condition, with a deadline.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './harness.js';
import { kubectlPortForward } from './helpers.js';
import { startUp, type UpCluster } from './up-cluster.js';
import * as m from './up-tutorials-apps-manifests.js';

function get(port: number, path = '/'): Promise<{ code: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => { body += d.toString(); });
      res.on('end', () => resolve({ code: res.statusCode!, headers: res.headers, body }));
    }).on('error', reject);
  });
}

describe('k8ts up: the probes, Guestbook, WordPress and assign-pods pages on simulated nodes', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const describePod = async (name: string) => (await kubectl(['describe', 'pod', name])).stdout;
  const jsonpath = async (args: string[], path: string) => (await kubectl([...args, '-o', `jsonpath=${path}`])).stdout;

  /** `kubectl port-forward TARGET :PORT` (a free local port). */
  const portForward = (target: string, port: number) => kubectlPortForward(up.kubeconfig, ['--address', '127.0.0.1', target, `:${port}`]);

  before(async () => { up = await startUp('k8ts-e2e-tutorials-apps-'); });
  after(async () => { await up?.close(); });

  it('http-liveness: agnhost\'s /healthz turns 500 after 10 s, the probe fails with the status, and the container restarts', async () => {
    await kubectl(['apply', '-f', '-'], m.httpLiveness);
    const out = await eventually(async () => {
      const d = await describePod('liveness-http');
      return d.includes('Container liveness failed liveness probe, will be restarted') ? d : undefined;
    }, 90_000, 'the Killing event', () => describePod('liveness-http'));
    assert.match(out, /Warning\s+Unhealthy\s+.*Liveness probe failed: HTTP probe failed with statuscode: 500/);
    await eventually(async () => Number(await jsonpath(['get', 'pod', 'liveness-http'], '{.status.containerStatuses[0].restartCount}')) >= 1, 60_000, 'restartCount >= 1');
    // The first instance answered 200 for its first 10 s: the probes at 3, 6 and 9 s succeeded, so it lived past 10 s.
    const started = Date.parse(await jsonpath(['get', 'pod', 'liveness-http'], '{.status.containerStatuses[0].lastState.terminated.startedAt}'));
    const finished = Date.parse(await jsonpath(['get', 'pod', 'liveness-http'], '{.status.containerStatuses[0].lastState.terminated.finishedAt}'));
    assert.ok(finished - started >= 10_000, `the first instance ran ${finished - started} ms`);
  });

  it('tcp-liveness-readiness: goproxy listens on 8080, its TCP probes connect and the pod turns Ready without a restart', async () => {
    await kubectl(['apply', '-f', '-'], m.tcpLivenessReadiness);
    await kubectl(['wait', '--for=condition=Ready', 'pod/goproxy', '--timeout=90s']);
    assert.equal(await jsonpath(['get', 'pod', 'goproxy'], '{.status.containerStatuses[0].restartCount}'), '0');
    assert.doesNotMatch(await describePod('goproxy'), /Unhealthy/);
    // A request that is not a proxy request gets goproxy's answer.
    const pf = await portForward('pod/goproxy', 8080);
    try {
      const r = await get(pf.port);
      assert.deepEqual([r.code, r.body], [500, 'This is a proxy server. Does not respond to non-proxy requests.\n']);
    } finally { pf.child.kill(); }
  });

  it('grpc-liveness: kubectl describe shows the gRPC probe (service defaults to "", which kubectl dereferences) and the pod runs', async () => {
    await kubectl(['apply', '-f', '-'], m.grpcLiveness);
    assert.equal(await jsonpath(['get', 'pod', 'etcd-with-grpc'], '{.spec.containers[0].livenessProbe.grpc}'), '{"port":2379,"service":""}');
    assert.match(await describePod('etcd-with-grpc'), /^\s+Liveness:\s+grpc <pod>:2379  delay=10s timeout=1s period=10s #success=1 #failure=3$/m);
    await kubectl(['wait', '--for=condition=Ready', 'pod/etcd-with-grpc', '--timeout=90s']);
    await kubectl(['delete', 'pod', 'etcd-with-grpc', '--wait=false']);
  });

  it('named ports: the probe goes to the port its name gives (nginx Ready; agnhost restarted after its startup probe passed)', async () => {
    await kubectl(['apply', '-f', '-'], m.namedPorts);
    await kubectl(['wait', '--for=condition=Ready', 'pod/named-port-nginx', '--timeout=90s']);
    await eventually(async () => Number(await jsonpath(['get', 'pod', 'named-port-agnhost'], '{.status.containerStatuses[0].restartCount}')) >= 1, 90_000, 'named-port-agnhost restarted');
    assert.match(await describePod('named-port-agnhost'), /Liveness probe failed: HTTP probe failed with statuscode: 500/);
    assert.equal(await jsonpath(['get', 'pod', 'named-port-nginx'], '{.status.containerStatuses[0].restartCount}'), '0');
  });

  it('a probe to a port nothing in the pod listens on is refused, with the kubelet\'s words', async () => {
    await kubectl(['apply', '-f', '-'], m.refusedProbes);
    const ip = async (name: string) => eventually(async () => (await jsonpath(['get', 'pod', name], '{.status.podIP}')) || undefined, 60_000, `${name} IP`);
    const nginxIP = await ip('nginx-wrong-port');
    const goproxyIP = await ip('goproxy-wrong-port');
    const want: [string, string][] = [
      ['nginx-wrong-port', `Readiness probe failed: Get "http://${nginxIP}:8080/": dial tcp ${nginxIP}:8080: connect: connection refused`],
      ['goproxy-wrong-port', `Readiness probe failed: dial tcp ${goproxyIP}:8081: connect: connection refused`],
    ];
    for (const [name, message] of want) {
      await eventually(async () => (await describePod(name)).includes(message), 60_000, `${name}: ${message}`, () => describePod(name));
      assert.equal(await jsonpath(['get', 'pod', name], '{.status.containerStatuses[0].ready}'), 'false');
    }
    await kubectl(['delete', 'pod', 'nginx-wrong-port', 'goproxy-wrong-port', 'named-port-nginx', 'named-port-agnhost', 'goproxy', 'liveness-http', '--wait=false']);
  });

  it('Guestbook: redis-leader logs, port-forward svc/frontend serves the page, guestbook.php writes to the leader and reads from a follower, scaling', async () => {
    // In the page's order: the leader, its logs, then the rest. The leader Deployment selects `app: redis` only, so
    // once the followers run, `kubectl logs deployment/redis-leader` may pick a follower's pod (on any cluster).
    const [leader, ...rest] = m.guestbook;
    await kubectl(['apply', '-f', '-'], leader![1]);
    await kubectl(['rollout', 'status', 'deployment/redis-leader', '--timeout=120s']);
    const log = (await kubectl(['logs', 'deployment/redis-leader'])).stdout;
    assert.match(log, /^1:C \d\d \w{3} \d{4} [\d:.]+ # Redis version=6\.0\.5, bits=64/m);
    assert.match(log, /^1:M .* \* Ready to accept connections$/m);
    for (const [, yaml] of rest) await kubectl(['apply', '-f', '-'], yaml);
    for (const d of ['redis-leader', 'redis-follower', 'frontend']) await kubectl(['rollout', 'status', `deployment/${d}`, '--timeout=120s']);
    const frontends = (await kubectl(['get', 'pods', '-l', 'app=guestbook', '-l', 'tier=frontend', '--no-headers'])).stdout.trim().split('\n');
    assert.equal(frontends.length, 3);
    for (const line of frontends) assert.match(line, /^frontend-\S+\s+1\/1\s+Running\s+0\s/);
    const pf = await portForward('svc/frontend', 80);
    try {
      const page = await get(pf.port, '/');
      assert.equal(page.code, 200);
      assert.match(page.body, /<title>Guestbook<\/title>/);
      assert.deepEqual(await get(pf.port, '/guestbook.php?cmd=set&key=messages&value=,hello,k8ts').then((r) => r.body), '{"message": "Updated"}');
      assert.deepEqual(await get(pf.port, '/guestbook.php?cmd=get&key=messages').then((r) => r.body), '{"data": ",hello,k8ts"}');
    } finally { pf.child.kill(); }
    await kubectl(['scale', 'deployment', 'frontend', '--replicas=5']);
    await kubectl(['rollout', 'status', 'deployment/frontend', '--timeout=120s']);
    await kubectl(['scale', 'deployment', 'frontend', '--replicas=2']);
    await eventually(async () => (await kubectl(['get', 'pods', '-l', 'app=guestbook', '--no-headers'])).stdout.trim().split('\n').length === 2, 60_000, 'two frontends');
    assert.match((await kubectl(['delete', 'deployment', '-l', 'app=redis'])).stdout, /deployment.apps "redis-follower" deleted\ndeployment.apps "redis-leader" deleted/);
    await kubectl(['delete', 'service', '-l', 'app=redis']);
    await kubectl(['delete', 'deployment', 'frontend']);
    await kubectl(['delete', 'service', '-l', 'app=guestbook']);
  });

  it('WordPress: apply -k with a secretGenerator, claims Bound by local-path, the installer behind the LoadBalancer, delete -k', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-wordpress-'));
    try {
      writeFileSync(join(dir, 'kustomization.yaml'), m.kustomization);
      writeFileSync(join(dir, 'mysql-deployment.yaml'), m.mysqlDeployment);
      writeFileSync(join(dir, 'wordpress-deployment.yaml'), m.wordpressDeployment);
      await kubectl(['apply', '-k', dir]);
      assert.match((await kubectl(['get', 'secrets'])).stdout, /^mysql-pass-[a-z0-9]{10}\s+Opaque\s+1\s/m);
      const pvc = await eventually(async () => {
        const out = (await kubectl(['get', 'pvc'])).stdout;
        return (out.match(/\sBound\s+pvc-[0-9a-f-]+\s+20Gi\s+RWO\s+local-path\s/g) ?? []).length === 2 ? out : undefined;
      }, 90_000, 'both claims Bound', async () => (await kubectl(['get', 'pvc'])).stdout);
      assert.match(pvc, /^mysql-pv-claim\s+Bound/m);
      for (const d of ['wordpress', 'wordpress-mysql']) await kubectl(['rollout', 'status', `deployment/${d}`, '--timeout=120s']);
      const svc = (await kubectl(['get', 'services', 'wordpress'])).stdout;
      assert.match(svc, /^wordpress\s+LoadBalancer\s+[\d.]+\s+127\.0\.0\.1\s+80:\d+\/TCP\s/m);
      const nodePort = Number(await jsonpath(['get', 'service', 'wordpress'], '{.spec.ports[0].nodePort}'));
      const first = await eventually(async () => { const r = await get(nodePort, '/'); return r.code === 302 ? r : undefined; }, 60_000, 'WordPress redirects to its installer');
      assert.equal(first.headers.location, `http://127.0.0.1:${nodePort}/wp-admin/install.php`);
      const installer = await get(nodePort, '/wp-admin/install.php');
      assert.equal(installer.code, 200);
      assert.match(installer.body, /<title>WordPress &rsaquo; Installation<\/title>/);
      // Without its database WordPress says so.
      await kubectl(['scale', 'deployment', 'wordpress-mysql', '--replicas=0']);
      await eventually(async () => (await get(nodePort, '/')).code === 500, 60_000, 'Error establishing a database connection');
      assert.match((await get(nodePort, '/')).body, /Error establishing a database connection/);
      const deleted = (await kubectl(['delete', '-k', dir])).stdout;
      assert.match(deleted, /persistentvolumeclaim "mysql-pv-claim" deleted/);
      assert.match(deleted, /secret "mysql-pass-[a-z0-9]{10}" deleted/);
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });

  it('Assign Pods to Nodes: a labelled node gets the nodeSelector, required and preferred affinity pods', async () => {
    assert.equal((await kubectl(['label', 'nodes', 'worker1', 'disktype=ssd'])).stdout, 'node/worker1 labeled\n');
    assert.match((await kubectl(['get', 'nodes', '--show-labels'])).stdout, /^worker1\s.*disktype=ssd/m);
    await kubectl(['apply', '-f', '-'], m.assignPods);
    for (const name of ['nginx', 'nginx-required', 'nginx-preferred']) {
      await kubectl(['wait', '--for=condition=Ready', `pod/${name}`, '--timeout=90s']);
      const line = (await kubectl(['get', 'pods', name, '--output=wide', '--no-headers'])).stdout;
      assert.match(line, new RegExp(`^${name}\\s+1/1\\s+Running\\s+0\\s+\\S+\\s+10\\.244\\.\\d+\\.\\d+\\s+worker1\\s+<none>\\s+<none>`), line);
    }
  });
});
