/**
 * Jobs, CronJobs and TTL-after-finished end to end: a real `k8ts server`
 * running the job, ttl-after-finished, garbage collector and scheduler
 * controllers, simulated nodes in this process (Job pods finish by
 * themselves after 1 s; annotations steer them), and the real kubectl 1.32.
 * The CronJob controller runs in this process on a clock the test moves, so
 * the concurrency policies are checked over simulated minutes.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { startCluster, eventually, type Cluster } from './harness.js';
import { Clientset, EventRecorder, InformerFactory, loadKubeconfig } from '../../src/client/index.js';
import { NodeSimulator } from '../../src/kubelet/index.js';
import { CronJobController } from '../../src/controllers/cronjob/index.js';
import { defaultControllerConfig } from '../../src/controllers/types.js';
import type { Clock } from '../../src/util/clock.js';
import { silentLogger } from '../../src/util/log.js';

const timeout = 60_000;

/** A Job manifest with restartPolicy Never and the given spec fields and pod annotations. */
function jobYAML(name: string, spec: Record<string, unknown> = {}, annotations: Record<string, string> = {}): string {
  return stringify({
    apiVersion: 'batch/v1', kind: 'Job', metadata: { name },
    spec: { ...spec, template: { metadata: { annotations }, spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } } },
  });
}

describe('Jobs, CronJobs and TTL-after-finished (kubectl 1.32, simulated nodes)', () => {
  let cluster: Cluster;
  let clients: Clientset;
  let sim: NodeSimulator;

  const kubectl = (args: string[], input?: string) => cluster.kubectl(args, input === undefined ? {} : { input });
  const getJob = async (name: string) => JSON.parse((await kubectl(['get', 'job', name, '-o', 'json'])).stdout);
  const jobRow = async (name: string) => (await kubectl(['get', 'job', name, '--no-headers'])).stdout.trim().split(/\s{2,}/);
  const trueConditions = (job: any) => (job.status?.conditions ?? []).filter((c: any) => c.status === 'True').map((c: any) => `${c.type}/${c.reason}`);
  const jobPods = async (job: string) => (await clients.pods.list('default', { labelSelector: `batch.kubernetes.io/job-name=${job}` })).items;
  const annotate = (pod: any, kv: string) => kubectl(['annotate', 'pod', pod.metadata.name, '--overwrite', kv]);

  before(async () => {
    cluster = await startCluster({ controllers: 'job,ttl-after-finished,garbagecollector,podgc,scheduler' });
    clients = new Clientset(loadKubeconfig(cluster.kubeconfig));
    sim = new NodeSimulator(clients, { count: 2, logger: silentLogger });
    await sim.start();
  });

  after(async () => {
    await sim?.close();
    clients?.close();
    await cluster?.cleanup();
  });

  it('kubectl create job runs one pod to completion', async () => {
    assert.equal((await kubectl(['create', 'job', 'hello', '--image=busybox', '--', 'echo', 'hi'])).stdout, 'job.batch/hello created\n');
    await kubectl(['wait', '--for=condition=complete', 'job/hello', '--timeout=60s']);
    const row = await jobRow('hello');
    assert.deepEqual(row.slice(0, 3), ['hello', 'Complete', '1/1']);
    const job = await getJob('hello');
    assert.deepEqual(trueConditions(job), ['SuccessCriteriaMet/CompletionsReached', 'Complete/CompletionsReached']);
    assert.equal(job.status.succeeded, 1);
    assert.deepEqual(job.status.uncountedTerminatedPods, {});
    assert.equal(job.metadata.labels['batch.kubernetes.io/job-name'], 'hello');
    const pods = await eventually(async () => { const p = await jobPods('hello'); return p.every((x: any) => !x.metadata.finalizers?.length) && p; }, timeout, 'finalizer removed');
    assert.equal(pods.length, 1);
    assert.equal(pods[0].status.phase, 'Succeeded');
    const header = (await kubectl(['get', 'jobs'])).stdout.split('\n')[0].trim().split(/\s{2,}/);
    assert.deepEqual(header, ['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE']);
  });

  it('an Indexed Job with backoffLimitPerIndex retries a failing index once, then fails with FailedIndexes', async () => {
    const spec = { completions: 3, parallelism: 3, completionMode: 'Indexed', backoffLimitPerIndex: 1 };
    await kubectl(['apply', '-f', '-'], jobYAML('indexed', spec, { 'k8ts.io/sim-complete-after': '10m' }));
    const byIndex = async () => {
      const pods = await jobPods('indexed');
      return new Map<string, any[]>(['0', '1', '2'].map((i) => [i, pods.filter((p: any) => p.metadata.annotations['batch.kubernetes.io/job-completion-index'] === i)]));
    };
    const first = await eventually(async () => { const m = await byIndex(); return [...m.values()].every((l) => l.length === 1) && m; }, timeout, 'three indexed pods');
    const p1 = first.get('1')![0];
    assert.match(p1.metadata.name, /^indexed-1-/);
    assert.equal(p1.spec.hostname, 'indexed-1');
    assert.equal(p1.spec.containers[0].env[0].name, 'JOB_COMPLETION_INDEX');
    await annotate(p1, 'k8ts.io/sim-fail-after=1ms');
    for (const i of ['0', '2']) await annotate(first.get(i)![0], 'k8ts.io/sim-complete-after=1ms');
    // The replacement comes after the 10 s back-off, counting the failure.
    const retry = await eventually(async () => (await byIndex()).get('1')!.find((p: any) => p.metadata.uid !== p1.metadata.uid), timeout, 'index 1 retried');
    assert.equal(retry.metadata.annotations['batch.kubernetes.io/job-index-failure-count'], '1');
    await annotate(retry, 'k8ts.io/sim-fail-after=1ms');
    await kubectl(['wait', '--for=condition=failed', 'job/indexed', '--timeout=60s']);
    const job = await getJob('indexed');
    assert.deepEqual(trueConditions(job), ['FailureTarget/FailedIndexes', 'Failed/FailedIndexes']);
    assert.equal(job.status.completedIndexes, '0,2');
    assert.equal(job.status.failedIndexes, '1');
    assert.equal(job.status.failed, 2);
    assert.equal((await jobRow('indexed'))[1], 'Failed');
  });

  it('a podFailurePolicy FailJob rule fails the Job on the matching exit code', async () => {
    const spec = { backoffLimit: 6, podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } }] } };
    await kubectl(['apply', '-f', '-'], jobYAML('policy', spec, { 'k8ts.io/sim-exit-code': '42' }));
    await kubectl(['wait', '--for=condition=failed', 'job/policy', '--timeout=60s']);
    const job = await getJob('policy');
    assert.equal(job.spec.podReplacementPolicy, 'Failed');
    assert.deepEqual(trueConditions(job), ['FailureTarget/PodFailurePolicy', 'Failed/PodFailurePolicy']);
    const pod = (await jobPods('policy'))[0];
    assert.equal(job.status.conditions[1].message, `Container main for pod default/${pod.metadata.name} failed with exit code 42 matching FailJob rule at index 0`);
    assert.equal(job.status.failed, 1);
    const events = (await kubectl(['get', 'events', '--field-selector', 'involvedObject.name=policy,reason=PodFailurePolicy', '--no-headers'])).stdout;
    assert.match(events, /Warning\s+PodFailurePolicy\s+job\/policy/);
  });

  it('twenty FailJob Jobs at once each count their one failed pod once', async () => {
    // Each sync removes a finalizer and then writes the count; a sync woken by that write may still see
    // the pod's finalizer in its cache, and must not record the same pod as newly failed again.
    const spec = { backoffLimit: 6, podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } }] } };
    const names = Array.from({ length: 20 }, (_, i) => `many-${i}`);
    await kubectl(['apply', '-f', '-'], names.map((n) => jobYAML(n, spec, { 'k8ts.io/sim-exit-code': '42' })).join('---\n'));
    await kubectl(['wait', '--for=condition=failed', ...names.map((n) => `job/${n}`), '--timeout=60s']);
    // Let any late sync run before reading the counts.
    await new Promise((r) => setTimeout(r, 1500));
    const jobs = JSON.parse((await kubectl(['get', 'jobs', ...names, '-o', 'json'])).stdout).items;
    assert.deepEqual(jobs.map((j: any) => `${j.metadata.name}=${j.status.failed}`), names.map((n) => `${n}=1`));
  });

  it('a Job created suspended starts no pod until it is resumed', async () => {
    await kubectl(['apply', '-f', '-'], jobYAML('later', { suspend: true }));
    await eventually(async () => (await jobRow('later'))[1] === 'Suspended', timeout, 'Suspended');
    assert.equal((await jobPods('later')).length, 0);
    assert.equal((await getJob('later')).status.startTime, undefined);
    await kubectl(['patch', 'job', 'later', '-p', '{"spec":{"suspend":false}}']);
    await kubectl(['wait', '--for=condition=complete', 'job/later', '--timeout=60s']);
    const job = await getJob('later');
    const suspended = job.status.conditions.find((c: any) => c.type === 'Suspended');
    assert.deepEqual([suspended.status, suspended.reason, suspended.message], ['False', 'JobResumed', 'Job resumed']);
  });

  it('suspending a running Job deletes its pods', async () => {
    await kubectl(['apply', '-f', '-'], jobYAML('paused', {}, { 'k8ts.io/sim-complete-after': '10m' }));
    await eventually(async () => (await jobPods('paused')).some((p: any) => p.status?.phase === 'Running'), timeout, 'running pod');
    await kubectl(['patch', 'job', 'paused', '-p', '{"spec":{"suspend":true}}']);
    await eventually(async () => (await jobPods('paused')).length === 0, timeout, 'pods deleted');
    const job = await getJob('paused');
    assert.deepEqual(trueConditions(job), ['Suspended/JobSuspended']);
    assert.equal((job.status.active ?? 0), 0);
  });

  it('ttlSecondsAfterFinished deletes the finished Job and its pods', async () => {
    await kubectl(['apply', '-f', '-'], jobYAML('short-lived', { ttlSecondsAfterFinished: 1 }));
    await eventually(async () => (await kubectl(['get', 'job', 'short-lived'], undefined).catch((e) => ({ stdout: '', err: e }))).stdout === '', timeout, 'job deleted');
    await eventually(async () => (await jobPods('short-lived')).length === 0, timeout, 'pods deleted');
  });

  it('kubectl create cronjob, and kubectl create job --from=cronjob/x', async () => {
    const created = await kubectl(['create', 'cronjob', 'nightly', '--image=busybox', '--schedule=0 3 * * *', '--', 'date']);
    assert.equal(created.stdout, 'cronjob.batch/nightly created\n');
    const row = (await kubectl(['get', 'cj', 'nightly', '--no-headers'])).stdout.trim().split(/\s{2,}/);
    assert.deepEqual(row.slice(0, 6), ['nightly', '0 3 * * *', '<none>', 'False', '0', '<none>']);
    const cj = JSON.parse((await kubectl(['get', 'cronjob', 'nightly', '-o', 'json'])).stdout);
    assert.deepEqual([cj.spec.concurrencyPolicy, cj.spec.successfulJobsHistoryLimit, cj.spec.failedJobsHistoryLimit, cj.spec.suspend], ['Allow', 3, 1, false]);
    assert.equal((await kubectl(['create', 'job', 'nightly-manual', '--from=cronjob/nightly'])).stdout, 'job.batch/nightly-manual created\n');
    await kubectl(['wait', '--for=condition=complete', 'job/nightly-manual', '--timeout=60s']);
    const job = await getJob('nightly-manual');
    assert.equal(job.metadata.annotations['cronjob.kubernetes.io/instantiate'], 'manual');
    assert.deepEqual([job.metadata.ownerReferences[0].kind, job.metadata.ownerReferences[0].name], ['CronJob', 'nightly']);
    const bad = await cluster.kubectl(['create', 'cronjob', 'bad', '--image=busybox', '--schedule=* * * *'], { allowFail: true });
    assert.equal(bad.stderr, 'error: failed to create cronjob: CronJob.batch "bad" is invalid: spec.schedule: Invalid value: "* * * *": expected exactly 5 fields, found 4: [* * * *]\n');
  });
});

describe('CronJob concurrency policies in simulated time (real server, injected clock)', () => {
  let cluster: Cluster;
  let clients: Clientset;
  let informers: InformerFactory;
  let controller: CronJobController;
  let now = Date.now();
  const clock: Clock = { now: () => new Date(now) };

  before(async () => {
    // No job controller: the Jobs the CronJobs start stay active, which is what the policies act on.
    cluster = await startCluster({ controllers: 'none' });
    clients = new Clientset(loadKubeconfig(cluster.kubeconfig));
    informers = new InformerFactory(clients);
    controller = new CronJobController({
      clients, informers, logger: silentLogger, clock, config: defaultControllerConfig,
      recorder: (component) => new EventRecorder(clients, component),
    });
    informers.start();
    await informers.waitForSync();
  });

  after(async () => {
    controller?.stop();
    informers?.stop();
    clients?.close();
    await cluster?.cleanup();
  });


  async function jobsOf(name: string): Promise<string[]> {
    const all = (await clients.jobs.list('default')).items;
    return all.filter((j: any) => j.metadata.ownerReferences?.[0]?.name === name && !j.metadata.deletionTimestamp).map((j: any) => j.metadata.name).sort();
  }

  /** Moves the clock to 5 s past the minute (since the epoch) and syncs each CronJob once its Jobs are in the cache. */
  async function tick(minute: number, names: string[]): Promise<void> {
    now = minute * 60_000 + 5000;
    for (const name of names) {
      await eventually(async () => {
        const cached = informers.informer('jobs').list().filter((j: any) => j.metadata.ownerReferences?.[0]?.name === name).length;
        return cached === (await clients.jobs.list('default')).items.filter((j: any) => j.metadata.ownerReferences?.[0]?.name === name).length;
      }, timeout, 'job cache');
      await eventually(async () => informers.informer('cronjobs').get(`default/${name}`), timeout, 'cronjob cache');
      await controller.syncCronJob(`default/${name}`);
    }
  }

  it('Allow runs beside, Forbid skips, Replace deletes the running Job and starts the next', async () => {
    const names = ['allow', 'forbid', 'replace'];
    const policies = ['Allow', 'Forbid', 'Replace'];
    for (let i = 0; i < 3; i++) {
      await cluster.kubectl(['create', 'cronjob', names[i], '--image=busybox', '--schedule=* * * * *']);
      await cluster.kubectl(['patch', 'cronjob', names[i], '-p', JSON.stringify({ spec: { concurrencyPolicy: policies[i] } })]);
    }
    // The CronJobs were created at the real time; the simulated clock starts at the next minute.
    const base = Math.ceil(Date.now() / 60_000);
    await tick(base, names);
    for (const n of names) assert.deepEqual(await jobsOf(n), [`${n}-${base}`]);
    await tick(base + 1, names);
    assert.deepEqual(await jobsOf('allow'), [`allow-${base}`, `allow-${base + 1}`]);
    assert.deepEqual(await jobsOf('forbid'), [`forbid-${base}`]);
    assert.deepEqual(await jobsOf('replace'), [`replace-${base + 1}`]);
    const forbid = JSON.parse((await cluster.kubectl(['get', 'cronjob', 'forbid', '-o', 'json'])).stdout);
    assert.equal(forbid.status.active.length, 1);
    assert.equal(forbid.status.lastScheduleTime, new Date(base * 60_000).toISOString().replace('.000', ''));
    const events = (await cluster.kubectl(['get', 'events', '--field-selector', 'involvedObject.name=forbid,reason=JobAlreadyActive', '-o', 'json'])).stdout;
    assert.match(events, /Not starting job because prior execution is running and concurrency policy is Forbid/);
    const allow = JSON.parse((await cluster.kubectl(['get', 'cronjob', 'allow', '-o', 'json'])).stdout);
    assert.equal(allow.status.active.length, 2);
    const job = JSON.parse((await cluster.kubectl(['get', 'job', `allow-${base + 1}`, '-o', 'json'])).stdout);
    assert.equal(job.metadata.annotations['batch.kubernetes.io/cronjob-scheduled-timestamp'], new Date((base + 1) * 60_000).toISOString().replace('.000', ''));
    const row = (await cluster.kubectl(['get', 'cj', 'allow', '--no-headers'])).stdout.trim().split(/\s{2,}/);
    assert.equal(row[4], '2');
  });
});
