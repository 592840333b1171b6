/**
 * The request latency histograms on /metrics, read after real kubectl writes: every write is in
 * apiserver_request_duration_seconds and in the SLI histogram beside it, and split by stage in
 * k8ts_request_stage_duration_seconds (bench/scale.ts reads the split to say where a slow write
 * waited). A write by system:masters is exempt from the fair queue, as upstream's exempt level, so
 * it has no seat stage; an impersonated user's write waits for a seat, recorded under
 * apiserver_flowcontrol_request_wait_duration_seconds.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster } from './harness.js';
import { apiRequest } from './helpers.js';

/** The value of one sample line, by metric name and its labels as printed (0 when absent). */
function sample(text: string, name: string, labels: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`) || l.startsWith(`${name}{${labels},`));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

const post = 'verb="POST",resource="configmaps",subresource=""';
const stageCount = (text: string, stage: string) => sample(text, 'k8ts_request_stage_duration_seconds_count', `${post},stage="${stage}"`);

describe('request latency, SLI and stage histograms after real writes', () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startCluster();
    // alice may create configmaps in default, so her write goes through authorization and a seat.
    await cluster.kubectl(['create', 'role', 'configmap-writer', '--verb=create', '--resource=configmaps', '-n', 'default']);
    await cluster.kubectl(['create', 'rolebinding', 'alice-writes', '--role=configmap-writer', '--user=alice', '-n', 'default']);
  });
  after(async () => { await cluster?.stop(); });

  test('an admin\'s creates: counted once in each histogram, every stage but the seat', async () => {
    const metrics = async () => (await apiRequest(cluster, '/metrics')).body;
    const before = await metrics();
    for (const n of [1, 2, 3]) await cluster.kubectl(['create', 'configmap', `admin-${n}`, '--from-literal=k=v']);
    const after = await metrics();
    const delta = (name: string, labels: string) => sample(after, name, labels) - sample(before, name, labels);
    assert.equal(delta('apiserver_request_duration_seconds_count', post), 3);
    assert.equal(delta('apiserver_request_sli_duration_seconds_count', post), 3, 'the SLI histogram counts the same writes');
    for (const stage of ['quantum', 'body', 'turn', 'handler', 'answer']) {
      assert.equal(stageCount(after, stage) - stageCount(before, stage), 3, `stage ${stage}`);
    }
    assert.equal(stageCount(after, 'seat'), 0, 'system:masters is exempt from the fair queue: no seat');
    // The sum of the stages is the write's time at the server, so it cannot pass the latency's sum.
    const stagesSum = ['quantum', 'body', 'turn', 'handler', 'answer']
      .reduce((s, stage) => s + sample(after, 'k8ts_request_stage_duration_seconds_sum', `${post},stage="${stage}"`), 0);
    assert.ok(stagesSum > 0 && stagesSum <= sample(after, 'apiserver_request_duration_seconds_sum', post) * 1.001, `stages ${stagesSum}`);
    assert.match(after, /^# TYPE k8ts_request_stage_duration_seconds histogram$/m);
  });

  test('an impersonated user\'s create waits for a seat: the seat stage and the flow-control wait', async () => {
    const metrics = async () => (await apiRequest(cluster, '/metrics')).body;
    const wait = (text: string) => sample(text, 'apiserver_flowcontrol_request_wait_duration_seconds_count', 'flow_schema="global-default",priority_level="global-default",execute="true"');
    const before = await metrics();
    await cluster.kubectl(['create', 'configmap', 'alice-1', '--from-literal=k=v', '--as=alice']);
    const after = await metrics();
    assert.equal(stageCount(after, 'seat') - stageCount(before, 'seat'), 1);
    assert.equal(wait(after) - wait(before), 1);
    // A rejected impersonation never reaches a seat.
    const denied = await cluster.kubectl(['create', 'configmap', 'bob-1', '--from-literal=k=v', '--as=bob'], { allowFail: true });
    assert.match(denied.stderr, /forbidden/);
    assert.equal(stageCount(await metrics(), 'seat') - stageCount(after, 'seat'), 0, 'a forbidden write holds no seat');
  });
});
