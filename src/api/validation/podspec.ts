/**
 * ValidatePodSpec, in upstream's order. `resourceIsPod` is true for Pods and false
 * for templates embedded in workloads (where hostPort 0 is still allowed with
 * hostNetwork, since it is defaulted when the pod is created).
 */
import { FieldError, duplicate, forbidden, invalid, notSupported, required } from '../field-errors.js';
import { inclusiveRangeError, isDNS1123Label, isQualifiedName, nameIsDNSSubdomain } from '../names.js';
import { validateAffinity } from './affinity.js';
import { validateEphemeralContainers } from './ephemeral.js';
import { ContainerContext, validateContainers, validateInitContainers } from './container.js';
import { validateIP } from './ip.js';
import { validateLabelName, validateLabelSelector, validateLabels } from './labels.js';
import { validateResourceRequirements } from './resources.js';
import { validatePodSecurityContext } from './securitycontext.js';
import { goJSON } from './govalue.js';
import { validateTolerations } from './tolerations.js';
import { Obj, arr, child, has, index, isObj, obj, str, validateName } from './util.js';
import { validateVolumes } from './volumes.js';
import { appendAll } from '../append.js';

export interface PodSpecOptions { resourceIsPod: boolean }

const maxInt32 = 2147483647;

function validateHostNetworkDeps(spec: Obj, path: string, opts: PodSpecOptions): FieldError[] {
  if (spec.hostNetwork !== true) return [];
  const errs: FieldError[] = [];
  arr(spec.containers).forEach((c, i) => {
    arr(obj(c).ports).forEach((raw, j) => {
      const port = obj(raw);
      const hp = typeof port.hostPort === 'number' ? port.hostPort : 0;
      const cp = typeof port.containerPort === 'number' ? port.containerPort : 0;
      if ((opts.resourceIsPod || hp !== 0) && hp !== cp) {
        errs.push(invalid(child(index(child(index(child(path, 'containers'), i), 'ports'), j), 'hostPort'), hp, 'must match `containerPort` when `hostNetwork` is true'));
      }
    });
  });
  return errs;
}

function validateEnum(value: unknown, supported: string[], path: string): FieldError[] {
  const v = str(value);
  if (!v) return [required(path)];
  return supported.includes(v) ? [] : [notSupported(path, v, supported)];
}

function validateDNSConfig(spec: Obj, path: string): FieldError[] {
  const cfg = spec.dnsConfig;
  if (spec.dnsPolicy === 'None') {
    if (!isObj(cfg)) return [required(path, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (arr(cfg.nameservers).length === 0) return [required(child(path, 'nameservers'), 'must provide at least one DNS nameserver when `dnsPolicy` is None')];
  }
  if (!isObj(cfg)) return [];
  const errs: FieldError[] = [];
  const nameservers = arr(cfg.nameservers).map(str);
  const searches = arr(cfg.searches).map(str);
  if (nameservers.length > 3) errs.push(invalid(child(path, 'nameservers'), goJSON(nameservers), 'must not have more than 3 nameservers'));
  nameservers.forEach((ns, i) => appendAll(errs, validateIP(index(child(path, 'nameservers'), i), ns)));
  if (searches.length > 32) errs.push(invalid(child(path, 'searches'), goJSON(searches), 'must not have more than 32 search paths'));
  if (searches.join(' ').length > 2048) errs.push(invalid(child(path, 'searches'), goJSON(searches), 'must not have more than 2048 characters (including spaces) in the search list'));
  searches.forEach((s, i) => appendAll(errs, validateName(s.replace(/\.$/, ''), index(child(path, 'searches'), i), nameIsDNSSubdomain)));
  arr(cfg.options).forEach((o, i) => {
    if (!str(obj(o).name)) errs.push(required(index(child(path, 'options'), i), 'must not be empty'));
  });
  return errs;
}

function validateTopologySpread(constraints: unknown, path: string): FieldError[] {
  const list = arr(constraints).map(obj);
  const errs: FieldError[] = [];
  list.forEach((c, i) => {
    const p = index(path, i);
    if (!(typeof c.maxSkew === 'number' && c.maxSkew > 0)) errs.push(invalid(child(p, 'maxSkew'), c.maxSkew ?? 0, 'must be greater than zero'));
    if (!str(c.topologyKey)) errs.push(required(child(p, 'topologyKey'), 'can not be empty'));
    if (!['DoNotSchedule', 'ScheduleAnyway'].includes(str(c.whenUnsatisfiable))) {
      errs.push(notSupported(child(p, 'whenUnsatisfiable'), str(c.whenUnsatisfiable), ['DoNotSchedule', 'ScheduleAnyway']));
    }
    if (list.slice(i + 1).some((o) => o.topologyKey === c.topologyKey && o.whenUnsatisfiable === c.whenUnsatisfiable)) {
      errs.push(duplicate(child(p, '{topologyKey, whenUnsatisfiable}'), `{${str(c.topologyKey)}, ${str(c.whenUnsatisfiable)}}`));
    }
    if (has(c.minDomains)) {
      if (!(c.minDomains > 0)) errs.push(invalid(child(p, 'minDomains'), c.minDomains, 'must be greater than zero'));
      if (c.whenUnsatisfiable !== 'DoNotSchedule') {
        errs.push(invalid(child(p, 'minDomains'), c.minDomains, `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${str(c.whenUnsatisfiable)}`));
      }
    }
    for (const f of ['nodeAffinityPolicy', 'nodeTaintsPolicy']) {
      if (has(c[f]) && !['Honor', 'Ignore'].includes(str(c[f]))) errs.push(notSupported(child(p, f), str(c[f]), ['Honor', 'Ignore']));
    }
    const keys = arr(c.matchLabelKeys).map(str);
    if (keys.length > 0 && !isObj(c.labelSelector)) errs.push(forbidden(child(p, 'matchLabelKeys'), 'must not be specified when labelSelector is not set'));
    keys.forEach((k, j) => appendAll(errs, validateLabelName(k, index(child(p, 'matchLabelKeys'), j))));
    appendAll(errs, validateLabelSelector(c.labelSelector, child(p, 'labelSelector')));
  });
  return errs;
}

function validateGates(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  arr(spec.readinessGates).forEach((g, i) => {
    const t = str(obj(g).conditionType);
    appendAll(errs, isQualifiedName(t).map((msg) => invalid(child(index(child(path, 'readinessGates'), i), 'conditionType'), t, msg)));
  });
  const seen = new Set<string>();
  arr(spec.schedulingGates).forEach((g, i) => {
    const name = str(obj(g).name);
    const p = index(child(path, 'schedulingGates'), i);
    appendAll(errs, isQualifiedName(name).map((msg) => invalid(p, name, msg)));
    if (seen.has(name)) errs.push(duplicate(p, name));
    seen.add(name);
  });
  return errs;
}

function validateNames(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ['serviceAccountName', 'nodeName']) if (str(spec[f])) appendAll(errs, validateName(str(spec[f]), child(path, f), nameIsDNSSubdomain));
  if (has(spec.activeDeadlineSeconds) && (spec.activeDeadlineSeconds < 1 || spec.activeDeadlineSeconds > maxInt32)) {
    errs.push(invalid(child(path, 'activeDeadlineSeconds'), spec.activeDeadlineSeconds, inclusiveRangeError(1, maxInt32)));
  }
  for (const f of ['hostname', 'subdomain']) {
    if (str(spec[f])) appendAll(errs, isDNS1123Label(str(spec[f])).map((msg) => invalid(child(path, f), str(spec[f]), msg)));
  }
  return errs;
}

function validateScheduling(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (arr(spec.tolerations).length > 0) appendAll(errs, validateTolerations(spec.tolerations, child(path, 'tolerations')));
  arr(spec.hostAliases).forEach((a, i) => {
    const p = index(child(path, 'hostAliases'), i);
    appendAll(errs, validateIP(child(p, 'ip'), str(obj(a).ip)));
    arr(obj(a).hostnames).forEach((h, j) => appendAll(errs, validateName(str(h), index(child(p, 'hostnames'), j), nameIsDNSSubdomain)));
  });
  if (str(spec.priorityClassName)) appendAll(errs, validateName(str(spec.priorityClassName), child(path, 'priorityClassName'), nameIsDNSSubdomain));
  if (has(spec.runtimeClassName)) appendAll(errs, validateName(str(spec.runtimeClassName), child(path, 'runtimeClassName'), nameIsDNSSubdomain));
  if (has(spec.preemptionPolicy)) appendAll(errs, validateEnum(spec.preemptionPolicy, ['PreemptLowerPriority', 'Never'], child(path, 'preemptionPolicy')));
  if (has(spec.overhead)) appendAll(errs, validateResourceRequirements({ limits: spec.overhead }, child(path, 'overhead')));
  if (isObj(spec.os)) {
    if (!str(spec.os.name)) errs.push(required(child(child(path, 'os'), 'name'), 'cannot be empty'));
    else if (!['linux', 'windows'].includes(str(spec.os.name))) errs.push(notSupported(child(path, 'os'), str(spec.os.name), ['linux', 'windows']));
  }
  return errs;
}

function validateHostUsers(spec: Obj, path: string): FieldError[] {
  if (spec.hostUsers !== false) return [];
  const errs: FieldError[] = [];
  if (spec.hostNetwork === true) errs.push(forbidden(child(path, 'hostNetwork'), 'when `pod.Spec.HostUsers` is false'));
  if (spec.hostPID === true) errs.push(forbidden(child(path, 'HostPID'), 'when `pod.Spec.HostUsers` is false'));
  if (spec.hostIPC === true) errs.push(forbidden(child(path, 'HostIPC'), 'when `pod.Spec.HostUsers` is false'));
  return errs;
}

/** ValidatePodSpec; `podName` is set only for real pods (ephemeral PVC names depend on it). */
export function validatePodSpec(specRaw: unknown, podName: string, path: string, opts: PodSpecOptions): FieldError[] {
  const spec = obj(specRaw);
  const errs: FieldError[] = [];
  if (!has(spec.terminationGracePeriodSeconds)) errs.push(required(child(path, 'terminationGracePeriodSeconds')));
  const gracePeriod = typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : undefined;
  const vols = validateVolumes(spec.volumes, podName, child(path, 'volumes'));
  appendAll(errs, vols.errors);
  const ctx: ContainerContext = { volumes: vols.volumes, gracePeriod, hostUsers: spec.hostUsers !== false };
  appendAll(errs, validateContainers(spec.containers, ctx, child(path, 'containers')));
  // The validators of fields a typical pod leaves out run only when the field is there (each returns
  // no errors without it): a fresh server then neither runs nor compiles them, and TurboFan spends
  // validatePodSpec's inlining budget on the ones every pod needs (bench/RESULTS.md `cold12`).
  if (has(spec.initContainers)) appendAll(errs, validateInitContainers(spec.initContainers, spec.containers, ctx, child(path, 'initContainers')));
  if (has(spec.ephemeralContainers)) appendAll(errs, validateEphemeralContainers(spec, ctx, child(path, 'ephemeralContainers')));
  if (spec.hostNetwork === true) appendAll(errs, validateHostNetworkDeps(spec, path, opts));
  appendAll(errs, validateEnum(spec.restartPolicy, ['Always', 'OnFailure', 'Never'], child(path, 'restartPolicy')));
  appendAll(errs, validateEnum(spec.dnsPolicy, ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'], child(path, 'dnsPolicy')));
  if (has(spec.nodeSelector)) appendAll(errs, validateLabels(spec.nodeSelector, child(path, 'nodeSelector')));
  appendAll(errs, validatePodSecurityContext(spec, child(path, 'securityContext')));
  arr(spec.imagePullSecrets).forEach((s, i) => {
    if (Object.keys(obj(s)).some((k) => k !== 'name')) errs.push(invalid(index(child(path, 'imagePullSecrets'), i), goJSON(s), 'only name may be set'));
  });
  if (has(spec.affinity)) appendAll(errs, validateAffinity(spec.affinity, child(path, 'affinity')));
  if (has(spec.dnsConfig) || spec.dnsPolicy === 'None') appendAll(errs, validateDNSConfig(spec, child(path, 'dnsConfig')));
  if (has(spec.readinessGates) || has(spec.schedulingGates)) appendAll(errs, validateGates(spec, path));
  if (has(spec.topologySpreadConstraints)) appendAll(errs, validateTopologySpread(spec.topologySpreadConstraints, child(path, 'topologySpreadConstraints')));
  if (spec.hostUsers === false) appendAll(errs, validateHostUsers(spec, path));
  appendAll(errs, validateNames(spec, path));
  appendAll(errs, validateScheduling(spec, path));
  return errs;
}
