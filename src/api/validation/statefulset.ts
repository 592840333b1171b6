/**
 * StatefulSets (apps/v1). Upstream checks the template's labels, annotations and
 * restart rules but not the pod spec itself (its volumes may come from
 * volumeClaimTemplates). On update only replicas, ordinals, template,
 * updateStrategy, revisionHistoryLimit, persistentVolumeClaimRetentionPolicy and
 * minReadySeconds may change.
 */
import { FieldError, forbidden, invalid, notSupported, required } from '../field-errors.js';
import { nameIsDNSLabel } from '../names.js';
import { goIntOrString, goJSON, goLabelSelector, goPointer, goStruct } from './govalue.js';
import { intOrPercentValue, isNotMoreThan100Percent, validatePositiveIntOrPercent } from './intorpercent.js';
import { labelSelectorAsSelector, selectorIsEmpty, validateLabelSelector, validateLabels } from './labels.js';
import { validateAnnotations, validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { selectorMismatch, templateRestartRules, validatePodSpecificAnnotations } from './podtemplate.js';
import { Obj, child, clone, deepEqual, goQuote, has, isObj, nonNegative, obj, str } from './util.js';
import { appendAll } from '../append.js';

const updateForbidden = "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', "
  + "'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

function validateUpdateStrategy(strategy: unknown, path: string): FieldError[] {
  const s = obj(strategy);
  switch (s.type) {
    case undefined:
    case null:
    case '':
      return [required(path)];
    case 'OnDelete':
      return isObj(s.rollingUpdate) ? [invalid(child(path, 'rollingUpdate'), goJSON(s.rollingUpdate), "only allowed for updateStrategy 'RollingUpdate'")] : [];
    case 'RollingUpdate': {
      if (!isObj(s.rollingUpdate)) return [];
      const ru = s.rollingUpdate;
      const p = child(path, 'rollingUpdate');
      const errs = nonNegative(ru.partition, child(p, 'partition'));
      if (has(ru.maxUnavailable)) {
        appendAll(errs, validatePositiveIntOrPercent(ru.maxUnavailable, child(p, 'maxUnavailable')));
        if (intOrPercentValue(ru.maxUnavailable) === 0) errs.push(invalid(child(p, 'maxUnavailable'), goIntOrString(ru.maxUnavailable), 'cannot be 0'));
        appendAll(errs, isNotMoreThan100Percent(ru.maxUnavailable, child(p, 'maxUnavailable')));
      }
      return errs;
    }
    default: {
      const shown = goStruct('apps.StatefulSetUpdateStrategy', [['Type', goQuote(str(s.type))], ['RollingUpdate', goPointer('apps.RollingUpdateStatefulSetStrategy', s.rollingUpdate)]]);
      return [invalid(path, shown, "must be 'RollingUpdate' or 'OnDelete'")];
    }
  }
}

function validateRetentionPolicy(policy: unknown, path: string): FieldError[] {
  if (!isObj(policy)) return [];
  return ['whenDeleted', 'whenScaled'].flatMap((f) =>
    (['Retain', 'Delete'].includes(str(policy[f])) ? [] : [notSupported(child(path, f), str(policy[f]), ['Retain', 'Delete'])]));
}

/** ValidateStatefulSetSpec. */
export function validateStatefulSetSpec(specRaw: unknown, path: string): FieldError[] {
  const spec = obj(specRaw);
  const errs: FieldError[] = [];
  const policy = str(spec.podManagementPolicy);
  if (!policy) errs.push(required(child(path, 'podManagementPolicy')));
  else if (policy !== 'OrderedReady' && policy !== 'Parallel') errs.push(invalid(child(path, 'podManagementPolicy'), policy, "must be 'OrderedReady' or 'Parallel'"));
  appendAll(errs, validateUpdateStrategy(spec.updateStrategy, child(path, 'updateStrategy')));
  appendAll(errs, validateRetentionPolicy(spec.persistentVolumeClaimRetentionPolicy, child(path, 'persistentVolumeClaimRetentionPolicy')));
  appendAll(errs, nonNegative(spec.replicas, child(path, 'replicas')));
  appendAll(errs, nonNegative(spec.minReadySeconds, child(path, 'minReadySeconds')));
  if (has(spec.revisionHistoryLimit)) appendAll(errs, nonNegative(spec.revisionHistoryLimit, child(path, 'revisionHistoryLimit')));
  if (isObj(spec.ordinals)) appendAll(errs, nonNegative(spec.ordinals.start, child(path, 'ordinals.start')));
  if (!isObj(spec.selector)) {
    errs.push(required(child(path, 'selector')));
  } else {
    appendAll(errs, validateLabelSelector(spec.selector, child(path, 'selector')));
    if (selectorIsEmpty(spec.selector)) errs.push(invalid(child(path, 'selector'), goLabelSelector(spec.selector), 'empty selector is invalid for statefulset'));
  }
  const selector = labelSelectorAsSelector(spec.selector);
  const tplPath = child(path, 'template');
  if (!selector) {
    errs.push(invalid(child(path, 'selector'), goLabelSelector(spec.selector), ''));
  } else {
    if (!selector.empty) appendAll(errs, selectorMismatch(selector, spec.template, child(child(tplPath, 'metadata'), 'labels')));
    const meta = obj(obj(spec.template).metadata);
    appendAll(errs, validateLabels(meta.labels, child(tplPath, 'labels')));
    appendAll(errs, validateAnnotations(meta.annotations, child(tplPath, 'annotations')));
    appendAll(errs, validatePodSpecificAnnotations(meta.annotations, obj(spec.template).spec, child(tplPath, 'annotations')));
  }
  appendAll(errs, templateRestartRules(spec.template, tplPath, 'StatefulSet'));
  return errs;
}

export function validateStatefulSetCreate(sts: Obj): FieldError[] {
  return [...validateObjectMeta(sts.metadata, true, nameIsDNSLabel), ...validateStatefulSetSpec(sts.spec, 'spec')];
}

/** ValidateStatefulSetUpdate: the name is not revalidated (older names were subdomains). */
export function validateStatefulSetUpdate(sts: Obj, old: Obj): FieldError[] {
  const errs = [...validateObjectMetaUpdate(sts.metadata, old.metadata), ...validateStatefulSetSpec(sts.spec, 'spec')];
  const n = clone(obj(sts.spec));
  const o = obj(old.spec);
  for (const f of ['replicas', 'template', 'updateStrategy', 'minReadySeconds', 'ordinals', 'persistentVolumeClaimRetentionPolicy', 'revisionHistoryLimit']) {
    n[f] = o[f];
  }
  if (!deepEqual(n, o)) errs.push(forbidden('spec', updateForbidden));
  return errs;
}
