/**
 * Server-side apply and managed fields with the real kubectl 1.32:
 * `apply --server-side` create / change / conflict / --force-conflicts /
 * pruning, managedFields after create, edit, patch, scale, label and status
 * writes, the client-side to server-side apply migration kubectl performs,
 * `kubectl diff --server-side`, the seed manifests applied both ways, and
 * the options' validation over raw HTTP.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { startCluster, seedsDir, Cluster } from './harness.js';
import { apiRequest, manifestDir } from './helpers.js';
import { seedManifests } from './seed-manifests.js';

let cluster: Cluster;
const files = manifestDir();

before(async () => { cluster = await startCluster(); });
after(async () => { await cluster?.cleanup(); files.close(); });

const deployments = '/apis/apps/v1/namespaces/default/deployments';

function deployment(name: string, opts: { replicas?: number; image?: string; labels?: Record<string, string> } = {}) {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: { name, labels: opts.labels ?? { app: name } },
    spec: {
      replicas: opts.replicas ?? 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'nginx', image: opts.image ?? 'nginx:1.25', ports: [{ containerPort: 80 }] }] } },
    },
  };
}

const write = (name: string, obj: object) => files.write(name, stringify(obj));

async function getJSON(kind: string, name: string, ns = 'default'): Promise<any> {
  return JSON.parse((await cluster.kubectl(['get', kind, name, '-n', ns, '-o', 'json', '--show-managed-fields'])).stdout);
}

const entries = (obj: any) => (obj.metadata.managedFields ?? []).map((e: any) => [e.manager, e.operation, e.subresource ?? '']);
const entry = (obj: any, manager: string, subresource?: string) =>
  obj.metadata.managedFields.find((e: any) => e.manager === manager && (e.subresource ?? undefined) === subresource);

describe('kubectl apply --server-side', () => {
  test('creates the object with one Apply entry owning exactly the applied fields', async () => {
    const out = await cluster.kubectl(['apply', '--server-side', '-f', write('web.yaml', deployment('web'))]);
    assert.equal(out.stdout, 'deployment.apps/web serverside-applied\n');
    const got = await getJSON('deployment', 'web');
    assert.deepEqual(entries(got), [['kubectl', 'Apply', '']]);
    const e = got.metadata.managedFields[0];
    assert.equal(e.apiVersion, 'apps/v1');
    assert.equal(e.fieldsType, 'FieldsV1');
    assert.match(e.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(e.fieldsV1, {
      'f:metadata': { 'f:labels': { 'f:app': {} } },
      'f:spec': {
        'f:replicas': {}, 'f:selector': {},
        'f:template': {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {}, 'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } } } } },
        },
      },
    });
    // Defaults are the server's, not the applier's.
    assert.equal(got.spec.strategy.type, 'RollingUpdate');
  });

  test('re-applying a changed manifest changes the object', async () => {
    const out = await cluster.kubectl(['apply', '--server-side', '-f', write('web.yaml', deployment('web', { image: 'nginx:1.26' }))]);
    assert.equal(out.stdout, 'deployment.apps/web serverside-applied\n');
    const got = await getJSON('deployment', 'web');
    assert.equal(got.spec.template.spec.containers[0].image, 'nginx:1.26');
    assert.deepEqual(entries(got), [['kubectl', 'Apply', '']]);
  });

  test('after kubectl scale, applying the old replicas is a conflict kubectl reports', async () => {
    await cluster.kubectl(['scale', 'deployment', 'web', '--replicas=3']);
    const scaled = await getJSON('deployment', 'web');
    assert.deepEqual(entry(scaled, 'kubectl', 'scale').fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    assert.equal(entry(scaled, 'kubectl').fieldsV1['f:spec']['f:replicas'], undefined, 'scale took .spec.replicas from the applier');
    const res = await cluster.kubectl(['apply', '--server-side', '-f', write('web.yaml', deployment('web', { image: 'nginx:1.26' }))], { allowFail: true });
    assert.equal(res.code, 1);
    assert.match(res.stderr, /^error: Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps\/v1: \.spec\.replicas\n/);
    assert.match(res.stderr, /--force-conflicts/);
    assert.equal((await getJSON('deployment', 'web')).spec.replicas, 3);
  });

  test('the 409 carries upstream\'s causes', async () => {
    const body = JSON.stringify(deployment('web', { replicas: 5, image: 'nginx:1.27' }));
    const res = await apiRequest(cluster, `${deployments}/web?fieldManager=other`, { method: 'PATCH', body, contentType: 'application/apply-patch+yaml' });
    assert.equal(res.status, 409);
    const status = res.json();
    assert.equal(status.reason, 'Conflict');
    assert.equal(status.message, 'Apply failed with 2 conflicts: conflicts with "kubectl":\n- .spec.template.spec.containers[name="nginx"].image\nconflicts with "kubectl" with subresource "scale" using apps/v1:\n- .spec.replicas');
    assert.deepEqual(status.details.causes, [
      { reason: 'FieldManagerConflict', message: 'conflict with "kubectl"', field: '.spec.template.spec.containers[name="nginx"].image' },
      { reason: 'FieldManagerConflict', message: 'conflict with "kubectl" with subresource "scale" using apps/v1', field: '.spec.replicas' },
    ]);
  });

  test('--force-conflicts takes the field back', async () => {
    const out = await cluster.kubectl(['apply', '--server-side', '--force-conflicts', '-f', write('web.yaml', deployment('web', { image: 'nginx:1.26' }))]);
    assert.equal(out.stdout, 'deployment.apps/web serverside-applied\n');
    const got = await getJSON('deployment', 'web');
    assert.equal(got.spec.replicas, 1);
    assert.deepEqual(entries(got), [['kubectl', 'Apply', '']]);
    assert.deepEqual(entry(got, 'kubectl').fieldsV1['f:spec']['f:replicas'], {});
  });

  test('a field dropped from the manifest is removed unless another manager owns it', async () => {
    await cluster.kubectl(['apply', '--server-side', '-f', write('web.yaml', deployment('web', { image: 'nginx:1.26', labels: { app: 'web', tier: 'front', team: 'a' } }))]);
    await cluster.kubectl(['label', 'deployment', 'web', 'team=a', '--overwrite']);
    // kubectl label changed nothing, so it owns nothing; label a new key to give it one.
    await cluster.kubectl(['label', 'deployment', 'web', 'owner=ops']);
    await cluster.kubectl(['apply', '--server-side', '-f', write('web.yaml', deployment('web', { image: 'nginx:1.26', labels: { app: 'web' } }))]);
    const got = await getJSON('deployment', 'web');
    assert.deepEqual(got.metadata.labels, { app: 'web', owner: 'ops' });
    assert.deepEqual(entry(got, 'kubectl-label').fieldsV1, { 'f:metadata': { 'f:labels': { 'f:owner': {} } } });
  });

  test('dryRun=All does not persist, and a missing object is created (201)', async () => {
    const body = JSON.stringify(deployment('dry'));
    const dry = await apiRequest(cluster, `${deployments}/dry?fieldManager=m&dryRun=All`, { method: 'PATCH', body, contentType: 'application/apply-patch+yaml' });
    assert.equal(dry.status, 201);
    assert.equal(dry.json().metadata.managedFields[0].manager, 'm');
    assert.equal((await apiRequest(cluster, `${deployments}/dry`)).status, 404);
    const real = await apiRequest(cluster, `${deployments}/dry?fieldManager=m`, { method: 'PATCH', body, contentType: 'application/apply-patch+yaml' });
    assert.equal(real.status, 201);
    const again = await apiRequest(cluster, `${deployments}/dry?fieldManager=m&force=true`, { method: 'PATCH', body, contentType: 'application/apply-patch+yaml' });
    assert.equal(again.status, 200);
    assert.equal(again.json().metadata.resourceVersion, real.json().metadata.resourceVersion, 'an apply that changes nothing writes nothing');
  });
});

describe('managedFields on every write', () => {
  test('the objects kube-apiserver makes at start are recorded for kube-apiserver, as upstream shows them', async () => {
    // Upstream's post-start hooks write through the API server's own storage with manager kube-apiserver.
    for (const [kind, name, ns, field] of [
      ['clusterrole', 'cluster-admin', '', 'f:rules'], ['clusterrolebinding', 'cluster-admin', '', 'f:subjects'],
      ['namespace', 'kube-system', '', 'f:metadata'], ['service', 'kubernetes', 'default', 'f:spec'],
      ['priorityclass', 'system-node-critical', '', 'f:value'],
    ] as const) {
      const got = await getJSON(kind, name, ns || undefined);
      assert.deepEqual(entries(got), [['kube-apiserver', 'Update', '']], `${kind}/${name}`);
      assert.ok(field in entry(got, 'kube-apiserver').fieldsV1, `${kind}/${name} owns ${field}`);
    }
  });

  test('kubectl create records kubectl-create, hidden without --show-managed-fields', async () => {
    await cluster.kubectl(['create', 'deployment', 'mf', '--image=nginx:1.25']);
    const plain = (await cluster.kubectl(['get', 'deployment', 'mf', '-o', 'yaml'])).stdout;
    assert.ok(!plain.includes('managedFields'));
    const shown = (await cluster.kubectl(['get', 'deployment', 'mf', '-o', 'yaml', '--show-managed-fields'])).stdout;
    assert.match(shown, /managedFields:\n {2}- apiVersion: apps\/v1\n {4}fieldsType: FieldsV1\n {4}fieldsV1:\n {6}f:metadata:\n {8}f:labels:\n {10}\.: \{\}\n {10}f:app: \{\}\n/);
    const got = await getJSON('deployment', 'mf');
    assert.deepEqual(entries(got), [['kubectl-create', 'Update', '']]);
    const spec = entry(got, 'kubectl-create').fieldsV1['f:spec'];
    assert.deepEqual(spec['f:strategy'], { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} });
    assert.deepEqual(spec['f:template']['f:metadata'], { 'f:labels': { '.': {}, 'f:app': {} } });
    assert.deepEqual(Object.keys(spec['f:template']['f:spec']['f:containers']['k:{"name":"nginx"}']),
      ['.', 'f:image', 'f:imagePullPolicy', 'f:name', 'f:resources', 'f:terminationMessagePath', 'f:terminationMessagePolicy']);
  });

  test('edit, patch, scale, label and a status update each get their entry', async () => {
    const editor = files.write('editor.sh', '#!/bin/sh\nsed -i "s/image: nginx:1.25/image: nginx:1.26/" "$1"\n');
    await cluster.kubectl(['patch', 'deployment', 'mf', '-p', '{"spec":{"minReadySeconds":5}}']);
    const prevEditor = process.env.KUBE_EDITOR;
    process.env.KUBE_EDITOR = `sh ${editor}`;
    try {
      await cluster.kubectl(['edit', 'deployment', 'mf']);
    } finally {
      if (prevEditor === undefined) delete process.env.KUBE_EDITOR; else process.env.KUBE_EDITOR = prevEditor;
    }
    await cluster.kubectl(['scale', 'deployment', 'mf', '--replicas=2']);
    await cluster.kubectl(['label', 'deployment', 'mf', 'tier=web']);
    const cur = (await apiRequest(cluster, `${deployments}/mf`)).json();
    const status = { ...cur, status: { replicas: 2, observedGeneration: cur.metadata.generation } };
    const put = await apiRequest(cluster, `${deployments}/mf/status?fieldManager=status-writer`, { method: 'PUT', body: JSON.stringify(status) });
    assert.equal(put.status, 200);

    const got = await getJSON('deployment', 'mf');
    assert.deepEqual(entries(got).sort(), [
      ['kubectl', 'Update', 'scale'], ['kubectl-create', 'Update', ''], ['kubectl-edit', 'Update', ''],
      ['kubectl-label', 'Update', ''], ['kubectl-patch', 'Update', ''], ['status-writer', 'Update', 'status'],
    ]);
    assert.deepEqual(entry(got, 'kubectl-patch').fieldsV1, { 'f:spec': { 'f:minReadySeconds': {} } });
    assert.deepEqual(entry(got, 'kubectl-edit').fieldsV1, { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { 'f:image': {} } } } } } });
    assert.deepEqual(entry(got, 'kubectl', 'scale').fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    assert.deepEqual(entry(got, 'kubectl-label').fieldsV1, { 'f:metadata': { 'f:labels': { 'f:tier': {} } } });
    assert.deepEqual(entry(got, 'status-writer', 'status').fieldsV1, { 'f:status': { 'f:observedGeneration': {}, 'f:replicas': {} } });
    // Ownership moved: the creator no longer owns what others changed.
    const created = entry(got, 'kubectl-create').fieldsV1;
    assert.equal(created['f:spec']['f:replicas'], undefined);
    assert.equal(created['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"nginx"}']['f:image'], undefined);
  });

  test('an update that changes nothing leaves the manager\'s time alone', async () => {
    const before = entry(await getJSON('deployment', 'mf'), 'kubectl-patch');
    await cluster.kubectl(['patch', 'deployment', 'mf', '-p', '{"spec":{"minReadySeconds":5}}']);
    assert.deepEqual(entry(await getJSON('deployment', 'mf'), 'kubectl-patch'), before);
  });

  test('an apply the schema cannot type is refused with upstream\'s words', async () => {
    const body = JSON.stringify({ ...deployment('untyped'), spec: { ...deployment('untyped').spec, template: { metadata: { labels: { app: 'untyped' } }, spec: { containers: [{ image: 'nginx' }] } } } });
    const res = await apiRequest(cluster, `${deployments}/untyped?fieldManager=m`, { method: 'PATCH', body, contentType: 'application/apply-patch+yaml' });
    assert.equal(res.status, 400);
    assert.equal(res.json().message, 'failed to create typed patch object (default/untyped; apps/v1, Kind=Deployment): associative list with keys has an element that omits key field "name" (and doesn\'t have default value)');
  });

  test('fieldManager is validated as upstream validates it', async () => {
    const cm = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fm' } });
    const long = await apiRequest(cluster, `/api/v1/namespaces/default/configmaps?fieldManager=${'x'.repeat(129)}`, { method: 'POST', body: cm });
    assert.equal(long.status, 422);
    assert.equal(long.json().message, 'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes');
    const bad = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps?fieldManager=a%01b', { method: 'POST', body: cm });
    assert.equal(bad.status, 422);
    assert.equal(bad.json().message, 'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "a\\x01b": invalid character U+0001 (at position 1)');
    const missing = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps/fm', { method: 'PATCH', body: cm, contentType: 'application/apply-patch+yaml' });
    assert.equal(missing.status, 422);
    assert.equal(missing.json().message, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    const force = await apiRequest(cluster, '/api/v1/namespaces/default/configmaps/fm?force=true', { method: 'PATCH', body: '{}', contentType: 'application/merge-patch+json' });
    assert.equal(force.status, 422);
    assert.equal(force.json().message, 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
  });
});

describe('client-side apply to server-side apply', () => {
  test('kubectl apply, then apply --server-side migrates ownership without conflicts', async () => {
    await cluster.kubectl(['apply', '-f', write('csa.yaml', deployment('csa'))]);
    assert.deepEqual(entries(await getJSON('deployment', 'csa')), [['kubectl-client-side-apply', 'Update', '']]);
    const out = await cluster.kubectl(['apply', '--server-side', '-f', write('csa.yaml', deployment('csa', { replicas: 2 }))]);
    assert.equal(out.stdout, 'deployment.apps/csa serverside-applied\n');
    const got = await getJSON('deployment', 'csa');
    assert.equal(got.spec.replicas, 2);
    assert.deepEqual(entries(got).sort(), [['kubectl', 'Apply', ''], ['kubectl-last-applied', 'Apply', '']]);
    assert.deepEqual(entry(got, 'kubectl-last-applied').fieldsV1, { 'f:metadata': { 'f:annotations': { 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } });
    // The annotation follows the server-side applied configuration, so client-side apply keeps working.
    const lastApplied = JSON.parse(got.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
    assert.equal(lastApplied.spec.replicas, 2);
    const back = await cluster.kubectl(['apply', '-f', write('csa.yaml', deployment('csa', { replicas: 4 }))]);
    assert.equal(back.stdout, 'deployment.apps/csa configured\n');
    assert.equal((await getJSON('deployment', 'csa')).spec.replicas, 4);
  });

  test('kubectl diff --server-side shows the change and persists nothing', async () => {
    const res = await cluster.kubectl(['diff', '--server-side', '-f', write('csa-diff.yaml', deployment('web', { replicas: 7, image: 'nginx:1.26' }))], { allowFail: true });
    assert.equal(res.code, 1, res.stderr);
    assert.match(res.stdout, /^-  replicas: 1$/m);
    assert.match(res.stdout, /^\+  replicas: 7$/m);
    assert.equal((await getJSON('deployment', 'web')).spec.replicas, 1);
    const same = await cluster.kubectl(['diff', '--server-side', '-f', write('csa-same.yaml', deployment('web', { image: 'nginx:1.26' }))], { allowFail: true });
    assert.equal(same.code, 0, same.stdout + same.stderr);
  });
});

describe('seed manifests, client-side and server-side apply', () => {
  const seeds = seedManifests(seedsDir);
  const kindResource: Record<string, string> = { DaemonSet: 'daemonset.apps', StatefulSet: 'statefulset.apps', Pod: 'pod', Service: 'service' };

  before(async () => {
    const namespaces = seeds.flatMap((s, i) => (s.obj.metadata.namespace ? [] : [`ssa-seed-${i}`, `csa-seed-${i}`]));
    await cluster.kubectl(['create', '-f', '-'], { input: namespaces.map((n) => `---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${n}\n`).join('') });
  });

  // Atomic fields the server changed after client-side apply wrote them (admission's default
  // tolerations, defaulted claim templates) differ from the last-applied annotation: upstream's
  // migration reports them as conflicts (the apply docs: "Any fields not managed by client-side
  // apply will raise conflicts"), and --force-conflicts takes them.
  const migrationConflicts: Record<string, string> = {
    'Pod/nginx': 'conflict with "kubectl-client-side-apply" using v1: .spec.tolerations',
    'StatefulSet/web': 'conflict with "kubectl-client-side-apply" using apps/v1: .spec.volumeClaimTemplates',
  };

  seeds.forEach((seed, i) => {
    const { kind, metadata } = seed.obj;
    if (metadata.namespace) return;
    const resource = `${kindResource[kind]}/${metadata.name}`;
    test(`${seed.file} #${i} ${kind}/${metadata.name}: apply then apply --server-side`, async () => {
      const path = files.write(`csa-seed-${i}.yaml`, seed.yaml);
      const ns = ['-n', `csa-seed-${i}`];
      assert.equal((await cluster.kubectl(['apply', '-f', path, ...ns])).stdout, `${resource} created\n`);
      const conflict = migrationConflicts[`${kind}/${metadata.name}`];
      if (conflict) {
        const res = await cluster.kubectl(['apply', '--server-side', '-f', path, ...ns], { allowFail: true });
        assert.equal(res.code, 1);
        assert.ok(res.stderr.startsWith(`error: Apply failed with 1 conflict: ${conflict}\n`), res.stderr);
      }
      const force = conflict ? ['--force-conflicts'] : [];
      assert.equal((await cluster.kubectl(['apply', '--server-side', ...force, '-f', path, ...ns])).stdout, `${resource} serverside-applied\n`);
      const got = await getJSON(kind.toLowerCase(), metadata.name, `csa-seed-${i}`);
      assert.deepEqual(entries(got).sort(), [['kubectl', 'Apply', ''], ['kubectl-last-applied', 'Apply', '']]);
    });
    test(`${seed.file} #${i} ${kind}/${metadata.name}: apply --server-side twice, then client-side apply`, async () => {
      const path = files.write(`ssa-seed-${i}.yaml`, seed.yaml);
      const ns = ['-n', `ssa-seed-${i}`];
      assert.equal((await cluster.kubectl(['apply', '--server-side', '-f', path, ...ns])).stdout, `${resource} serverside-applied\n`);
      assert.equal((await cluster.kubectl(['apply', '--server-side', '-f', path, ...ns])).stdout, `${resource} serverside-applied\n`);
      const got = await getJSON(kind.toLowerCase(), metadata.name, `ssa-seed-${i}`);
      assert.deepEqual(entries(got), [['kubectl', 'Apply', '']]);
      const csa = await cluster.kubectl(['apply', '-f', path, ...ns]);
      assert.equal(csa.stdout, `${resource} configured\n`);
    });
  });
});
