/**
 * Containers (validateContainerCommon, validateContainers, validateInitContainers):
 * name, image, termination message policy, ports, env, mounts, pull policy,
 * resources and security context, then the per-list rules (unique names, probes,
 * lifecycle, restartPolicy, host port conflicts) in upstream's order.
 */
import { FieldError, duplicate, forbidden, invalid, notFound, notSupported, required } from '../field-errors.js';
import { isDNS1123Label, isPortNum, isValidPortName, isValidPortNum } from '../names.js';
import { validateEnv, validateEnvFrom } from './env.js';
import { validateLocalDescendingPath, validatePathNoBacksteps } from './paths.js';
import { validateLifecycle, validateProbe } from './probes.js';
import { validateResourceRequirements } from './resources.js';
import { validateContainerSecurityContext } from './securitycontext.js';
import { Obj, arr, child, has, index, isObj, obj, str } from './util.js';
import { appendAll } from '../append.js';

export const supportedPortProtocols = ['SCTP', 'TCP', 'UDP'];

export interface ContainerContext {
  volumes: Map<string, Obj>;
  gracePeriod: number | undefined;
  hostUsers: boolean;
}

/**
 * validateContainerPorts. A port's member paths are made only for an error, and the Set of
 * names only once a port has one: every create of a pod with ports walks this.
 */
function validatePorts(ports: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let names: Set<string> | undefined;
  const list = arr(ports);
  for (let i = 0; i < list.length; i++) {
    const port = obj(list[i]);
    const name = str(port.name);
    if (name) {
      const msgs = isValidPortName(name);
      if (msgs.length > 0) appendAll(errs, msgs.map((msg) => invalid(child(index(path, i), 'name'), name, msg)));
      else if ((names ??= new Set()).has(name)) errs.push(duplicate(child(index(path, i), 'name'), name));
      else names.add(name);
    }
    if (!port.containerPort) errs.push(required(child(index(path, i), 'containerPort')));
    else if (!isPortNum(port.containerPort)) appendAll(errs, isValidPortNum(port.containerPort).map((msg) => invalid(child(index(path, i), 'containerPort'), port.containerPort, msg)));
    if (port.hostPort && !isPortNum(port.hostPort)) appendAll(errs, isValidPortNum(port.hostPort).map((msg) => invalid(child(index(path, i), 'hostPort'), port.hostPort, msg)));
    const protocol = str(port.protocol);
    if (!protocol) errs.push(required(child(index(path, i), 'protocol')));
    else if (!supportedPortProtocols.includes(protocol)) errs.push(notSupported(child(index(path, i), 'protocol'), protocol, supportedPortProtocols));
  }
  return errs;
}

/**
 * ValidateVolumeMounts (sub-path and propagation errors use the list's path, as upstream does).
 * A mount's member paths are made only for an error; the devices' Map only for a container with devices.
 */
function validateVolumeMounts(ctr: Obj, volumes: Map<string, Obj>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const mountPoints = new Set<string>();
  const devices = has(ctr.volumeDevices) ? new Map(arr(ctr.volumeDevices).map((d) => [str(obj(d).name), str(obj(d).devicePath)])) : undefined;
  const mounts = arr(ctr.volumeMounts);
  for (let i = 0; i < mounts.length; i++) {
    const m = obj(mounts[i]);
    const name = str(m.name);
    const mountPath = str(m.mountPath);
    if (!name) errs.push(required(child(index(path, i), 'name')));
    if (!volumes.has(name)) errs.push(notFound(child(index(path, i), 'name'), name));
    if (!mountPath) errs.push(required(child(index(path, i), 'mountPath')));
    if (mountPoints.has(mountPath)) errs.push(invalid(child(index(path, i), 'mountPath'), mountPath, 'must be unique'));
    mountPoints.add(mountPath);
    if (devices?.has(name)) errs.push(invalid(child(index(path, i), 'name'), name, 'must not already exist in volumeDevices'));
    if (devices && devices.size > 0 && [...devices.values()].includes(mountPath)) errs.push(invalid(child(index(path, i), 'mountPath'), mountPath, 'must not already exist as a path in volumeDevices'));
    if (str(m.subPath)) appendAll(errs, validateLocalDescendingPath(str(m.subPath), child(path, 'subPath')));
    if (str(m.subPathExpr)) {
      if (str(m.subPath)) errs.push(invalid(child(index(path, i), 'subPathExpr'), str(m.subPathExpr), 'subPathExpr and subPath are mutually exclusive'));
      appendAll(errs, validateLocalDescendingPath(str(m.subPathExpr), child(path, 'subPathExpr')));
    }
    if (has(m.mountPropagation)) appendAll(errs, validateMountPropagation(str(m.mountPropagation), ctr, child(path, 'mountPropagation')));
    // validateRecursiveReadOnly finds nothing in a mount without the field.
    if (has(m.recursiveReadOnly)) appendAll(errs, validateRecursiveReadOnly(m, child(path, 'recursiveReadOnly')));
  }
  return errs;
}

function validateMountPropagation(mode: string, ctr: Obj, path: string): FieldError[] {
  const supported = ['Bidirectional', 'HostToContainer', 'None'];
  const errs = supported.includes(mode) ? [] : [notSupported(path, mode, supported)];
  if (mode === 'Bidirectional' && obj(ctr.securityContext).privileged !== true) {
    errs.push(forbidden(path, 'Bidirectional mount propagation is available only to privileged containers'));
  }
  return errs;
}

function validateRecursiveReadOnly(m: Obj, path: string): FieldError[] {
  if (!has(m.recursiveReadOnly)) return [];
  const rro = str(m.recursiveReadOnly);
  if (rro === 'Disabled') return [];
  if (rro !== 'Enabled' && rro !== 'IfPossible') return [notSupported(path, rro, ['Disabled', 'Enabled', 'IfPossible'])];
  const errs: FieldError[] = [];
  if (m.readOnly !== true) errs.push(forbidden(path, 'may only be specified when readOnly is true'));
  if (has(m.mountPropagation) && m.mountPropagation !== 'None') errs.push(forbidden(path, 'may only be specified when mountPropagation is None or not specified'));
  return errs;
}

/** ValidateVolumeDevices: block devices must come from PVC-backed volumes. */
function validateVolumeDevices(ctr: Obj, volumes: Map<string, Obj>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const mounts = new Map(arr(ctr.volumeMounts).map((m) => [str(obj(m).name), str(obj(m).mountPath)]));
  const paths = new Set<string>();
  const names = new Set<string>();
  arr(ctr.volumeDevices).forEach((raw, i) => {
    const d = obj(raw);
    const p = index(path, i);
    const name = str(d.name);
    const devicePath = str(d.devicePath);
    const vol = volumes.get(name);
    if (!name) errs.push(required(child(p, 'name')));
    if (names.has(name)) errs.push(invalid(child(p, 'name'), name, 'must be unique'));
    if (vol && !isObj(vol.persistentVolumeClaim) && !isObj(vol.ephemeral)) {
      errs.push(invalid(child(p, 'name'), name, 'can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode'));
    }
    if (!vol) errs.push(notFound(child(p, 'name'), name));
    if (!devicePath) errs.push(required(child(p, 'devicePath')));
    if (paths.has(devicePath)) errs.push(invalid(child(p, 'devicePath'), devicePath, 'must be unique'));
    if (devicePath && validatePathNoBacksteps(devicePath, '').length > 0) errs.push(invalid(child(p, 'devicePath'), devicePath, "can not contain backsteps ('..')"));
    else paths.add(devicePath);
    if (mounts.has(name)) errs.push(invalid(child(p, 'name'), name, 'must not already exist in volumeMounts'));
    if ([...mounts.values()].includes(devicePath)) errs.push(invalid(child(p, 'devicePath'), devicePath, 'must not already exist as a path in volumeMounts'));
    if (name) names.add(name);
  });
  return errs;
}

/** validateContainerCommon. */
export function validateContainerCommon(raw: unknown, ctx: ContainerContext, path: string): FieldError[] {
  const ctr = obj(raw);
  const errs: FieldError[] = [];
  const name = str(ctr.name);
  if (!name) errs.push(required(child(path, 'name')));
  else appendAll(errs, isDNS1123Label(name).map((msg) => invalid(child(path, 'name'), name, msg)));
  if (!str(ctr.image)) errs.push(required(child(path, 'image')));
  const tmp = str(ctr.terminationMessagePolicy);
  if (!tmp) errs.push(required(child(path, 'terminationMessagePolicy')));
  else if (tmp !== 'File' && tmp !== 'FallbackToLogsOnError') errs.push(notSupported(child(path, 'terminationMessagePolicy'), tmp, ['File', 'FallbackToLogsOnError']));
  // As validatePodSpec's: the validators of fields a typical container leaves out run only when they are there.
  if (has(ctr.ports)) appendAll(errs, validatePorts(ctr.ports, child(path, 'ports')));
  if (has(ctr.env)) appendAll(errs, validateEnv(ctr.env, child(path, 'env')));
  if (has(ctr.envFrom)) appendAll(errs, validateEnvFrom(ctr.envFrom, child(path, 'envFrom')));
  if (has(ctr.volumeMounts)) appendAll(errs, validateVolumeMounts(ctr, ctx.volumes, child(path, 'volumeMounts')));
  if (has(ctr.volumeDevices)) appendAll(errs, validateVolumeDevices(ctr, ctx.volumes, child(path, 'volumeDevices')));
  const pull = str(ctr.imagePullPolicy);
  if (!pull) errs.push(required(child(path, 'imagePullPolicy')));
  else if (!['Always', 'IfNotPresent', 'Never'].includes(pull)) errs.push(notSupported(child(path, 'imagePullPolicy'), pull, ['Always', 'IfNotPresent', 'Never']));
  appendAll(errs, validateResourceRequirements(ctr.resources, child(path, 'resources')));
  if (has(ctr.securityContext)) appendAll(errs, validateContainerSecurityContext(ctr.securityContext, ctx.hostUsers, child(path, 'securityContext')));
  return errs;
}

/** AccumulateUniqueHostPorts over the given containers, reported at `path[ci].ports[pi].hostPort`. */
function checkHostPortConflicts(containers: unknown[], path: string): FieldError[] {
  const seen = new Set<string>();
  const errs: FieldError[] = [];
  containers.forEach((c, ci) => {
    arr(obj(c).ports).forEach((raw, pi) => {
      const port = obj(raw);
      if (!port.hostPort) return;
      const id = `${str(port.protocol)}/${str(port.hostIP)}/${port.hostPort}`;
      if (seen.has(id)) errs.push(duplicate(child(index(child(index(path, ci), 'ports'), pi), 'hostPort'), id));
      else seen.add(id);
    });
  });
  return errs;
}

/** validateContainers: the regular containers. */
export function validateContainers(containers: unknown, ctx: ContainerContext, path: string): FieldError[] {
  const list = arr(containers);
  if (list.length === 0) return [required(path)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  list.forEach((raw, i) => {
    const ctr = obj(raw);
    const p = index(path, i);
    appendAll(errs, validateContainerCommon(ctr, ctx, p));
    if (names.has(str(ctr.name))) errs.push(duplicate(child(p, 'name'), str(ctr.name)));
    else names.add(str(ctr.name));
    if (isObj(ctr.lifecycle)) appendAll(errs, validateLifecycle(ctr.lifecycle, ctx.gracePeriod, child(p, 'lifecycle')));
    if (has(ctr.livenessProbe)) appendAll(errs, validateProbe(ctr.livenessProbe, 'liveness', ctx.gracePeriod, child(p, 'livenessProbe')));
    if (has(ctr.readinessProbe)) appendAll(errs, validateProbe(ctr.readinessProbe, 'readiness', ctx.gracePeriod, child(p, 'readinessProbe')));
    if (has(ctr.startupProbe)) appendAll(errs, validateProbe(ctr.startupProbe, 'startup', ctx.gracePeriod, child(p, 'startupProbe')));
    if (has(ctr.restartPolicy)) errs.push(forbidden(child(p, 'restartPolicy'), 'may not be set for non-init containers'));
  });
  appendAll(errs, checkHostPortConflicts(list, path));
  return errs;
}

/** validateInitContainers: names unique across regular and init containers; sidecars may have probes. */
export function validateInitContainers(initContainers: unknown, containers: unknown, ctx: ContainerContext, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set(arr(containers).map((c) => str(obj(c).name)));
  arr(initContainers).forEach((raw, i) => {
    const ctr = obj(raw);
    const p = index(path, i);
    appendAll(errs, validateContainerCommon(ctr, ctx, p));
    let sidecar = false;
    if (has(ctr.restartPolicy)) {
      if (ctr.restartPolicy !== 'Always') errs.push(notSupported(child(p, 'restartPolicy'), str(ctr.restartPolicy), ['Always']));
      sidecar = ctr.restartPolicy === 'Always';
    }
    const name = str(ctr.name);
    if (names.has(name)) errs.push(duplicate(child(p, 'name'), name));
    else if (name) names.add(name);
    appendAll(errs, checkHostPortConflicts([ctr], path));
    if (sidecar) {
      if (isObj(ctr.lifecycle)) appendAll(errs, validateLifecycle(ctr.lifecycle, ctx.gracePeriod, child(p, 'lifecycle')));
      appendAll(errs, validateProbe(ctr.livenessProbe, 'liveness', ctx.gracePeriod, child(p, 'livenessProbe')));
      appendAll(errs, validateProbe(ctr.readinessProbe, 'readiness', ctx.gracePeriod, child(p, 'readinessProbe')));
      appendAll(errs, validateProbe(ctr.startupProbe, 'startup', ctx.gracePeriod, child(p, 'startupProbe')));
    } else {
      for (const f of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe']) {
        if (has(ctr[f])) errs.push(forbidden(child(p, f), 'may not be set for init containers without restartPolicy=Always'));
      }
    }
  });
  return errs;
}

/** validateContainerOnlyForPod: pods (not templates) reject padded images. */
export function validateContainerOnlyForPod(c: unknown, path: string): FieldError[] {
  const image = str(obj(c).image);
  return image.trim() !== image ? [invalid(child(path, 'image'), image, 'must not have leading or trailing whitespace')] : [];
}

export function validateContainersOnlyForPod(containers: unknown, path: string): FieldError[] {
  return arr(containers).flatMap((c, i) => validateContainerOnlyForPod(c, index(path, i)));
}
