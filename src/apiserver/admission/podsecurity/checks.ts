/**
 * The Pod Security Standards' checks (baseline and restricted), each with the
 * versions it applies from and its reason and detail texts, worded as
 * upstream's pod-security-admission policy package words them so that
 * kubectl shows the same `violates PodSecurity "restricted:latest": ...`.
 * Only the versions up to the one k8ts serves (1.32) are known; a namespace
 * asking for a newer version gets 1.32's checks, as upstream caps at its own.
 */
import type { Container, EphemeralContainer, PodSpec, SecurityContext, PodSecurityContext } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { Level, Version } from './levels.js';

export interface CheckResult { allowed: boolean; reason?: string; detail?: string }
type CheckPod = (meta: ObjectMeta, spec: PodSpec) => CheckResult;

interface VersionedCheck { minimumVersion: Version; checkPod: CheckPod; overrides?: string[] }
interface Check { id: string; level: Exclude<Level, 'privileged'>; versions: VersionedCheck[] }

const allowed: CheckResult = { allowed: true };
const plural = (singular: string, pluralForm: string, n: number) => (n === 1 ? singular : pluralForm);
const joinQuote = (items: readonly string[]) => (items.length ? `"${items.join('", "')}"` : '');
const sortedUnique = (items: Iterable<string>) => [...new Set(items)].sort();
const containersPhrase = (names: string[]) => `${plural('container', 'containers', names.length)} ${joinQuote(names)}`;
const isWindows = (spec: PodSpec) => spec.os?.name === 'windows';

/** Init containers, then containers, then ephemeral containers (upstream's visitContainers). */
function containers(spec: PodSpec): Array<Container | EphemeralContainer> {
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])];
}
const sc = (c: Container | EphemeralContainer): SecurityContext | undefined => c.securityContext;
const podSC = (spec: PodSpec): PodSecurityContext | undefined => spec.securityContext;

// --- baseline ---

const appArmorAnnotationPrefix = 'container.apparmor.security.beta.kubernetes.io/';
function appArmorProfile(meta: ObjectMeta, spec: PodSpec): CheckResult {
  const okType = (t: string | undefined) => t === 'RuntimeDefault' || t === 'Localhost';
  const okAnnotation = (v: string) => v === '' || v === 'runtime/default' || v.startsWith('localhost/');
  const setters: string[] = [];
  const values = new Set<string>();
  const pod = podSC(spec)?.appArmorProfile;
  if (pod && !okType(pod.type)) { setters.push('pod'); values.add(pod.type); }
  const bad: string[] = [];
  for (const c of containers(spec)) {
    const p = sc(c)?.appArmorProfile;
    if (p && !okType(p.type)) { bad.push(c.name); values.add(p.type); }
  }
  if (bad.length) setters.push(containersPhrase(bad));
  const annotations = Object.entries(meta.annotations ?? {})
    .filter(([k, v]) => k.startsWith(appArmorAnnotationPrefix) && !okAnnotation(v))
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`).sort();
  const valueList = [...sortedUnique(values), ...annotations];
  if (annotations.length) setters.push(plural('annotation', 'annotations', annotations.length));
  if (!setters.length) return allowed;
  return {
    allowed: false, reason: plural('forbidden AppArmor profile', 'forbidden AppArmor profiles', valueList.length),
    detail: `${setters.join(' and ')} must not set AppArmor profile type to ${joinQuote(valueList)}`,
  };
}

const defaultCapabilities = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);
function capabilitiesBaseline(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const bad: string[] = [];
  const caps = new Set<string>();
  for (const c of containers(spec)) {
    const added = (sc(c)?.capabilities?.add ?? []).filter((cap) => !defaultCapabilities.has(cap));
    if (added.length) { bad.push(c.name); for (const cap of added) caps.add(cap); }
  }
  if (!bad.length) return allowed;
  return { allowed: false, reason: 'non-default capabilities', detail: `${containersPhrase(bad)} must not include ${joinQuote(sortedUnique(caps))} in securityContext.capabilities.add` };
}

function hostNamespaces(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const set = [spec.hostNetwork && 'hostNetwork=true', spec.hostPID && 'hostPID=true', spec.hostIPC && 'hostIPC=true'].filter((s): s is string => !!s);
  return set.length ? { allowed: false, reason: 'host namespaces', detail: set.join(', ') } : allowed;
}

function hostPathVolumes(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const names = (spec.volumes ?? []).filter((v) => v.hostPath).map((v) => v.name);
  return names.length ? { allowed: false, reason: 'hostPath volumes', detail: `${plural('volume', 'volumes', names.length)} ${joinQuote(names)}` } : allowed;
}

function hostPorts(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const bad: string[] = [];
  const ports = new Set<string>();
  for (const c of containers(spec)) {
    const used = (c.ports ?? []).filter((p) => p.hostPort);
    if (used.length) { bad.push(c.name); for (const p of used) ports.add(String(p.hostPort)); }
  }
  if (!bad.length) return allowed;
  const list = sortedUnique(ports);
  return {
    allowed: false, reason: 'hostPort',
    detail: `${containersPhrase(bad)} ${plural('uses', 'use', bad.length)} ${plural('hostPort', 'hostPorts', list.length)} ${list.join(', ')}`,
  };
}

function privileged(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const bad = containers(spec).filter((c) => sc(c)?.privileged === true).map((c) => c.name);
  return bad.length ? { allowed: false, reason: 'privileged', detail: `${containersPhrase(bad)} must not set securityContext.privileged=true` } : allowed;
}

function procMount(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const bad: string[] = [];
  const types = new Set<string>();
  for (const c of containers(spec)) {
    const pm = sc(c)?.procMount;
    if (pm !== undefined && pm !== 'Default') { bad.push(c.name); types.add(pm); }
  }
  if (!bad.length) return allowed;
  return { allowed: false, reason: 'procMount', detail: `${containersPhrase(bad)} must not set securityContext.procMount to ${joinQuote(sortedUnique(types))}` };
}

function seLinuxOptions(allowedTypes: ReadonlySet<string>): CheckPod {
  return (_meta, spec) => {
    const setters: string[] = [];
    const badTypes = new Set<string>();
    let setUser = false;
    let setRole = false;
    const valid = (o: { type?: string; user?: string; role?: string }) => {
      let ok = true;
      if (!allowedTypes.has(o.type ?? '')) { ok = false; badTypes.add(o.type ?? ''); }
      if (o.user) { ok = false; setUser = true; }
      if (o.role) { ok = false; setRole = true; }
      return ok;
    };
    const pod = podSC(spec)?.seLinuxOptions;
    if (pod && !valid(pod)) setters.push('pod');
    const bad = containers(spec).filter((c) => { const o = sc(c)?.seLinuxOptions; return o ? !valid(o) : false; }).map((c) => c.name);
    if (bad.length) setters.push(containersPhrase(bad));
    if (!setters.length) return allowed;
    const data: string[] = [];
    if (badTypes.size) data.push(`${plural('type', 'types', badTypes.size)} ${joinQuote(sortedUnique(badTypes))}`);
    if (setUser) data.push('user may not be set');
    if (setRole) data.push('role may not be set');
    return { allowed: false, reason: 'seLinuxOptions', detail: `${setters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}` };
  };
}

const validSeccompType = (t: string | undefined) => t === 'RuntimeDefault' || t === 'Localhost';
const seccompPodAnnotation = 'seccomp.security.alpha.kubernetes.io/pod';
const seccompContainerAnnotationPrefix = 'container.seccomp.security.alpha.kubernetes.io/';

function seccompBaseline_1_0(meta: ObjectMeta, spec: PodSpec): CheckResult {
  const okValue = (v: string) => v === 'runtime/default' || v === 'docker/default' || v.startsWith('localhost/');
  const forbidden = new Set<string>();
  const annotations = meta.annotations ?? {};
  const pod = annotations[seccompPodAnnotation];
  if (pod !== undefined && !okValue(pod)) forbidden.add(`${seccompPodAnnotation}=${JSON.stringify(pod)}`);
  for (const c of containers(spec)) {
    const key = seccompContainerAnnotationPrefix + c.name;
    const v = annotations[key];
    if (v !== undefined && !okValue(v)) forbidden.add(`${key}=${JSON.stringify(v)}`);
  }
  if (!forbidden.size) return allowed;
  return { allowed: false, reason: 'seccompProfile', detail: `forbidden ${plural('annotation', 'annotations', forbidden.size)} ${sortedUnique(forbidden).join(', ')}` };
}

/** Explicitly bad seccomp types (pod, containers); with `requireSet`, also containers left unconfined by pod and container alike. */
function seccomp(spec: PodSpec, requireSet: boolean): CheckResult {
  const setters: string[] = [];
  const values = new Set<string>();
  let podSet = false;
  const pod = podSC(spec)?.seccompProfile;
  if (pod) {
    if (!validSeccompType(pod.type)) { setters.push('pod'); values.add(pod.type); } else podSet = true;
  }
  const bad: string[] = [];
  const unset: string[] = [];
  for (const c of containers(spec)) {
    const p = sc(c)?.seccompProfile;
    if (p) {
      if (!validSeccompType(p.type)) { bad.push(c.name); values.add(p.type); }
    } else if (!podSet) unset.push(c.name);
  }
  if (bad.length) setters.push(containersPhrase(bad));
  if (setters.length) {
    return { allowed: false, reason: 'seccompProfile', detail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedUnique(values))}` };
  }
  if (requireSet && unset.length) {
    return { allowed: false, reason: 'seccompProfile', detail: `pod or ${containersPhrase(unset)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"` };
  }
  return allowed;
}

const sysctls1_0 = ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start'];
const sysctls1_27 = [...sysctls1_0, 'net.ipv4.ip_local_reserved_ports'];
const sysctls1_29 = [...sysctls1_27, 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes'];
const sysctls1_32 = [...sysctls1_29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'];
function sysctls(allowedNames: readonly string[]): CheckPod {
  const ok = new Set(allowedNames);
  return (_meta, spec) => {
    const bad = (podSC(spec)?.sysctls ?? []).map((s) => s.name).filter((n) => !ok.has(n));
    return bad.length ? { allowed: false, reason: 'forbidden sysctls', detail: bad.join(', ') } : allowed;
  };
}

function windowsHostProcess(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const setters: string[] = [];
  if (podSC(spec)?.windowsOptions?.hostProcess === true) setters.push('pod');
  const bad = containers(spec).filter((c) => sc(c)?.windowsOptions?.hostProcess === true).map((c) => c.name);
  if (bad.length) setters.push(containersPhrase(bad));
  return setters.length ? { allowed: false, reason: 'hostProcess', detail: `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true` } : allowed;
}

// --- restricted ---

function allowPrivilegeEscalation(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const bad = containers(spec).filter((c) => sc(c)?.allowPrivilegeEscalation !== false).map((c) => c.name);
  return bad.length ? { allowed: false, reason: 'allowPrivilegeEscalation != false', detail: `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false` } : allowed;
}

function capabilitiesRestricted(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const missingDrop: string[] = [];
  const adding: string[] = [];
  const caps = new Set<string>();
  for (const c of containers(spec)) {
    const capabilities = sc(c)?.capabilities;
    if (!capabilities) { missingDrop.push(c.name); continue; }
    if (!(capabilities.drop ?? []).includes('ALL')) missingDrop.push(c.name);
    const added = (capabilities.add ?? []).filter((cap) => cap !== 'NET_BIND_SERVICE');
    if (added.length) { adding.push(c.name); for (const cap of added) caps.add(cap); }
  }
  const details: string[] = [];
  if (missingDrop.length) details.push(`${containersPhrase(missingDrop)} must set securityContext.capabilities.drop=["ALL"]`);
  if (adding.length) details.push(`${containersPhrase(adding)} must not include ${joinQuote(sortedUnique(caps))} in securityContext.capabilities.add`);
  return details.length ? { allowed: false, reason: 'unrestricted capabilities', detail: details.join('; ') } : allowed;
}

const allowedVolumeSources = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'image', 'persistentVolumeClaim', 'projected', 'secret'];
const restrictedVolumeSources = ['hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'nfs', 'iscsi', 'glusterfs', 'rbd', 'flexVolume',
  'cinder', 'cephfs', 'flocker', 'fc', 'azureFile', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'portworxVolume', 'scaleIO', 'storageos'];
function restrictedVolumes(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const bad: string[] = [];
  const types = new Set<string>();
  for (const v of spec.volumes ?? []) {
    const source = v as unknown as Record<string, unknown>;
    if (allowedVolumeSources.some((k) => source[k] != null)) continue;
    bad.push(v.name);
    types.add(restrictedVolumeSources.find((k) => source[k] != null) ?? 'unknown');
  }
  if (!bad.length) return allowed;
  const list = sortedUnique(types);
  return {
    allowed: false, reason: 'restricted volume types',
    detail: `${plural('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${plural('uses', 'use', bad.length)} ${plural('restricted volume type', 'restricted volume types', list.length)} ${joinQuote(list)}`,
  };
}

function runAsNonRoot(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const setters: string[] = [];
  let podNonRoot = false;
  const pod = podSC(spec)?.runAsNonRoot;
  if (pod !== undefined) { if (!pod) setters.push('pod'); else podNonRoot = true; }
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of containers(spec)) {
    const v = sc(c)?.runAsNonRoot;
    if (v !== undefined) { if (!v) explicit.push(c.name); } else if (!podNonRoot) implicit.push(c.name);
  }
  if (explicit.length) setters.push(containersPhrase(explicit));
  if (setters.length) return { allowed: false, reason: 'runAsNonRoot != true', detail: `${setters.join(' and ')} must not set securityContext.runAsNonRoot=false` };
  if (implicit.length) return { allowed: false, reason: 'runAsNonRoot != true', detail: `pod or ${containersPhrase(implicit)} must set securityContext.runAsNonRoot=true` };
  return allowed;
}

function runAsUser(_meta: ObjectMeta, spec: PodSpec): CheckResult {
  const setters: string[] = [];
  if (podSC(spec)?.runAsUser === 0) setters.push('pod');
  const bad = containers(spec).filter((c) => sc(c)?.runAsUser === 0).map((c) => c.name);
  if (bad.length) setters.push(containersPhrase(bad));
  return setters.length ? { allowed: false, reason: 'runAsUser=0', detail: `${setters.join(' and ')} must not set runAsUser=0` } : allowed;
}

const notOnWindows = (check: CheckPod): CheckPod => (meta, spec) => (isWindows(spec) ? allowed : check(meta, spec));

/** Every check with the versions it applies from (upstream's registry, up to 1.32). */
const checks: Check[] = [
  { id: 'appArmorProfile', level: 'baseline', versions: [{ minimumVersion: 0, checkPod: appArmorProfile }] },
  { id: 'capabilities_baseline', level: 'baseline', versions: [{ minimumVersion: 0, checkPod: capabilitiesBaseline }] },
  { id: 'hostNamespaces', level: 'baseline', versions: [{ minimumVersion: 0, checkPod: hostNamespaces }] },
  { id: 'hostPathVolumes', level: 'baseline', versions: [{ minimumVersion: 0, checkPod: hostPathVolumes }] },
  { id: 'hostPorts', level: 'baseline', versions: [{ minimumVersion: 0, checkPod: hostPorts }] },
  { id: 'privileged', level: 'baseline', versions: [{ minimumVersion: 0, checkPod: privileged }] },
  { id: 'procMount', level: 'baseline', versions: [{ minimumVersion: 0, checkPod: procMount }] },
  { id: 'seLinuxOptions', level: 'baseline', versions: [
    { minimumVersion: 0, checkPod: seLinuxOptions(new Set(['', 'container_t', 'container_init_t', 'container_kvm_t'])) },
    { minimumVersion: 31, checkPod: seLinuxOptions(new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t'])) },
  ] },
  { id: 'seccompProfile_baseline', level: 'baseline', versions: [
    { minimumVersion: 0, checkPod: seccompBaseline_1_0 },
    { minimumVersion: 19, checkPod: (_meta, spec) => seccomp(spec, false) },
  ] },
  { id: 'sysctls', level: 'baseline', versions: [
    { minimumVersion: 0, checkPod: sysctls(sysctls1_0) }, { minimumVersion: 27, checkPod: sysctls(sysctls1_27) },
    { minimumVersion: 29, checkPod: sysctls(sysctls1_29) }, { minimumVersion: 32, checkPod: sysctls(sysctls1_32) },
  ] },
  { id: 'windowsHostProcess', level: 'baseline', versions: [{ minimumVersion: 0, checkPod: windowsHostProcess }] },
  { id: 'allowPrivilegeEscalation', level: 'restricted', versions: [
    { minimumVersion: 8, checkPod: allowPrivilegeEscalation }, { minimumVersion: 25, checkPod: notOnWindows(allowPrivilegeEscalation) },
  ] },
  { id: 'capabilities_restricted', level: 'restricted', versions: [
    { minimumVersion: 22, checkPod: capabilitiesRestricted, overrides: ['capabilities_baseline'] },
    { minimumVersion: 25, checkPod: notOnWindows(capabilitiesRestricted), overrides: ['capabilities_baseline'] },
  ] },
  { id: 'restrictedVolumes', level: 'restricted', versions: [{ minimumVersion: 0, checkPod: restrictedVolumes, overrides: ['hostPathVolumes'] }] },
  { id: 'runAsNonRoot', level: 'restricted', versions: [{ minimumVersion: 0, checkPod: runAsNonRoot }] },
  { id: 'runAsUser', level: 'restricted', versions: [{ minimumVersion: 23, checkPod: runAsUser }] },
  { id: 'seccompProfile_restricted', level: 'restricted', versions: [
    { minimumVersion: 19, checkPod: (_meta, spec) => seccomp(spec, true), overrides: ['seccompProfile_baseline'] },
    { minimumVersion: 25, checkPod: notOnWindows((_meta, spec) => seccomp(spec, true)), overrides: ['seccompProfile_baseline'] },
  ] },
];

/** The check of `check` in force at `version`, if any. */
function at(check: Check, version: number): VersionedCheck | undefined {
  let found: VersionedCheck | undefined;
  for (const v of check.versions) if (v.minimumVersion <= version) found = v;
  return found;
}

const cache = new Map<string, CheckPod[]>();

/** The checks of a level at a version, in upstream's order: baseline IDs sorted, then restricted IDs sorted. */
export function checksFor(level: Exclude<Level, 'privileged'>, version: Version, maxVersion: number): CheckPod[] {
  const v = Math.min(version, maxVersion);
  const key = `${level}:${v}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const byId = (l: Level) => checks.filter((c) => c.level === l).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const baseline = byId('baseline');
  const restricted = level === 'restricted' ? byId('restricted') : [];
  const overridden = new Set(restricted.flatMap((c) => at(c, v)?.overrides ?? []));
  const fns = [...baseline, ...restricted]
    .filter((c) => !overridden.has(c.id))
    .map((c) => at(c, v)?.checkPod)
    .filter((f): f is CheckPod => !!f);
  cache.set(key, fns);
  return fns;
}

/** The failed checks' reasons and `reason (detail)` texts (upstream's AggregateCheckResult). */
export function evaluatePod(level: Level, version: Version, maxVersion: number, meta: ObjectMeta, spec: PodSpec): { allowed: boolean; reasons: string[]; detail: string } {
  if (level === 'privileged') return { allowed: true, reasons: [], detail: '' };
  const failed = checksFor(level, version, maxVersion).map((f) => f(meta, spec)).filter((r) => !r.allowed);
  return {
    allowed: failed.length === 0,
    reasons: failed.map((r) => r.reason || 'unknown forbidden reason'),
    detail: failed.map((r) => `${r.reason || 'unknown forbidden reason'}${r.detail ? ` (${r.detail})` : ''}`).join(', '),
  };
}
