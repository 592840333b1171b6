/**
 * What a pod spec gets warned about, valid but likely not what its author
 * meant (upstream's pkg/api/pod/warnings.go, v1.32): the texts reach the
 * client as `Warning:` lines (`kubectl apply` prints them), the object is
 * written all the same. Pods get them on create and update, pod templates
 * of workloads (spec.template ...) when the template is new or changed.
 * Paths and words are upstream's, so a page's or a chart's expected output
 * matches.
 */
import type { Container, ContainerPort, EphemeralContainer, NodeSelectorTerm, PodAffinityTerm, PodSpec, WeightedPodAffinityTerm } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { formatQuantity, milliValue, parseQuantity } from '../quantity.js';

/** Upstream's deprecatedNodeLabels (pkg/api/node/util.go): used in a selector, each is warned about. */
const deprecatedNodeLabels: Readonly<Record<string, string>> = {
  'beta.kubernetes.io/arch': 'deprecated since v1.14; use "kubernetes.io/arch" instead',
  'beta.kubernetes.io/os': 'deprecated since v1.14; use "kubernetes.io/os" instead',
  'failure-domain.beta.kubernetes.io/region': 'deprecated since v1.17; use "topology.kubernetes.io/region" instead',
  'failure-domain.beta.kubernetes.io/zone': 'deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
  'beta.kubernetes.io/instance-type': 'deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
  'app.kubernetes.io/created-by': 'deprecated since v1.9',
  'scheduler.alpha.kubernetes.io/preferAvoidPods': 'deprecated since v1.22; use Taints and Tolerations instead',
  'node-role.kubernetes.io/master': 'use "node-role.kubernetes.io/control-plane" instead',
};

const deprecatedLabel = (key: string): string | undefined => Object.hasOwn(deprecatedNodeLabels, key) ? deprecatedNodeLabels[key] : undefined;

const deprecatedAnnotations: readonly (readonly [string, string])[] = [
  ['scheduler.alpha.kubernetes.io/critical-pod', 'non-functional in v1.16+; use the "priorityClassName" field instead'],
  ['security.alpha.kubernetes.io/sysctls', 'non-functional in v1.11+; use the "sysctls" field instead'],
  ['security.alpha.kubernetes.io/unsafe-sysctls', 'non-functional in v1.11+; use the "sysctls" field instead'],
];

/** Volume plugins gone or going: the volume's member and upstream's words. */
const deprecatedVolumes: readonly (readonly [string, string])[] = [
  ['photonPersistentDisk', 'deprecated in v1.11, non-functional in v1.16+'],
  ['gitRepo', 'deprecated in v1.11'],
  ['scaleIO', 'deprecated in v1.16, non-functional in v1.22+'],
  ['flocker', 'deprecated in v1.22, non-functional in v1.25+'],
  ['storageos', 'deprecated in v1.22, non-functional in v1.25+'],
  ['quobyte', 'deprecated in v1.22, non-functional in v1.25+'],
  ['glusterfs', 'deprecated in v1.25, non-functional in v1.26+'],
  ['cephfs', 'deprecated in v1.28, non-functional in v1.31+'],
  ['rbd', 'deprecated in v1.28, non-functional in v1.31+'],
];

const seccompPodAnnotation = 'seccomp.security.alpha.kubernetes.io/pod';
const seccompContainerPrefix = 'container.seccomp.security.alpha.kubernetes.io/';
const appArmorContainerPrefix = 'container.apparmor.security.beta.kubernetes.io/';

/** The warnings of a pod (prefix '') or of a pod template at `prefix` (e.g. 'spec.template.'). */
export function podSpecWarnings(prefix: string, spec: PodSpec | undefined, meta: ObjectMeta | undefined): string[] {
  const warnings: string[] = [];
  if (!spec) return warnings;
  const sp = `${prefix}spec.`;
  for (const k of Object.keys(spec.nodeSelector ?? {})) {
    const msg = deprecatedLabel(k);
    if (msg) warnings.push(`${sp}nodeSelector[${k}]: ${msg}`);
  }
  const nodeAffinity = spec.affinity?.nodeAffinity;
  if (nodeAffinity) {
    (nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []).forEach((term, i) =>
      termWarnings(warnings, term, `${sp}affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[${i}]`));
    (nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution ?? []).forEach((term, i) =>
      termWarnings(warnings, term.preference, `${sp}affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[${i}].preference`));
  }
  (spec.topologySpreadConstraints ?? []).forEach((t, i) => {
    const msg = deprecatedLabel(t.topologyKey);
    if (msg) warnings.push(`${sp}topologySpreadConstraints[${i}].topologyKey: ${t.topologyKey} is ${msg}`);
    if (!t.labelSelector) warnings.push(`${sp}topologySpreadConstraints[${i}].labelSelector: a null labelSelector results in matching no pod`);
  });
  const annotations = meta?.annotations;
  if (annotations) {
    for (const [key, msg] of deprecatedAnnotations) if (Object.hasOwn(annotations, key)) warnings.push(`${prefix}metadata.annotations[${key}]: ${msg}`);
  }
  volumeWarnings(warnings, spec, sp);
  duplicates(warnings, spec.hostAliases, (h) => h.ip ?? '', (i, ip) => `${sp}hostAliases[${i}].ip: duplicate ip ${JSON.stringify(ip)}`);
  duplicates(warnings, spec.imagePullSecrets, (s) => s.name ?? '', (i, name) => `${sp}imagePullSecrets[${i}].name: duplicate name ${JSON.stringify(name)}`);
  (spec.imagePullSecrets ?? []).forEach((s, i) => {
    if (!s.name) warnings.push(`${sp}imagePullSecrets[${i}].name: invalid empty name ""`);
  });
  for (const r of ['memory', 'ephemeral-storage']) fractionalBytes(warnings, spec.overhead?.[r], `${sp}overhead[${r}]`);
  if (annotations && !spec.securityContext?.seccompProfile && Object.hasOwn(annotations, seccompPodAnnotation)) {
    warnings.push(`${prefix}metadata.annotations[${seccompPodAnnotation}]: non-functional in v1.27+; use the "seccompProfile" field instead`);
  }
  const podAppArmor = !!spec.securityContext?.appArmorProfile;
  visitContainers(spec, sp, (c, path) => {
    if (annotations && !c.securityContext?.seccompProfile && Object.hasOwn(annotations, seccompContainerPrefix + c.name)) {
      warnings.push(`${prefix}metadata.annotations[${seccompContainerPrefix}${c.name}]: non-functional in v1.27+; use the "seccompProfile" field instead`);
    }
    // A pod's own AppArmor annotations are synced to its fields instead (upstream warns templates only).
    if (prefix && annotations && !podAppArmor && !c.securityContext?.appArmorProfile && Object.hasOwn(annotations, appArmorContainerPrefix + c.name)) {
      warnings.push(`${prefix}metadata.annotations[${appArmorContainerPrefix}${c.name}]: deprecated since v1.30; use the "appArmorProfile" field instead`);
    }
    for (const kind of ['limits', 'requests'] as const) {
      for (const r of ['memory', 'ephemeral-storage']) fractionalBytes(warnings, c.resources?.[kind]?.[r], `${path}.resources.${kind}[${r}]`);
    }
    envWarnings(warnings, c, path);
  });
  portWarnings(warnings, spec, sp);
  if (spec.terminationGracePeriodSeconds !== undefined && spec.terminationGracePeriodSeconds !== null && spec.terminationGracePeriodSeconds < 0) {
    warnings.push(`${sp}terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1`);
  }
  const { podAffinity, podAntiAffinity } = spec.affinity ?? {};
  if (podAffinity) affinityTermWarnings(warnings, podAffinity, `${sp}affinity.podAffinity`);
  if (podAntiAffinity) affinityTermWarnings(warnings, podAntiAffinity, `${sp}affinity.podAntiAffinity`);
  return warnings;
}

function termWarnings(warnings: string[], term: NodeSelectorTerm | undefined, path: string): void {
  (term?.matchExpressions ?? []).forEach((e, i) => {
    const msg = deprecatedLabel(e.key);
    if (msg) warnings.push(`${path}.matchExpressions[${i}].key: ${e.key} is ${msg}`);
  });
}

function volumeWarnings(warnings: string[], spec: PodSpec, sp: string): void {
  const volumes = spec.volumes ?? [];
  const tokenPaths = new Set<string>();
  volumes.forEach((v, i) => {
    const member = v as unknown as Record<string, unknown>;
    for (const [name, msg] of deprecatedVolumes) if (member[name]) warnings.push(`${sp}volumes[${i}].${name === 'storageos' ? 'storageOS' : name}: ${msg}`);
    const claim = v.ephemeral?.volumeClaimTemplate?.spec;
    if (claim) {
      for (const kind of ['requests', 'limits'] as const) {
        fractionalBytes(warnings, claim.resources?.[kind]?.storage, `${sp}volumes[${i}].ephemeral.volumeClaimTemplate.spec.resources.${kind}[storage]`);
      }
    }
    for (const s of v.projected?.sources ?? []) if (s.serviceAccountToken) tokenPaths.add(s.serviceAccountToken.path);
  });
  if (!tokenPaths.size) return;
  volumes.forEach((v, i) => {
    const at = `${sp}volumes[${i}].projected.sources`;
    const dup = (path: string | undefined, where: string) => {
      if (path !== undefined && tokenPaths.has(path)) warnings.push(`${where}: has duplicated path with ServiceAccountToken ${JSON.stringify(path)}`);
    };
    for (const s of v.projected?.sources ?? []) {
      (s.configMap?.items ?? []).forEach((item, j) => dup(item.path, `${at}.configMap[${j}]`));
      (s.secret?.items ?? []).forEach((item, j) => dup(item.path, `${at}.secrets[${j}]`));
      (s.downwardAPI?.items ?? []).forEach((item, j) => dup(item.path, `${at}.downwardAPI[${j}]`));
      const bundle = (s as { clusterTrustBundle?: { path?: string } }).clusterTrustBundle;
      if (bundle) dup(bundle.path, `${at}.ClusterTrustBundle`);
    }
  });
}

/** Items whose key repeats an earlier one's, each warned about. */
function duplicates<T>(warnings: string[], items: readonly T[] | undefined, key: (item: T) => string, text: (i: number, key: string) => string): void {
  if (!items || items.length < 2) return;
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const k = key(item);
    if (seen.has(k)) warnings.push(text(i, k));
    else seen.add(k);
  });
}

/** A byte quantity that is not a whole number of bytes (upstream: its MilliValue not a multiple of 1000). */
function fractionalBytes(warnings: string[], value: unknown, path: string): void {
  if (value === undefined || value === null) return;
  const q = parseQuantity(value);
  if (q && milliValue(q) % 1000n !== 0n) warnings.push(`${path}: fractional byte value ${JSON.stringify(formatQuantity(q))} is invalid, must be an integer`);
}

/** An env entry that replaces an earlier one of its name without building on it ($(NAME)): apply may drop one. */
function envWarnings(warnings: string[], c: Container | EphemeralContainer, path: string): void {
  const env = c.env;
  if (!env || env.length < 2) return;
  const seen = new Set<string>();
  env.forEach((item, i) => {
    if (!seen.has(item.name)) { seen.add(item.name); return; }
    const ref = `$(${item.name})`;
    const value = item.value ?? '';
    if (item.valueFrom || value === ref || !value.includes(ref)) {
      warnings.push(`${path}.env[${i}]: hides previous definition of ${JSON.stringify(item.name)}, which may be dropped when using apply`);
    }
  });
}

/** Containers in upstream's VisitContainersWithPath order: init containers, containers, ephemeral containers. */
function visitContainers(spec: PodSpec, sp: string, visit: (c: Container | EphemeralContainer, path: string) => void): void {
  (spec.initContainers ?? []).forEach((c, i) => visit(c, `${sp}initContainers[${i}]`));
  (spec.containers ?? []).forEach((c, i) => visit(c, `${sp}containers[${i}]`));
  (spec.ephemeralContainers ?? []).forEach((c, i) => visit(c, `${sp}ephemeralContainers[${i}]`));
}

/** Ports defined twice across the pod's containers, and a hostIP without a hostPort. */
function portWarnings(warnings: string[], spec: PodSpec, sp: string): void {
  let all: Map<string, { path: string; port: ContainerPort }[]> | undefined;
  visitContainers(spec, sp, (c, path) => {
    (c.ports ?? []).forEach((port, i) => {
      const at = `${path}.ports[${i}]`;
      const hostIP = port.hostIP ?? '';
      const hostPort = port.hostPort ?? 0;
      if (hostIP !== '' && hostPort === 0) warnings.push(`${at}: hostIP set without hostPort: ${goPort(port)}`);
      const k = `${port.containerPort}/${port.protocol ?? 'TCP'}`;
      const others = (all ??= new Map()).get(k);
      if (!others) { all.set(k, [{ path: at, port }]); return; }
      for (const other of others) {
        const otherIP = other.port.hostIP ?? '';
        const otherPort = other.port.hostPort ?? 0;
        if (hostIP === otherIP && hostPort === otherPort) warnings.push(`${at}: duplicate port definition with ${other.path}`);
        else if (hostPort === 0 || otherPort === 0) warnings.push(`${at}: overlapping port definition with ${other.path}`);
        else if (hostPort === otherPort && (hostIP === '') !== (otherIP === '')) warnings.push(`${at}: dangerously ambiguous port definition with ${other.path}`);
      }
      others.push({ path: at, port });
    });
  });
}

/** A ContainerPort as Go's %+v prints upstream's internal struct. */
function goPort(p: ContainerPort): string {
  return `{Name:${p.name ?? ''} HostPort:${p.hostPort ?? 0} ContainerPort:${p.containerPort} Protocol:${p.protocol ?? 'TCP'} HostIP:${p.hostIP ?? ''}}`;
}

function affinityTermWarnings(warnings: string[], a: { requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[]; preferredDuringSchedulingIgnoredDuringExecution?: WeightedPodAffinityTerm[] }, path: string): void {
  (a.requiredDuringSchedulingIgnoredDuringExecution ?? []).forEach((t, i) => {
    if (!t.labelSelector) warnings.push(`${path}.requiredDuringSchedulingIgnoredDuringExecution[${i}].labelSelector: a null labelSelector results in matching no pod`);
  });
  (a.preferredDuringSchedulingIgnoredDuringExecution ?? []).forEach((t, i) => {
    if (!t.podAffinityTerm?.labelSelector) warnings.push(`${path}.preferredDuringSchedulingIgnoredDuringExecution[${i}].podAffinityTerm.labelSelector: a null labelSelector results in matching no pod`);
  });
}
