/**
 * Decoding request bodies as upstream does (issue #12): bodies nested too
 * deeply are refused at decode time (400, nothing stored) while objects at
 * the limit stay writable; unknown fields are dropped, not stored, under
 * fieldValidation Warn and Ignore; bodies that are neither JSON nor YAML are
 * 415 UnsupportedMediaType. Each refusal sends the exact request of the
 * defect to a real server and then proves the server still serves.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { startCluster, Cluster } from './harness.js';
import { apiServerOnly, apiRequest, manifestDir } from './helpers.js';
import { maxNestingDepth } from '../../src/api/nesting.js';

let cluster: Cluster;
const files = manifestDir();

before(async () => { cluster = await startCluster(apiServerOnly); });
after(async () => { await cluster?.cleanup(); files.close(); });

const L = maxNestingDepth;
const revisions = '/apis/apps/v1/namespaces/default/controllerrevisions';
const configMaps = '/api/v1/namespaces/default/configmaps';
const deployments = '/apis/apps/v1/namespaces/default/deployments';
const depthError = 'couldn\'t get version/kind; json parse error: invalid character \'{\' exceeded max depth';

/** {"a":{"a":...{}}}, `depth` objects deep. */
function nest(depth: number): any {
  let v: any = {};
  for (let i = 1; i < depth; i++) v = { a: v };
  return v;
}

/** A ControllerRevision whose `data` (a RawExtension, any JSON) makes the whole object `depth` levels deep. */
function revision(name: string, depth: number): any {
  return { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name }, revision: 1, data: nest(depth - 1) };
}

/** JSON text of `revision(name, depth)`, written without JSON.stringify so any depth is possible. */
function revisionText(name: string, depth: number): string {
  const data = '{"a":'.repeat(depth - 2) + '{}' + '}'.repeat(depth - 2);
  return `{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"${name}"},"revision":1,"data":${data}}`;
}

/** YAML of the same object, the nesting in flow style. */
function revisionYAML(name: string, depth: number): string {
  const data = '{a: '.repeat(depth - 2) + '{}' + '}'.repeat(depth - 2);
  return `apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n  name: ${name}\nrevision: 1\ndata: ${data}\n`;
}

async function assertGone(path: string) {
  const res = await apiRequest(cluster, path);
  assert.equal(res.status, 404, `${path} should not exist: ${res.body.slice(0, 200)}`);
}

/** The server answers (and can still write) after the refusal. */
async function assertServing() {
  assert.equal((await apiRequest(cluster, '/version')).status, 200);
  const name = `alive-${Math.random().toString(36).slice(2, 8)}`;
  const res = await apiRequest(cluster, configMaps, { method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }) });
  assert.equal(res.status, 201);
}

describe('deeply nested bodies', () => {
  for (const depth of [3000, 100_000]) {
    test(`a create ${depth} levels deep is 400 as JSON and as YAML, nothing stored`, async () => {
      const json = await apiRequest(cluster, revisions, { method: 'POST', body: revisionText(`deep-json-${depth}`, depth) });
      assert.equal(json.status, 400);
      // A create's body that cannot be read names the endpoint's kind and shows its start (upstream's transformDecodeError).
      const unrecognized = (error: string, body: string) => `the object provided is unrecognized (must be of type ControllerRevision): ${error} (${body.slice(0, 30)} ...)`;
      assert.deepEqual(json.json(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: unrecognized(depthError, revisionText(`deep-json-${depth}`, depth)), reason: 'BadRequest', code: 400 });
      await assertGone(`${revisions}/deep-json-${depth}`);

      const yaml = await apiRequest(cluster, revisions, { method: 'POST', body: revisionYAML(`deep-yaml-${depth}`, depth), contentType: 'application/yaml' });
      assert.equal(yaml.status, 400);
      assert.equal(yaml.json().reason, 'BadRequest');
      const yamlText = revisionYAML(`deep-yaml-${depth}`, depth);
      assert.equal(yaml.json().message, `the object provided is unrecognized (must be of type ControllerRevision): error converting YAML to JSON: yaml: line 6: exceeded max depth of ${L} (${Buffer.from(yamlText.slice(0, 30)).toString('hex')} ...)`);
      await assertGone(`${revisions}/deep-yaml-${depth}`);
      await assertServing();
    });
  }

  test('a deep patch of every type is 400 and leaves the object as it was', async () => {
    const created = await apiRequest(cluster, revisions, { method: 'POST', body: JSON.stringify(revision('patch-target', 3)) });
    assert.equal(created.status, 201);
    const deepData = '{"data":' + '{"a":'.repeat(2999) + '{}' + '}'.repeat(2999) + '}';
    const patches: [string, string][] = [
      ['application/merge-patch+json', deepData],
      ['application/strategic-merge-patch+json', deepData],
      ['application/json-patch+json', `[{"op":"add","path":"/data/b","value":${'['.repeat(3000)}${']'.repeat(3000)}}]`],
    ];
    for (const [contentType, body] of patches) {
      const res = await apiRequest(cluster, `${revisions}/patch-target`, { method: 'PATCH', body, contentType });
      assert.equal(res.status, 400, contentType);
      assert.equal(res.json().message, depthError.replace('\'{\'', `'${contentType.startsWith('application/json-patch') ? '[' : '{'}'`));
    }
    const after = (await apiRequest(cluster, `${revisions}/patch-target`)).json();
    assert.deepEqual(after.data, { a: {} });
    assert.equal(after.metadata.resourceVersion, created.json().metadata.resourceVersion);
    await assertServing();
  });

  test('a DeleteOptions body nested too deeply is 400 and deletes nothing', async () => {
    await apiRequest(cluster, configMaps, { method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep-me' } }) });
    const body = '{"kind":"DeleteOptions","apiVersion":"v1","preconditions":' + '{"a":'.repeat(3000) + '1' + '}'.repeat(3000) + '}';
    const res = await apiRequest(cluster, `${configMaps}/keep-me`, { method: 'DELETE', body });
    assert.equal(res.status, 400);
    assert.equal(res.json().message, depthError);
    assert.equal((await apiRequest(cluster, `${configMaps}/keep-me`)).status, 200);
  });

  test(`a ControllerRevision ${L} levels deep is created, read and deleted`, async () => {
    const path = `${revisions}/at-limit`;
    const created = await apiRequest(cluster, revisions, { method: 'POST', body: revisionText('at-limit', L) });
    assert.equal(created.status, 201, created.body.slice(0, 300));
    assert.deepEqual((await apiRequest(cluster, path)).json().data, nest(L - 1));
    assert.equal((await apiRequest(cluster, path, { method: 'DELETE' })).status, 200);
    await assertGone(path);
  });

  // managedFields[].fieldsV1 is the other any-typed field, and unlike ControllerRevision.data it may change.
  // The server keeps a client's managedFields only when they decode as FieldsV1 sets (`f:` keys, `{}` leaves).
  test(`an object ${L} levels deep is updated, patched three ways and deleted`, async () => {
    /** `leaf` under L-6 objects: metadata.managedFields[0].fieldsV1 is at level 5, so the leaf is at level L-1 and its `{}`s at L. */
    const n = L - 6;
    const fields = (leaf: object) => {
      let v: any = leaf;
      for (let i = 0; i < n; i++) v = { 'f:a': v };
      return { metadata: { managedFields: [{ manager: 'e2e', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: v }] } };
    };
    const leafOf = (obj: any) => {
      let v = obj.metadata.managedFields.find((e: any) => e.manager === 'e2e').fieldsV1;
      for (let i = 0; i < n; i++) v = v['f:a'];
      return v;
    };
    const path = `${configMaps}/deep-fields`;
    const body = { apiVersion: 'v1', kind: 'ConfigMap', ...fields({}), data: { k: 'v' } };
    (body.metadata as any).name = 'deep-fields';
    const created = await apiRequest(cluster, configMaps, { method: 'POST', body: JSON.stringify(body) });
    assert.equal(created.status, 201, created.body.slice(0, 300));
    assert.deepEqual(leafOf((await apiRequest(cluster, path)).json()), {});

    const cur = (await apiRequest(cluster, path)).json();
    cur.data.k = 'updated';
    const updated = await apiRequest(cluster, path, { method: 'PUT', body: JSON.stringify(cur) });
    assert.equal(updated.status, 200, updated.body.slice(0, 300));

    const jsonPatch = [
      { op: 'add', path: '/metadata/managedFields/0/fieldsV1' + '/f:a'.repeat(n) + '/f:json', value: {} },
      { op: 'test', path: '/metadata/managedFields/0/fieldsV1' + '/f:a'.repeat(n - 1), value: { 'f:a': { 'f:strategic': {}, 'f:json': {} } } },
    ];
    const patches: [string, unknown][] = [
      ['application/merge-patch+json', fields({ 'f:merge': {} })],
      ['application/strategic-merge-patch+json', fields({ 'f:strategic': {} })],
      ['application/json-patch+json', jsonPatch],
    ];
    for (const [contentType, patch] of patches) {
      const res = await apiRequest(cluster, path, { method: 'PATCH', body: JSON.stringify(patch), contentType });
      assert.equal(res.status, 200, `${contentType}: ${res.body.slice(0, 200)} ... ${res.body.slice(-300)}`);
    }
    const patched = (await apiRequest(cluster, path)).json();
    assert.equal(patched.data.k, 'updated');
    assert.deepEqual(leafOf(patched), { 'f:strategic': {}, 'f:json': {} });

    // One level more is refused: in a patch body at decode time (400), and in a patched object (422 on
    // the field patch, as upstream answers when decoding the patched JSON fails).
    const deepBody = await apiRequest(cluster, path, { method: 'PATCH', body: JSON.stringify(fields({ 'f:x': { 'f:y': {} } })), contentType: 'application/merge-patch+json' });
    assert.equal(deepBody.status, 400);
    assert.equal(deepBody.json().message, depthError);
    const tooDeep = [{ op: 'add', path: '/metadata/managedFields/0/fieldsV1' + '/f:a'.repeat(n) + '/f:json/x', value: {} }];
    const deeper = await apiRequest(cluster, path, { method: 'PATCH', body: JSON.stringify(tooDeep), contentType: 'application/json-patch+json' });
    assert.equal(deeper.status, 422);
    assert.equal(deeper.json().reason, 'Invalid');
    assert.match(deeper.json().message, /^ "" is invalid: patch: Invalid value: ".*": couldn't get version\/kind; json parse error: invalid character '\{' exceeded max depth$/s);
    assert.deepEqual(leafOf((await apiRequest(cluster, path)).json()), { 'f:strategic': {}, 'f:json': {} });

    assert.equal((await apiRequest(cluster, path, { method: 'DELETE' })).status, 200);
    await assertGone(path);
  });

  test(`a YAML object ${L} levels deep is created`, async () => {
    const res = await apiRequest(cluster, revisions, { method: 'POST', body: revisionYAML('yaml-at-limit', L), contentType: 'application/yaml' });
    assert.equal(res.status, 201, res.body.slice(0, 300));
    assert.deepEqual((await apiRequest(cluster, `${revisions}/yaml-at-limit`)).json().data, nest(L - 1));
  });
});

const deployment = (name: string) => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, topLevelFoo: 'x',
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox', foo: 'bar' }] } },
  },
});

describe('unknown fields are not stored', () => {
  for (const [mode, query] of [['Warn (the default)', ''], ['Ignore', '?fieldValidation=Ignore']]) {
    test(`a create under ${mode} is 201 and the unknown fields are gone`, async () => {
      const name = `unknown-${query ? 'ignore' : 'warn'}`;
      const res = await apiRequest(cluster, `${deployments}${query}`, { method: 'POST', body: JSON.stringify(deployment(name)) });
      assert.equal(res.status, 201);
      if (query) assert.equal(res.headers.warning, undefined);
      else assert.equal(res.headers.warning, '299 - "unknown field \\"topLevelFoo\\"", 299 - "unknown field \\"spec.template.spec.containers[0].foo\\""');
      for (const obj of [res.json(), (await apiRequest(cluster, `${deployments}/${name}`)).json()]) {
        assert.equal('topLevelFoo' in obj, false);
        assert.equal('foo' in obj.spec.template.spec.containers[0], false);
        assert.equal(obj.spec.template.spec.containers[0].image, 'busybox');
      }
    });
  }

  test('Strict is 400 and stores nothing', async () => {
    const res = await apiRequest(cluster, `${deployments}?fieldValidation=Strict`, { method: 'POST', body: JSON.stringify(deployment('unknown-strict')) });
    assert.equal(res.status, 400);
    assert.equal(res.json().message, 'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "topLevelFoo", unknown field "spec.template.spec.containers[0].foo"');
    await assertGone(`${deployments}/unknown-strict`);
  });

  test('kubectl create --validate=warn prints the warning and the field is not served back', async () => {
    const path = files.write('unknown.yaml', stringify(deployment('unknown-kubectl')));
    const res = await cluster.kubectl(['create', '--validate=warn', '-f', path]);
    assert.equal(res.stdout, 'deployment.apps/unknown-kubectl created\n');
    assert.equal(res.stderr, 'Warning: unknown field "spec.template.spec.containers[0].foo"\nWarning: unknown field "topLevelFoo"\n');
    const got = JSON.parse((await cluster.kubectl(['get', 'deployment', 'unknown-kubectl', '-o', 'json'])).stdout);
    assert.equal(got.topLevelFoo, undefined);
    assert.equal(got.spec.template.spec.containers[0].foo, undefined);
  });

  test('a merge patch adding unknown fields is applied without them', async () => {
    const cm = await apiRequest(cluster, configMaps, { method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'patch-unknown' } }) });
    assert.equal(cm.status, 201);
    const patch = { data: { k: 'v' }, extra: { nested: 1 }, metadata: { labels: { l: 'x' }, metaExtra: true } };
    const res = await apiRequest(cluster, `${configMaps}/patch-unknown`, { method: 'PATCH', body: JSON.stringify(patch), contentType: 'application/merge-patch+json' });
    assert.equal(res.status, 200);
    const got = (await apiRequest(cluster, `${configMaps}/patch-unknown`)).json();
    assert.deepEqual(got.data, { k: 'v' });
    assert.deepEqual(got.metadata.labels, { l: 'x' });
    assert.equal('extra' in got, false);
    assert.equal('metaExtra' in got.metadata, false);
  });
});

describe('body media types', () => {
  const cm = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });
  const refusal = {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'UnsupportedMediaType', code: 415,
    message: 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
  };

  for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
    test(`a ConfigMap posted as ${contentType} is 415 and not stored`, async () => {
      const name = `ct-${contentType.replace(/[^a-z]+/g, '-').slice(0, 30)}`.replace(/-$/, '');
      const res = await apiRequest(cluster, configMaps, { method: 'POST', body: cm(name), contentType });
      assert.equal(res.status, 415);
      assert.deepEqual(res.json(), refusal);
      await assertGone(`${configMaps}/${name}`);
      await assertServing();
    });
  }

  test('JSON with a charset, YAML, and no Content-Type at all (taken as JSON) are accepted', async () => {
    const withCharset = await apiRequest(cluster, configMaps, { method: 'POST', body: cm('ct-charset'), contentType: 'application/json; charset=utf-8' });
    assert.equal(withCharset.status, 201);
    const yaml = await apiRequest(cluster, configMaps, { method: 'POST', body: stringify(JSON.parse(cm('ct-yaml'))), contentType: 'application/yaml' });
    assert.equal(yaml.status, 201);
    const none = await apiRequest(cluster, configMaps, { method: 'POST', body: cm('ct-none'), contentType: null });
    assert.equal(none.status, 201);
  });

  test('update, DeleteOptions, eviction and binding bodies as text/plain are 415 and change nothing', async () => {
    await apiRequest(cluster, configMaps, { method: 'POST', body: cm('ct-target') });
    const put = await apiRequest(cluster, `${configMaps}/ct-target`, { method: 'PUT', body: cm('ct-target').replace('"v"', '"changed"'), contentType: 'text/plain' });
    assert.deepEqual(put.json(), refusal);
    const del = await apiRequest(cluster, `${configMaps}/ct-target`, { method: 'DELETE', body: '{"propagationPolicy":"Background"}', contentType: 'text/plain' });
    assert.deepEqual(del.json(), refusal);
    assert.deepEqual((await apiRequest(cluster, `${configMaps}/ct-target`)).json().data, { k: 'v' });

    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'ct-pod' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
    assert.equal((await apiRequest(cluster, '/api/v1/namespaces/default/pods', { method: 'POST', body: JSON.stringify(pod) })).status, 201);
    const eviction = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'ct-pod' } };
    const evict = await apiRequest(cluster, '/api/v1/namespaces/default/pods/ct-pod/eviction', { method: 'POST', body: JSON.stringify(eviction), contentType: 'application/x-www-form-urlencoded' });
    assert.deepEqual(evict.json(), refusal);
    const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'ct-pod' }, target: { kind: 'Node', name: 'n1' } };
    const bind = await apiRequest(cluster, '/api/v1/namespaces/default/pods/ct-pod/binding', { method: 'POST', body: JSON.stringify(binding), contentType: 'text/plain' });
    assert.deepEqual(bind.json(), refusal);
    const bindPods = await apiRequest(cluster, '/api/v1/namespaces/default/bindings', { method: 'POST', body: JSON.stringify(binding), contentType: 'text/plain' });
    assert.deepEqual(bindPods.json(), refusal);
    const stored = (await apiRequest(cluster, '/api/v1/namespaces/default/pods/ct-pod')).json();
    assert.equal(stored.spec.nodeName, undefined);
    assert.equal(stored.metadata.deletionTimestamp, undefined);
  });

  test('a PATCH with a body type that is not a patch type is 415 listing the patch types', async () => {
    const res = await apiRequest(cluster, `${configMaps}/ct-target`, { method: 'PATCH', body: '{"data":{"k":"x"}}', contentType: 'application/json' });
    assert.equal(res.status, 415);
    assert.equal(res.json().message, 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml');
  });

  test('kubectl create -f and apply -f still work', async () => {
    const path = files.write('ct-kubectl.yaml', stringify(JSON.parse(cm('ct-kubectl'))));
    assert.equal((await cluster.kubectl(['create', '-f', path])).stdout, 'configmap/ct-kubectl created\n');
    const changed = files.write('ct-kubectl.yaml', stringify({ ...JSON.parse(cm('ct-kubectl')), data: { k: 'applied' } }));
    assert.equal((await cluster.kubectl(['apply', '-f', changed])).stdout, 'configmap/ct-kubectl configured\n');
    assert.equal((await apiRequest(cluster, `${configMaps}/ct-kubectl`)).json().data.k, 'applied');
  });
});
