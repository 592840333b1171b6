/**
 * Deployments and ReplicaSets (apps/v1): replicas >= 0, a required non-empty
 * selector matching the template, a valid pod template with restartPolicy
 * Always, and for Deployments the strategy and progress deadline. On update the
 * selector is immutable.
 */
import { FieldError, forbidden, invalid, notSupported, required } from '../field-errors.js';
import { nameIsDNSSubdomain } from '../names.js';
import { goIntOrString, goLabelSelector, goPointer, goStruct } from './govalue.js';
import { intOrPercentValue, isNotMoreThan100Percent, validatePositiveIntOrPercent } from './intorpercent.js';
import { labelSelectorAsSelector, selectorIsEmpty, validateLabelSelector } from './labels.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { validateTemplateForReplicaSet } from './podtemplate.js';
import { selectorShown } from './daemonset.js';
import { Obj, child, goQuote, has, immutable, isObj, nonNegative, obj, str } from './util.js';
import { appendAll } from '../append.js';

/** The selector rules shared by Deployments and ReplicaSets. */
function validateSelectorAndTemplate(spec: Obj, path: string, kind: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!isObj(spec.selector)) {
    errs.push(required(child(path, 'selector')));
  } else {
    appendAll(errs, validateLabelSelector(spec.selector, child(path, 'selector')));
    if (selectorIsEmpty(spec.selector)) errs.push(invalid(child(path, 'selector'), goLabelSelector(spec.selector), 'empty selector is invalid for deployment'));
  }
  const selector = labelSelectorAsSelector(spec.selector);
  if (!selector) errs.push(invalid(child(path, 'selector'), goLabelSelector(spec.selector), 'invalid label selector'));
  else appendAll(errs, validateTemplateForReplicaSet(spec.template, selector, child(path, 'template'), kind));
  return errs;
}

function validateStrategy(strategy: unknown, path: string): FieldError[] {
  const s = obj(strategy);
  if (s.type === 'Recreate') {
    return isObj(s.rollingUpdate) ? [forbidden(child(path, 'rollingUpdate'), "may not be specified when strategy `type` is 'Recreate'")] : [];
  }
  if (s.type === 'RollingUpdate') {
    if (!isObj(s.rollingUpdate)) return [required(child(path, 'rollingUpdate'), 'this should be defaulted and never be nil')];
    const ru = s.rollingUpdate;
    const p = child(path, 'rollingUpdate');
    const errs = [
      ...validatePositiveIntOrPercent(ru.maxUnavailable, child(p, 'maxUnavailable')),
      ...validatePositiveIntOrPercent(ru.maxSurge, child(p, 'maxSurge')),
    ];
    if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0) {
      errs.push(invalid(child(p, 'maxUnavailable'), goIntOrString(ru.maxUnavailable), 'may not be 0 when `maxSurge` is 0'));
    }
    appendAll(errs, isNotMoreThan100Percent(ru.maxUnavailable, child(p, 'maxUnavailable')));
    return errs;
  }
  const shown = goStruct('apps.DeploymentStrategy', [['Type', goQuote(str(s.type))], ['RollingUpdate', goPointer('apps.RollingUpdateDeployment', s.rollingUpdate)]]);
  return [notSupported(path, shown, ['Recreate', 'RollingUpdate'])];
}

/** ValidateDeploymentSpec. */
export function validateDeploymentSpec(specRaw: unknown, path: string): FieldError[] {
  const spec = obj(specRaw);
  const errs = [...nonNegative(spec.replicas, child(path, 'replicas')), ...validateSelectorAndTemplate(spec, path, 'ReplicaSet')];
  appendAll(errs, validateStrategy(spec.strategy, child(path, 'strategy')));
  appendAll(errs, nonNegative(spec.minReadySeconds, child(path, 'minReadySeconds')));
  if (has(spec.revisionHistoryLimit)) appendAll(errs, nonNegative(spec.revisionHistoryLimit, child(path, 'revisionHistoryLimit')));
  if (has(spec.progressDeadlineSeconds)) {
    appendAll(errs, nonNegative(spec.progressDeadlineSeconds, child(path, 'progressDeadlineSeconds')));
    if (spec.progressDeadlineSeconds <= (spec.minReadySeconds ?? 0)) {
      errs.push(invalid(child(path, 'progressDeadlineSeconds'), spec.progressDeadlineSeconds, 'must be greater than minReadySeconds'));
    }
  }
  return errs;
}

/** ValidateReplicaSetSpec. */
export function validateReplicaSetSpec(specRaw: unknown, path: string): FieldError[] {
  const spec = obj(specRaw);
  return [
    ...nonNegative(spec.replicas, child(path, 'replicas')),
    ...nonNegative(spec.minReadySeconds, child(path, 'minReadySeconds')),
    ...validateSelectorAndTemplate(spec, path, 'ReplicaSet'),
  ];
}

export const validateDeploymentCreate = (d: Obj) =>
  [...validateObjectMeta(d.metadata, true, nameIsDNSSubdomain), ...validateDeploymentSpec(d.spec, 'spec')];

export const validateReplicaSetCreate = (rs: Obj) =>
  [...validateObjectMeta(rs.metadata, true, nameIsDNSSubdomain), ...validateReplicaSetSpec(rs.spec, 'spec')];

const selectorImmutable = (n: Obj, o: Obj) => immutable(obj(n.spec).selector, obj(o.spec).selector, 'spec.selector', selectorShown(obj(n.spec).selector));

export const validateDeploymentUpdate = (d: Obj, old: Obj) =>
  [...validateObjectMetaUpdate(d.metadata, old.metadata), ...validateDeploymentSpec(d.spec, 'spec'), ...selectorImmutable(d, old)];

export const validateReplicaSetUpdate = (rs: Obj, old: Obj) =>
  [...validateObjectMetaUpdate(rs.metadata, old.metadata), ...validateReplicaSetSpec(rs.spec, 'spec'), ...selectorImmutable(rs, old)];
