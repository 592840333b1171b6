/**
 * DaemonSets (apps/v1): the selector must match the template labels (a missing
 * selector matches nothing), the template is a valid pod template with
 * restartPolicy Always, the update strategy is RollingUpdate (exactly one of
 * maxUnavailable and maxSurge non-zero) or OnDelete; on update the selector is immutable.
 */
import { FieldError, invalid, notSupported, required } from '../field-errors.js';
import { nameIsDNSSubdomain } from '../names.js';
import { goIntOrString, goLabelSelector, goPointer, goStruct } from './govalue.js';
import { intOrPercentValue, isNotMoreThan100Percent, validatePositiveIntOrPercent } from './intorpercent.js';
import { labelSelectorAsSelector, selectorIsEmpty, validateLabelSelector } from './labels.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { selectorMismatch, templateRestartRules, validatePodTemplateSpec } from './podtemplate.js';
import { Obj, child, goQuote, has, immutable, isObj, nonNegative, obj, str } from './util.js';
import { appendAll } from '../append.js';

/** ValidateRollingUpdateDaemonSet. */
function validateRollingUpdate(ru: Obj, path: string): FieldError[] {
  const errs = [
    ...validatePositiveIntOrPercent(ru.maxUnavailable, child(path, 'maxUnavailable')),
    ...validatePositiveIntOrPercent(ru.maxSurge, child(path, 'maxSurge')),
    ...isNotMoreThan100Percent(ru.maxUnavailable, child(path, 'maxUnavailable')),
    ...isNotMoreThan100Percent(ru.maxSurge, child(path, 'maxSurge')),
  ];
  const hasUnavailable = intOrPercentValue(ru.maxUnavailable) !== 0;
  const hasSurge = intOrPercentValue(ru.maxSurge) !== 0;
  if (hasUnavailable && hasSurge) errs.push(invalid(child(path, 'maxSurge'), goIntOrString(ru.maxSurge), 'may not be set when maxUnavailable is non-zero'));
  if (!hasUnavailable && !hasSurge) errs.push(required(child(path, 'maxUnavailable'), 'cannot be 0 when maxSurge is 0'));
  return errs;
}

/** ValidateDaemonSetUpdateStrategy. */
function validateUpdateStrategy(strategy: unknown, path: string): FieldError[] {
  const s = obj(strategy);
  if (s.type === 'OnDelete') return [];
  if (s.type === 'RollingUpdate') {
    if (!isObj(s.rollingUpdate)) return [required(child(path, 'rollingUpdate'))];
    return validateRollingUpdate(s.rollingUpdate, child(path, 'rollingUpdate'));
  }
  const shown = goStruct('apps.DaemonSetUpdateStrategy', [['Type', goQuote(str(s.type))], ['RollingUpdate', goPointer('apps.RollingUpdateDaemonSet', s.rollingUpdate)]]);
  return [notSupported(path, shown, ['RollingUpdate', 'OnDelete'])];
}

/** ValidateDaemonSetSpec. */
export function validateDaemonSetSpec(specRaw: unknown, path: string): FieldError[] {
  const spec = obj(specRaw);
  const errs = validateLabelSelector(spec.selector, child(path, 'selector'));
  const selector = labelSelectorAsSelector(spec.selector);
  if (selector) appendAll(errs, selectorMismatch(selector, spec.template, child(child(child(path, 'template'), 'metadata'), 'labels')));
  if (isObj(spec.selector) && selectorIsEmpty(spec.selector)) {
    errs.push(invalid(child(path, 'selector'), goLabelSelector(spec.selector), 'empty selector is invalid for daemonset'));
  }
  appendAll(errs, validatePodTemplateSpec(spec.template, child(path, 'template')));
  appendAll(errs, templateRestartRules(spec.template, child(path, 'template'), 'DaemonSet'));
  appendAll(errs, nonNegative(spec.minReadySeconds, child(path, 'minReadySeconds')));
  appendAll(errs, validateUpdateStrategy(spec.updateStrategy, child(path, 'updateStrategy')));
  if (has(spec.revisionHistoryLimit)) appendAll(errs, nonNegative(spec.revisionHistoryLimit, child(path, 'revisionHistoryLimit')));
  return errs;
}

export function validateDaemonSetCreate(ds: Obj): FieldError[] {
  return [...validateObjectMeta(ds.metadata, true, nameIsDNSSubdomain), ...validateDaemonSetSpec(ds.spec, 'spec')];
}

/** The strategy validates the new object, the update, and (for apps/v1) an immutable selector. */
export function validateDaemonSetUpdate(ds: Obj, old: Obj): FieldError[] {
  return [
    ...validateDaemonSetCreate(ds),
    ...validateObjectMetaUpdate(ds.metadata, old.metadata),
    ...validateDaemonSetSpec(ds.spec, 'spec'),
    ...immutable(obj(ds.spec).selector, obj(old.spec).selector, 'spec.selector', selectorShown(obj(ds.spec).selector)),
  ];
}

/** A changed selector is shown dereferenced, or as "null" when removed. */
export const selectorShown = (sel: unknown) => (isObj(sel) ? goLabelSelector(sel) : 'null');
