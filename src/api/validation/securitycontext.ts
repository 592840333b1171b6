/**
 * Pod and container security contexts: id ranges, sysctls, seccomp and AppArmor
 * profiles, fsGroupChangePolicy, procMount and privilege-escalation consistency.
 * Windows options are not checked.
 */
import { FieldError, invalid, notSupported, required, tooLong, duplicate } from '../field-errors.js';
import { isValidGroupID, isValidUserID } from '../names.js';
import { goJSON } from './govalue.js';
import { validateLocalDescendingPath } from './paths.js';
import { arr, child, has, index, isObj, obj, str } from './util.js';
import { appendAll } from '../append.js';

const sysctlSegmentFmt = '[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const sysctlRegexText = `^(${sysctlSegmentFmt}[\\./])*${sysctlSegmentFmt}$`;
const sysctlRe = new RegExp(sysctlRegexText);

function ids(value: unknown, path: string, check: (n: number) => string[]): FieldError[] {
  return typeof value === 'number' ? check(value).map((msg) => invalid(path, value, msg)) : [];
}

/** validateSeccompProfileField. */
export function validateSeccompProfile(sp: unknown, path: string): FieldError[] {
  if (!isObj(sp)) return [];
  const errs: FieldError[] = [];
  const types = ['Localhost', 'RuntimeDefault', 'Unconfined'];
  const type = str(sp.type);
  if (!type) errs.push(required(child(path, 'type'), 'type is required when seccompProfile is set'));
  else if (!types.includes(type)) errs.push(notSupported(child(path, 'type'), type, types));
  if (type === 'Localhost') {
    if (!has(sp.localhostProfile)) errs.push(required(child(path, 'localhostProfile'), 'must be set when seccomp type is Localhost'));
    else appendAll(errs, validateLocalDescendingPath(str(sp.localhostProfile), child(path, 'localhostProfile')));
  } else if (has(sp.localhostProfile)) {
    errs.push(invalid(child(path, 'localhostProfile'), goJSON(sp), 'can only be set when seccomp type is Localhost'));
  }
  return errs;
}

/** ValidateAppArmorProfileField. */
export function validateAppArmorProfile(p: unknown, path: string): FieldError[] {
  if (!isObj(p)) return [];
  const type = str(p.type);
  switch (type) {
    case 'Localhost': {
      const profile = p.localhostProfile;
      if (!has(profile)) return [required(child(path, 'localhostProfile'), 'must be set when AppArmor type is Localhost')];
      const s = str(profile);
      if (s.trim() !== s) return [invalid(child(path, 'localhostProfile'), s, 'must not be padded with whitespace')];
      if (s === '') return [required(child(path, 'localhostProfile'), 'must be set when AppArmor type is Localhost')];
      return Buffer.byteLength(s) > 4095 ? [tooLong(child(path, 'localhostProfile'), 4095)] : [];
    }
    case 'RuntimeDefault':
    case 'Unconfined':
      return has(p.localhostProfile) ? [invalid(child(path, 'localhostProfile'), str(p.localhostProfile), 'can only be set when AppArmor type is Localhost')] : [];
    case '':
      return [required(child(path, 'type'), 'type is required when appArmorProfile is set')];
    default:
      return [notSupported(child(path, 'type'), type, ['Localhost', 'RuntimeDefault', 'Unconfined'])];
  }
}

function sysctlNamespace(name: string): 'net' | 'ipc' | undefined {
  const n = name.replace(/\//g, '.');
  if (n.startsWith('net.')) return 'net';
  if (['kernel.shm', 'kernel.msg', 'kernel.sem', 'fs.mqueue.'].some((p) => n.startsWith(p))) return 'ipc';
  return undefined;
}

function validateSysctls(spec: Record<string, any>, sysctls: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  arr(sysctls).forEach((raw, i) => {
    const name = str(obj(raw).name);
    const p = child(index(path, i), 'name');
    if (!name) errs.push(required(p));
    else if (name.length > 253 || !sysctlRe.test(name)) errs.push(invalid(p, name, `must have at most 253 characters and match regex ${sysctlRegexText}`));
    else if (seen.has(name)) errs.push(duplicate(p, name));
    const ns = sysctlNamespace(name);
    if (spec.hostNetwork === true && ns === 'net') errs.push(invalid(p, name, "may not be specified when 'hostNetwork' is true"));
    if (spec.hostIPC === true && ns === 'ipc') errs.push(invalid(p, name, "may not be specified when 'hostIPC' is true"));
    seen.add(name);
  });
  return errs;
}

/** validatePodSpecSecurityContext. */
export function validatePodSecurityContext(spec: Record<string, any>, path: string): FieldError[] {
  const sc = spec.securityContext;
  if (!isObj(sc)) return [];
  const errs: FieldError[] = [
    ...ids(sc.fsGroup, child(path, 'fsGroup'), isValidGroupID),
    ...ids(sc.runAsUser, child(path, 'runAsUser'), isValidUserID),
    ...ids(sc.runAsGroup, child(path, 'runAsGroup'), isValidGroupID),
  ];
  arr(sc.supplementalGroups).forEach((g, i) => appendAll(errs, ids(g, index(child(path, 'supplementalGroups'), i), isValidGroupID)));
  if (spec.shareProcessNamespace === true && spec.hostPID === true) {
    errs.push(invalid(child(path, 'shareProcessNamespace'), true, 'ShareProcessNamespace and HostPID cannot both be enabled'));
  }
  if (arr(sc.sysctls).length > 0) appendAll(errs, validateSysctls(spec, sc.sysctls, child(path, 'sysctls')));
  if (has(sc.fsGroupChangePolicy) && !['Always', 'OnRootMismatch'].includes(str(sc.fsGroupChangePolicy))) {
    errs.push(notSupported(child(path, 'fsGroupChangePolicy'), str(sc.fsGroupChangePolicy), ['Always', 'OnRootMismatch']));
  }
  appendAll(errs, validateSeccompProfile(sc.seccompProfile, child(path, 'seccompProfile')));
  appendAll(errs, validateAppArmorProfile(sc.appArmorProfile, child(path, 'appArmorProfile')));
  if (has(sc.supplementalGroupsPolicy) && !['Merge', 'Strict'].includes(str(sc.supplementalGroupsPolicy))) {
    errs.push(notSupported(child(path, 'supplementalGroupsPolicy'), str(sc.supplementalGroupsPolicy), ['Merge', 'Strict']));
  }
  return errs;
}

/** ValidateSecurityContext for one container. */
export function validateContainerSecurityContext(sc: unknown, hostUsers: boolean, path: string): FieldError[] {
  if (!isObj(sc)) return [];
  const errs: FieldError[] = [
    ...ids(sc.runAsUser, child(path, 'runAsUser'), isValidUserID),
    ...ids(sc.runAsGroup, child(path, 'runAsGroup'), isValidGroupID),
  ];
  if (has(sc.procMount)) {
    if (!['Default', 'Unmasked'].includes(str(sc.procMount))) errs.push(notSupported(child(path, 'procMount'), str(sc.procMount), ['Default', 'Unmasked']));
    if (hostUsers && sc.procMount === 'Unmasked') errs.push(invalid(child(path, 'procMount'), 'Unmasked', '`hostUsers` must be false to use `Unmasked`'));
  }
  appendAll(errs, validateSeccompProfile(sc.seccompProfile, child(path, 'seccompProfile')));
  if (sc.allowPrivilegeEscalation === false) {
    if (sc.privileged === true) errs.push(invalid(path, goJSON(sc), 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
    if (arr(obj(sc.capabilities).add).includes('CAP_SYS_ADMIN')) {
      errs.push(invalid(path, goJSON(sc), 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'));
    }
  }
  appendAll(errs, validateAppArmorProfile(sc.appArmorProfile, child(path, 'appArmorProfile')));
  return errs;
}
