/**
 * batch/v1 defaults and validation with upstream's words: Job defaults,
 * restartPolicy, indexed-mode and policy rules, the immutable template and
 * its suspended exception, CronJob defaults, schedules, time zones and names.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { applyDefaults } from '../../src/api/defaults/index.js';
import { fieldErrorMessage } from '../../src/api/field-errors.js';
import { validateCreate, validateUpdate } from '../../src/api/validation/index.js';
import { generateSelector } from '../../src/registry/strategies/jobs.js';

const podTemplate = (restartPolicy?: string) => ({ spec: { ...(restartPolicy ? { restartPolicy } : {}), containers: [{ name: 'main', image: 'busybox' }] } });

function job(spec: Record<string, unknown> = {}, restartPolicy = 'Never'): any {
  const j: any = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'pi', namespace: 'default', uid: 'u-1' }, spec: { template: podTemplate(restartPolicy), ...spec } };
  applyDefaults('batch/v1/Job', j);
  if (j.spec.manualSelector !== true) generateSelector(j);
  return j;
}

const messages = (key: string, obj: any) => validateCreate(key, obj).map(fieldErrorMessage);

describe('Job defaults', () => {
  it('fill upstream 1.32 values', () => {
    const { spec } = job();
    assert.deepEqual(
      [spec.completions, spec.parallelism, spec.backoffLimit, spec.completionMode, spec.suspend, spec.podReplacementPolicy, spec.manualSelector],
      [1, 1, 6, 'NonIndexed', false, 'TerminatingOrFailed', false],
    );
    assert.deepEqual(spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u-1' } });
  });
  it('backoffLimitPerIndex makes backoffLimit MaxInt32; a podFailurePolicy makes podReplacementPolicy Failed', () => {
    const { spec } = job({ completionMode: 'Indexed', completions: 2, backoffLimitPerIndex: 1, podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] } });
    assert.equal(spec.backoffLimit, 2147483647);
    assert.equal(spec.podReplacementPolicy, 'Failed');
    assert.equal(spec.podFailurePolicy.rules[0].onPodConditions[0].status, 'True');
  });
});

describe('Job validation', () => {
  const cases: [string, any, string[]][] = [
    ['a valid Job', job(), []],
    ['restartPolicy left to the pod default (Always)', job({}, ''), ['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"']],
    ['Indexed without completions', job({ completionMode: 'Indexed', completions: undefined, parallelism: 2 }), ['spec.completions: Required value: when completion mode is Indexed']],
    ['backoffLimitPerIndex on a NonIndexed Job', job({ backoffLimitPerIndex: 1 }), ['spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode']],
    ['a negative parallelism', job({ parallelism: -1 }), ['spec.parallelism: Invalid value: -1: must be greater than or equal to 0']],
    ['a podFailurePolicy with OnFailure', job({ podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [1] } }] } }, 'OnFailure'),
      ['spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified']],
    ['exit code 0 with In', job({ podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [0] } }] } }),
      ['spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator']],
    ['FailIndex without backoffLimitPerIndex', job({ podFailurePolicy: { rules: [{ action: 'FailIndex', onExitCodes: { operator: 'In', values: [3] } }] } }),
      ['spec.podFailurePolicy.rules[0].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set']],
  ];
  for (const [name, obj, want] of cases) it(name, () => assert.deepEqual(messages('batch/v1/Job', obj), want));

  it('a selector that is not the generated one', () => {
    const j = job({ selector: { matchLabels: { app: 'x' } } });
    assert.ok(messages('batch/v1/Job', j).some((m) => m.startsWith('spec.selector: Invalid value: ') && m.endsWith(': `selector` not auto-generated')));
  });

  it('the template is immutable, except scheduling directives of a suspended Job that never started', () => {
    const old = job({ suspend: false });
    const changed = structuredClone(old);
    changed.spec.template.spec.nodeSelector = { disk: 'ssd' };
    assert.deepEqual(validateUpdate('batch/v1/Job', changed, old).map(fieldErrorMessage), ['spec.template: Invalid value: core.PodTemplateSpec{...}: field is immutable']);
    const suspended = job({ suspend: true });
    const moved = structuredClone(suspended);
    moved.spec.template.spec.nodeSelector = { disk: 'ssd' };
    assert.deepEqual(validateUpdate('batch/v1/Job', moved, suspended), []);
    moved.spec.template.spec.containers[0].image = 'nginx';
    assert.equal(validateUpdate('batch/v1/Job', moved, suspended).length, 1);
  });
});

function cronJob(spec: Record<string, unknown> = {}, name = 'nightly'): any {
  const cj: any = {
    apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name, namespace: 'default' },
    spec: { schedule: '0 3 * * *', jobTemplate: { spec: { template: podTemplate('OnFailure') } }, ...spec },
  };
  applyDefaults('batch/v1/CronJob', cj);
  return cj;
}

describe('CronJob defaults and validation', () => {
  it('defaults', () => {
    const { spec } = cronJob();
    assert.deepEqual([spec.concurrencyPolicy, spec.suspend, spec.successfulJobsHistoryLimit, spec.failedJobsHistoryLimit], ['Allow', false, 3, 1]);
    assert.equal(spec.jobTemplate.spec.template.spec.dnsPolicy, 'ClusterFirst');
    assert.equal(spec.jobTemplate.spec.backoffLimit, undefined);
  });
  const cases: [string, any, string[]][] = [
    ['a valid CronJob', cronJob(), []],
    ['@daily', cronJob({ schedule: '@daily' }), []],
    ['four fields', cronJob({ schedule: '* * * *' }), ['spec.schedule: Invalid value: "* * * *": expected exactly 5 fields, found 4: [* * * *]']],
    ['TZ in the schedule', cronJob({ schedule: 'TZ=UTC 0 3 * * *' }), [
      'spec.schedule: Invalid value: "TZ=UTC 0 3 * * *": expected exactly 5 fields, found 6: [TZ=UTC 0 3 * * *]',
      'spec.schedule: Invalid value: "TZ=UTC 0 3 * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
    ]],
    ['an unknown time zone', cronJob({ timeZone: 'Mars/Olympus' }), ['spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus']],
    ['Local', cronJob({ timeZone: 'Local' }), ['spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones']],
    ['a known time zone', cronJob({ timeZone: 'Europe/Berlin' }), []],
    ['an unknown concurrency policy', cronJob({ concurrencyPolicy: 'Sometimes' }), ['spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"']],
    ['a name longer than 52 characters', cronJob({}, 'a'.repeat(53)), [`metadata.name: Invalid value: "${'a'.repeat(53)}": must be no more than 52 characters`]],
    ['Always in the job template', cronJob({ jobTemplate: { spec: { template: podTemplate('Always') } } }), ['spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"']],
  ];
  for (const [name, obj, want] of cases) it(name, () => assert.deepEqual(messages('batch/v1/CronJob', obj), want));
});
