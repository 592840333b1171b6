/**
 * What a pod spec gets warned about, valid but likely not what its author
 * meant (upstream's pkg/api/pod/warnings.go, v1.32): the texts reach the
 * client as `Warning:` lines (`kubectl apply` prints them), the object is
 * written all the same. Pods get them on create and update, pod templates
 * of workloads (spec.template ...) when the template is new or changed.
 * Paths and words are upstream's, so a page's or a chart's expected output
 * matches.
 */
import type { Container, ContainerPort, EnvVar, EphemeralContainer, NodeSelectorTerm, PodAffinityTerm, PodSpec, WeightedPodAffinityTerm } from 'kubernetes-types/core/v1.js';
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

/** The byte resources a container's or the pod's overhead's fractional values are warned about. */
const byteResources = ['memory', 'ephemeral-storage'] as const;
const resourceKinds = ['limits', 'requests'] as const;
const claimKinds = ['requests', 'limits'] as const;
/** The lists of containers in upstream's VisitContainersWithPath order. */
const containerLists = ['initContainers', 'containers', 'ephemeralContainers'] as const;

/**
 * The warnings of a pod (prefix '') or of a pod template at `prefix` (e.g. 'spec.template.').
 * Every create and update of a pod or a workload walks its spec here, and nearly all of them are
 * warned about nothing: a field's path is made into a string only once a warning names it (no
 * closure, Set, Map or empty list made for a spec without the members they are for).
 */
export function podSpecWarnings(prefix: string, spec: PodSpec | undefined, meta: ObjectMeta | undefined): string[] {
  const warnings: string[] = [];
  if (!spec) return warnings;
  const sp = `${prefix}spec.`;
  if (spec.nodeSelector) {
    for (const k of Object.keys(spec.nodeSelector)) {
      const msg = deprecatedLabel(k);
      if (msg) warnings.push(`${sp}nodeSelector[${k}]: ${msg}`);
    }
  }
  const nodeAffinity = spec.affinity?.nodeAffinity;
  if (nodeAffinity) {
    (nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []).forEach((term, i) =>
      termWarnings(warnings, term, `${sp}affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[${i}]`));
    (nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution ?? []).forEach((term, i) =>
      termWarnings(warnings, term.preference, `${sp}affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[${i}].preference`));
  }
  const spread = spec.topologySpreadConstraints;
  if (spread) {
    for (let i = 0; i < spread.length; i++) {
      const t = spread[i]!;
      const msg = deprecatedLabel(t.topologyKey);
      if (msg) warnings.push(`${sp}topologySpreadConstraints[${i}].topologyKey: ${t.topologyKey} is ${msg}`);
      if (!t.labelSelector) warnings.push(`${sp}topologySpreadConstraints[${i}].labelSelector: a null labelSelector results in matching no pod`);
    }
  }
  const annotations = meta?.annotations;
  if (annotations) {
    for (const [key, msg] of deprecatedAnnotations) if (Object.hasOwn(annotations, key)) warnings.push(`${prefix}metadata.annotations[${key}]: ${msg}`);
  }
  volumeWarnings(warnings, spec, sp);
  if (spec.hostAliases && spec.hostAliases.length > 1) {
    duplicates(warnings, spec.hostAliases, (h) => h.ip ?? '', (i, ip) => `${sp}hostAliases[${i}].ip: duplicate ip ${JSON.stringify(ip)}`);
  }
  const pullSecrets = spec.imagePullSecrets;
  if (pullSecrets) {
    if (pullSecrets.length > 1) duplicates(warnings, pullSecrets, (s) => s.name ?? '', (i, name) => `${sp}imagePullSecrets[${i}].name: duplicate name ${JSON.stringify(name)}`);
    for (let i = 0; i < pullSecrets.length; i++) if (!pullSecrets[i]!.name) warnings.push(`${sp}imagePullSecrets[${i}].name: invalid empty name ""`);
  }
  const overhead = spec.overhead;
  if (overhead) {
    for (const r of byteResources) {
      const text = fractionalBytes(overhead[r]);
      if (text) warnings.push(`${sp}overhead[${r}]: ${text}`);
    }
  }
  if (annotations && !spec.securityContext?.seccompProfile && Object.hasOwn(annotations, seccompPodAnnotation)) {
    warnings.push(`${prefix}metadata.annotations[${seccompPodAnnotation}]: non-functional in v1.27+; use the "seccompProfile" field instead`);
  }
  const podAppArmor = !!spec.securityContext?.appArmorProfile;
  for (const list of containerLists) {
    const containers: ReadonlyArray<Container | EphemeralContainer> | undefined = spec[list];
    if (!containers) continue;
    for (let i = 0; i < containers.length; i++) {
      const c = containers[i]!;
      if (annotations) containerAnnotationWarnings(warnings, prefix, annotations, podAppArmor, c);
      const resources = c.resources;
      if (resources) {
        for (const kind of resourceKinds) {
          const values = resources[kind];
          if (!values) continue;
          for (const r of byteResources) {
            const text = fractionalBytes(values[r]);
            if (text) warnings.push(`${sp}${list}[${i}].resources.${kind}[${r}]: ${text}`);
          }
        }
      }
      if (c.env && c.env.length > 1) envWarnings(warnings, c.env, `${sp}${list}[${i}]`);
    }
  }
  portWarnings(warnings, spec, sp);
  if (spec.terminationGracePeriodSeconds !== undefined && spec.terminationGracePeriodSeconds !== null && spec.terminationGracePeriodSeconds < 0) {
    warnings.push(`${sp}terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1`);
  }
  const affinity = spec.affinity;
  if (affinity?.podAffinity) affinityTermWarnings(warnings, affinity.podAffinity, `${sp}affinity.podAffinity`);
  if (affinity?.podAntiAffinity) affinityTermWarnings(warnings, affinity.podAntiAffinity, `${sp}affinity.podAntiAffinity`);
  return warnings;
}

/** A container's seccomp and AppArmor annotations. */
function containerAnnotationWarnings(warnings: string[], prefix: string, annotations: Record<string, string>, podAppArmor: boolean, c: Container | EphemeralContainer): void {
  if (!c.securityContext?.seccompProfile && Object.hasOwn(annotations, seccompContainerPrefix + c.name)) {
    warnings.push(`${prefix}metadata.annotations[${seccompContainerPrefix}${c.name}]: non-functional in v1.27+; use the "seccompProfile" field instead`);
  }
  // A pod's own AppArmor annotations are synced to its fields instead (upstream warns templates only).
  if (prefix && !podAppArmor && !c.securityContext?.appArmorProfile && Object.hasOwn(annotations, appArmorContainerPrefix + c.name)) {
    warnings.push(`${prefix}metadata.annotations[${appArmorContainerPrefix}${c.name}]: deprecated since v1.30; use the "appArmorProfile" field instead`);
  }
}

function termWarnings(warnings: string[], term: NodeSelectorTerm | undefined, path: string): void {
  (term?.matchExpressions ?? []).forEach((e, i) => {
    const msg = deprecatedLabel(e.key);
    if (msg) warnings.push(`${path}.matchExpressions[${i}].key: ${e.key} is ${msg}`);
  });
}

/** The projections whose items' paths may repeat the token's, with the name upstream's warning gives each. */
const itemProjections = [['configMap', 'configMap'], ['secret', 'secrets'], ['downwardAPI', 'downwardAPI']] as const;

function volumeWarnings(warnings: string[], spec: PodSpec, sp: string): void {
  const volumes = spec.volumes;
  if (!volumes) return;
  let tokenPaths: Set<string> | undefined;
  for (let i = 0; i < volumes.length; i++) {
    const v = volumes[i]!;
    const member = v as unknown as Record<string, unknown>;
    for (let d = 0; d < deprecatedVolumes.length; d++) {
      const name = deprecatedVolumes[d]![0];
      if (member[name]) warnings.push(`${sp}volumes[${i}].${name === 'storageos' ? 'storageOS' : name}: ${deprecatedVolumes[d]![1]}`);
    }
    const claim = v.ephemeral?.volumeClaimTemplate?.spec;
    if (claim) {
      for (const kind of claimKinds) {
        const text = fractionalBytes(claim.resources?.[kind]?.storage);
        if (text) warnings.push(`${sp}volumes[${i}].ephemeral.volumeClaimTemplate.spec.resources.${kind}[storage]: ${text}`);
      }
    }
    const sources = v.projected?.sources;
    if (sources) for (const s of sources) if (s.serviceAccountToken) (tokenPaths ??= new Set()).add(s.serviceAccountToken.path);
  }
  if (!tokenPaths) return;
  for (let i = 0; i < volumes.length; i++) {
    const sources = volumes[i]!.projected?.sources;
    if (!sources) continue;
    for (const s of sources) {
      for (const [member, shown] of itemProjections) {
        const items = s[member]?.items;
        if (!items) continue;
        for (let j = 0; j < items.length; j++) {
          const path = items[j]!.path;
          if (path !== undefined && tokenPaths.has(path)) warnings.push(`${sp}volumes[${i}].projected.sources.${shown}[${j}]: ${duplicatedTokenPath(path)}`);
        }
      }
      const bundle = (s as { clusterTrustBundle?: { path?: string } }).clusterTrustBundle;
      const path = bundle?.path;
      if (path !== undefined && tokenPaths.has(path)) warnings.push(`${sp}volumes[${i}].projected.sources.ClusterTrustBundle: ${duplicatedTokenPath(path)}`);
    }
  }
}

const duplicatedTokenPath = (path: string) => `has duplicated path with ServiceAccountToken ${JSON.stringify(path)}`;

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

/**
 * The warning's text for a byte quantity that is not a whole number of bytes (upstream: its
 * MilliValue not a multiple of 1000); undefined for none or a whole one.
 */
function fractionalBytes(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const q = parseQuantity(value);
  return q && milliValue(q) % 1000n !== 0n ? `fractional byte value ${JSON.stringify(formatQuantity(q))} is invalid, must be an integer` : undefined;
}

/** An env entry that replaces an earlier one of its name without building on it ($(NAME)): apply may drop one. */
function envWarnings(warnings: string[], env: readonly EnvVar[], path: string): void {
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

/** Where a port was first seen: its path is made only when a later port is warned about against it. */
interface SeenPort { list: string; container: number; index: number; port: ContainerPort }

const portPath = (sp: string, p: SeenPort) => `${sp}${p.list}[${p.container}].ports[${p.index}]`;

/** Ports defined twice across the pod's containers, and a hostIP without a hostPort. */
function portWarnings(warnings: string[], spec: PodSpec, sp: string): void {
  // Two ports are needed for a duplicate: with fewer, nothing is remembered.
  let count = 0;
  for (const list of containerLists) for (const c of spec[list] ?? noContainers) count += c.ports?.length ?? 0;
  if (count === 0) return;
  let all: Map<string, SeenPort[]> | undefined;
  for (const list of containerLists) {
    const containers: ReadonlyArray<Container | EphemeralContainer> | undefined = spec[list];
    if (!containers) continue;
    for (let ci = 0; ci < containers.length; ci++) {
      const ports = containers[ci]!.ports;
      if (!ports) continue;
      for (let i = 0; i < ports.length; i++) {
        const port = ports[i]!;
        const here: SeenPort = { list, container: ci, index: i, port };
        const hostIP = port.hostIP ?? '';
        const hostPort = port.hostPort ?? 0;
        if (hostIP !== '' && hostPort === 0) warnings.push(`${portPath(sp, here)}: hostIP set without hostPort: ${goPort(port)}`);
        if (count < 2) continue;
        const k = `${port.containerPort}/${port.protocol ?? 'TCP'}`;
        const others = (all ??= new Map()).get(k);
        if (!others) { all.set(k, [here]); continue; }
        for (const other of others) {
          const otherIP = other.port.hostIP ?? '';
          const otherPort = other.port.hostPort ?? 0;
          if (hostIP === otherIP && hostPort === otherPort) warnings.push(`${portPath(sp, here)}: duplicate port definition with ${portPath(sp, other)}`);
          else if (hostPort === 0 || otherPort === 0) warnings.push(`${portPath(sp, here)}: overlapping port definition with ${portPath(sp, other)}`);
          else if (hostPort === otherPort && (hostIP === '') !== (otherIP === '')) warnings.push(`${portPath(sp, here)}: dangerously ambiguous port definition with ${portPath(sp, other)}`);
        }
        others.push(here);
      }
    }
  }
}

const noContainers: readonly Container[] = [];

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
