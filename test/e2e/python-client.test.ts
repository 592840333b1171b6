/**
 * The official Python client (Debian's python3-kubernetes, installed by
 * scripts/ci-setup-containerd.sh) against k8ts, with the scripts under
 * test/e2e/python: its watch (it sends watch=True), an informer written the
 * way Python users write one (list, then watch from the list's
 * resourceVersion), and utils.create_from_yaml, whose conflict aggregation
 * quotes the server's Status bodies byte for byte.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { startCluster, repoRoot, type Cluster } from './harness.js';
import { apiServerOnly, manifestDir } from './helpers.js';

const scripts = join(repoRoot, 'test', 'e2e', 'python');

/** A python3 that imports the client: pyenv's shims on PATH may hide Debian's dist-packages, so /usr/bin/python3 comes first. */
function pythonWithClient(): string {
  for (const candidate of ['/usr/bin/python3', 'python3']) {
    try {
      execFileSync(candidate, ['-c', 'import kubernetes'], { stdio: 'ignore' });
      return candidate;
    } catch { /* try the next */ }
  }
  throw new Error('no python3 with the kubernetes client: install python3-kubernetes (scripts/ci-setup-containerd.sh)');
}

let cluster: Cluster;
let python: string;
const files = manifestDir();

before(async () => {
  python = pythonWithClient();
  cluster = await startCluster(apiServerOnly);
});
after(async () => { await cluster?.cleanup(); files.close(); });

function runScript(script: string, args: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(python, [join(scripts, script), cluster.kubeconfig, ...args], { timeout: 120_000 }, (err, stdout, stderr) => {
      if (err) { reject(new Error(`${script} failed: ${err.message}\n${stderr}`)); return; }
      resolve(JSON.parse(stdout.trim().split('\n').pop()!));
    });
  });
}

async function namespace(name: string): Promise<string> {
  await cluster.kubectl(['create', 'namespace', name]);
  return name;
}

describe('the official Python client', () => {
  test('watch: Watch.stream gets events, from the start and from a resourceVersion', async () => {
    const out = await runScript('watch.py', [await namespace('py-watch')]);
    assert.ok(out.existing.length >= 1);
    assert.ok(out.existing.every(([type]: string[]) => type === 'ADDED'), JSON.stringify(out.existing));
    assert.ok(out.existing.some(([, name]: string[]) => name === 'default'));
    assert.deepEqual(out.changes, [['ADDED', '1'], ['MODIFIED', '2'], ['DELETED', '2']]);
  });

  test('an informer (list, then watch from its resourceVersion) keeps its cache current', async () => {
    const out = await runScript('informer.py', [await namespace('py-informer')]);
    assert.deepEqual(out.events, [['ADDED', 'inf-a'], ['ADDED', 'inf-b'], ['MODIFIED', 'inf-a'], ['DELETED', 'inf-b']]);
    assert.deepEqual(out.cache, { 'inf-a': { v: '2' } });
  });

  test('utils.create_from_yaml creates every document, then aggregates the conflicts with the Status bodies as sent', async () => {
    const ns = await namespace('py-yaml');
    const path = files.write('multi.yaml', [
      'apiVersion: v1\nkind: Service\nmetadata:\n  name: mock\nspec:\n  ports:\n  - port: 80\n  selector:\n    app: mock\n',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mock\ndata:\n  a: b\n',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: mock\nspec:\n  selector:\n    matchLabels: {app: mock}\n  template:\n    metadata:\n      labels: {app: mock}\n    spec:\n      containers:\n      - name: c\n        image: busybox\n',
    ].join('---\n'));
    const out = await runScript('create_from_yaml.py', [ns, path]);
    assert.deepEqual(out.created, ['V1Service', 'V1ConfigMap', 'V1Deployment']);
    assert.deepEqual(out.failure.statuses, [409, 409, 409]);
    assert.deepEqual(out.failure.reasons, ['AlreadyExists', 'AlreadyExists', 'AlreadyExists']);
    const status = (resource: string, group?: string) => `Error from server (Conflict): {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"${resource}${group ? `.${group}` : ''} \\"mock\\" already exists","reason":"AlreadyExists","details":{"name":"mock",${group ? `"group":"${group}",` : ''}"kind":"${resource}"},"code":409}\n`;
    assert.equal(out.failure.message, status('services') + status('configmaps') + status('deployments', 'apps'));
  });

  test('utils.create_from_yaml of an APIService: 201, then 409 with the Status as sent (the client\'s test_create_apiservice_from_yaml_with_conflict)', async () => {
    const path = files.write('api-service.yaml', [
      'apiVersion: apiregistration.k8s.io/v1', 'kind: APIService', 'metadata:', '  name: v1alpha1.wardle.k8s.io', 'spec:',
      '  group: wardle.k8s.io', '  groupPriorityMinimum: 1000', '  insecureSkipTLSVerify: true', '  service:', '    name: api', '    namespace: wardle',
      '  version: v1alpha1', '  versionPriority: 15', '',
    ].join('\n'));
    const out = await runScript('create_from_yaml.py', ['default', path]);
    assert.deepEqual(out.created, ['V1APIService']);
    assert.deepEqual(out.failure.statuses, [409]);
    assert.equal(out.failure.message, 'Error from server (Conflict): {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"apiservices.apiregistration.k8s.io \\"v1alpha1.wardle.k8s.io\\" already exists","reason":"AlreadyExists","details":{"name":"v1alpha1.wardle.k8s.io","group":"apiregistration.k8s.io","kind":"apiservices"},"code":409}\n');
  });
});
