/**
 * Jobs (batch/v1, pkg/apis/batch/validation): the generated selector and
 * labels, counts and limits, completion modes, pod failure and success
 * policies, restartPolicy Never or OnFailure; on update the selector,
 * completions, completion mode, policies and (unless the Job is suspended and
 * never started) the pod template are immutable.
 */
import { FieldError, duplicate, invalid, notSupported, required } from '../field-errors.js';
import { isDNS1123Label, isQualifiedName, nameIsDNSSubdomain } from '../names.js';
import { goLabelSelector, goStringMap } from './govalue.js';
import { labelSelectorAsSelector, validateLabelSelector } from './labels.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { validatePodTemplateSpec } from './podtemplate.js';
import { Obj, arr, child, clone, goValue, has, immutable, index, isObj, key, nonNegative, num, obj, str, strMap } from './util.js';
import { appendAll } from '../append.js';

export const legacyControllerUidLabel = 'controller-uid';
export const legacyJobNameLabel = 'job-name';
export const controllerUidLabel = 'batch.kubernetes.io/controller-uid';
export const jobNameLabel = 'batch.kubernetes.io/job-name';

const maxParallelismForIndexedJob = 100000;
const maxPodFailurePolicyRules = 20;
const failurePolicyActions = ['Count', 'FailIndex', 'FailJob', 'Ignore'];

/** ValidateHasLabel. */
function hasLabel(meta: unknown, path: string, k: string, want: string): FieldError[] {
  const labels = strMap(obj(meta).labels);
  if (!(k in labels)) return [required(key(child(path, 'labels'), k), want)];
  return labels[k] === want ? [] : [invalid(key(child(path, 'labels'), k), goStringMap(labels), `must be '${want}'`)];
}

/** validateGeneratedSelector: unless manualSelector, the template carries the generated labels and the selector matches them. */
function validateGeneratedSelector(job: Obj): FieldError[] {
  const spec = obj(job.spec);
  if (spec.manualSelector === true || !isObj(spec.selector)) return [];
  const meta = obj(job.metadata);
  const uid = str(meta.uid);
  const name = str(meta.name);
  const errs: FieldError[] = uid ? [] : [required('metadata.uid')];
  const tmeta = obj(spec.template).metadata;
  const path = 'spec.template.metadata';
  errs.push(...hasLabel(tmeta, path, legacyControllerUidLabel, uid), ...hasLabel(tmeta, path, legacyJobNameLabel, name));
  errs.push(...hasLabel(tmeta, path, controllerUidLabel, uid), ...hasLabel(tmeta, path, jobNameLabel, name));
  const expected = { [controllerUidLabel]: uid, [jobNameLabel]: name, [legacyControllerUidLabel]: uid, [legacyJobNameLabel]: name };
  const selector = labelSelectorAsSelector(spec.selector);
  if (selector && !selector.matches(expected)) errs.push(invalid('spec.selector', goLabelSelector(spec.selector), '`selector` not auto-generated'));
  return errs;
}

function validateOnExitCodes(req: Obj, path: string, containers: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const op = str(req.operator);
  if (!op) errs.push(required(child(path, 'operator'), 'valid values: ["In" "NotIn"]'));
  else if (op !== 'In' && op !== 'NotIn') errs.push(notSupported(child(path, 'operator'), op, ['In', 'NotIn']));
  if (has(req.containerName) && !containers.has(str(req.containerName))) {
    errs.push(invalid(child(path, 'containerName'), str(req.containerName), 'must be one of the container or initContainer names in the pod template'));
  }
  const values = arr(req.values) as number[];
  const vpath = child(path, 'values');
  if (values.length === 0) errs.push(invalid(vpath, goValue('[]int32(nil)'), 'at least one value is required'));
  const seen = new Set<number>();
  values.forEach((v, j) => {
    if (op === 'In' && v === 0) errs.push(invalid(index(vpath, j), v, 'must not be 0 for the In operator'));
    if (seen.has(v)) errs.push(duplicate(index(vpath, j), v)); else seen.add(v);
  });
  if (values.some((v, j) => j > 0 && values[j - 1] > v)) errs.push(invalid(vpath, goValue(`[]int32{${values.join(', ')}}`), 'must be ordered'));
  return errs;
}

function validateFailurePolicyRule(spec: Obj, rule: Obj, path: string, containers: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const action = str(rule.action);
  if (!action) errs.push(required(child(path, 'action'), 'valid values: ["Count" "FailIndex" "FailJob" "Ignore"]'));
  else if (action === 'FailIndex') {
    if (!has(spec.backoffLimitPerIndex)) errs.push(invalid(child(path, 'action'), action, 'requires the backoffLimitPerIndex to be set'));
  } else if (!failurePolicyActions.includes(action)) errs.push(notSupported(child(path, 'action'), action, failurePolicyActions));
  if (isObj(rule.onExitCodes)) appendAll(errs, validateOnExitCodes(rule.onExitCodes, child(path, 'onExitCodes'), containers));
  const patterns = arr(rule.onPodConditions).map(obj);
  patterns.forEach((p, j) => {
    const pp = index(child(path, 'onPodConditions'), j);
    appendAll(errs, isQualifiedName(str(p.type)).map((m) => invalid(child(pp, 'type'), str(p.type), m)));
    if (!['True', 'False', 'Unknown'].includes(str(p.status))) errs.push(notSupported(child(pp, 'status'), str(p.status), ['False', 'True', 'Unknown']));
  });
  if (isObj(rule.onExitCodes) && patterns.length > 0) errs.push(invalid(path, goValue(''), 'specifying both OnExitCodes and OnPodConditions is not supported'));
  if (!isObj(rule.onExitCodes) && patterns.length === 0) errs.push(invalid(path, goValue(''), 'specifying one of OnExitCodes and OnPodConditions is required'));
  return errs;
}

function validatePodFailurePolicy(spec: Obj, path: string): FieldError[] {
  const rules = arr(obj(spec.podFailurePolicy).rules).map(obj);
  const errs: FieldError[] = [];
  if (rules.length > maxPodFailurePolicyRules) errs.push({ type: 'FieldValueTooMany', field: child(path, 'rules'), value: rules.length, detail: `must have at most ${maxPodFailurePolicyRules} items` });
  const podSpec = obj(obj(spec.template).spec);
  const containers = new Set([...arr(podSpec.containers), ...arr(podSpec.initContainers)].map((c) => str(obj(c).name)));
  rules.forEach((r, i) => appendAll(errs, validateFailurePolicyRule(spec, r, index(child(path, 'rules'), i), containers)));
  return errs;
}

function validateSuccessPolicy(spec: Obj, path: string): FieldError[] {
  const rules = arr(obj(spec.successPolicy).rules).map(obj);
  const errs: FieldError[] = [];
  if (rules.length === 0) errs.push(required(child(path, 'rules'), 'at least one rules must be specified when the successPolicy is specified'));
  const completions = num(spec.completions) ?? 0;
  rules.forEach((r, i) => {
    const rp = index(child(path, 'rules'), i);
    if (!has(r.succeededCount) && !has(r.succeededIndexes)) errs.push(required(rp, 'at least one of succeededCount or succeededIndexes must be specified'));
    if (has(r.succeededCount)) {
      appendAll(errs, nonNegative(r.succeededCount, child(rp, 'succeededCount')));
      if (r.succeededCount > completions) {
        errs.push(invalid(child(rp, 'succeededCount'), r.succeededCount, `must be less than or equal to ${completions} (the number of specified completions)`));
      }
    }
  });
  return errs;
}

/** restartPolicy: Always (the pod default) or empty is "Required", as upstream words it. */
function validateRestartPolicy(spec: Obj, path: string): FieldError[] {
  const policy = str(obj(obj(spec.template).spec).restartPolicy);
  if (policy === 'Always' || policy === '') return [required(path, 'valid values: "OnFailure", "Never"')];
  if (policy !== 'OnFailure' && policy !== 'Never') return [notSupported(path, policy, ['OnFailure', 'Never'])];
  if (isObj(spec.podFailurePolicy) && policy !== 'Never') return [invalid(path, policy, 'only "Never" is supported when podFailurePolicy is specified')];
  return [];
}

function validateIndexedSpec(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!has(spec.completions)) errs.push(required(child(path, 'completions'), 'when completion mode is Indexed'));
  if (typeof spec.parallelism === 'number' && spec.parallelism > maxParallelismForIndexedJob) {
    errs.push(invalid(child(path, 'parallelism'), spec.parallelism, `must be less than or equal to ${maxParallelismForIndexedJob} when completion mode is Indexed`));
  }
  if (has(spec.completions) && has(spec.maxFailedIndexes) && spec.maxFailedIndexes > spec.completions) {
    errs.push(invalid(child(path, 'maxFailedIndexes'), spec.maxFailedIndexes, 'must be less than or equal to completions'));
  }
  return errs;
}

/** validateJobSpec: the part shared with CronJob job templates. */
export function validateJobSpecFields(specRaw: unknown, path: string): FieldError[] {
  const spec = obj(specRaw);
  const errs: FieldError[] = [];
  for (const f of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished', 'backoffLimitPerIndex', 'maxFailedIndexes']) {
    appendAll(errs, nonNegative(spec[f], child(path, f)));
  }
  if (has(spec.maxFailedIndexes) && !has(spec.backoffLimitPerIndex)) errs.push(required(child(path, 'backoffLimitPerIndex'), 'when maxFailedIndexes is specified'));
  const mode = str(spec.completionMode) || 'NonIndexed';
  if (mode !== 'NonIndexed' && mode !== 'Indexed') errs.push(notSupported(child(path, 'completionMode'), mode, ['NonIndexed', 'Indexed']));
  if (mode === 'Indexed') appendAll(errs, validateIndexedSpec(spec, path));
  if (mode === 'NonIndexed') {
    if (has(spec.backoffLimitPerIndex)) errs.push(invalid(child(path, 'backoffLimitPerIndex'), spec.backoffLimitPerIndex, 'requires indexed completion mode'));
    if (has(spec.maxFailedIndexes)) errs.push(invalid(child(path, 'maxFailedIndexes'), spec.maxFailedIndexes, 'requires indexed completion mode'));
  }
  if (isObj(spec.podFailurePolicy)) appendAll(errs, validatePodFailurePolicy(spec, child(path, 'podFailurePolicy')));
  if (isObj(spec.successPolicy)) {
    if (mode !== 'Indexed') errs.push(invalid(child(path, 'successPolicy'), goValue('batch.SuccessPolicy{...}'), 'requires indexed completion mode'));
    else appendAll(errs, validateSuccessPolicy(spec, child(path, 'successPolicy')));
  }
  if (has(spec.podReplacementPolicy)) {
    const p = str(spec.podReplacementPolicy);
    if (isObj(spec.podFailurePolicy) && p !== 'Failed') errs.push(notSupported(child(path, 'podReplacementPolicy'), p, ['Failed']));
    else if (!['Failed', 'TerminatingOrFailed'].includes(p)) errs.push(notSupported(child(path, 'podReplacementPolicy'), p, ['Failed', 'TerminatingOrFailed']));
  }
  appendAll(errs, validatePodTemplateSpec(spec.template, child(path, 'template')));
  appendAll(errs, validateRestartPolicy(spec, child(child(child(path, 'template'), 'spec'), 'restartPolicy')));
  return errs;
}

/** ValidateJobSpec: the fields plus a required selector that matches the template. */
function validateJobSpec(specRaw: unknown, path: string): FieldError[] {
  const spec = obj(specRaw);
  const errs = validateJobSpecFields(spec, path);
  if (!isObj(spec.selector)) errs.push(required(child(path, 'selector')));
  else appendAll(errs, validateLabelSelector(spec.selector, child(path, 'selector')));
  const selector = labelSelectorAsSelector(spec.selector);
  const labels = obj(obj(spec.template).metadata).labels;
  if (selector && !selector.matches(strMap(labels))) {
    errs.push(invalid(child(child(child(path, 'template'), 'metadata'), 'labels'), goStringMap(labels), '`selector` does not match template `labels`'));
  }
  return errs;
}

/** ValidateJob. */
export function validateJobCreate(job: Obj): FieldError[] {
  const errs = [...validateObjectMeta(job.metadata, true, nameIsDNSSubdomain), ...validateGeneratedSelector(job), ...validateJobSpec(job.spec, 'spec')];
  const spec = obj(job.spec);
  if (spec.completionMode === 'Indexed' && typeof spec.completions === 'number' && spec.completions > 0) {
    const hostname = `${str(obj(job.metadata).name)}-${spec.completions - 1}`;
    if (isDNS1123Label(hostname).length > 0) {
      errs.push(invalid('metadata.name', str(obj(job.metadata).name), `will not able to create pod with invalid DNS label: ${hostname}`));
    }
  }
  return errs;
}

/**
 * A suspended Job that never started may change its scheduling directives
 * (node affinity, node selector, tolerations, labels, annotations, scheduling
 * gates), so queueing systems can place it before resuming it.
 */
function comparableTemplate(template: unknown, other: unknown, mutableScheduling: boolean): unknown {
  if (!mutableScheduling) return template;
  const t = clone(obj(template));
  const o = obj(other);
  const ospec = obj(o.spec);
  t.metadata = { ...obj(t.metadata), labels: obj(o.metadata).labels, annotations: obj(o.metadata).annotations };
  t.spec = { ...obj(t.spec), nodeSelector: ospec.nodeSelector, tolerations: ospec.tolerations, schedulingGates: ospec.schedulingGates };
  const affinity = { ...obj(obj(t.spec).affinity), nodeAffinity: obj(ospec.affinity).nodeAffinity };
  t.spec.affinity = Object.values(affinity).some((v) => v !== undefined) ? affinity : undefined;
  return t;
}

function validateJobSpecUpdate(spec: Obj, old: Obj, mutableScheduling: boolean): FieldError[] {
  const shown = (v: unknown) => (v === undefined || v === null ? goValue('null') : v);
  return [
    ...immutable(spec.completions, old.completions, 'spec.completions', shown(spec.completions)),
    ...immutable(spec.selector, old.selector, 'spec.selector', isObj(spec.selector) ? goLabelSelector(spec.selector) : goValue('null')),
    ...immutable(comparableTemplate(old.template, spec.template, mutableScheduling), spec.template, 'spec.template', goValue('core.PodTemplateSpec{...}')),
    ...immutable(spec.completionMode, old.completionMode, 'spec.completionMode', shown(spec.completionMode)),
    ...immutable(spec.podFailurePolicy, old.podFailurePolicy, 'spec.podFailurePolicy', goValue('batch.PodFailurePolicy{...}')),
    ...immutable(spec.backoffLimitPerIndex, old.backoffLimitPerIndex, 'spec.backoffLimitPerIndex', shown(spec.backoffLimitPerIndex)),
    ...immutable(spec.managedBy, old.managedBy, 'spec.managedBy', shown(spec.managedBy)),
    ...immutable(spec.successPolicy, old.successPolicy, 'spec.successPolicy', goValue('batch.SuccessPolicy{...}')),
  ];
}

function validateJobStatus(status: Obj): FieldError[] {
  return ['active', 'succeeded', 'failed', 'ready', 'terminating'].flatMap((f) => nonNegative(status[f], `status.${f}`));
}

/** The strategy checks the whole Job again, then the update rules (ValidateJob + ValidateJobUpdate). */
export function validateJobUpdate(job: Obj, old: Obj, subresource?: string): FieldError[] {
  if (subresource === 'status') return [...validateObjectMetaUpdate(job.metadata, old.metadata), ...validateJobStatus(obj(job.status))];
  const oldSpec = obj(old.spec);
  const mutableScheduling = oldSpec.suspend === true && !has(obj(old.status).startTime);
  return [
    ...validateObjectMetaUpdate(job.metadata, old.metadata),
    ...validateJobSpec(job.spec, 'spec'),
    ...validateJobSpecUpdate(obj(job.spec), oldSpec, mutableScheduling),
  ];
}
