/**
 * A chart that installs an admission webhook as operators ship one
 * (test/fixtures/charts/configmap-policy: a Service, the EndpointSlice it
 * routes to, and a ValidatingWebhookConfiguration whose caBundle comes from the
 * values), installed with the real Helm against a k8ts server, and the webhook
 * server (started here, with its own CA) refusing a ConfigMap through it.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, type Cluster, repoRoot } from './harness.js';
import { apiServerOnly } from './helpers.js';
import { startWebhookServer, type WebhookServer } from './webhook-server.js';

let cluster: Cluster;
let hooks: WebhookServer;
let dir: string;
const chart = join(repoRoot, 'test', 'fixtures', 'charts', 'configmap-policy');
const helmBin = join(repoRoot, 'build', 'bin', 'helm');

function helm(args: string[]): Promise<string> {
  const env = { ...process.env, KUBECONFIG: cluster.kubeconfig, HELM_CACHE_HOME: join(dir, 'cache'), HELM_CONFIG_HOME: join(dir, 'config'), HELM_DATA_HOME: join(dir, 'data') };
  return new Promise((resolve, reject) => {
    execFile(helmBin, args, { env, timeout: 120_000 }, (err, stdout, stderr) => (err ? reject(new Error(`helm ${args.join(' ')} failed: ${stderr}${stdout}`)) : resolve(stdout)));
  });
}

before(async () => {
  if (!existsSync(helmBin)) throw new Error(`${helmBin} is missing: run scripts/ci-setup-containerd.sh (npm test's pretest), which unpacks Helm`);
  dir = mkdtempSync(join(tmpdir(), 'k8ts-webhook-chart-'));
  cluster = await startCluster(apiServerOnly);
  // The serving certificate names the Service the chart creates, as a chart's cert hook would issue it.
  hooks = await startWebhookServer((req) => (req.object?.data && 'password' in req.object.data
    ? { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'ConfigMaps may not carry a password: use a Secret' } }
    : { allowed: true }), { dnsNames: ['policy-webhook.default.svc'] });
});
after(async () => {
  await hooks?.close();
  await cluster?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a webhook chart', () => {
  test('helm install, a refused ConfigMap, an allowed one, helm uninstall', async () => {
    const out = await helm(['install', 'policy', chart, '--set', `caBundle=${hooks.caBundle}`, '--set', `endpoint.port=${hooks.port}`, '--wait', '--timeout', '60s']);
    assert.match(out, /STATUS: deployed/);
    const vwc = (await cluster.kubectl(['get', 'validatingwebhookconfigurations'])).stdout;
    assert.match(vwc, /policy-configmap-policy\s+1\s+/);
    const refused = await cluster.kubectl(['create', 'configmap', 'creds', '--from-literal=password=hunter2'], { allowFail: true });
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr, 'error: failed to create configmap: admission webhook "configmaps.policy.example.com" denied the request: ConfigMaps may not carry a password: use a Secret\n');
    assert.equal((await cluster.kubectl(['create', 'configmap', 'settings', '--from-literal=color=blue'])).code, 0);
    assert.equal(hooks.reviews.get('/validate-configmaps')!.length, 2);
    // An upgrade patches the configuration (strategic merge of webhooks by name).
    assert.match(await helm(['upgrade', 'policy', chart, '--reuse-values', '--set', 'timeoutSeconds=7']), /REVISION: 2/);
    assert.equal((await cluster.kubectl(['get', 'validatingwebhookconfiguration', 'policy-configmap-policy', '-o', 'jsonpath={.webhooks[0].timeoutSeconds}'])).stdout, '7');
    await helm(['uninstall', 'policy']);
    assert.equal((await cluster.kubectl(['create', 'configmap', 'creds', '--from-literal=password=hunter2'])).code, 0);
  });
});
