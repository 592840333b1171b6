/**
 * CustomResourceDefinitions end to end with the real kubectl 1.32: a CRD is
 * established and served (discovery, short names, explain through
 * /openapi/v3), its objects defaulted, validated (schema and CEL, with
 * upstream's messages), printed with the printer columns, scaled, patched,
 * read through the second version, selected by labels and fields; deleting
 * the CRD removes its objects and stops serving them.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually } from './harness.js';
import type { Cluster } from './harness.js';
import https from 'node:https';
import { rmSync } from 'node:fs';
import { adminCredentials, apiRequest, cells, kubectlExpect, manifestDir } from './helpers.js';
import { cronTab, cronTabCRD, crdName } from './crd-fixture.js';

describe('CustomResourceDefinitions with kubectl', () => {
  let c: Cluster;
  const files = manifestDir();
  const { ok, fails } = kubectlExpect(() => c);

  before(async () => {
    c = await startCluster();
    await ok(['apply', '-f', files.write('crd.yaml', cronTabCRD)]);
    await ok(['wait', '--for=condition=Established', `crd/${crdName}`, '--timeout=60s']);
  });
  after(async () => {
    files.close();
    await c?.cleanup();
    if (c) rmSync(c.dataDir, { recursive: true, force: true });
  });

  it('the CRD is accepted and established, printed NAME CREATED AT', async () => {
    const crd = JSON.parse(await ok(['get', 'crd', crdName, '-o', 'json']));
    const conds = Object.fromEntries(crd.status.conditions.map((x: any) => [x.type, `${x.status}/${x.reason}`]));
    assert.deepEqual(conds, { NamesAccepted: 'True/NoConflicts', Established: 'True/InitialNamesAccepted' });
    assert.deepEqual(crd.status.storedVersions, ['v1']);
    assert.equal(crd.status.acceptedNames.kind, 'CronTab');
    const lines = (await ok(['get', 'crds'])).trim().split('\n');
    assert.deepEqual(cells(lines[0]), ['NAME', 'CREATED AT']);
    assert.equal(cells(lines[1])[0], crdName);
  });

  it('creates, defaults and prints custom resources by short name', async () => {
    await ok(['apply', '-f', '-'], cronTab('daily'));
    const obj = JSON.parse(await ok(['get', 'ct', 'daily', '-o', 'json']));
    assert.equal(obj.apiVersion, 'stable.example.com/v1');
    assert.deepEqual(obj.spec, { cronSpec: '* * * * */5', replicas: 2, image: 'nginx', minReplicas: 0 });
    const lines = (await ok(['get', 'crontabs'])).trim().split('\n');
    assert.deepEqual(cells(lines[0]), ['NAME', 'SPEC', 'REPLICAS', 'AGE']);
    assert.deepEqual(cells(lines[1]).slice(0, 3), ['daily', '* * * * */5', '2']);
    assert.match(await ok(['api-resources', '--api-group=stable.example.com']), /crontabs\s+ct\s+stable\.example\.com\/v1\s+true\s+CronTab/);
    assert.match(await ok(['get', 'all']), /crontab\.stable\.example\.com\/daily/);
  });

  it('serves the second version with its apiVersion (conversion None)', async () => {
    const obj = JSON.parse(await ok(['get', 'crontabs.v1beta1.stable.example.com', 'daily', '-o', 'json']));
    assert.equal(obj.apiVersion, 'stable.example.com/v1beta1');
    assert.equal(obj.spec.replicas, 2);
  });

  it('kubectl explain reads the schema from /openapi/v3', async () => {
    const out = await ok(['explain', 'crontab.spec']);
    assert.match(out, /KIND:\s+CronTab/);
    assert.match(out, /cronSpec\s+<string>\s+When to run, in cron syntax\./);
    assert.match(await ok(['explain', 'ct']), /CronTab runs an image on a schedule\./);
  });

  it('refuses invalid objects with upstream messages', async () => {
    assert.equal(await fails(['apply', '-f', '-'], cronTab('big', '  minReplicas: 5\n')),
      'The CronTab "big" is invalid: spec: Invalid value: "object": replicas should be greater than or equal to minReplicas.');
    const bad = (await fails(['apply', '-f', '-'], cronTab('bad').replace('replicas: 2', 'replicas: 20').replace('* * * * */5', 'often')));
    assert.match(bad, /The CronTab "bad" is invalid: \n\* spec\.cronSpec: Invalid value: "often": spec\.cronSpec in body should match/);
    assert.match(bad, /\* spec\.replicas: Invalid value: 20: spec\.replicas in body should be less than or equal to 10/);
    assert.match(await fails(['apply', '--validate=strict', '-f', '-'], cronTab('extra', '  color: blue\n')),
      /Error from server \(BadRequest\): error when creating "STDIN": CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: unknown field "spec.color"/);
  });

  it('a transition rule compares with the old object', async () => {
    await ok(['apply', '-f', '-'], cronTab('frozen', '  image: frozen-1\n'));
    assert.equal(await fails(['patch', 'ct', 'frozen', '--type=merge', '-p', '{"spec":{"image":"frozen-2"}}']),
      'The CronTab "frozen" is invalid: spec: Invalid value: "object": a frozen image cannot change');
    await ok(['patch', 'ct', 'frozen', '--type=merge', '-p', '{"spec":{"replicas":3}}']);
  });

  it('patches with json and merge patches, refuses strategic merge patch', async () => {
    await ok(['patch', 'ct', 'daily', '--type=merge', '-p', '{"spec":{"cronSpec":"0 * * * *"}}']);
    await ok(['patch', 'ct', 'daily', '--type=json', '-p', '[{"op":"replace","path":"/spec/image","value":"busybox"}]']);
    const obj = JSON.parse(await ok(['get', 'ct', 'daily', '-o', 'json']));
    assert.equal(obj.spec.cronSpec, '0 * * * *');
    assert.equal(obj.spec.image, 'busybox');
    assert.match(await fails(['patch', 'ct', 'daily', '-p', '{"spec":{"replicas":1}}']),
      /the body of the request was in an unknown format - accepted media types include: application\/json-patch\+json, application\/merge-patch\+json/);
  });

  it('scales through the scale subresource; status ignores spec and spec ignores status', async () => {
    await ok(['scale', 'ct', 'daily', '--replicas=4']);
    assert.equal(JSON.parse(await ok(['get', 'ct', 'daily', '-o', 'json'])).spec.replicas, 4);
    await ok(['patch', 'ct', 'daily', '--subresource=status', '--type=merge', '-p', '{"status":{"replicas":4},"spec":{"replicas":9}}']);
    await ok(['patch', 'ct', 'daily', '--type=merge', '-p', '{"status":{"replicas":7}}']);
    const obj = JSON.parse(await ok(['get', 'ct', 'daily', '-o', 'json']));
    assert.equal(obj.spec.replicas, 4);
    assert.equal(obj.status.replicas, 4);
    const scale = (await apiRequest(c, '/apis/stable.example.com/v1/namespaces/default/crontabs/daily/scale')).json();
    assert.deepEqual([scale.kind, scale.spec.replicas, scale.status.replicas], ['Scale', 4, 4]);
  });

  it('selects by labels, metadata.name and selectable fields', async () => {
    assert.deepEqual((await ok(['get', 'ct', '-l', 'app=cron', '-o', 'name'])).trim().split('\n').sort(),
      ['crontab.stable.example.com/daily', 'crontab.stable.example.com/frozen']);
    assert.equal((await ok(['get', 'ct', '--field-selector', 'metadata.name=frozen', '-o', 'name'])).trim(), 'crontab.stable.example.com/frozen');
    assert.equal((await ok(['get', 'ct', '--field-selector', 'spec.image=busybox', '-o', 'name'])).trim(), 'crontab.stable.example.com/daily');
    assert.match(await fails(['get', 'ct', '--field-selector', 'spec.cronSpec=x']), /field label not supported: spec\.cronSpec/);
  });

  it('answers JSON to a client that prefers protobuf', async () => {
    for (const path of ['/apis/stable.example.com/v1/namespaces/default/crontabs/daily', '/apis/stable.example.com/v1/namespaces/default/crontabs']) {
      const res = await getWithAccept(c, path, 'application/vnd.kubernetes.protobuf, application/json');
      assert.equal(res.status, 200);
      assert.match(String(res.type), /^application\/json/);
      assert.match(JSON.parse(res.body).kind, /^CronTab(List)?$/);
    }
  });

  it('a restarted server serves the CRD and its objects again', async () => {
    await c.stop();
    c = await startCluster({ dataDir: c.dataDir });
    assert.equal(JSON.parse(await ok(['get', 'ct', 'daily', '-o', 'json'])).spec.replicas, 4);
    assert.match(await ok(['explain', 'ct.spec.replicas']), /FIELD: replicas <integer>/);
  });

  it('refuses an invalid CRD with upstream messages', async () => {
    const bad = cronTabCRD.replace('name: crontabs.stable.example.com', 'name: crontabs.example.com')
      .replace('group: stable.example.com', 'group: example').replace('scope: Namespaced', 'scope: Spaced').replace('storage: false', 'storage: true');
    const err = await fails(['apply', '-f', '-'], bad);
    assert.match(err, /The CustomResourceDefinition "crontabs\.example\.com" is invalid: /);
    assert.match(err, /\* metadata\.name: Invalid value: "crontabs\.example\.com": must be spec\.names\.plural\+"\."\+spec\.group/);
    assert.match(err, /\* spec\.group: Invalid value: "example": should be a domain with at least one dot/);
    assert.match(err, /\* spec\.scope: Unsupported value: "Spaced": supported values: "Cluster", "Namespaced"/);
    assert.match(err, /must have exactly one version marked as storage version/);
  });

  it('deleting the CRD deletes its objects (finalizers first) and stops serving them', async () => {
    await ok(['apply', '-f', '-'], cronTab('held').replace('  labels:', '  finalizers: [example.com/hold]\n  labels:'));
    await ok(['delete', 'crd', crdName, '--wait=false']);
    const crd = await eventually(async () => {
      const r = JSON.parse(await ok(['get', 'crd', crdName, '-o', 'json']));
      return r.status.conditions.some((x: any) => x.type === 'Terminating' && x.status === 'True') && r;
    }, 30_000, 'the CRD terminating');
    assert.deepEqual(crd.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
    await eventually(async () => (await c.kubectl(['get', 'ct', '-o', 'name'])).stdout.trim() === 'crontab.stable.example.com/held', 30_000, 'only the held CronTab left');
    assert.match(await fails(['create', '-f', '-'], cronTab('late')),
      /Error from server \(MethodNotAllowed\): error when creating "STDIN": create not allowed while custom resource definition is terminating/);
    await ok(['patch', 'ct', 'held', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    await eventually(async () => (await apiRequest(c, '/apis/stable.example.com/v1/namespaces/default/crontabs')).status === 404, 30_000, 'crontabs no longer served');
    assert.match(await ok(['get', 'crd']), /^$|No resources found/);
    // Created again, the CRD starts empty: the old objects were deleted, not hidden.
    await ok(['apply', '-f', files.write('crd2.yaml', cronTabCRD)]);
    await ok(['wait', '--for=condition=Established', `crd/${crdName}`, '--timeout=60s']);
    const list = await eventually(async () => {
      const r = await apiRequest(c, '/apis/stable.example.com/v1/crontabs');
      return r.status === 200 ? r.json() : undefined;
    }, 30_000, 'crontabs served again');
    assert.deepEqual(list.items, []);
  });
});

function getWithAccept(c: Cluster, path: string, accept: string): Promise<{ status: number; type: unknown; body: string }> {
  return new Promise((resolve, reject) => {
    https.get(new URL(path, c.url), { headers: { Accept: accept }, ...adminCredentials(c.kubeconfig), agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body: Buffer.concat(chunks).toString() }));
    }).on('error', reject);
  });
}
