/**
 * Every manifest in the seed notes goes through `kubectl create -f` unchanged,
 * and `kubectl apply -f` reports created / unchanged / configured as upstream does.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, seedsDir, Cluster } from './harness.js';
import { seedManifests } from './seed-manifests.js';
import { manifestDir } from './helpers.js';

let cluster: Cluster;
const files = manifestDir();

before(async () => { cluster = await startCluster(); });
after(async () => { await cluster?.cleanup(); files.close(); });

const kindResource: Record<string, string> = {
  DaemonSet: 'daemonset.apps', StatefulSet: 'statefulset.apps', Pod: 'pod', Service: 'service',
};

describe('seed manifests', () => {
  const seeds = seedManifests(seedsDir);

  test('the seed notes hold the manifests this issue names', () => {
    const names = seeds.map((s) => `${s.obj.kind}/${s.obj.metadata.name}`);
    assert.deepEqual(names, [
      'DaemonSet/fluentd-elasticsearch', 'DaemonSet/http-go', 'Pod/nginx',
      'DaemonSet/fluentd-elasticsearch', 'Service/nginx', 'StatefulSet/web',
      'StatefulSet/muzzi', 'StatefulSet/muzzi', 'StatefulSet/muzzi',
      'DaemonSet/monitoring-daemon', 'Pod/static-web',
    ]);
    assert.deepEqual(seeds.filter((s) => s.obj.metadata.name === 'muzzi').map((s) => s.obj.spec.podManagementPolicy),
      [undefined, 'OrderedReady', 'Parallel']);
  });

  // One namespace a manifest, so repeated names (muzzi three times) never collide;
  // a manifest that names its own namespace is deleted again after the check.
  before(async () => {
    const namespaces = seeds.map((s, i) => (s.obj.metadata.namespace ? '' : `---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: seed-${i}\n`));
    await cluster.kubectl(['create', '-f', '-'], { input: namespaces.join('') });
  });

  seeds.forEach((seed, i) => {
    const { kind, metadata } = seed.obj;
    test(`kubectl create -f accepts ${seed.file} #${i} ${kind}/${metadata.name}`, async () => {
      const path = files.write(`seed-${i}.yaml`, seed.yaml);
      const ns = metadata.namespace ?? `seed-${i}`;
      const nsArgs = metadata.namespace ? [] : ['-n', ns];
      const created = await cluster.kubectl(['create', '-f', path, ...nsArgs]);
      assert.equal(created.stdout, `${kindResource[kind]}/${metadata.name} created\n`);

      const got = JSON.parse((await cluster.kubectl(['get', kind.toLowerCase(), metadata.name, '-n', ns, '-o', 'json'])).stdout);
      assert.equal(got.kind, kind);
      assert.equal(got.metadata.namespace, ns);
      assert.deepEqual(got.metadata.labels, metadata.labels);
      if (seed.obj.spec?.podManagementPolicy) assert.equal(got.spec.podManagementPolicy, seed.obj.spec.podManagementPolicy);
      if (kind === 'StatefulSet') {
        // Defaulted the way upstream does, which `kubectl rollout` relies on.
        assert.equal(got.spec.podManagementPolicy, seed.obj.spec.podManagementPolicy ?? 'OrderedReady');
        assert.equal(got.spec.updateStrategy.type, 'RollingUpdate');
        assert.equal(got.spec.replicas, seed.obj.spec.replicas);
      }
      if (kind === 'DaemonSet') {
        assert.deepEqual(got.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
        assert.deepEqual(got.spec.template.spec.containers.map((c: any) => c.image), seed.obj.spec.template.spec.containers.map((c: any) => c.image));
      }
      if (kind === 'Pod') assert.equal(got.status.phase, 'Pending');
      if (kind === 'Service') assert.equal(got.spec.clusterIP, 'None');

      if (metadata.namespace) {
        const deleted = await cluster.kubectl(['delete', '-f', path]);
        assert.equal(deleted.stdout, `${kindResource[kind]} "${metadata.name}" deleted\n`);
      }
    });
  });
});

describe('kubectl apply', () => {
  const cm = (value: string) => [
    'apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: applied', '  labels:', '    app: demo',
    'data:', `  greeting: "${value}"`, '',
  ].join('\n');

  test('created, then unchanged, then configured after an edit', async () => {
    const path = files.write('applied.yaml', cm('hello'));
    assert.equal((await cluster.kubectl(['apply', '-f', path])).stdout, 'configmap/applied created\n');
    const rv1 = (await cluster.kubectl(['get', 'configmap', 'applied', '-o', 'jsonpath={.metadata.resourceVersion}'])).stdout;
    assert.equal((await cluster.kubectl(['apply', '-f', path])).stdout, 'configmap/applied unchanged\n');
    const rv2 = (await cluster.kubectl(['get', 'configmap', 'applied', '-o', 'jsonpath={.metadata.resourceVersion}'])).stdout;
    assert.equal(rv2, rv1, 'an unchanged apply writes nothing');

    files.write('applied.yaml', cm('bonjour'));
    assert.equal((await cluster.kubectl(['apply', '-f', path])).stdout, 'configmap/applied configured\n');
    const got = JSON.parse((await cluster.kubectl(['get', 'configmap', 'applied', '-o', 'json'])).stdout);
    assert.equal(got.data.greeting, 'bonjour');
    assert.notEqual(got.metadata.resourceVersion, rv1);
    const lastApplied = JSON.parse(got.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
    assert.equal(lastApplied.data.greeting, 'bonjour');
    assert.equal((await cluster.kubectl(['apply', '-f', path])).stdout, 'configmap/applied unchanged\n');
  });

  test('apply of a seed DaemonSet, then an image change through a strategic merge patch', async () => {
    const seed = seedManifests(seedsDir).find((s) => s.obj.metadata.name === 'http-go')!;
    const path = files.write('http-go.yaml', seed.yaml);
    assert.equal((await cluster.kubectl(['apply', '-f', path])).stdout, 'daemonset.apps/http-go created\n');
    assert.equal((await cluster.kubectl(['apply', '-f', path])).stdout, 'daemonset.apps/http-go unchanged\n');
    files.write('http-go.yaml', seed.yaml.replace('image: gasbugs/http-go', 'image: gasbugs/http-go:v2'));
    assert.equal((await cluster.kubectl(['apply', '-f', path])).stdout, 'daemonset.apps/http-go configured\n');
    const got = JSON.parse((await cluster.kubectl(['get', 'daemonset', 'http-go', '-o', 'json'])).stdout);
    assert.equal(got.spec.template.spec.containers[0].image, 'gasbugs/http-go:v2');
    assert.equal(got.spec.template.spec.tolerations.length, 2, 'the merge keeps the rest of the template');
    assert.equal(got.metadata.generation, 2, 'a spec change bumps generation once');
  });
});
