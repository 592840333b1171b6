/**
 * Container environment: env vars (names relaxed as in 1.32, exactly one valueFrom
 * source) and envFrom sources.
 */
import { FieldError, invalid, required } from '../field-errors.js';
import { isConfigMapKey, isRelaxedEnvVarName, nameIsDNSSubdomain } from '../names.js';
import { envFieldPaths, validateObjectFieldSelector, validateResourceFieldSelector } from './downwardapi.js';
import { arr, child, has, index, isObj, obj, str, validateName } from './util.js';
import { appendAll } from '../append.js';

function keySelector(sel: unknown, path: string): FieldError[] {
  const s = obj(sel);
  const errs = validateName(str(s.name), child(path, 'name'), nameIsDNSSubdomain);
  if (!str(s.key)) errs.push(required(child(path, 'key')));
  else appendAll(errs, isConfigMapKey(str(s.key)).map((msg) => invalid(child(path, 'key'), str(s.key), msg)));
  return errs;
}

/** validateEnvVarValueFrom. */
function validateValueFrom(ev: Record<string, any>, path: string): FieldError[] {
  if (!has(ev.valueFrom)) return [];
  const from = obj(ev.valueFrom);
  const errs: FieldError[] = [];
  let sources = 0;
  if (isObj(from.fieldRef)) {
    sources++;
    appendAll(errs, validateObjectFieldSelector(from.fieldRef, envFieldPaths, child(path, 'fieldRef')));
  }
  if (isObj(from.resourceFieldRef)) {
    sources++;
    appendAll(errs, validateResourceFieldSelector(from.resourceFieldRef, child(path, 'resourceFieldRef'), false));
  }
  for (const kind of ['configMapKeyRef', 'secretKeyRef']) {
    if (!isObj(from[kind])) continue;
    sources++;
    appendAll(errs, keySelector(from[kind], child(path, kind)));
  }
  if (sources === 0) errs.push(invalid(path, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
  else if (str(ev.value)) errs.push(invalid(path, '', 'may not be specified when `value` is not empty'));
  else if (sources > 1) errs.push(invalid(path, '', 'may not have more than one field specified at a time'));
  return errs;
}

/** ValidateEnv. */
export function validateEnv(vars: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  arr(vars).forEach((raw, i) => {
    const ev = obj(raw);
    const p = index(path, i);
    const name = str(ev.name);
    if (!name) errs.push(required(child(p, 'name')));
    else appendAll(errs, isRelaxedEnvVarName(name).map((msg) => invalid(child(p, 'name'), name, msg)));
    appendAll(errs, validateValueFrom(ev, child(p, 'valueFrom')));
  });
  return errs;
}

/** ValidateEnvFrom: a prefix must be a valid name; exactly one of configMapRef and secretRef. */
export function validateEnvFrom(sources: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  arr(sources).forEach((raw, i) => {
    const ev = obj(raw);
    const p = index(path, i);
    const prefix = str(ev.prefix);
    if (prefix) appendAll(errs, isRelaxedEnvVarName(prefix).map((msg) => invalid(child(p, 'prefix'), prefix, msg)));
    let count = 0;
    for (const kind of ['configMapRef', 'secretRef']) {
      if (!isObj(ev[kind])) continue;
      count++;
      const name = str(ev[kind].name);
      if (!name) errs.push(required(child(child(p, kind), 'name')));
      else appendAll(errs, validateName(name, child(child(p, kind), 'name'), nameIsDNSSubdomain, true));
    }
    if (count === 0) errs.push(invalid(path, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (count > 1) errs.push(invalid(path, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}
