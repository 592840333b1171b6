/**
 * One static pod manifest file → one pod, as upstream's file source reads it
 * (pkg/kubelet/config/file.go extractFromFile, common.go tryDecodeSinglePod
 * and applyDefaults), v1.32:
 *
 *  1. The file is JSON or YAML; of a YAML file with several documents only the
 *     first is read (upstream converts with go-yaml's Unmarshal, which stops
 *     after the first document); the others are reported as ignored.
 *  2. It must decode as a v1 Pod: apiVersion v1 and kind Pod, field types as
 *     the Go types take them; unknown fields are dropped. The API's v1
 *     defaults are applied, as decoding does upstream.
 *  3. The UID, when the manifest sets none, is an md5 over the decoded pod,
 *     the node name and the file path (upstream hashes its Go struct; k8ts
 *     hashes the canonical JSON, so values differ from upstream's but follow
 *     the same rule); `kubernetes.io/config.hash` is that UID.
 *  4. The name becomes `<name>-<nodeName lowercased>`, the namespace defaults
 *     to `default`, spec.nodeName is the node, the pod tolerates every
 *     NoExecute taint (operator Exists), `kubernetes.io/config.source` is
 *     `file`, and the phase is Pending.
 *  5. The result must pass ValidatePodCreate; errors read
 *     `invalid pod: [<field errors>]` as upstream's do.
 */
import { createHash } from 'node:crypto';
import { lazyRequire } from '../../util/lazy-require.js';

const yaml = lazyRequire<typeof import('yaml')>('yaml');
import type { Pod, Toleration } from 'kubernetes-types/core/v1.js';
import { applyDefaults } from '../../api/defaults/index.js';
// The pod rules alone: the index of every kind would load the whole API's validation into each node's agent.
import { validatePodCreate } from '../../api/validation/pod.js';
import { guarded } from '../../api/validation/guarded.js';
import { obj } from '../../api/validation/util.js';
import { fieldErrorMessage } from '../../api/field-errors.js';
import { findTypeErrors, pruneUnknownFields } from '../../api/schema/index.js';
import { valueTooDeep } from '../../api/nesting.js';

export const annotationConfigHash = 'kubernetes.io/config.hash';
export const annotationConfigSource = 'kubernetes.io/config.source';
export const annotationConfigSeen = 'kubernetes.io/config.seen';
export const annotationConfigMirror = 'kubernetes.io/config.mirror';
export const configSourceFile = 'file';

export type ManifestResult =
  | { ok: true; pod: Pod; warnings: string[] }
  | { ok: false; error: string };

export interface ManifestContext {
  /** The file's path, part of the hash (two files with the same content are two pods). */
  path: string;
  nodeName: string;
}

const podKey = 'v1/Pod';

/** Upstream generatePodName. */
export const staticPodName = (name: string, nodeName: string) => `${name}-${nodeName.toLowerCase()}`;

/** JSON with object keys sorted, so the hash does not depend on key order in the file. */
function canonicalJSON(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJSON).join(',')}]`;
  if (v && typeof v === 'object') {
    const keys = Object.keys(v as object).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJSON((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** The md5 UID of upstream's applyDefaults: the pod, then `host:<node>` and `file:<path>`. */
export function staticPodHash(pod: unknown, ctx: ManifestContext): string {
  return createHash('md5').update(canonicalJSON(pod)).update(`host:${ctx.nodeName}`).update(`file:${ctx.path}`).digest('hex');
}

/** The first document of the text (JSON is YAML too), and how many more there were. */
function decodeText(text: string): { value?: unknown; extra: number; error?: string } {
  if (/^\s*[{[]/.test(text)) {
    try { return { value: JSON.parse(text), extra: 0 }; } catch (e) { return { extra: 0, error: (e as Error).message }; }
  }
  try {
    const docs = yaml().parseAllDocuments(text);
    const list = Array.isArray(docs) ? docs : [docs];
    const first = list[0];
    if (!first) return { value: null, extra: 0 };
    if (first.errors.length) return { extra: 0, error: first.errors[0].message.split('\n')[0] };
    const extra = list.slice(1).filter((d) => d.contents !== null).length;
    return { value: first.toJS({ maxAliasCount: 100 }), extra };
  } catch (e) {
    return { extra: 0, error: (e as Error).message };
  }
}

/** helper.AddOrUpdateTolerationInPod with {operator: Exists, effect: NoExecute}. */
function tolerateNoExecute(spec: NonNullable<Pod['spec']>): void {
  const t: Toleration = { operator: 'Exists', effect: 'NoExecute' };
  const list = spec.tolerations ?? [];
  const same = list.findIndex((x) => !x.key && x.operator === 'Exists' && x.effect === 'NoExecute' && x.value === undefined);
  if (same >= 0) list[same] = t; else list.push(t);
  spec.tolerations = list;
}

/** Decodes, defaults and validates one manifest file's text. Pure. */
export function parseStaticPodManifest(text: string, ctx: ManifestContext): ManifestResult {
  const decoded = decodeText(text);
  if (decoded.error !== undefined) return { ok: false, error: `couldn't parse as pod(${decoded.error}), please check config file` };
  const value = decoded.value;
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { ok: false, error: "couldn't parse as pod(Object 'Kind' is missing in manifest), please check config file" };
  if (valueTooDeep(value)) return { ok: false, error: "couldn't parse as pod(exceeded max depth), please check config file" };
  const raw = value as Record<string, unknown>;
  if (!raw.kind) return { ok: false, error: `couldn't parse as pod(Object 'Kind' is missing in manifest), please check config file` };
  if (raw.apiVersion !== 'v1' || raw.kind !== 'Pod') {
    return { ok: false, error: `invalid pod: the manifest is a ${String(raw.kind)} (${String(raw.apiVersion ?? '')}), not a v1 Pod` };
  }
  const typeErrors = findTypeErrors(podKey, raw);
  if (typeErrors.length) return { ok: false, error: `couldn't parse as pod(${typeErrors[0]}), please check config file` };
  pruneUnknownFields(podKey, raw);
  const pod = structuredClone(raw) as Pod;
  applyDefaults(podKey, pod);
  pod.metadata ??= {};
  pod.spec ??= { containers: [] };
  if (!pod.metadata.name) return { ok: false, error: 'invalid pod: name is needed for the pod' };
  const uid = pod.metadata.uid || staticPodHash(pod, ctx);
  (pod.metadata as { uid?: string }).uid = uid;
  pod.metadata.name = staticPodName(pod.metadata.name, ctx.nodeName);
  pod.metadata.namespace ||= 'default';
  pod.spec.nodeName = ctx.nodeName;
  pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [annotationConfigHash]: uid, [annotationConfigSource]: configSourceFile };
  tolerateNoExecute(pod.spec);
  (pod as { status?: Pod['status'] }).status = { phase: 'Pending' };
  const errs = guarded(() => validatePodCreate(obj(pod)));
  if (errs.length) return { ok: false, error: `invalid pod: [${errs.map(fieldErrorMessage).join(', ')}]` };
  const warnings = decoded.extra > 0 ? [`only the first YAML document is read; ${decoded.extra} more ignored`] : [];
  return { ok: true, pod, warnings };
}

/** Upstream file source ignores names starting with '.'; k8ts also skips editor backups and swap files. */
export function isIgnoredManifestName(name: string): boolean {
  return name.startsWith('.') || name.endsWith('~') || /^#.*#$/.test(name) || /\.(swp|swo|swx)$/.test(name) || name === '4913';
}

export const isMirrorPod = (pod: { metadata?: { annotations?: Record<string, string> } } | undefined) =>
  !!pod?.metadata?.annotations && annotationConfigMirror in pod.metadata.annotations;

export const isStaticPod = (pod: { metadata?: { annotations?: Record<string, string> } } | undefined) =>
  pod?.metadata?.annotations?.[annotationConfigSource] === configSourceFile;

export const configHashOf = (pod: { metadata?: { annotations?: Record<string, string> } } | undefined) =>
  pod?.metadata?.annotations?.[annotationConfigHash];
