/**
 * Out-of-range numbers against a real server (issue #12, item 5), each the
 * exact request of the defect: a Service nodePort outside
 * --service-node-port-range or already held (422 Invalid, the port
 * allocator's words), int32 and int64 fields past their Go type (400,
 * encoding/json's words), integer query parameters that do not parse as
 * int64 (400, strconv's words). Nothing is stored, and the server still
 * serves afterwards. A BinarySI quantity past int64 is capped at 2^63-1,
 * as apimachinery's ParseQuantity does, not refused.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, Cluster } from './harness.js';
import { apiServerOnly, apiRequest, manifestDir } from './helpers.js';

const files = manifestDir();

const nodePortService = (name: string, nodePort?: number, type = 'NodePort') => `apiVersion: v1
kind: Service
metadata:
  name: ${name}
spec:
  type: ${type}
  selector:
    app: ${name}
  ports:
  - port: 80
${nodePort === undefined ? '' : `    nodePort: ${nodePort}\n`}`;

async function assertAbsent(cluster: Cluster, path: string) {
  const res = await apiRequest(cluster, path);
  assert.equal(res.status, 404, `${path} should not exist, got ${res.body}`);
}

/** The server still answers, and still stores what is valid. */
async function assertServing(cluster: Cluster, name: string) {
  assert.equal((await apiRequest(cluster, '/version')).status, 200);
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } });
  const res = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps', { method: 'POST', body });
  assert.equal(res.status, 201, res.body);
}

describe('numbers, default node port range', () => {
  let cluster: Cluster;
  before(async () => { cluster = await startCluster(apiServerOnly); });
  after(async () => { await cluster?.cleanup(); files.close(); });

  test('a nodePort of 99999 is refused with the port allocator\'s words (kubectl create)', async () => {
    const path = files.write('np-out.yaml', nodePortService('np-out', 99999));
    const res = await cluster.kubectl(['create', '-f', path], { allowFail: true });
    assert.equal(res.code, 1);
    assert.equal(res.stderr, 'The Service "np-out" is invalid: spec.ports[0].nodePort: Invalid value: 99999: provided port is not in the valid range. The range of valid ports is 30000-32767\n');
    await assertAbsent(cluster, '/api/v1/namespaces/default/services/np-out');
    await assertServing(cluster, 'after-np-out');
  });

  test('the same request over raw HTTPS: 422 Invalid with the field cause', async () => {
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'np-raw' }, spec: { type: 'NodePort', ports: [{ port: 80, nodePort: 99999 }] } });
    const res = await apiRequest(cluster, '/api/v1/namespaces/default/services', { method: 'POST', body });
    assert.equal(res.status, 422, res.body);
    const status = res.json();
    assert.equal(status.reason, 'Invalid');
    assert.deepEqual(status.details.causes, [{
      reason: 'FieldValueInvalid', field: 'spec.ports[0].nodePort',
      message: 'Invalid value: 99999: provided port is not in the valid range. The range of valid ports is 30000-32767',
    }]);
    await assertAbsent(cluster, '/api/v1/namespaces/default/services/np-raw');
  });

  test('a nodePort another Service holds is refused: provided port is already allocated', async () => {
    await cluster.kubectl(['create', '-f', files.write('np-a.yaml', nodePortService('np-a', 30080))]);
    const path = files.write('np-b.yaml', nodePortService('np-b', 30080));
    const res = await cluster.kubectl(['create', '-f', path], { allowFail: true });
    assert.equal(res.code, 1);
    assert.equal(res.stderr, 'The Service "np-b" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated\n');
    await assertAbsent(cluster, '/api/v1/namespaces/default/services/np-b');
    // The holder keeps its port, and a picked port is never the held one.
    const a = JSON.parse((await cluster.kubectl(['get', 'service', 'np-a', '-o', 'json'])).stdout);
    assert.equal(a.spec.ports[0].nodePort, 30080);
    await cluster.kubectl(['create', '-f', files.write('np-c.yaml', nodePortService('np-c'))]);
    const c = JSON.parse((await cluster.kubectl(['get', 'service', 'np-c', '-o', 'json'])).stdout);
    assert.ok(c.spec.ports[0].nodePort >= 30000 && c.spec.ports[0].nodePort <= 32767 && c.spec.ports[0].nodePort !== 30080, `${c.spec.ports[0].nodePort}`);
  });

  test('an update to an out-of-range or held nodePort is refused and changes nothing', async () => {
    await cluster.kubectl(['create', '-f', files.write('np-upd.yaml', nodePortService('np-upd', 30090))]);
    const out = await cluster.kubectl(['patch', 'service', 'np-upd', '--type=json', '-p', '[{"op":"replace","path":"/spec/ports/0/nodePort","value":99999}]'], { allowFail: true });
    assert.equal(out.stderr, 'The Service "np-upd" is invalid: spec.ports[0].nodePort: Invalid value: 99999: provided port is not in the valid range. The range of valid ports is 30000-32767\n');
    const held = await cluster.kubectl(['patch', 'service', 'np-upd', '--type=json', '-p', '[{"op":"replace","path":"/spec/ports/0/nodePort","value":30080}]'], { allowFail: true });
    assert.equal(held.stderr, 'The Service "np-upd" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated\n');
    const svc = JSON.parse((await cluster.kubectl(['get', 'service', 'np-upd', '-o', 'json'])).stdout);
    assert.equal(svc.spec.ports[0].nodePort, 30090);
    // Unchanged ports pass (the Service's own), and a label edit still works.
    await cluster.kubectl(['label', 'service', 'np-upd', 'x=y']);
  });

  test('turning a ClusterIP Service into a NodePort one picks a port in range', async () => {
    await cluster.kubectl(['create', '-f', files.write('np-cip.yaml', nodePortService('np-cip', undefined, 'ClusterIP'))]);
    await cluster.kubectl(['patch', 'service', 'np-cip', '-p', '{"spec":{"type":"NodePort"}}']);
    const svc = JSON.parse((await cluster.kubectl(['get', 'service', 'np-cip', '-o', 'json'])).stdout);
    const port = svc.spec.ports[0].nodePort;
    assert.ok(port >= 30000 && port <= 32767 && port !== 30080 && port !== 30090, `${port}`);
  });

  test('a LoadBalancer with externalTrafficPolicy Local: its healthCheckNodePort is allocated or refused like a node port', async () => {
    const lb = (name: string, healthCheckNodePort?: number) => JSON.stringify({
      apiVersion: 'v1', kind: 'Service', metadata: { name },
      spec: { type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ port: 80 }], ...(healthCheckNodePort ? { healthCheckNodePort } : {}) },
    });
    const post = (name: string, hc?: number) => apiRequest(cluster, '/api/v1/namespaces/default/services', { method: 'POST', body: lb(name, hc) });
    const out = await post('hc-out', 99999);
    assert.equal(out.status, 500, out.body);
    assert.equal(out.json().message, 'Internal error occurred: failed to allocate requested HealthCheck NodePort 99999: provided port is not in the valid range. The range of valid ports is 30000-32767');
    await assertAbsent(cluster, '/api/v1/namespaces/default/services/hc-out');
    const held = await post('hc-held', 30080);
    assert.equal(held.json().message, 'Internal error occurred: failed to allocate requested HealthCheck NodePort 30080: provided port is already allocated');
    await assertAbsent(cluster, '/api/v1/namespaces/default/services/hc-held');
    const ok = await post('hc-ok');
    assert.equal(ok.status, 201, ok.body);
    const { healthCheckNodePort, ports } = ok.json().spec;
    assert.ok(healthCheckNodePort >= 30000 && healthCheckNodePort <= 32767 && healthCheckNodePort !== ports[0].nodePort, `${healthCheckNodePort}`);
    // A later update that leaves it out keeps it, as upstream's patchAllocatedValues does.
    const stored = ok.json();
    delete stored.spec.healthCheckNodePort;
    const put = await apiRequest(cluster, '/api/v1/namespaces/default/services/hc-ok', { method: 'PUT', body: JSON.stringify(stored) });
    assert.equal(put.status, 200, put.body);
    const after = (await apiRequest(cluster, '/api/v1/namespaces/default/services/hc-ok')).json();
    assert.equal(after.spec.healthCheckNodePort, healthCheckNodePort);
  });

  test('replicas: 2147483648 does not fit int32: 400 from the decoder (kubectl create)', async () => {
    const path = files.write('deploy-big.yaml', `apiVersion: apps/v1
kind: Deployment
metadata:
  name: deploy-big
spec:
  replicas: 2147483648
  selector:
    matchLabels:
      app: big
  template:
    metadata:
      labels:
        app: big
    spec:
      containers:
      - name: main
        image: busybox
`);
    const res = await cluster.kubectl(['create', '-f', path], { allowFail: true });
    assert.equal(res.code, 1);
    assert.equal(res.stderr, `Error from server (BadRequest): error when creating "${path}": Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 2147483648 into Go struct field DeploymentSpec.spec.replicas of type int32\n`);
    await assertAbsent(cluster, '/apis/apps/v1/namespaces/default/deployments/deploy-big');
    await assertServing(cluster, 'after-deploy-big');
  });

  test('terminationGracePeriodSeconds: 1e+300 does not fit int64 (raw HTTPS)', async () => {
    const body = '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"grace-big"},"spec":{"terminationGracePeriodSeconds":1e+300,"containers":[{"name":"c","image":"busybox"}]}}';
    const res = await apiRequest(cluster, '/api/v1/namespaces/default/pods', { method: 'POST', body });
    assert.equal(res.status, 400, res.body);
    const status = res.json();
    assert.equal(status.reason, 'BadRequest');
    assert.equal(status.message, 'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number 1e+300 into Go struct field PodSpec.spec.terminationGracePeriodSeconds of type int64');
    await assertAbsent(cluster, '/api/v1/namespaces/default/pods/grace-big');
    await assertServing(cluster, 'after-grace-big');
  });

  test('an int64 past int32 is stored as sent', async () => {
    const body = '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"grace-long"},"spec":{"terminationGracePeriodSeconds":4294967296,"containers":[{"name":"c","image":"busybox"}]}}';
    const res = await apiRequest(cluster, '/api/v1/namespaces/default/pods', { method: 'POST', body });
    assert.equal(res.status, 201, res.body);
    assert.equal(res.json().spec.terminationGracePeriodSeconds, 4294967296);
  });

  test('a targetPort number past int32 is refused (IntOrString holds an int32)', async () => {
    const body = '{"apiVersion":"v1","kind":"Service","metadata":{"name":"tp-big"},"spec":{"ports":[{"port":80,"targetPort":2147483648}]}}';
    const res = await apiRequest(cluster, '/api/v1/namespaces/default/services', { method: 'POST', body });
    assert.equal(res.status, 400, res.body);
    assert.equal(res.json().message, 'Service in version "v1" cannot be handled as a Service: json: cannot unmarshal number 2147483648 into Go struct field ServicePort.spec.ports.targetPort of type int32');
    await assertAbsent(cluster, '/api/v1/namespaces/default/services/tp-big');
  });

  test('scale to 2147483648 is refused as a Scale; the Deployment keeps its replicas', async () => {
    const deploy = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'scaled' }, spec: { replicas: 1, selector: { matchLabels: { app: 's' } }, template: { metadata: { labels: { app: 's' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } } };
    assert.equal((await apiRequest(cluster, '/apis/apps/v1/namespaces/default/deployments', { method: 'POST', body: JSON.stringify(deploy) })).status, 201);
    const body = '{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"scaled","namespace":"default"},"spec":{"replicas":2147483648}}';
    const res = await apiRequest(cluster, '/apis/apps/v1/namespaces/default/deployments/scaled/scale', { method: 'PUT', body });
    assert.equal(res.status, 400, res.body);
    assert.equal(res.json().message, 'Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal number 2147483648 into Go struct field ScaleSpec.spec.replicas of type int32');
    const got = (await apiRequest(cluster, '/apis/apps/v1/namespaces/default/deployments/scaled')).json();
    assert.equal(got.spec.replicas, 1);
    await cluster.kubectl(['scale', 'deployment', 'scaled', '--replicas=3']);
    assert.equal((await apiRequest(cluster, '/apis/apps/v1/namespaces/default/deployments/scaled')).json().spec.replicas, 3);
  });

  test('a quantity of 99999999999999999999999Ei is capped at 2^63-1, as upstream\'s ParseQuantity caps BinarySI', async () => {
    const body = JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'mem-huge' },
      spec: { containers: [{ name: 'c', image: 'busybox', resources: { limits: { memory: '99999999999999999999999Ei' } } }] },
    });
    const res = await apiRequest(cluster, '/api/v1/namespaces/default/pods', { method: 'POST', body });
    assert.equal(res.status, 201, res.body);
    const stored = (await apiRequest(cluster, '/api/v1/namespaces/default/pods/mem-huge')).json();
    assert.deepEqual(stored.spec.containers[0].resources, { limits: { memory: '9223372036854775807' }, requests: { memory: '9223372036854775807' } });
  });

  test('limit and gracePeriodSeconds that are not int64: 400 in strconv\'s words, nothing deleted', async () => {
    const list = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps?limit=abc');
    assert.equal(list.status, 400, list.body);
    assert.equal(list.json().message, 'strconv.ParseInt: parsing "abc": invalid syntax');
    const big = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps?limit=9223372036854775808');
    assert.equal(big.json().message, 'strconv.ParseInt: parsing "9223372036854775808": value out of range');
    const del = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps/after-np-out?gracePeriodSeconds=1.5', { method: 'DELETE' });
    assert.equal(del.status, 400, del.body);
    assert.equal(del.json().message, 'strconv.ParseInt: parsing "1.5": invalid syntax');
    assert.equal((await apiRequest(cluster, '/api/v1/namespaces/default/configmaps/after-np-out')).status, 200);
    const page = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps?limit=1');
    assert.equal(page.status, 200);
    assert.equal(page.json().items.length, 1);
    assert.equal((await apiRequest(cluster, '/api/v1/namespaces/default/configmaps/after-np-out?gracePeriodSeconds=0', { method: 'DELETE' })).status, 200);
  });
});

describe('numbers, --service-node-port-range 31000-31002', () => {
  let cluster: Cluster;
  before(async () => { cluster = await startCluster({ extraArgs: [...apiServerOnly.extraArgs, '--service-node-port-range', '31000-31002'] }); });
  after(async () => { await cluster?.cleanup(); });

  test('the flag\'s range bounds requests and picks, and a full range is an internal error', async () => {
    const body = (name: string, nodePort?: number) => JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { type: 'NodePort', ports: [{ port: 80, ...(nodePort ? { nodePort } : {}) }] } });
    const post = (name: string, nodePort?: number) => apiRequest(cluster, '/api/v1/namespaces/default/services', { method: 'POST', body: body(name, nodePort) });
    const out = await post('r-out', 30080);
    assert.equal(out.status, 422);
    assert.equal(out.json().message, 'Service "r-out" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is not in the valid range. The range of valid ports is 31000-31002');
    const ports = [];
    for (const name of ['r-1', 'r-2', 'r-3']) {
      const res = await post(name);
      assert.equal(res.status, 201, res.body);
      ports.push(res.json().spec.ports[0].nodePort);
    }
    assert.deepEqual(ports.sort(), [31000, 31001, 31002]);
    const full = await post('r-4');
    assert.equal(full.status, 500, full.body);
    assert.equal(full.json().message, 'Internal error occurred: failed to allocate a nodePort: range is full');
    await assertAbsent(cluster, '/api/v1/namespaces/default/services/r-4');
    await assertServing(cluster, 'after-full');
  });
});

describe('--service-node-port-range that does not parse', () => {
  test('the server refuses to start, in pflag\'s words', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-e2e-badrange-'));
    try {
      await assert.rejects(startCluster({ dataDir, extraArgs: ['--service-node-port-range', '32767-30000'] }),
        /invalid argument "32767-30000" for "--service-node-port-range" flag: end port cannot be less than start port: 32767-30000/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
