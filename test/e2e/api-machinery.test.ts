/**
 * API machinery as clients other than kubectl meet it (issue #11): strict and
 * warn decoding report duplicate fields, limited lists say how many items
 * remain, objects carry generation only where upstream's strategy sets it and
 * omit the zero status fields upstream omits, the Status error body is
 * upstream's text, bodies of the wrong kind fail in upstream's words, and
 * discovery carries storageVersionHash.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster } from './harness.js';
import { apiRequest, apiServerOnly } from './helpers.js';

let cluster: Cluster;
before(async () => { cluster = await startCluster(apiServerOnly); });
after(async () => { await cluster?.cleanup(); });

const deployments = '/apis/apps/v1/namespaces/default/deployments';
const template = '"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}';
const dupDeployment = (name: string) => `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"${name}"},"spec":{"foo":1,"replicas":1,"replicas":2,${template}}}`;
const warnings = (r: { headers: Record<string, unknown> }) => [r.headers.warning ?? []].flat().join('\n');

describe('duplicate fields', () => {
  test('Strict refuses a JSON create with unknown and duplicate fields in one strict decoding error', async () => {
    const r = await apiRequest(cluster, `${deployments}?fieldValidation=Strict`, { method: 'POST', body: dupDeployment('strict') });
    assert.equal(r.status, 400, r.body);
    assert.equal(r.json().message, 'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.foo", duplicate field "spec.replicas"');
  });

  test('Warn creates, keeps the last value, and warns about both', async () => {
    const r = await apiRequest(cluster, `${deployments}?fieldValidation=Warn`, { method: 'POST', body: dupDeployment('warn') });
    assert.equal(r.status, 201, r.body);
    assert.equal(r.json().spec.replicas, 2);
    assert.match(warnings(r), /unknown field \\?"spec\.foo\\?"/);
    assert.match(warnings(r), /duplicate field \\?"spec\.replicas\\?"/);
  });

  test('Strict refuses a YAML create with go-yaml\'s duplicate key error first', async () => {
    const yaml = 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: yaml\nspec:\n  replicas: 1\n  replicas: 2\n  foo: 1\n'
      + '  selector: {matchLabels: {app: d}}\n  template:\n    metadata: {labels: {app: d}}\n    spec: {containers: [{name: c, image: busybox}]}\n';
    const r = await apiRequest(cluster, `${deployments}?fieldValidation=Strict`, { method: 'POST', body: yaml, contentType: 'application/yaml' });
    assert.equal(r.status, 400, r.body);
    assert.equal(r.json().message, 'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: yaml: unmarshal errors:\n  line 7: key "replicas" already set in map, unknown field "spec.foo"');
  });

  test('Strict refuses duplicates on update and in a merge patch', async () => {
    const cur = (await apiRequest(cluster, `${deployments}/warn`)).json();
    const put = await apiRequest(cluster, `${deployments}/warn?fieldValidation=Strict`, {
      method: 'PUT', body: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"warn","resourceVersion":"${cur.metadata.resourceVersion}"},"spec":{"replicas":1,"replicas":3,${template}}}`,
    });
    assert.equal(put.status, 400, put.body);
    assert.match(put.json().message, /strict decoding error: duplicate field "spec\.replicas"$/);
    const patch = await apiRequest(cluster, `${deployments}/warn?fieldValidation=Strict`, {
      method: 'PATCH', contentType: 'application/merge-patch+json', body: '{"spec":{"replicas":4,"replicas":5}}',
    });
    // A patch's strict decoding error is upstream's 422 on the field `patch` (handlers/patch.go).
    assert.equal(patch.status, 422, patch.body);
    assert.match(patch.json().message, /^ "" is invalid: patch: Invalid value: "\{.*\}": strict decoding error: duplicate field "spec\.replicas"$/);
    assert.equal((await apiRequest(cluster, `${deployments}/warn`)).json().spec.replicas, 2);
  });
});

describe('a patch refused by strict decoding is 422 Invalid on the field patch', () => {
  const url = `${deployments}/warn?fieldValidation=Strict`;
  const cases: Array<[string, string, string, RegExp]> = [
    // patch type, content type, body, the Invalid value and detail
    ['merge', 'application/merge-patch+json', '{"spec":{"replicass":1}}', /^"\{.*\\"replicass\\":1.*\}": strict decoding error: unknown field "spec\.replicass"$/],
    ['json', 'application/json-patch+json', '[{"op":"add","path":"/spec/replicass","value":1}]', /^"\{.*\\"replicass\\":1.*\}": strict decoding error: unknown field "spec\.replicass"$/],
    ['json, a duplicate in an operation', 'application/json-patch+json', '[{"op":"add","op":"add","path":"/spec/replicas","value":1}]', /strict decoding error: json patch duplicate field ".*op"$/],
    // Upstream shows the strategic patch as Go's %+v prints the decoded map.
    ['strategic', 'application/strategic-merge-patch+json', '{"spec":{"replicass":1,"replicas":2,"replicas":3}}',
      /^"map\[spec:map\[replicas:3 replicass:1\]\]": strict decoding error: duplicate field "spec\.replicas", unknown field "spec\.replicass"$/],
  ];
  for (const [type, contentType, body, value] of cases) {
    test(type, async () => {
      const r = await apiRequest(cluster, url, { method: 'PATCH', contentType, body });
      assert.equal(r.status, 422, r.body);
      const s = r.json();
      assert.equal(s.reason, 'Invalid');
      assert.match(s.message, /^ "" is invalid: patch: Invalid value: /);
      assert.equal(s.details.name, undefined);
      assert.equal(s.details.causes.length, 1);
      assert.equal(s.details.causes[0].field, 'patch');
      assert.equal(s.details.causes[0].reason, 'FieldValueInvalid');
      assert.match(s.details.causes[0].message.replace(/^Invalid value: /, ''), value);
    });
  }

  test('a value of the wrong type: 422 on patch with the converter\'s words for strategic patches, encoding/json\'s for merge patches', async () => {
    const smp = await cluster.kubectl(['patch', 'deployment', 'warn', '-p', '{"metadata":{"labels":"invalid"}}'], { allowFail: true });
    assert.notEqual(smp.code, 0);
    assert.match(smp.stderr, /patch: Invalid value: "map\[metadata:map\[labels:invalid\]\]": cannot restore map from string/);
    const struct = await apiRequest(cluster, `${deployments}/warn`, { method: 'PATCH', contentType: 'application/strategic-merge-patch+json', body: '{"spec":"x"}' });
    assert.equal(struct.status, 422, struct.body);
    assert.equal(struct.json().details.causes[0].message, 'Invalid value: "map[spec:x]": cannot restore struct from: string');
    const merge = await apiRequest(cluster, `${deployments}/warn`, { method: 'PATCH', contentType: 'application/merge-patch+json', body: '{"metadata":{"labels":"invalid"}}' });
    assert.equal(merge.status, 422, merge.body);
    assert.match(merge.json().details.causes[0].message, /: json: cannot unmarshal string into Go struct field ObjectMeta\.metadata\.labels of type map\[string\]string$/);
  });

  test('kubectl apply --validate=strict (a strategic merge patch) shows upstream\'s words, and Warn still patches', async () => {
    const manifest = (extra: string) => `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: applied\nspec:\n  replicas: 1\n${extra}`
      + '  selector: {matchLabels: {app: d}}\n  template:\n    metadata: {labels: {app: d}}\n    spec: {containers: [{name: c, image: busybox}]}\n';
    await cluster.kubectl(['apply', '-f', '-'], { input: manifest('') });
    const r = await cluster.kubectl(['apply', '--validate=strict', '-f', '-'], { input: manifest('  replicass: 2\n'), allowFail: true });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /is invalid: patch: Invalid value: "map\[.*spec:map\[replicass:2\]\]": strict decoding error: unknown field "spec\.replicass"/);
    const ok = await cluster.kubectl(['apply', '--validate=warn', '-f', '-'], { input: manifest('  replicass: 2\n').replace('replicas: 1', 'replicas: 3') });
    assert.match(ok.stderr, /unknown field "spec\.replicass"/);
    assert.equal((await apiRequest(cluster, `${deployments}/applied`)).json().spec.replicas, 3);
  });
});

describe('lists cut by limit', () => {
  const cms = '/api/v1/namespaces/paging/configmaps';
  before(async () => {
    await apiRequest(cluster, '/api/v1/namespaces', { method: 'POST', body: JSON.stringify({ metadata: { name: 'paging' } }) });
    for (let i = 0; i < 5; i++) {
      await apiRequest(cluster, cms, { method: 'POST', body: JSON.stringify({ metadata: { name: `cm-${i}`, labels: { n: String(i) } } }) });
    }
  });

  test('carry remainingItemCount on every page but the last', async () => {
    const first = (await apiRequest(cluster, `${cms}?limit=2`)).json();
    assert.equal(first.items.length, 2);
    assert.equal(first.metadata.remainingItemCount, 3);
    const second = (await apiRequest(cluster, `${cms}?limit=2&continue=${encodeURIComponent(first.metadata.continue)}`)).json();
    assert.equal(second.metadata.remainingItemCount, 1);
    const last = (await apiRequest(cluster, `${cms}?limit=2&continue=${encodeURIComponent(second.metadata.continue)}`)).json();
    assert.equal(last.items.length, 1);
    assert.equal(last.metadata.remainingItemCount, undefined);
    assert.equal(last.metadata.continue, undefined);
  });

  test('leave it out when a selector filters the list', async () => {
    const r = (await apiRequest(cluster, `${cms}?limit=2&labelSelector=n`)).json();
    assert.ok(r.metadata.continue);
    assert.equal(r.metadata.remainingItemCount, undefined);
  });
});

describe('object shapes', () => {
  test('ConfigMaps carry no generation, Deployments count spec changes', async () => {
    const cm = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: JSON.stringify({ metadata: { name: 'gen' }, data: { a: '1' } }) });
    assert.equal(cm.json().metadata.generation, undefined);
    const updated = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps/gen', {
      method: 'PATCH', contentType: 'application/merge-patch+json', body: '{"data":{"a":"2"}}',
    });
    assert.equal(updated.json().metadata.generation, undefined);
    const d = await apiRequest(cluster, deployments, { method: 'POST', body: `{"metadata":{"name":"gen"},"spec":{${template}}}` });
    assert.equal(d.json().metadata.generation, 1);
    const scaled = await apiRequest(cluster, `${deployments}/gen`, { method: 'PATCH', contentType: 'application/merge-patch+json', body: '{"spec":{"replicas":3}}' });
    assert.equal(scaled.json().metadata.generation, 2);
  });

  test('zero status fields tagged omitempty are not served', async () => {
    const ds = await apiRequest(cluster, '/apis/apps/v1/namespaces/default/daemonsets', {
      method: 'POST', body: `{"metadata":{"name":"zeros"},"spec":{${template}}}`,
    });
    assert.equal(ds.status, 201, ds.body);
    const status = { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0, numberUnavailable: 0, numberAvailable: 0, updatedNumberScheduled: 0, observedGeneration: 1 };
    const r = await apiRequest(cluster, '/apis/apps/v1/namespaces/default/daemonsets/zeros/status', {
      method: 'PUT', body: JSON.stringify({ ...ds.json(), status }),
    });
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(r.json().status, { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0, observedGeneration: 1 });
  });

  test('the Status error body is upstream\'s text: field order, no empty group, a final newline', async () => {
    const r = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps/nope');
    assert.equal(r.status, 404);
    assert.equal(r.body, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"nope\\" not found","reason":"NotFound","details":{"name":"nope","kind":"configmaps"},"code":404}\n');
    const apps = await apiRequest(cluster, `${deployments}/nope`);
    assert.equal(apps.body, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \\"nope\\" not found","reason":"NotFound","details":{"name":"nope","group":"apps","kind":"deployments"},"code":404}\n');
  });
});

describe('bodies that do not fit the endpoint', () => {
  const post = (path: string, body: string) => apiRequest(cluster, path, { method: 'POST', body });

  test('another registered kind fails to convert', async () => {
    const r = await post('/api/v1/namespaces', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}');
    assert.equal(r.status, 400);
    assert.equal(r.json().message, 'ConfigMap in version "v1" cannot be handled as a Namespace: converting (v1.ConfigMap) to (core.Namespace): unknown conversion');
  });

  test('a kind no version registers', async () => {
    const r = await post('/api/v1/namespaces', '{"apiVersion":"v1","kind":"Foo","metadata":{"name":"x"}}');
    assert.equal(r.json().message, 'Foo in version "v1" cannot be handled as a Namespace: no kind "Foo" is registered for version "v1" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"');
  });

  test('an events.k8s.io Event on core events converts, then its API version is refused', async () => {
    const r = await post('/api/v1/namespaces/default/events', '{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"x"}}');
    assert.equal(r.json().message, 'the API version in the data (events.k8s.io/v1) does not match the expected API version (v1)');
  });

  test('a body whose kind cannot be read is unrecognized', async () => {
    const r = await post('/api/v1/namespaces', '{"apiVersion":"v1","kind":"Namespace",');
    assert.equal(r.status, 400);
    assert.equal(r.json().message, 'the object provided is unrecognized (must be of type Namespace): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"apiVersion":"v1","kind":"Nam ...)');
  });
});

describe('discovery', () => {
  test('legacy resource lists carry storageVersionHash of the stored kind', async () => {
    const core = (await apiRequest(cluster, '/api/v1')).json();
    const byName = (list: any, name: string) => list.resources.find((r: any) => r.name === name);
    assert.equal(byName(core, 'pods').storageVersionHash, 'xPOwRZ+Yhw8=');
    assert.equal(byName(core, 'events').storageVersionHash, 'r2yiGXH7wu8=');
    assert.equal(byName(core, 'pods/status').storageVersionHash, undefined);
    const events = (await apiRequest(cluster, '/apis/events.k8s.io/v1')).json();
    assert.equal(byName(events, 'events').storageVersionHash, 'r2yiGXH7wu8=');
    const apps = (await apiRequest(cluster, '/apis/apps/v1')).json();
    assert.equal(byName(apps, 'deployments').storageVersionHash, '8aSe+NMegvE=');
  });
});

describe('Go zero values are served as upstream serializes them', () => {
  const tpl = { metadata: { labels: { app: 'z' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
  test('pod templates carry creationTimestamp null; workload status and Node spec/status their zero structs and counters', async () => {
    const create = async (path: string, obj: unknown) => {
      const r = await apiRequest(cluster, path, { method: 'POST', body: JSON.stringify(obj) });
      assert.equal(r.status, 201, r.body);
      return r.json();
    };
    const ds = await create('/apis/apps/v1/namespaces/default/daemonsets', { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'zero' }, spec: { selector: { matchLabels: { app: 'z' } }, template: tpl } });
    assert.equal(ds.spec.template.metadata.creationTimestamp, null);
    assert.deepEqual(ds.status, { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 });
    const ss = await create('/apis/apps/v1/namespaces/default/statefulsets', { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'zero' }, spec: { serviceName: 'z', selector: { matchLabels: { app: 'z' } }, template: tpl } });
    assert.deepEqual(ss.status, { replicas: 0, availableReplicas: 0 });
    const node = await create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'zero' } });
    assert.deepEqual(node.spec, {});
    assert.deepEqual(node.status.daemonEndpoints, { kubeletEndpoint: { Port: 0 } });
    assert.equal(node.status.nodeInfo.kubeletVersion, '');
    // kubectl shows them as upstream's does.
    const { stdout } = await cluster.kubectl(['get', 'daemonset', 'zero', '-o', 'yaml']);
    assert.match(stdout, /\n {4}metadata:\n {6}creationTimestamp: null\n/);
    const dep = (await cluster.kubectl(['create', 'deployment', 'zero', '--image=busybox', '-o', 'json'])).stdout;
    assert.deepEqual(JSON.parse(dep).status, {});
  });
});
