/**
 * Admission webhooks end to end: a real server, the real kubectl, and webhook
 * servers started here (HTTPS on loopback, their own CA). Covers JSONPatch
 * mutation (a label and a sidecar), refusals with the webhook's message,
 * failurePolicy against a dead webhook, timeouts, reinvocation, matchConditions,
 * object and namespace selectors, clientConfig.service through a selectorless
 * Service and its EndpointSlice, dry runs, exemption of the configurations
 * themselves, validation of the configurations and the metrics.
 */
import { describe, test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { startCluster, type Cluster } from './harness.js';
import { apiRequest, apiServerOnly } from './helpers.js';
import { startWebhookServer, type ReviewRequest, type WebhookServer } from './webhook-server.js';
import { duringAttack } from './bystander.js';

let cluster: Cluster;
let hooks: WebhookServer;
const created: string[] = [];

/** Paths of the test webhook server, and what each answers. */
function answer(req: ReviewRequest, path: string) {
  const name = req.object?.metadata?.name ?? req.oldObject?.metadata?.name ?? '';
  switch (path) {
    case '/sidecar': return {
      allowed: true, warnings: ['sidecar injected'],
      patch: [
        { op: 'add', path: '/metadata/labels', value: { ...(req.object.metadata.labels ?? {}), injected: 'true' } },
        { op: 'add', path: '/spec/containers/-', value: { name: 'sidecar', image: 'k8ts.local/sidecar:1' } },
      ],
    };
    case '/deny': return { allowed: false, status: { code: 403, message: `pods named ${name} are not welcome` } };
    case '/allow': return { allowed: true };
    case '/hang': return undefined;
    case '/count': {
      const n = Number(req.object.metadata.annotations?.['seen-by-a'] ?? '0') + 1;
      const labels = JSON.stringify(req.object.metadata.labels ?? {});
      return { allowed: true, patch: [{ op: 'add', path: '/metadata/annotations', value: { ...(req.object.metadata.annotations ?? {}), 'seen-by-a': String(n), [`labels-at-${n}`]: labels } }] };
    }
    case '/label': return { allowed: true, patch: [{ op: 'add', path: '/metadata/labels', value: { ...(req.object.metadata.labels ?? {}), 'added-by-b': 'yes' } }] };
    default: return { allowed: false, status: { message: `unknown path ${path}` } };
  }
}

before(async () => {
  cluster = await startCluster(apiServerOnly);
  hooks = await startWebhookServer(answer, { dnsNames: ['hooks.default.svc'] });
});
after(async () => { await hooks?.close(); await cluster?.cleanup(); });
afterEach(async () => {
  for (const what of created.splice(0)) await cluster.kubectl(['delete', what, '--ignore-not-found', '--wait=false']);
});

interface HookSpec {
  name: string; path?: string; url?: string; kind?: 'Mutating' | 'Validating'; failurePolicy?: string; timeoutSeconds?: number;
  reinvocationPolicy?: string; extra?: string; service?: { name: string; namespace: string; port: number };
  operations?: string; resources?: string;
}

/** A webhook configuration of one webhook on pods, applied with kubectl. */
async function install(config: string, spec: HookSpec): Promise<void> {
  const kind = spec.kind ?? 'Validating';
  const clientConfig = spec.service
    ? `service: {name: ${spec.service.name}, namespace: ${spec.service.namespace}, port: ${spec.service.port}, path: "${spec.path}"}`
    : `url: "${spec.url ?? hooks.url(spec.path!)}"`;
  const yaml = `apiVersion: admissionregistration.k8s.io/v1
kind: ${kind}WebhookConfiguration
metadata:
  name: ${config}
webhooks:
- name: ${spec.name}
  admissionReviewVersions: ["v1"]
  sideEffects: None
  failurePolicy: ${spec.failurePolicy ?? 'Fail'}
  timeoutSeconds: ${spec.timeoutSeconds ?? 10}
${spec.reinvocationPolicy ? `  reinvocationPolicy: ${spec.reinvocationPolicy}\n` : ''}  clientConfig:
    ${clientConfig}
    caBundle: ${hooks.caBundle}
  rules:
  - operations: [${spec.operations ?? 'CREATE'}]
    apiGroups: [""]
    apiVersions: ["v1"]
    resources: [${spec.resources ?? 'pods'}]
${spec.extra ?? ''}`;
  await cluster.kubectl(['apply', '-f', '-'], { input: yaml });
  created.push(`${kind.toLowerCase()}webhookconfiguration/${config}`);
}

const pod = (name: string, labels: Record<string, string> = {}, ns = 'default') => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: ${ns}
  labels: ${JSON.stringify(labels)}
spec:
  containers:
  - name: app
    image: k8ts.local/app:1
`;

const createPod = (name: string, labels: Record<string, string> = {}, ns = 'default') =>
  cluster.kubectl(['create', '-f', '-'], { input: pod(name, labels, ns), allowFail: true });

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('admission webhooks', () => {
  test('a mutating webhook adds a label and a sidecar with a JSONPatch; its warning reaches kubectl', async () => {
    await install('sidecar', { kind: 'Mutating', name: 'sidecar.example.com', path: '/sidecar' });
    const res = await createPod('with-sidecar', { app: 'web' });
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stderr, /Warning: sidecar injected/);
    const got = JSON.parse((await cluster.kubectl(['get', 'pod', 'with-sidecar', '-o', 'json'])).stdout);
    assert.deepEqual(got.metadata.labels, { app: 'web', injected: 'true' });
    assert.deepEqual(got.spec.containers.map((c: any) => c.name), ['app', 'sidecar']);
    // The patched container is defaulted as a decoded one would be.
    assert.equal(got.spec.containers[1].imagePullPolicy, 'IfNotPresent');
    const review = hooks.reviews.get('/sidecar')!.at(-1)!;
    assert.equal(review.operation, 'CREATE');
    assert.deepEqual(review.kind, { group: '', version: 'v1', kind: 'Pod' });
    assert.deepEqual(review.resource, { group: '', version: 'v1', resource: 'pods' });
    assert.equal(review.name, 'with-sidecar');
    assert.equal(review.namespace, 'default');
    assert.equal((review.userInfo as any).username, 'kubernetes-admin');
    assert.equal(review.dryRun, false);
    assert.equal((review.options as any).kind, 'CreateOptions');
  });

  test('a validating webhook refuses with its message, as kubectl prints it', async () => {
    await install('deny', { name: 'deny.example.com', path: '/deny' });
    const res = await createPod('refused');
    assert.equal(res.code, 1);
    assert.match(res.stderr, /admission webhook "deny\.example\.com" denied the request: pods named refused are not welcome/);
    const raw = await apiRequest(cluster, '/api/v1/namespaces/default/pods', { method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'raw' }, spec: { containers: [{ name: 'a', image: 'a' }] } }) });
    assert.equal(raw.status, 403);
    assert.equal(raw.json().message, 'admission webhook "deny.example.com" denied the request: pods named raw are not welcome');
    const metrics = (await apiRequest(cluster, '/metrics')).body;
    assert.match(metrics, /apiserver_admission_webhook_rejection_count\{name="deny\.example\.com",type="validating",operation="CREATE",error_type="no_error",rejection_code="403"\} \d/);
    assert.match(metrics, /apiserver_admission_webhook_request_total\{name="deny\.example\.com",type="validating",operation="CREATE",code="403",rejected="true"\} \d/);
    assert.match(metrics, /apiserver_admission_webhook_admission_duration_seconds_count\{name="deny\.example\.com",type="validating",operation="CREATE",rejected="true"\} \d/);
  });

  test('a dead webhook: failurePolicy Ignore lets the pod in, Fail refuses it with upstream\'s error', async () => {
    const port = await closedPort();
    await install('dead-ignore', { name: 'dead-ignore.example.com', url: `https://127.0.0.1:${port}/x`, failurePolicy: 'Ignore' });
    assert.equal((await createPod('past-dead')).code, 0);
    await install('dead-fail', { name: 'dead-fail.example.com', url: `https://127.0.0.1:${port}/x`, failurePolicy: 'Fail' });
    const res = await createPod('stopped-by-dead');
    assert.equal(res.code, 1);
    assert.match(res.stderr, new RegExp(`Error from server \\(InternalError\\): error when creating "STDIN": Internal error occurred: failed calling webhook "dead-fail\\.example\\.com": failed to call webhook: Post "https://127\\.0\\.0\\.1:${port}/x\\?timeout=10s": dial tcp 127\\.0\\.0\\.1:${port}: connect: connection refused`));
  });

  test('a webhook that does not answer within timeoutSeconds fails the request with context deadline exceeded', async () => {
    await install('hang', { name: 'hang.example.com', path: '/hang', timeoutSeconds: 1 });
    const started = Date.now();
    const res = await createPod('too-slow');
    assert.equal(res.code, 1);
    assert.match(res.stderr, /failed calling webhook "hang\.example\.com": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/hang\?timeout=1s": context deadline exceeded/);
    assert.ok(Date.now() - started < 8000, 'answered soon after the timeout');
  });

  test('creates held by a webhook that never answers do not stall other clients', async () => {
    await install('hang-many', { name: 'hang-many.example.com', path: '/hang', timeoutSeconds: 3 });
    const body = (i: number) => JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `held-${i}` }, spec: { containers: [{ name: 'a', image: 'a' }] } });
    const answers = await duringAttack(cluster, () => Promise.all(Array.from({ length: 30 }, (_, i) =>
      apiRequest(cluster, '/api/v1/namespaces/default/pods', { method: 'POST', body: body(i) }))));
    assert.deepEqual([...new Set(answers.map((a) => a.status))], [500]);
    assert.match(answers[0].json().message, /failed calling webhook "hang-many\.example\.com": .*context deadline exceeded$/);
  });

  test('reinvocationPolicy IfNeeded: a webhook called before another that changed the object is called again', async () => {
    await install('a-count', { kind: 'Mutating', name: 'count.example.com', path: '/count', reinvocationPolicy: 'IfNeeded' });
    await install('b-label', { kind: 'Mutating', name: 'label.example.com', path: '/label' });
    hooks.reviews.delete('/count');
    assert.equal((await createPod('reinvoked')).code, 0);
    const got = JSON.parse((await cluster.kubectl(['get', 'pod', 'reinvoked', '-o', 'json'])).stdout);
    assert.equal(got.metadata.annotations['seen-by-a'], '2');
    assert.equal(got.metadata.annotations['labels-at-1'], '{}');
    assert.equal(got.metadata.annotations['labels-at-2'], '{"added-by-b":"yes"}');
    assert.equal(hooks.reviews.get('/count')!.length, 2);
  });

  test('matchConditions decide which requests reach the webhook', async () => {
    await install('mc', {
      name: 'mc.example.com', path: '/deny',
      extra: `  matchConditions:
  - name: only-mc-pods
    expression: "object.metadata.name.startsWith('mc-')"
  - name: admins-only
    expression: "request.userInfo.username == 'kubernetes-admin'"
`,
    });
    const refused = await createPod('mc-refused');
    assert.match(refused.stderr, /admission webhook "mc\.example\.com" denied the request: pods named mc-refused are not welcome/);
    assert.equal((await createPod('not-matched')).code, 0);
  });

  test('objectSelector and namespaceSelector', async () => {
    await cluster.kubectl(['create', 'namespace', 'guarded']);
    await cluster.kubectl(['label', 'namespace', 'guarded', 'webhooks=on']);
    await cluster.kubectl(['create', 'namespace', 'open']);
    await install('selectors', {
      name: 'selectors.example.com', path: '/deny',
      extra: `  namespaceSelector:
    matchLabels: {webhooks: "on"}
  objectSelector:
    matchExpressions: [{key: deny, operator: In, values: ["yes"]}]
`,
    });
    assert.match((await createPod('sel-1', { deny: 'yes' }, 'guarded')).stderr, /denied the request: pods named sel-1/);
    assert.equal((await createPod('sel-2', { deny: 'no' }, 'guarded')).code, 0);
    assert.equal((await createPod('sel-3', { deny: 'yes' }, 'open')).code, 0);
  });

  test('clientConfig.service reaches the webhook through a selectorless Service and its EndpointSlice', async () => {
    await cluster.kubectl(['apply', '-f', '-'], { input: `apiVersion: v1
kind: Service
metadata: {name: hooks, namespace: default}
spec:
  ports: [{name: https, port: 443, targetPort: ${hooks.port}}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: hooks-1
  namespace: default
  labels: {kubernetes.io/service-name: hooks}
addressType: IPv4
ports: [{name: https, port: ${hooks.port}, protocol: TCP}]
endpoints: [{addresses: ["127.0.0.1"], conditions: {ready: true}}]
` });
    await install('by-service', { name: 'svc.example.com', path: '/deny', service: { name: 'hooks', namespace: 'default', port: 443 } });
    assert.match((await createPod('via-service')).stderr, /admission webhook "svc\.example\.com" denied the request: pods named via-service are not welcome/);
    // A certificate not valid for NAME.NAMESPACE.svc is refused.
    await cluster.kubectl(['delete', 'validatingwebhookconfiguration', 'by-service']);
    await cluster.kubectl(['apply', '-f', '-'], { input: `apiVersion: v1
kind: Service
metadata: {name: other, namespace: default}
spec:
  ports: [{name: https, port: 443}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: other-1, namespace: default, labels: {kubernetes.io/service-name: other}}
addressType: IPv4
ports: [{name: https, port: ${hooks.port}, protocol: TCP}]
endpoints: [{addresses: ["127.0.0.1"]}]
` });
    await install('wrong-name', { name: 'wrong.example.com', path: '/allow', service: { name: 'other', namespace: 'default', port: 443 } });
    const res = await createPod('wrong-cert');
    assert.match(res.stderr, /failed calling webhook "wrong\.example\.com": failed to call webhook: Post "https:\/\/other\.default\.svc:443\/allow\?timeout=10s": tls: failed to verify certificate: x509: certificate is valid for hooks\.default\.svc, not other\.default\.svc/);
    await cluster.kubectl(['delete', 'validatingwebhookconfiguration', 'wrong-name']);
    // No such service: the resolver's error.
    await install('no-svc', { name: 'nosvc.example.com', path: '/allow', service: { name: 'absent', namespace: 'default', port: 443 } });
    assert.match((await createPod('no-service')).stderr, /failed calling webhook "nosvc\.example\.com": failed to call webhook: Post "https:\/\/absent\.default\.svc:443\/allow\?timeout=10s": service "absent" not found/);
  });

  test('a server-side dry run reaches webhooks with dryRun true', async () => {
    await install('allow', { name: 'allow.example.com', path: '/allow' });
    hooks.reviews.delete('/allow');
    const res = await cluster.kubectl(['create', '-f', '-', '--dry-run=server'], { input: pod('dry') });
    assert.equal(res.code, 0, res.stderr);
    const review = hooks.reviews.get('/allow')!.at(-1)!;
    assert.equal(review.dryRun, true);
    assert.deepEqual((review.options as any).dryRun, ['All']);
  });

  test('webhooks are never called for webhook configurations: a broken one can always be removed', async () => {
    const port = await closedPort();
    await install('catch-all', { name: 'all.example.com', url: `https://127.0.0.1:${port}/`, operations: '"*"', resources: '"*"', extra: '' });
    const yaml = (await cluster.kubectl(['get', 'validatingwebhookconfiguration', 'catch-all', '-o', 'yaml'])).stdout;
    const patched = yaml.replace('apiGroups:\n    - ""', 'apiGroups:\n    - "*"');
    assert.equal((await cluster.kubectl(['apply', '-f', '-'], { input: patched })).code, 0);
    assert.match((await cluster.kubectl(['create', 'configmap', 'blocked'], { allowFail: true })).stderr, /failed calling webhook "all\.example\.com"/);
    assert.equal((await cluster.kubectl(['delete', 'validatingwebhookconfiguration', 'catch-all'])).code, 0);
    assert.equal((await cluster.kubectl(['create', 'configmap', 'unblocked'])).code, 0);
  });

  test('DELETE reaches webhooks with the old object', async () => {
    assert.equal((await createPod('to-delete')).code, 0);
    await install('deny-delete', { name: 'deny-delete.example.com', path: '/deny', operations: 'DELETE' });
    const res = await cluster.kubectl(['delete', 'pod', 'to-delete', '--wait=false'], { allowFail: true });
    assert.match(res.stderr, /admission webhook "deny-delete\.example\.com" denied the request: pods named to-delete are not welcome/);
    const review = hooks.reviews.get('/deny')!.at(-1)!;
    assert.equal(review.operation, 'DELETE');
    assert.equal(review.object, null);
    assert.equal(review.oldObject.metadata.name, 'to-delete');
  });

  test('subresources: pods/* matches a status update, pods alone does not', async () => {
    assert.equal((await createPod('with-status')).code, 0);
    await install('main-only', { name: 'main-only.example.com', path: '/deny', operations: 'UPDATE', resources: 'pods' });
    const status = JSON.stringify({ status: { phase: 'Running' } });
    const patchStatus = () => apiRequest(cluster, '/api/v1/namespaces/default/pods/with-status/status', { method: 'PATCH', body: status, contentType: 'application/merge-patch+json' });
    assert.equal((await patchStatus()).status, 200);
    await install('all-subresources', { name: 'subresources.example.com', path: '/deny', operations: 'UPDATE', resources: '"pods/*"' });
    const refused = await patchStatus();
    assert.equal(refused.status, 403);
    assert.equal(refused.json().message, 'admission webhook "subresources.example.com" denied the request: pods named with-status are not welcome');
    const review = hooks.reviews.get('/deny')!.at(-1)!;
    assert.equal(review.subResource, 'status');
    assert.equal(review.operation, 'UPDATE');
    assert.equal(review.oldObject.metadata.name, 'with-status');
  });

  test('configurations are validated with upstream\'s field errors and defaulted', async () => {
    const res = await cluster.kubectl(['create', '-f', '-'], { allowFail: true, input: `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: invalid}
webhooks:
- name: short
  admissionReviewVersions: []
  timeoutSeconds: 31
  clientConfig: {url: "http://example.com/x"}
  rules: [{operations: ["*", "CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["*", "pods"]}]
` });
    assert.equal(res.code, 1);
    for (const want of [
      'webhooks[0].name: Invalid value: "short": should be a domain with at least three segments separated by dots',
      'webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{"*", "CREATE"}: if \'*\' is present, must not specify other operations',
      'webhooks[0].rules[0].resources: Invalid value: []string{"*", "pods"}: if \'*\' is present, must not specify other resources without subresources',
      'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun',
      'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds',
      'webhooks[0].clientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]',
      'webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1',
    ]) assert.ok(res.stderr.includes(want), `${want}\nin: ${res.stderr}`);
    await install('defaults', { name: 'defaults.example.com', path: '/allow' });
    const got = JSON.parse((await cluster.kubectl(['get', 'validatingwebhookconfiguration', 'defaults', '-o', 'json'])).stdout);
    const w = got.webhooks[0];
    assert.deepEqual([w.matchPolicy, w.rules[0].scope, w.namespaceSelector, w.objectSelector], ['Equivalent', '*', {}, {}]);
  });
});
