/**
 * apiregistration.k8s.io/v1 APIService and the aggregation layer, against a
 * real server and the real kubectl: the local APIServices kube-apiserver
 * registers for its own groups, and upstream's validation.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, type Cluster } from './harness.js';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { apiRequest, apiServerOnly, apiStream, cells } from './helpers.js';
import { createCA, issueCertificate } from '../../src/pki/index.js';

let cluster: Cluster;

before(async () => { cluster = await startCluster(apiServerOnly); });
after(async () => { await cluster?.cleanup(); });

describe('APIService', () => {
  test('kubectl get apiservices lists every built-in group version as Local and Available', async () => {
    const out = (await cluster.kubectl(['get', 'apiservices'])).stdout.trim().split('\n');
    assert.deepEqual(cells(out[0]), ['NAME', 'SERVICE', 'AVAILABLE', 'AGE']);
    const rows = new Map(out.slice(1).map((l) => { const c = cells(l); return [c[0], c.slice(1, 3)]; }));
    for (const name of ['v1.', 'v1.apps', 'v1.batch', 'v2.autoscaling', 'v1.autoscaling', 'v1.apiregistration.k8s.io', 'v1.rbac.authorization.k8s.io']) {
      assert.deepEqual(rows.get(name), ['Local', 'True'], name);
    }
    const apps = JSON.parse((await cluster.kubectl(['get', 'apiservice', 'v1.apps', '-o', 'json'])).stdout);
    assert.deepEqual(apps.spec, { group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 });
    assert.equal(apps.metadata.labels['kube-aggregator.kubernetes.io/automanaged'], 'onstart');
    const cond = apps.status.conditions[0];
    assert.deepEqual([cond.type, cond.status, cond.reason, cond.message], ['Available', 'True', 'Local', 'Local APIServices are always available']);
  });

  test('a CRD group gets a local APIService while it is served', async () => {
    await cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify({
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gadgets.aggr.example.com' },
      spec: { group: 'aggr.example.com', scope: 'Namespaced', names: { plural: 'gadgets', kind: 'Gadget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    }) });
    await cluster.kubectl(['wait', '--for=condition=Established', 'crd/gadgets.aggr.example.com', '--timeout=60s']);
    const svc = JSON.parse((await cluster.kubectl(['get', 'apiservice', 'v1.aggr.example.com', '-o', 'json'])).stdout);
    assert.deepEqual(svc.spec, { group: 'aggr.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 });
    await cluster.kubectl(['delete', 'crd', 'gadgets.aggr.example.com']);
    await eventually(async () => /NotFound/.test((await cluster.kubectl(['get', 'apiservice', 'v1.aggr.example.com'], { allowFail: true })).stderr), 10_000, 'APIService removed');
  });

  test('upstream validation: the name is version.group, priorities in range, no caBundle without a service', async () => {
    const r = await cluster.kubectl(['create', '-f', '-'], { allowFail: true, input: JSON.stringify({
      apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'wrong' },
      spec: { group: 'wardle.example.com', version: 'v1alpha1', groupPriorityMinimum: 0, versionPriority: 15, caBundle: Buffer.from('x').toString('base64') },
    }) });
    assert.notEqual(r.code, 0);
    assert.equal(r.stderr.trim(), 'The APIService "wrong" is invalid: \n'
      + '* metadata.name: Invalid value: "wrong": must be `spec.version+"."+spec.group`: "v1alpha1.wardle.example.com"\n'
      + '* spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000\n'
      + '* spec.caBundle: Invalid value: "1 bytes": local APIServices may not have a caBundle');
  });
});

/** A small extension API server (wardle.example.com/v1alpha1 flunders), trusting the front proxy as an aggregated server does. */
interface Backend { port: number; caPem: string; seen: { user?: string; groups: string[]; clientCN?: string; authorization?: string }[]; close(): Promise<void> }

async function startBackend(frontProxyCAPem: string): Promise<Backend> {
  const ca = await createCA({ commonName: 'wardle-ca', days: 1 });
  const serving = await issueCertificate({ ca, commonName: 'api.wardle.svc', dnsNames: ['api.wardle.svc'], usages: ['server'], days: 1 });
  const seen: Backend['seen'] = [];
  const resources = { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'wardle.example.com/v1alpha1', resources: [
    { name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['get', 'list'] },
  ] };
  const flunder = { apiVersion: 'wardle.example.com/v1alpha1', kind: 'Flunder', metadata: { name: 'my-flunder', namespace: 'default', creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') } };
  const server = https.createServer({ key: serving.keyPem, cert: serving.certPem, ca: frontProxyCAPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    const groups = req.headersDistinct['x-remote-group'] ?? [];
    const send = (code: number, body: unknown) => { res.writeHead(code, { 'Content-Type': 'application/json' }); res.end(JSON.stringify(body)); };
    if (req.url === '/apis/wardle.example.com/v1alpha1') return send(200, resources);
    seen.push({ user: req.headers['x-remote-user'] as string | undefined, groups, clientCN: peer?.subject?.CN === undefined ? undefined : String(peer.subject.CN), authorization: req.headers.authorization });
    if (req.url?.startsWith('/apis/wardle.example.com/v1alpha1/namespaces/default/flunders?watch=true')) {
      // A watch: one event now, a second a little later, the stream kept open.
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: flunder })}\n`);
      const later = setTimeout(() => res.write(`${JSON.stringify({ type: 'MODIFIED', object: { ...flunder, metadata: { ...flunder.metadata, labels: { v: '2' } } } })}\n`), 300);
      res.on('close', () => clearTimeout(later));
      return;
    }
    if (req.url?.startsWith('/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/my-flunder')) return send(200, flunder);
    if (req.url?.startsWith('/apis/wardle.example.com/v1alpha1/namespaces/default/flunders')) return send(200, { apiVersion: 'wardle.example.com/v1alpha1', kind: 'FlunderList', metadata: {}, items: [flunder] });
    send(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port, caPem: ca.certPem, seen,
    close: () => new Promise((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
  };
}

const apiServiceOf = (caPem: string) => ({
  apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1alpha1.wardle.example.com' },
  spec: { group: 'wardle.example.com', version: 'v1alpha1', groupPriorityMinimum: 1000, versionPriority: 15, service: { namespace: 'wardle', name: 'api', port: 443 }, caBundle: Buffer.from(caPem).toString('base64') },
});

const available = async (name: string) => {
  const r = await cluster.kubectl(['get', 'apiservice', name, '-o', 'jsonpath={.status.conditions[?(@.type=="Available")].status}/{.status.conditions[?(@.type=="Available")].reason}/{.status.conditions[?(@.type=="Available")].message}'], { allowFail: true });
  return r.stdout;
};

describe('the aggregation layer', () => {
  let backend: Backend;

  test('the extension-apiserver-authentication ConfigMap names the front proxy and its CA', async () => {
    const cm = JSON.parse((await cluster.kubectl(['get', 'configmap', '-n', 'kube-system', 'extension-apiserver-authentication', '-o', 'json'])).stdout);
    assert.deepEqual(Object.keys(cm.data).sort(), ['client-ca-file', 'requestheader-allowed-names', 'requestheader-client-ca-file', 'requestheader-extra-headers-prefix', 'requestheader-group-headers', 'requestheader-username-headers']);
    assert.equal(cm.data['requestheader-allowed-names'], '["front-proxy-client"]');
    assert.equal(cm.data['requestheader-username-headers'], '["X-Remote-User"]');
    assert.match(cm.data['requestheader-client-ca-file'], /BEGIN CERTIFICATE/);
    backend = await startBackend(cm.data['requestheader-client-ca-file']);
  });

  test('an APIService whose Service is missing is Available False ServiceNotFound, and its requests 503', async () => {
    await cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify(apiServiceOf(backend.caPem)) });
    await eventually(async () => (await available('v1alpha1.wardle.example.com')) === 'False/ServiceNotFound/service/api in "wardle" is not present', 15_000, 'ServiceNotFound');
    const r = await apiRequest(cluster, '/apis/wardle.example.com/v1alpha1/namespaces/default/flunders');
    assert.equal(r.status, 503);
    assert.equal(r.body, 'service unavailable\n');
  });

  test('a selectorless Service without endpoints: Available False MissingEndpoints', async () => {
    await cluster.kubectl(['create', 'namespace', 'wardle']);
    await cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'api', namespace: 'wardle' }, spec: { ports: [{ port: 443, targetPort: backend.port }] } }) });
    await eventually(async () => (await available('v1alpha1.wardle.example.com')) === 'False/MissingEndpoints/endpoints for service/api in "wardle" have no addresses with port name ""', 15_000, 'MissingEndpoints');
  });

  test('with an EndpointSlice to the backend: Available, listed by kubectl api-resources, read by kubectl get, with the caller in X-Remote headers', async () => {
    await cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify({
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'api-1', namespace: 'wardle', labels: { 'kubernetes.io/service-name': 'api' } },
      addressType: 'IPv4', endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }], ports: [{ port: backend.port, protocol: 'TCP' }],
    }) });
    await eventually(async () => (await available('v1alpha1.wardle.example.com')) === 'True/Passed/all checks passed', 15_000, 'Available');
    const row = cells((await cluster.kubectl(['get', 'apiservice', 'v1alpha1.wardle.example.com', '--no-headers'])).stdout);
    assert.deepEqual(row.slice(0, 3), ['v1alpha1.wardle.example.com', 'wardle/api', 'True']);
    const group = (await apiRequest(cluster, '/apis/wardle.example.com')).json();
    assert.equal(group.preferredVersion.groupVersion, 'wardle.example.com/v1alpha1');
    const resources = (await cluster.kubectl(['api-resources', '--api-group=wardle.example.com', '--no-headers'])).stdout.trim();
    assert.deepEqual(cells(resources), ['flunders', 'wardle.example.com/v1alpha1', 'true', 'Flunder']);
    const got = await cluster.kubectl(['get', 'flunders', '-o', 'name']);
    assert.equal(got.stdout.trim(), 'flunder.wardle.example.com/my-flunder');
    const one = JSON.parse((await cluster.kubectl(['get', 'flunder', 'my-flunder', '-o', 'json'])).stdout);
    assert.equal(one.kind, 'Flunder');
    const last = backend.seen.at(-1)!;
    assert.equal(last.user, 'kubernetes-admin');
    assert.ok(last.groups.includes('system:masters') && last.groups.includes('system:authenticated'), JSON.stringify(last.groups));
    assert.equal(last.clientCN, 'front-proxy-client');
    assert.equal(last.authorization, undefined);
  });

  test('a watch streams through the proxy event by event', async () => {
    const w = await apiStream(cluster, '/apis/wardle.example.com/v1alpha1/namespaces/default/flunders?watch=true');
    try {
      assert.equal(w.status, 200);
      await w.waitFor((ev) => ev.type === 'ADDED', 'ADDED');
      // The second event arrives while the response is still open.
      await w.waitFor((ev) => ev.type === 'MODIFIED' && ev.object.metadata.labels.v === '2', 'MODIFIED');
    } finally {
      w.close();
    }
  });

  test('the front server authorizes first: a user without RBAC on flunders is refused before the backend is asked', async () => {
    const before = backend.seen.length;
    const r = await cluster.kubectl(['get', 'flunders', '--as=nobody'], { allowFail: true });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /flunders\.wardle\.example\.com is forbidden: User "nobody" cannot list resource "flunders" in API group "wardle\.example\.com" in the namespace "default"/);
    assert.equal(backend.seen.length, before);
  });

  test('a dead backend: Available False FailedDiscoveryCheck, and 503', async () => {
    await backend.close();
    await eventually(async () => (await available('v1alpha1.wardle.example.com')).startsWith('False/FailedDiscoveryCheck/failing or missing response from https://127.0.0.1:'), 15_000, 'FailedDiscoveryCheck');
    const r = await apiRequest(cluster, '/apis/wardle.example.com/v1alpha1/namespaces/default/flunders');
    assert.equal(r.status, 503);
  });
});
