/**
 * The Job controller's pure rules: completion-index intervals, the failure
 * back-off, podFailurePolicy matching, finished-pod tracking and planJob's
 * decisions (counts, indexes, back-off, failure and success conditions, suspend).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  backoffDelayMs, countUncounted, emptyBackoff, formatIndexes, matchPodFailurePolicy, newJobPod, nextBackoffRecord, parseIndexes,
  planJob, remainingBackoffMs, trackFinished, jobTrackingFinalizer, completionIndexAnnotation,
} from '../../src/controllers/job/index.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function job(spec: Partial<Job['spec']> = {}, status: Job['status'] = {}): Job {
  return {
    apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j', namespace: 'default', uid: 'job-uid' },
    spec: {
      completions: 1, parallelism: 1, backoffLimit: 6, completionMode: 'NonIndexed', podReplacementPolicy: 'TerminatingOrFailed',
      template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } }, ...spec,
    } as Job['spec'],
    status,
  };
}

let n = 0;
function pod(phase: string, opts: { index?: number; exitCode?: number; finalizer?: boolean; at?: number; deleting?: boolean; ready?: boolean; failures?: number } = {}): Pod {
  n++;
  const annotations: Record<string, string> = {};
  if (opts.index !== undefined) annotations[completionIndexAnnotation] = String(opts.index);
  if (opts.failures !== undefined) annotations['batch.kubernetes.io/job-index-failure-count'] = String(opts.failures);
  const at = iso(opts.at ?? T0);
  return {
    metadata: {
      name: `p${n}`, namespace: 'default', uid: `uid-${n}`, annotations, creationTimestamp: at,
      finalizers: opts.finalizer === false ? [] : [jobTrackingFinalizer],
      ...(opts.deleting ? { deletionTimestamp: at } : {}),
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'j', uid: 'job-uid', controller: true }],
    },
    status: {
      phase,
      conditions: opts.ready ? [{ type: 'Ready', status: 'True' }] : [],
      containerStatuses: phase === 'Succeeded' || phase === 'Failed'
        ? [{ name: 'main', image: 'busybox', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: opts.exitCode ?? (phase === 'Failed' ? 1 : 0), finishedAt: at } } }]
        : [],
    },
  };
}

/** Runs tracking, counting (as if every finalizer came off) and planning, as one sync does. */
function sync(j: Job, pods: Pod[], now = T0, backoff = emptyBackoff) {
  const tracked = trackFinished(j, pods, now);
  const released = new Set(tracked.finalizersToRemove.map((p) => p.metadata!.uid));
  const current = pods.map((p) => (released.has(p.metadata!.uid) ? { ...p, metadata: { ...p.metadata, finalizers: [] } } : p));
  const status = countUncounted(tracked.status, current);
  const record = nextBackoffRecord(backoff, tracked.finished.map((f) => ({ failed: f.failed, at: f.at })));
  return planJob({ job: { ...j, status }, pods: current, now, backoff: record, failureTarget: tracked.failureTarget });
}

const types = (s: Job['status']) => (s?.conditions ?? []).filter((c) => c.status === 'True').map((c) => `${c.type}:${c.reason}`);

describe('completion index intervals', () => {
  const cases: [string, number, number[], string][] = [
    ['', 5, [], ''],
    ['0', 5, [0], '0'],
    ['0-1', 5, [0, 1], '0,1'],
    ['0,1', 5, [0, 1], '0,1'],
    ['1,3-5,7', 10, [1, 3, 4, 5, 7], '1,3-5,7'],
    ['3-9', 5, [3, 4], '3,4'],
    ['0-2', 5, [0, 1, 2], '0-2'],
    ['x,2', 5, [2], '2'],
  ];
  for (const [text, completions, want, formatted] of cases) {
    it(`"${text}" of ${completions}`, () => {
      const got = parseIndexes(text, completions);
      assert.deepEqual([...got].sort((a, b) => a - b), want);
      assert.equal(formatIndexes(got), formatted);
    });
  }
});

describe('failure back-off', () => {
  const delays: [number, number][] = [[0, 0], [1, 10_000], [2, 20_000], [3, 40_000], [6, 320_000], [7, 360_000], [40, 360_000]];
  for (const [failures, ms] of delays) it(`${failures} failures wait ${ms} ms`, () => assert.equal(backoffDelayMs(failures), ms));

  it('a success resets the count; the wait runs from the last failure', () => {
    let r = nextBackoffRecord(emptyBackoff, [{ failed: true, at: T0 }, { failed: true, at: T0 + 5000 }]);
    assert.deepEqual(r, { failuresAfterLastSuccess: 2, lastFailureTime: T0 + 5000 });
    assert.equal(remainingBackoffMs(r, T0 + 10_000), 15_000);
    r = nextBackoffRecord(r, [{ failed: false, at: T0 + 6000 }]);
    assert.equal(r.failuresAfterLastSuccess, 0);
    assert.equal(remainingBackoffMs(r, T0 + 6000), 0);
  });
});

describe('podFailurePolicy matching', () => {
  const policy = {
    rules: [
      { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
      { action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } },
      { action: 'Count', onExitCodes: { operator: 'NotIn', values: [1, 2] } },
    ],
  };
  const spec = job({ podFailurePolicy: policy as any }).spec;
  const cases: [string, Pod, string | undefined][] = [
    ['exit 42 fails the job', pod('Failed', { exitCode: 42 }), 'FailJob'],
    ['exit 3 is counted by the NotIn rule', pod('Failed', { exitCode: 3 }), 'Count'],
    ['exit 1 matches no rule', pod('Failed', { exitCode: 1 }), undefined],
  ];
  for (const [name, p, want] of cases) it(name, () => assert.equal(matchPodFailurePolicy(spec, p)?.action, want));

  it('a pod condition pattern matches first', () => {
    const p = pod('Failed', { exitCode: 42 });
    p.status!.conditions = [{ type: 'DisruptionTarget', status: 'True' }];
    assert.equal(matchPodFailurePolicy(spec, p)?.action, 'Ignore');
  });

  it("FailJob's message names the container, pod, code and rule", () => {
    const p = pod('Failed', { exitCode: 42 });
    assert.equal(matchPodFailurePolicy(spec, p)?.message, `Container main for pod default/${p.metadata!.name} failed with exit code 42 matching FailJob rule at index 1`);
  });
});

describe('planJob', () => {
  it('a new Job starts one pod and its clock', () => {
    const plan = sync(job(), []);
    assert.equal(plan.create.length, 1);
    assert.equal(plan.status.startTime, iso(T0));
  });

  it('parallelism is capped by the remaining completions', () => {
    const plan = sync(job({ completions: 5, parallelism: 3 }), [pod('Succeeded', { finalizer: false }), pod('Succeeded', { finalizer: false }), pod('Succeeded', { finalizer: false })], T0, emptyBackoff);
    // The three succeeded pods lost their finalizers before: they are not counted again.
    assert.equal(plan.create.length, 3);
  });

  it('a succeeded pod is counted once and completes the Job through SuccessCriteriaMet', () => {
    const plan = sync(job({}, { startTime: iso(T0) }), [pod('Succeeded')], T0 + 1000);
    assert.equal(plan.status.succeeded, 1);
    assert.deepEqual(types(plan.status), ['SuccessCriteriaMet:CompletionsReached', 'Complete:CompletionsReached']);
    assert.equal(plan.status.completionTime, iso(T0 + 1000));
  });

  it('a failure waits out the back-off before the replacement', () => {
    const plan = sync(job({}, { startTime: iso(T0) }), [pod('Failed', { at: T0 })], T0 + 3000);
    assert.equal(plan.status.failed, 1);
    assert.equal(plan.create.length, 0);
    assert.equal(plan.requeueAfterMs, 7000);
  });

  it('failed > backoffLimit fails the Job', () => {
    const plan = sync(job({ backoffLimit: 1 }, { startTime: iso(T0), failed: 1 }), [pod('Failed')], T0);
    assert.deepEqual(types(plan.status), ['FailureTarget:BackoffLimitExceeded', 'Failed:BackoffLimitExceeded']);
  });

  it('activeDeadlineSeconds fails the Job and deletes its pods first', () => {
    const running = pod('Running');
    const plan = sync(job({ activeDeadlineSeconds: 5 }, { startTime: iso(T0) }), [running], T0 + 6000);
    assert.deepEqual(plan.delete, [running]);
    assert.deepEqual(types(plan.status), ['FailureTarget:DeadlineExceeded']);
    assert.equal(plan.status.terminating, 1);
  });

  it('a FailJob rule fails the Job with its message', () => {
    const policy = { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } }] };
    const plan = sync(job({ podFailurePolicy: policy as any, podReplacementPolicy: 'Failed' }, { startTime: iso(T0) }), [pod('Failed', { exitCode: 42 })], T0);
    assert.deepEqual(types(plan.status), ['FailureTarget:PodFailurePolicy', 'Failed:PodFailurePolicy']);
    assert.match(plan.status.conditions![0].message!, /failed with exit code 42 matching FailJob rule at index 0/);
  });

  it('an Ignore rule does not count the failure and replaces the pod at once', () => {
    const policy = { rules: [{ action: 'Ignore', onExitCodes: { operator: 'In', values: [7] } }] };
    const plan = sync(job({ podFailurePolicy: policy as any, podReplacementPolicy: 'Failed' }, { startTime: iso(T0) }), [pod('Failed', { exitCode: 7 })], T0);
    assert.equal(plan.status.failed, 0);
    assert.equal(plan.create.length, 1);
  });

  it('an Indexed Job creates the missing indexes only', () => {
    const plan = sync(job({ completionMode: 'Indexed', completions: 4, parallelism: 4 }, { startTime: iso(T0) }), [pod('Succeeded', { index: 1 }), pod('Running', { index: 2 })], T0);
    assert.deepEqual(plan.create.map((c) => c.index), [0, 3]);
    assert.equal(plan.status.completedIndexes, '1');
  });

  it('backoffLimitPerIndex fails an index and the Job once every index is done', () => {
    const spec = { completionMode: 'Indexed', completions: 2, parallelism: 2, backoffLimitPerIndex: 0, backoffLimit: 2147483647 } as const;
    const plan = sync(job(spec, { startTime: iso(T0) }), [pod('Succeeded', { index: 0 }), pod('Failed', { index: 1, failures: 0 })], T0);
    assert.equal(plan.status.failedIndexes, '1');
    assert.equal(plan.status.completedIndexes, '0');
    assert.deepEqual(types(plan.status), ['FailureTarget:FailedIndexes', 'Failed:FailedIndexes']);
  });

  it('backoffLimitPerIndex retries an index after its own back-off, carrying the failure count', () => {
    const spec = { completionMode: 'Indexed', completions: 2, parallelism: 2, backoffLimitPerIndex: 2, backoffLimit: 2147483647 } as const;
    const failed = pod('Failed', { index: 1, failures: 0, at: T0 });
    const early = sync(job(spec, { startTime: iso(T0) }), [pod('Running', { index: 0 }), failed], T0 + 4000);
    assert.deepEqual(early.create, []);
    assert.equal(early.requeueAfterMs, 6000);
    const later = sync(job(spec, { startTime: iso(T0), failed: 1, failedIndexes: '' }), [pod('Running', { index: 0 }), { ...failed, metadata: { ...failed.metadata, finalizers: [] } }], T0 + 10_000);
    assert.deepEqual(later.create, [{ index: 1, failureCount: 1, ignoredFailureCount: 0 }]);
  });

  it('maxFailedIndexes exceeded fails the Job at once', () => {
    const spec = { completionMode: 'Indexed', completions: 3, parallelism: 3, backoffLimitPerIndex: 0, maxFailedIndexes: 0, backoffLimit: 2147483647 } as const;
    const plan = sync(job(spec, { startTime: iso(T0) }), [pod('Running', { index: 0 }), pod('Failed', { index: 1, failures: 0 })], T0);
    assert.deepEqual(types(plan.status), ['FailureTarget:MaxFailedIndexesExceeded']);
    assert.equal(plan.delete.length, 1);
  });

  it('a successPolicy rule completes an Indexed Job early', () => {
    const spec = { completionMode: 'Indexed', completions: 3, parallelism: 3, successPolicy: { rules: [{ succeededIndexes: '0' }] } } as const;
    const plan = sync(job(spec as any, { startTime: iso(T0) }), [pod('Succeeded', { index: 0 }), pod('Running', { index: 1 })], T0);
    assert.deepEqual(types(plan.status), ['SuccessCriteriaMet:SuccessPolicy']);
    assert.equal(plan.status.conditions![0].message, 'Matched rules at index 0');
    assert.equal(plan.delete.length, 1);
  });

  it('suspend deletes active pods and keeps startTime; resume sets Suspended False and startTime anew', () => {
    const running = pod('Running');
    const suspended = sync(job({ suspend: true }, { startTime: iso(T0) }), [running], T0);
    assert.deepEqual(suspended.delete, [running]);
    assert.equal(suspended.status.startTime, iso(T0));
    // Never started: still no startTime while suspended.
    assert.equal(sync(job({ suspend: true }, {}), [], T0).status.startTime, undefined);
    assert.deepEqual(types(suspended.status), ['Suspended:JobSuspended']);
    const resumed = sync(job({ suspend: false }, suspended.status), [], T0 + 1000);
    assert.equal(resumed.status.conditions![0].status, 'False');
    assert.equal(resumed.status.conditions![0].reason, 'JobResumed');
    assert.equal(resumed.status.startTime, iso(T0 + 1000));
    assert.equal(resumed.create.length, 1);
  });

  it('restarts of OnFailure pods count against backoffLimit', () => {
    const p = pod('Running');
    p.status!.containerStatuses = [{ name: 'main', image: 'busybox', imageID: '', ready: false, restartCount: 3, state: { running: {} } }];
    const spec = { backoffLimit: 2, template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'main' }] } } };
    const plan = sync(job(spec as any, { startTime: iso(T0) }), [p], T0);
    assert.deepEqual(types(plan.status), ['FailureTarget:BackoffLimitExceeded']);
  });
});

describe('newJobPod', () => {
  it('an Indexed pod carries its index, hostname, env and the tracking finalizer', () => {
    const p = newJobPod(job({ completionMode: 'Indexed', completions: 3 }), { index: 2 });
    assert.equal(p.metadata!.generateName, 'j-2-');
    assert.equal(p.metadata!.annotations![completionIndexAnnotation], '2');
    assert.equal(p.metadata!.labels![completionIndexAnnotation], '2');
    assert.equal(p.spec!.hostname, 'j-2');
    assert.deepEqual(p.metadata!.finalizers, [jobTrackingFinalizer]);
    assert.deepEqual(p.spec!.containers[0].env, [{ name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: `metadata.annotations['${completionIndexAnnotation}']` } } }]);
    assert.equal(p.metadata!.ownerReferences![0].kind, 'Job');
  });
});
