/**
 * validateEphemeralContainers (ValidatePodSpec's part for spec.ephemeralContainers), v1.32:
 *
 *  1. Each one passes validateContainerCommon (name, image, env, volume
 *     mounts, security context ...) and validateContainerOnlyForPod.
 *  2. Its name is unique among every container of the pod: containers, init
 *     containers and the ephemeral containers before it.
 *  3. targetContainerName, when set, names a container or init container
 *     (never another ephemeral container).
 *  4. Fields that would make it part of the workload are refused, in the Go
 *     struct's order: ports, resources, resizePolicy, restartPolicy, the
 *     three probes and lifecycle ("cannot be set for an Ephemeral Container").
 *     Upstream keeps a list of allowed fields, so a field it adds later is
 *     refused until considered; the refused ones are listed here instead.
 *  5. Volume mounts may not use subPath or subPathExpr (bind mounts that
 *     would outlive the container until the pod exits).
 */
import { FieldError, duplicate, forbidden, notFound } from '../field-errors.js';
import { ContainerContext, validateContainerCommon, validateContainerOnlyForPod } from './container.js';
import { Obj, arr, child, has, index, isObj, obj, str } from './util.js';
import { appendAll } from '../append.js';

const ephemeralOnly = 'cannot be set for an Ephemeral Container';

/** The fields of EphemeralContainerCommon upstream's allow-list leaves out, in struct order. */
const refusedFields = ['ports', 'resources', 'resizePolicy', 'restartPolicy', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle'];

/**
 * Whether a field differs from its Go zero value (validateFieldAllowList's test):
 * a slice, map or pointer is set when present; `resources` is a struct, set when
 * any of its members is (the API server writes it as `{}` when empty).
 */
function isSet(field: string, value: unknown): boolean {
  if (!has(value)) return false;
  if (field === 'resources') return isObj(value) && Object.values(value).some(has);
  return true;
}

/** Rules 4 and 5 for one ephemeral container. */
function validateEphemeralOnly(ec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of refusedFields) if (isSet(f, ec[f])) errs.push(forbidden(child(path, f), ephemeralOnly));
  arr(ec.volumeMounts).forEach((m, i) => {
    const p = index(child(path, 'volumeMounts'), i);
    if (str(obj(m).subPath)) errs.push(forbidden(child(p, 'subPath'), ephemeralOnly));
    if (str(obj(m).subPathExpr)) errs.push(forbidden(child(p, 'subPathExpr'), ephemeralOnly));
  });
  return errs;
}

export function validateEphemeralContainers(spec: Obj, ctx: ContainerContext, path: string): FieldError[] {
  const list = arr(spec.ephemeralContainers);
  if (list.length === 0) return [];
  const others = new Set([...arr(spec.containers), ...arr(spec.initContainers)].map((c) => str(obj(c).name)));
  const all = new Set(others);
  const errs: FieldError[] = [];
  list.forEach((raw, i) => {
    const ec = obj(raw);
    const p = index(path, i);
    appendAll(errs, validateContainerCommon(ec, ctx, p));
    appendAll(errs, validateContainerOnlyForPod(ec, p));
    const name = str(ec.name);
    if (all.has(name)) errs.push(duplicate(child(p, 'name'), name));
    else all.add(name);
    const target = str(ec.targetContainerName);
    if (target && !others.has(target)) errs.push(notFound(child(p, 'targetContainerName'), target));
    appendAll(errs, validateEphemeralOnly(ec, p));
  });
  return errs;
}
