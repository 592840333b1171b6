/**
 * kubernetes.io's first tutorial, Hello Minikube, command by command with the
 * real kubectl 1.32 on `npm start`'s simulated nodes. Its server is agnhost's
 * `netexec`, which the simulated runtime did not know: `kubectl logs` showed a
 * made-up "Created container agnhost" and every request to the app was
 * refused. Now the log is netexec's own start lines (klog's rendering of Go's
 * log) and a line per request, and the app answers through the Service as the
 * Go server does. minikube's own verbs (`minikube service`, `addons`) have no
 * k8ts twin; the Service is reached as `kubectl` reaches it (services proxy,
 * port-forward), and a LoadBalancer gets k8ts's loopback ingress.
 * Every wait polls a condition with a generous deadline; nothing is timed.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from './harness.js';
import { killChild, kubectlPortForward } from './helpers.js';
import { startUp, type UpCluster } from './up-cluster.js';

describe('k8ts up: the Hello Minikube tutorial', () => {
  let up: UpCluster;
  let pod = '';
  const out = async (args: string[]) => (await up.kubectl(args)).stdout;
  const rows = (text: string) => text.trim().split('\n').map((l) => l.trim().split(/\s+/));

  before(async () => { up = await startUp('k8ts-e2e-hello-minikube-'); });
  after(async () => { await up?.close(); });

  it('kubectl create deployment hello-node ... -- /agnhost netexec --http-port=8080; get deployments and pods show it Ready', async () => {
    assert.equal(await out(['create', 'deployment', 'hello-node', '--image=registry.k8s.io/e2e-test-images/agnhost:2.53', '--', '/agnhost', 'netexec', '--http-port=8080']),
      'deployment.apps/hello-node created\n');
    const deployments = await eventually(async () => {
      const text = await out(['get', 'deployments']);
      return rows(text).some((r) => r[0] === 'hello-node' && r[1] === '1/1') ? text : undefined;
    }, 120_000, 'hello-node 1/1');
    assert.deepEqual(rows(deployments)[0], ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    assert.deepEqual(rows(deployments).find((r) => r[0] === 'hello-node')!.slice(0, 4), ['hello-node', '1/1', '1', '1']);
    const pods = rows(await out(['get', 'pods']));
    assert.deepEqual(pods[0], ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    const row = pods.find((r) => r[0]!.startsWith('hello-node-'))!;
    assert.match(row[0]!, /^hello-node-[0-9a-f]{8,10}-[0-9a-z]{5}$/);
    assert.deepEqual(row.slice(1, 4), ['1/1', 'Running', '0']);
    pod = row[0]!;
  });

  it('kubectl get events and kubectl config view', async () => {
    const events = await out(['get', 'events']);
    assert.match(events, /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n/);
    assert.match(events, new RegExp(`Normal\\s+Scheduled\\s+pod/${pod}\\s+Successfully assigned default/${pod} to `));
    assert.match(events, /Normal\s+ScalingReplicaSet\s+deployment\/hello-node\s+Scaled up replica set hello-node-[0-9a-f]+ from 0 to 1/);
    const config = await out(['config', 'view']);
    assert.match(config, /^apiVersion: v1\nclusters:\n- cluster:\n {4}certificate-authority-data: DATA\+OMITTED\n {4}server: https:\/\/127\.0\.0\.1:\d+\n/);
    assert.match(config, /\n {4}client-certificate-data: DATA\+OMITTED\n {4}client-key-data: DATA\+OMITTED\n/);
  });

  it('kubectl logs POD: netexec\'s start, as the page shows it', async () => {
    const logs = await out(['logs', pod]);
    assert.match(logs, /^I\d{4} \d\d:\d\d:\d\d\.\d{6} {7}1 log\.go:195\] Started HTTP server on port 8080\nI\d{4} \d\d:\d\d:\d\d\.\d{6} {7}1 log\.go:195\] Started UDP server on port {2}8081\n$/);
  });

  it('kubectl expose deployment hello-node --type=LoadBalancer --port=8080; get services; the app answers through the Service', async () => {
    assert.equal(await out(['expose', 'deployment', 'hello-node', '--type=LoadBalancer', '--port=8080']), 'service/hello-node exposed\n');
    const services = rows(await out(['get', 'services']));
    assert.deepEqual(services[0], ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE']);
    const svc = services.find((r) => r[0] === 'hello-node')!;
    assert.equal(svc[1], 'LoadBalancer');
    assert.match(svc[2]!, /^10\.\d+\.\d+\.\d+$/);
    assert.match(svc[4]!, /^8080:3\d{4}\/TCP$/);
    assert.deepEqual(services.find((r) => r[0] === 'kubernetes')!.slice(1, 5), ['ClusterIP', '10.96.0.1', '<none>', '443/TCP']);

    // What `minikube service hello-node` opens in a browser: the app's root, the time of the request.
    const proxy = (path: string) => out(['get', '--raw', `/api/v1/namespaces/default/services/hello-node:8080/proxy${path}`]);
    const root = await eventually(() => proxy('/').catch(() => undefined), 60_000, 'the app through the services proxy');
    assert.match(root, /^NOW: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{1,9})? \+0000 UTC m=\+\d+\.\d{9}$/);
    assert.equal(await proxy('/hostname'), pod);
    const pf = await kubectlPortForward(up.kubeconfig, ['service/hello-node', ':8080']);
    try {
      const get = (path: string) => fetch(`http://127.0.0.1:${pf.port}${path}`).then(async (r) => [r.status, await r.text()]);
      assert.deepEqual(await get('/echo?msg=hello'), [200, 'hello']);
      assert.deepEqual(await get('/hostname'), [200, pod]);
      assert.deepEqual(await get('/healthz'), [200, '']);
      assert.match((await get('/clientip'))[1] as string, /^127\.0\.0\.1:\d+$/);
    } finally {
      await killChild(pf.child);
    }
    // Each request is a line of the server's log, after its start lines.
    const logs = (await out(['logs', pod])).trim().split('\n');
    assert.equal(logs.length, 2 + 6, logs.join('\n'));
    assert.deepEqual(logs.slice(2).map((l) => l.replace(/^I\d{4} [\d:.]+ {7}1 log\.go:195\] /, '')),
      ['GET /', 'GET /hostname', 'GET /echo?msg=hello&code=', 'GET /hostname', 'GET /healthz', 'GET /clientip']);
  });

  it('kubectl top pods lists hello-node; clean up deletes the Service and the Deployment', async () => {
    const top = await eventually(async () => {
      const r = await up.kubectl(['top', 'pods'], undefined, true);
      return r.stdout.includes(pod) ? r.stdout : undefined;
    }, 120_000, 'kubectl top pods with hello-node');
    assert.match(top, /^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\s*\n/);
    assert.match(top, new RegExp(`${pod}\\s+\\d+m\\s+\\d+Mi`));
    assert.equal(await out(['delete', 'service', 'hello-node']), 'service "hello-node" deleted\n');
    assert.equal(await out(['delete', 'deployment', 'hello-node']), 'deployment.apps "hello-node" deleted\n');
    await eventually(async () => !(await out(['get', 'pods'])).includes('hello-node') || undefined, 120_000, 'hello-node pods gone');
  });
});
