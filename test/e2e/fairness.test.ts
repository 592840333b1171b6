/**
 * Fairness between clients (src/apiserver/flowcontrol, docs/threads.md):
 * one user's flood of creates fills the seats and its own queue, and
 *   - the flood's requests past its queue get upstream's APF 429 with a Retry-After;
 *   - another client's /readyz and GET answer within 1 s meanwhile;
 *   - another user's create takes the next free seat before the flood's queued ones;
 *   - a node's heartbeat (a Lease write as system:node:X, priority level node-high) is
 *     seated at once meanwhile, in its level's guaranteed seat, and the answer names its
 *     FlowSchema and priority level by UID (upstream's X-Kubernetes-PF-* headers).
 * The seats are held by a validating webhook that does not answer the flood's
 * creates (timeoutSeconds, then failurePolicy Ignore), so the state is made,
 * not raced: the flood's level's seats (`--max-mutating-requests-inflight 2`), three hundred queued.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, eventually, cliPath, type Cluster } from './harness.js';
import { apiRequest, type ApiResponse } from './helpers.js';
import { startWebhookServer, type WebhookServer } from './webhook-server.js';
import { startBystander } from './bystander.js';

const hookSeconds = 15;
/** A lone flow's queue: upstream's handSize × queueLengthLimit (src/apiserver/flowcontrol/fair-queue.ts). */
const queueLength = 300;
/**
 * The seats the flood's level (global-default) may hold with `--max-mutating-requests-inflight 2`:
 * each of the 7 Limited levels' nominal seats rounds up to 1 (src/apiserver/flowcontrol/levels.ts),
 * and global-default may borrow every one but the 4 that catch-all, system, node-high and
 * leader-election lend to nobody.
 */
const floodSeats = 3;

describe('fairness: a flooding user does not hold back another', () => {
  let cluster: Cluster;
  let hooks: WebhookServer;
  let holding = false;

  before(async () => {
    hooks = await startWebhookServer(() => (holding ? undefined : { allowed: true }));
    cluster = await startCluster({ extraArgs: ['--max-mutating-requests-inflight', '2'] });
    await cluster.kubectl(['create', 'clusterrolebinding', 'users-admin', '--clusterrole=cluster-admin', '--user=flooder', '--user=bystander']);
    await cluster.kubectl(['apply', '-f', '-'], { input: `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: hold-flood}
webhooks:
- name: hold.flood.example.com
  admissionReviewVersions: ["v1"]
  sideEffects: None
  failurePolicy: Ignore
  timeoutSeconds: ${hookSeconds}
  objectSelector: {matchLabels: {flood: "yes"}}
  clientConfig: {url: "${hooks.url('/hold')}", caBundle: ${hooks.caBundle}}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: ["v1"], resources: [configmaps]}]
` });
  });

  after(async () => {
    holding = false;
    await cluster?.cleanup();
    await hooks?.close();
  });

  const asUser = (user: string, name: string, labels: Record<string, string> = {}) => apiRequest(cluster, '/api/v1/namespaces/default/configmaps', {
    method: 'POST', headers: { 'Impersonate-User': user }, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels } }),
  });

  test("the flood's excess gets 429, a bystander's reads answer within 1 s and its create takes the next seat", async () => {
    // The webhook is in effect once it sees a labelled create (answered while not holding).
    let probes = 0;
    await eventually(async () => {
      const probe = await asUser('bystander', `probe-${probes++}`, { flood: 'yes' });
      assert.equal(probe.status, 201, probe.body);
      return hooks.reviews.get('/hold')?.length;
    }, 20_000, 'the webhook');
    const reviewed = hooks.reviews.get('/hold')!.length;
    holding = true;

    const answers: { i: number; res: ApiResponse }[] = [];
    const total = floodSeats + queueLength + 10;
    const flood = Array.from({ length: total }, (_, i) => asUser('flooder', `flood-${i}`, { flood: 'yes' }).then((res) => { answers.push({ i, res }); }));
    // Flood creates hold the level's seats (in the webhook); 300 wait in the flood's queue; the rest are refused.
    await eventually(async () => hooks.reviews.get('/hold')!.length >= reviewed + floodSeats && answers.length >= total - floodSeats - queueLength, (hookSeconds - 3) * 1000, 'the flood to fill its seats and queue');
    const refused = answers.filter((a) => a.res.status === 429);
    assert.equal(refused.length, total - floodSeats - queueLength, `answers: ${answers.map((a) => `${a.res.status} ${a.res.body.slice(0, 80)}`).join('; ')}`);
    const status = refused[0].res.json();
    assert.equal(status.reason, 'TooManyRequests');
    assert.equal(status.message, 'Too many requests, please try again later.');
    assert.equal(refused[0].res.headers['retry-after'], '1');

    // A node's heartbeat is not queued behind the flood: node-high keeps its seat.
    const lease = await apiRequest(cluster, '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', {
      method: 'POST', headers: { 'Impersonate-User': 'system:node:n1', 'Impersonate-Group': 'system:nodes' },
      body: JSON.stringify({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'n1' }, spec: { holderIdentity: 'n1', leaseDurationSeconds: 40 } }),
    });
    assert.equal(lease.status, 201, lease.body);
    assert.equal(answers.filter((a) => a.res.status !== 429).length, 0, 'answered while every flood create still waits or is held');
    const uid = async (kind: string, name: string) => (await cluster.kubectl(['get', kind, name, '-o', 'jsonpath={.metadata.uid}'])).stdout;
    assert.equal(lease.headers['x-kubernetes-pf-flowschema-uid'], await uid('flowschema', 'system-node-high'));
    assert.equal(lease.headers['x-kubernetes-pf-prioritylevel-uid'], await uid('prioritylevelconfiguration', 'node-high'));
    assert.equal(refused[0].res.headers['x-kubernetes-pf-flowschema-uid'], await uid('flowschema', 'global-default'));

    const by = await startBystander(cluster, { paths: ['/readyz', '/api/v1/namespaces/default', '/api/v1/namespaces/default/configmaps?limit=5'] });
    const started = performance.now();
    const mine = await asUser('bystander', 'bystanders-own');
    const waitedMs = performance.now() - started;
    const floodAnswered = answers.filter((a) => a.res.status !== 429).length;
    const report = await by.stop();
    holding = false;
    assert.equal(mine.status, 201, mine.body);
    // Served in the first round of freed seats, not behind the flood's 300 (which at 2 seats per hook timeout would take minutes).
    assert.ok(floodAnswered <= floodSeats + 2, `the bystander's create waited for ${floodAnswered} flood creates (${Math.round(waitedMs)} ms)`);
    assert.ok(report.samples > 0);
    assert.deepEqual(report.failures, [], `worst ${Math.round(report.worstMs)} ms`);

    await Promise.all(flood);
    const created = answers.filter((a) => a.res.status === 201).length;
    assert.equal(created, floodSeats + queueLength, 'every queued flood create is served once seats free');
  });
});

test('--max-mutating-requests-inflight: a value that is not a non-negative integer is refused in upstream\'s words', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-e2e-seats-'));
  try {
    for (const [value, want] of [
      ['-1', 'Error: --max-mutating-requests-inflight can not be negative value'],
      ['x', 'Error: invalid argument "x" for "--max-mutating-requests-inflight" flag: strconv.ParseInt: parsing "x": invalid syntax'],
    ]) {
      const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        execFile(process.execPath, [cliPath, 'server', '--data-dir', dir, `--max-mutating-requests-inflight=${value}`], (err, _out, errText) => resolve({ code: err ? (err as { code?: number }).code ?? null : 0, stderr: errText }));
      });
      assert.equal(code, 1);
      assert.equal(stderr.trim(), want);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
