/**
 * Refusals in upstream's words, with nothing written: invalid objects (422),
 * unknown fields under strict validation, malformed JSON and YAML (400),
 * oversized bodies (413), unknown resources, anonymous requests (403 except
 * the health and version endpoints), stale updates (409 Conflict), duplicate
 * creates (409 AlreadyExists). Also /metrics.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { startCluster, Cluster } from './harness.js';
import { apiServerOnly, apiRequest, manifestDir } from './helpers.js';

let cluster: Cluster;
const files = manifestDir();

before(async () => { cluster = await startCluster(apiServerOnly); });
after(async () => { await cluster?.cleanup(); files.close(); });

const daemonSet = (name: string, extra: { templateLabels?: string; podSpec?: string; spec?: string } = {}) => `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: ${name}
spec:
${extra.spec ?? ''}  selector:
    matchLabels:
      app: ${name}
  template:
    metadata:
      labels:
        app: ${extra.templateLabels ?? name}
    spec:
${extra.podSpec ?? ''}      containers:
      - name: main
        image: busybox
`;

async function assertAbsent(resource: string, name: string, ns = 'default') {
  const res = await cluster.kubectl(['get', resource, name, '-n', ns, '-o', 'name'], { allowFail: true });
  assert.equal(res.code, 1, `${resource}/${name} should not exist, got ${res.stdout}`);
  assert.match(res.stderr, / not found\n$/);
}

describe('invalid objects', () => {
  test('a DaemonSet whose selector does not match its template labels', async () => {
    const path = files.write('ds-selector.yaml', daemonSet('ds-selector', { templateLabels: 'other' }));
    const res = await cluster.kubectl(['create', '-f', path], { allowFail: true });
    assert.equal(res.code, 1);
    assert.equal(res.stderr, 'The DaemonSet "ds-selector" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`\n');
    await assertAbsent('daemonset', 'ds-selector');
  });

  test('a DaemonSet with restartPolicy Never', async () => {
    const path = files.write('ds-never.yaml', daemonSet('ds-never', { podSpec: '      restartPolicy: Never\n' }));
    const res = await cluster.kubectl(['create', '-f', path], { allowFail: true });
    assert.equal(res.stderr, 'The DaemonSet "ds-never" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"\n');
    await assertAbsent('daemonset', 'ds-never');
  });

  test('both errors at once are listed, and apply refuses the same way', async () => {
    const path = files.write('ds-both.yaml', daemonSet('ds-both', { templateLabels: 'other', podSpec: '      restartPolicy: Never\n' }));
    const expected = [
      'The DaemonSet "ds-both" is invalid: ',
      '* spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`',
      '* spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"', '',
    ].join('\n');
    assert.equal((await cluster.kubectl(['create', '-f', path], { allowFail: true })).stderr, expected);
    assert.equal((await cluster.kubectl(['apply', '-f', path], { allowFail: true })).stderr, expected);
    await assertAbsent('daemonset', 'ds-both');
  });

  test('the 422 Status carries reason Invalid and field causes', async () => {
    const body = JSON.stringify({
      apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'raw-invalid' },
      spec: { selector: { matchLabels: { app: 'a' } }, template: { metadata: { labels: { app: 'b' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
    });
    const res = await apiRequest(cluster, '/apis/apps/v1/namespaces/default/daemonsets', { method: 'POST', body });
    assert.equal(res.status, 422);
    const status = res.json();
    assert.equal(status.kind, 'Status');
    assert.equal(status.reason, 'Invalid');
    assert.deepEqual(status.details, {
      name: 'raw-invalid', group: 'apps', kind: 'DaemonSet',
      causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: map[string]string{"app":"b"}: `selector` does not match template `labels`', field: 'spec.template.metadata.labels' }],
    });
    await assertAbsent('daemonset', 'raw-invalid');
  });

  test('an update that breaks validation leaves the object as it was', async () => {
    await cluster.kubectl(['create', '-f', files.write('ds-good.yaml', daemonSet('ds-good'))]);
    const before = JSON.parse((await cluster.kubectl(['get', 'ds', 'ds-good', '-o', 'json'])).stdout);
    const res = await cluster.kubectl(['patch', 'ds', 'ds-good', '--type=merge', '-p', '{"spec":{"template":{"spec":{"restartPolicy":"OnFailure"}}}}'], { allowFail: true });
    assert.equal(res.stderr, 'The DaemonSet "ds-good" is invalid: spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"\n');
    const after = JSON.parse((await cluster.kubectl(['get', 'ds', 'ds-good', '-o', 'json'])).stdout);
    assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion);
  });
});

describe('strict field validation', () => {
  test('an unknown field in kubectl create -f', async () => {
    const path = files.write('ds-foo.yaml', daemonSet('ds-foo', { spec: '  foo: bar\n' }));
    const res = await cluster.kubectl(['create', '-f', path], { allowFail: true });
    assert.equal(res.code, 1);
    assert.equal(res.stderr, `Error from server (BadRequest): error when creating "${path}": DaemonSet in version "v1" cannot be handled as a DaemonSet: strict decoding error: unknown field "spec.foo"\n`);
    await assertAbsent('daemonset', 'ds-foo');
  });

  test('unknown fields deep in a template, under kubectl apply', async () => {
    const path = files.write('ds-deep.yaml', daemonSet('ds-deep', { podSpec: '      nodeSelectorz: {a: b}\n' }).replace('image: busybox', 'image: busybox\n        imagez: x'));
    const res = await cluster.kubectl(['apply', '-f', path], { allowFail: true });
    assert.equal(res.stderr, `Error from server (BadRequest): error when creating "${path}": DaemonSet in version "v1" cannot be handled as a DaemonSet: strict decoding error: unknown field "spec.template.spec.containers[0].imagez", unknown field "spec.template.spec.nodeSelectorz"\n`);
    await assertAbsent('daemonset', 'ds-deep');
  });

  test('--validate=warn creates the object and prints the warning', async () => {
    const path = files.write('ds-warn.yaml', daemonSet('ds-warn', { spec: '  foo: bar\n' }));
    const res = await cluster.kubectl(['create', '--validate=warn', '-f', path]);
    assert.equal(res.stdout, 'daemonset.apps/ds-warn created\n');
    assert.equal(res.stderr, 'Warning: unknown field "spec.foo"\n');
  });
});

describe('malformed and oversized bodies', () => {
  test('malformed JSON through kubectl create --raw', async () => {
    const path = files.write('bad.json', '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "bad-json"');
    const res = await cluster.kubectl(['create', '--raw', '/api/v1/namespaces/default/configmaps', '-f', path], { allowFail: true });
    assert.equal(res.code, 1);
    // A create body whose kind cannot be read: upstream's transformDecodeError names the endpoint's kind and shows the body's start.
    const unrecognized = (error: string, body: string) => `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: ${error} (${body})`;
    assert.equal(res.stderr, `Error from server (BadRequest): ${unrecognized('unexpected end of JSON input', '{"apiVersion": "v1", "kind": " ...')}\n`);
    const raw = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: '{"kind": ConfigMap}' });
    assert.equal(raw.status, 400);
    assert.equal(raw.json().message, unrecognized('invalid character \'C\' looking for beginning of value', '{"kind": ConfigMap}'));
    const pair = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: '{"kind": "ConfigMap" "apiVersion": "v1"}' });
    assert.equal(pair.json().message, unrecognized('invalid character \'"\' after object key:value pair', '{"kind": "ConfigMap" "apiVersi ...'));
    await assertAbsent('configmap', 'bad-json');
  });

  test('malformed YAML over HTTPS with the admin certificate', async () => {
    const body = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [bad-yaml\n';
    const res = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps', { method: 'POST', body, contentType: 'application/yaml' });
    assert.equal(res.status, 400);
    const status = res.json();
    assert.equal(status.kind, 'Status');
    assert.equal(status.reason, 'BadRequest');
    assert.match(status.message, /^the object provided is unrecognized \(must be of type ConfigMap\): error converting YAML to JSON: yaml: /);
    // Well-formed YAML on the same path is accepted: the 400 was about the syntax.
    const ok = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: body.replace('[bad-yaml', 'good-yaml'), contentType: 'application/yaml' });
    assert.equal(ok.status, 201);
    assert.equal(ok.json().metadata.name, 'good-yaml');
  });

  test('a body over 3 MiB is refused with 413', async () => {
    const big = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { blob: 'x'.repeat(3 * 1024 * 1024) } });
    const path = files.write('big.json', big);
    const res = await cluster.kubectl(['create', '-f', path], { allowFail: true });
    assert.equal(res.code, 1);
    assert.equal(res.stderr, `Error from server (RequestEntityTooLarge): error when creating "${path}": Request entity too large: limit is 3145728\n`);
    const raw = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: big });
    assert.equal(raw.status, 413);
    assert.equal(raw.json().reason, 'RequestEntityTooLarge');
    await assertAbsent('configmap', 'big');
  });

  test('a ConfigMap just under the limit but over 1 MiB of data is Invalid, not 413', async () => {
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'large' }, data: { blob: 'x'.repeat(1024 * 1024 + 1) } });
    const res = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps', { method: 'POST', body });
    assert.equal(res.status, 422);
    assert.equal(res.json().message, 'ConfigMap "large" is invalid: []: Too long: may not be more than 1048576 bytes');
    await assertAbsent('configmap', 'large');
  });
});

describe('unknown resources and paths', () => {
  test('kubectl get foos', async () => {
    const res = await cluster.kubectl(['get', 'foos'], { allowFail: true });
    assert.equal(res.code, 1);
    assert.equal(res.stderr, 'error: the server doesn\'t have a resource type "foos"\n');
  });

  test('a raw GET of an unknown path is a 404 Status', async () => {
    const res = await cluster.kubectl(['get', '--raw', '/apis/apps/v1/namespaces/default/foos'], { allowFail: true });
    assert.equal(res.stderr, 'Error from server (NotFound): the server could not find the requested resource\n');
  });
});

describe('authentication', () => {
  test('anonymous requests are system:anonymous and get 403 in upstream words', async () => {
    const paths: Array<[string, string]> = [
      ['/api', 'forbidden: User "system:anonymous" cannot get path "/api"'],
      ['/apis', 'forbidden: User "system:anonymous" cannot get path "/apis"'],
      ['/metrics', 'forbidden: User "system:anonymous" cannot get path "/metrics"'],
      ['/openapi/v3', 'forbidden: User "system:anonymous" cannot get path "/openapi/v3"'],
    ];
    for (const [path, message] of paths) {
      const res = await apiRequest(cluster, path, { anonymous: true });
      assert.equal(res.status, 403, path);
      assert.deepEqual(res.json(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details: {}, code: 403 });
    }
    const pods = await apiRequest(cluster, '/api/v1/namespaces/default/pods', { anonymous: true });
    assert.equal(pods.status, 403);
    assert.deepEqual(pods.json(), {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', details: { kind: 'pods' }, code: 403,
      message: 'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the namespace "default"',
    });
  });

  test('an invalid bearer token is 401 even where anonymous requests are allowed', async () => {
    for (const path of ['/version', '/api/v1/namespaces/default/pods']) {
      const res = await apiRequest(cluster, path, { anonymous: true, headers: { Authorization: 'Bearer bogus' } });
      assert.equal(res.status, 401, path);
      assert.deepEqual(res.json(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
    }
  });

  test('/healthz, /readyz, /livez and /version answer anyone', async () => {
    for (const path of ['/healthz', '/readyz', '/livez']) {
      const res = await apiRequest(cluster, path, { anonymous: true });
      assert.equal(res.status, 200, path);
      assert.equal(res.body, 'ok');
    }
    const version = await apiRequest(cluster, '/version', { anonymous: true });
    assert.equal(version.status, 200);
    assert.match(version.json().gitVersion, /^v\d+\.\d+\.\d+/);
    assert.equal(version.json().gitVersion, JSON.parse((await cluster.kubectl(['version', '-o', 'json'])).stdout).serverVersion.gitVersion);
  });

  test('kubectl with a bogus token (and no client certificate) is told to log in', async () => {
    const cfg = parse(readFileSync(cluster.kubeconfig, 'utf8'));
    cfg.users[0].user = { token: 'bogus' };
    const path = files.write('bogus.conf', stringify(cfg));
    const res = await cluster.kubectl(['--kubeconfig', path, 'get', 'pods'], { allowFail: true });
    assert.equal(res.code, 1);
    assert.match(res.stderr, /error: You must be logged in to the server \(Unauthorized\)\n$/);
  });
});

describe('conflicts', () => {
  const configMap = (name: string, value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  v: "${value}"\n`;

  test('an update from a stale resourceVersion gets 409 Conflict', async () => {
    await cluster.kubectl(['create', '-f', files.write('stale.yaml', configMap('stale', '1'))]);
    const stale = (await cluster.kubectl(['get', 'configmap', 'stale', '-o', 'yaml'])).stdout;
    await cluster.kubectl(['label', 'configmap', 'stale', 'touched=yes']);
    const path = files.write('stale-old.yaml', stale.replace('v: "1"', 'v: "2"'));
    const res = await cluster.kubectl(['replace', '-f', path], { allowFail: true });
    assert.equal(res.code, 1);
    assert.equal(res.stderr, `Error from server (Conflict): error when replacing "${path}": Operation cannot be fulfilled on configmaps "stale": the object has been modified; please apply your changes to the latest version and try again\n`);
    assert.equal((await cluster.kubectl(['get', 'configmap', 'stale', '-o', 'jsonpath={.data.v}'])).stdout, '1');

    const current = JSON.parse((await cluster.kubectl(['get', 'configmap', 'stale', '-o', 'json'])).stdout);
    const staleRV = JSON.parse((await cluster.kubectl(['get', 'configmap', 'stale', '-o', 'json'])).stdout).metadata.resourceVersion;
    await cluster.kubectl(['annotate', 'configmap', 'stale', 'again=yes']);
    const put = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps/stale', {
      method: 'PUT', body: JSON.stringify({ ...current, metadata: { ...current.metadata, resourceVersion: staleRV }, data: { v: '3' } }),
    });
    assert.equal(put.status, 409);
    assert.equal(put.json().reason, 'Conflict');
    // StatusDetails.group is omitempty: the core group's is left out.
    assert.deepEqual(put.json().details, { name: 'stale', kind: 'configmaps' });
    assert.equal((await cluster.kubectl(['get', 'configmap', 'stale', '-o', 'jsonpath={.data.v}'])).stdout, '1');
  });

  test('creating an existing object gets AlreadyExists', async () => {
    const path = files.write('dup.yaml', configMap('dup', '1'));
    await cluster.kubectl(['create', '-f', path]);
    const again = files.write('dup2.yaml', configMap('dup', '2'));
    const res = await cluster.kubectl(['create', '-f', again], { allowFail: true });
    assert.equal(res.code, 1);
    assert.equal(res.stderr, `Error from server (AlreadyExists): error when creating "${again}": configmaps "dup" already exists\n`);
    assert.equal((await cluster.kubectl(['get', 'configmap', 'dup', '-o', 'jsonpath={.data.v}'])).stdout, '1');
  });
});

describe('/metrics', () => {
  test('apiserver_request_total counts requests by verb, resource and code', async () => {
    const text = (await cluster.kubectl(['get', '--raw', '/metrics'])).stdout;
    assert.match(text, /^# TYPE apiserver_request_total counter$/m);
    const samples = text.split('\n').filter((l) => l.startsWith('apiserver_request_total{'));
    const find = (labels: Record<string, string>) => samples.find((l) => Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
    // The creates, lists and 422s this file made above, in upstream's verb names.
    for (const labels of [
      { verb: 'POST', resource: 'configmaps', code: '201' },
      { verb: 'POST', resource: 'daemonsets', code: '422' },
      { verb: 'POST', resource: 'configmaps', code: '413' },
      { verb: 'PUT', resource: 'configmaps', code: '409' },
      { verb: 'GET', resource: 'configmaps', code: '200' },
      { verb: 'PATCH', resource: 'configmaps', code: '200' },
    ]) {
      const line = find(labels);
      assert.ok(line, `no apiserver_request_total sample with ${JSON.stringify(labels)} in:\n${samples.join('\n')}`);
      assert.match(line, / [1-9]\d*$/);
    }
    // `kubectl get pods` lists one namespace (scope="namespace"); the control loops' lists are cluster-wide.
    const before = Number(find({ verb: 'LIST', resource: 'pods', scope: 'namespace', code: '200' })?.split(' ').pop() ?? 0);
    await cluster.kubectl(['get', 'pods']);
    await cluster.kubectl(['get', 'pods']);
    const after = (await cluster.kubectl(['get', '--raw', '/metrics'])).stdout.split('\n')
      .find((l) => l.startsWith('apiserver_request_total{') && l.includes('verb="LIST"') && l.includes('resource="pods"') && l.includes('scope="namespace"') && l.includes('code="200"'));
    assert.equal(Number(after?.split(' ').pop()), before + 2);
  });
});
