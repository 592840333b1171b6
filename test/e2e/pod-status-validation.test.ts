/**
 * PUT pods/x/status is validated as upstream's podStatusStrategy does (ValidatePodStatusUpdate),
 * not with the whole of ValidatePodUpdate: the spec a status write sends is replaced by the
 * stored one, the metadata rules and status.nominatedNodeName are checked, with upstream's words.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster } from './harness.js';
import { apiRequest, apiServerOnly } from './helpers.js';

const pods = '/api/v1/namespaces/default/pods';

describe('pod status writes', () => {
  let cluster: Cluster;
  before(async () => { cluster = await startCluster(apiServerOnly); });
  after(async () => { await cluster?.stop(); await cluster?.cleanup(); });

  const put = (name: string, body: object) => apiRequest(cluster, `${pods}/${name}/status`, { method: 'PUT', body: JSON.stringify(body) });

  async function pod(name: string): Promise<any> {
    const res = await apiRequest(cluster, pods, { method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }) });
    assert.equal(res.status, 201, res.body);
    return res.json();
  }

  test('a status write keeps the stored spec and writes the status', async () => {
    const p = await pod('status-spec');
    p.spec.containers[0].image = 'nginx';
    p.spec.activeDeadlineSeconds = -5; // invalid in a spec write; a status write never sees it
    p.status = { ...p.status, phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
    const res = await put('status-spec', p);
    assert.equal(res.status, 200, res.body);
    const got = res.json();
    assert.equal(got.spec.containers[0].image, 'busybox');
    assert.equal(got.spec.activeDeadlineSeconds, undefined);
    assert.equal(got.status.phase, 'Running');
  });

  test('the mirror pod annotation cannot be added by a status write', async () => {
    const p = await pod('status-mirror');
    p.metadata.annotations = { 'kubernetes.io/config.mirror': 'x' };
    const res = await put('status-mirror', p);
    assert.equal(res.status, 422, res.body);
    // Upstream's ValidatePodSpecificAnnotationUpdates: the update rule, then ValidatePodSpecificAnnotations of the new pod.
    assert.equal(res.json().message, 'Pod "status-mirror" is invalid: [metadata.annotations[kubernetes.io/config.mirror]: Forbidden: may not add mirror pod annotation, '
      + 'metadata.annotations[kubernetes.io/config.mirror]: Invalid value: "x": must set spec.nodeName if mirror pod annotation is set]');
  });

  test('status.nominatedNodeName must be a DNS subdomain', async () => {
    const p = await pod('status-nominated');
    p.status = { ...p.status, nominatedNodeName: 'Bad_Node' };
    const res = await put('status-nominated', p);
    assert.equal(res.status, 422, res.body);
    const status = res.json();
    assert.equal(status.details.causes[0].field, 'status.nominatedNodeName');
    assert.match(status.message, /^Pod "status-nominated" is invalid: status\.nominatedNodeName: Invalid value: "Bad_Node": a lowercase RFC 1123 subdomain must consist of/);
    p.status.nominatedNodeName = 'node-1';
    assert.equal((await put('status-nominated', p)).status, 200);
  });

  test('labels the status write sets are still validated', async () => {
    const p = await pod('status-labels');
    p.metadata.labels = { 'bad label': 'x' };
    const res = await put('status-labels', p);
    assert.equal(res.status, 422, res.body);
    assert.match(res.json().message, /metadata\.labels: Invalid value: "bad label"/);
  });
});
