/**
 * ControllerRevision history (upstream `pkg/controller/history` and the
 * controllers' getPatch). Pure: no I/O, so the StatefulSet and DaemonSet
 * controllers can share it.
 *
 * - A revision's data is the strategic merge patch that restores a pod
 *   template: `{"spec":{"template":{..., "$patch":"replace"}}}`, which
 *   `kubectl rollout undo` sends verbatim. It is encoded as Go encodes a
 *   decoded JSON map: keys sorted at every level, `<`, `>`, `&` escaped, and
 *   the template carries the zero values Go's typed encoder writes
 *   (`metadata.creationTimestamp: null`, `resources: {}` on containers).
 * - HashControllerRevision is FNV-32 (not 32a) over those bytes followed by
 *   the collision count in decimal, printed in decimal and mapped onto
 *   upstream's "safe" alphabet (rand.SafeEncodeString), e.g. `7b9b5d8d5c`.
 * - The name is `<parent>-<hash>`, the parent name cut to 223 bytes.
 * - Two revisions are equal when their data encode to the same bytes.
 * - Revisions sort by revision number, then creation time, then name.
 */

import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta, OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { RawExtension } from 'kubernetes-types/runtime.js';

/** history.ControllerRevisionHashLabel, set on every revision. */
export const controllerRevisionHashLabel = 'controller.kubernetes.io/hash';

/** rand.SafeEncodeString's alphabet: no vowels, no confusable characters. */
const alphanums = 'bcdfghjklmnpqrstvwxz2456789';

export function safeEncodeString(s: string): string {
  let out = '';
  for (const ch of s) out += alphanums[ch.codePointAt(0)! % alphanums.length];
  return out;
}

/** A JSON value with object keys sorted at every level and undefined members dropped. */
export function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = sortKeys(x);
    }
    return out;
  }
  return v;
}

/** json.Marshal of a decoded JSON value: sorted keys, HTML-safe escapes, no spaces. */
export function goJSON(v: unknown): string {
  return JSON.stringify(sortKeys(v))
    .replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** hash/fnv New32: multiply, then xor. */
export function fnv32(bytes: Uint8Array, h = 0x811c9dc5): number {
  for (const b of bytes) {
    h = Math.imul(h, 0x01000193) >>> 0;
    h = (h ^ b) >>> 0;
  }
  return h >>> 0;
}

/** hash/fnv New32a: xor, then multiply. */
export function fnv32a(bytes: Uint8Array, h = 0x811c9dc5): number {
  for (const b of bytes) {
    h = (h ^ b) >>> 0;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** HashControllerRevision(revision, probe): over the data's bytes, then the probe in decimal. */
export function hashControllerRevision(data: unknown, probe?: number | null): string {
  const enc = new TextEncoder();
  let h = fnv32(enc.encode(goJSON(data ?? null)));
  if (probe !== undefined && probe !== null) h = fnv32(enc.encode(String(Math.trunc(probe))), h);
  return safeEncodeString(String(h));
}

/** ControllerRevisionName(prefix, hash). */
export function controllerRevisionName(prefix: string, hash: string): string {
  return `${prefix.length > 223 ? prefix.slice(0, 223) : prefix}-${hash}`;
}

/** The zero values Go's typed encoder writes into a PodTemplateSpec that JSON decoding drops. */
function withGoZeroValues(template: PodTemplateSpec | undefined): Record<string, unknown> {
  const t = structuredClone(template ?? {}) as Record<string, unknown>;
  t.metadata = { creationTimestamp: null, ...(t.metadata ?? {}) };
  const spec = t.spec as Record<string, unknown> | undefined;
  if (spec && typeof spec === 'object') {
    for (const list of ['initContainers', 'containers', 'ephemeralContainers']) {
      const items = spec[list];
      if (!Array.isArray(items)) continue;
      spec[list] = items.map((c: unknown) => (c && typeof c === 'object' && !('resources' in c && c.resources !== undefined) ? { ...c, resources: {} } : c));
    }
  }
  return t;
}

/** getPatch: the data of a revision that restores `template`. */
export function templateRevisionData(template: PodTemplateSpec | undefined): RawExtension {
  return sortKeys({ spec: { template: { ...withGoZeroValues(template), $patch: 'replace' } } }) as RawExtension;
}

/** Drops null members at every level (what decoding into a typed object does with them). */
function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== null && x !== undefined) out[k] = dropNulls(x);
    return out;
  }
  return v;
}

/** The pod template a revision restores (ApplyRevision's view of spec.template). */
export function revisionTemplate(data: RawExtension | undefined): PodTemplateSpec | undefined {
  const t = (data as { spec?: { template?: unknown } } | undefined)?.spec?.template;
  if (!t || typeof t !== 'object') return undefined;
  const { $patch: _directive, ...rest } = t as Record<string, unknown>;
  return dropNulls(rest) as PodTemplateSpec;
}

/** EqualRevision: both absent, or data that encode to the same bytes. */
export function equalRevision(a: ControllerRevision | undefined, b: ControllerRevision | undefined): boolean {
  if (!a || !b) return a === b;
  const ha = a.metadata?.labels?.[controllerRevisionHashLabel];
  const hb = b.metadata?.labels?.[controllerRevisionHashLabel];
  // Upstream compares the labels only when both parse as integers (they never do for safe-encoded hashes).
  if (/^-?\d+$/.test(ha ?? '') && /^-?\d+$/.test(hb ?? '') && ha !== hb) return false;
  return goJSON(a.data ?? null) === goJSON(b.data ?? null);
}

/** FindEqualRevisions: those equal to needle, in the given order. */
export function findEqualRevisions<T extends ControllerRevision>(revisions: readonly T[], needle: ControllerRevision): T[] {
  return revisions.filter((r) => equalRevision(r, needle));
}

/** SortControllerRevisions (stable): by revision, ties by creation time, then name. */
export function sortControllerRevisions<T extends ControllerRevision>(revisions: readonly T[]): T[] {
  const time = (r: ControllerRevision) => (r.metadata?.creationTimestamp ? Date.parse(r.metadata.creationTimestamp) : 0);
  return [...revisions].sort((a, b) => {
    const ra = a.revision ?? 0;
    const rb = b.revision ?? 0;
    if (ra !== rb) return ra - rb;
    const ta = time(a);
    const tb = time(b);
    if (ta !== tb) return ta - tb;
    const na = a.metadata?.name ?? '';
    const nb = b.metadata?.name ?? '';
    return na < nb ? -1 : na > nb ? 1 : 0;
  });
}

/** nextRevision over a sorted list: one more than the last, or 1. */
export function nextRevision(sorted: readonly ControllerRevision[]): number {
  return sorted.length ? (sorted[sorted.length - 1].revision ?? 0) + 1 : 1;
}

export interface ParentKind { apiVersion: string; kind: string }

/** metav1.NewControllerRef. */
export function newControllerRef(owner: { metadata?: ObjectMeta }, kind: ParentKind): OwnerReference {
  return {
    apiVersion: kind.apiVersion, kind: kind.kind, name: owner.metadata!.name!, uid: owner.metadata!.uid!,
    controller: true, blockOwnerDeletion: true,
  };
}

export interface NewRevisionOptions {
  parent: { metadata?: ObjectMeta };
  parentKind: ParentKind;
  templateLabels?: Record<string, string>;
  data: RawExtension;
  revision: number;
  collisionCount?: number | null;
}

/** NewControllerRevision: owned by parent, labelled with the template's labels and the hash. */
export function newControllerRevision(o: NewRevisionOptions): ControllerRevision & { metadata: ObjectMeta } {
  const hash = hashControllerRevision(o.data, o.collisionCount);
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: controllerRevisionName(o.parent.metadata!.name!, hash),
      namespace: o.parent.metadata!.namespace,
      labels: { ...(o.templateLabels ?? {}), [controllerRevisionHashLabel]: hash },
      ownerReferences: [newControllerRef(o.parent, o.parentKind)],
    },
    data: o.data,
    revision: o.revision,
  };
}

/**
 * controller.ComputeHash(template, collisionCount): FNV-32a over the template
 * and the collision count (8 bytes, little endian), printed in decimal and
 * mapped onto the safe alphabet. Upstream hashes a deep print of the Go
 * struct; k8ts hashes the template's canonical JSON (sorted keys).
 */
export function computeHash(template: unknown, collisionCount?: number | null): string {
  let h = fnv32a(new TextEncoder().encode(JSON.stringify(sortKeys(template ?? {}))));
  if (collisionCount !== undefined && collisionCount !== null) {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setUint32(0, collisionCount >>> 0, true);
    h = fnv32a(b, h);
  }
  return safeEncodeString(String(h));
}
