/**
 * ControllerRevisions of a DaemonSet (upstream update.go: getPatch, Match,
 * snapshot, cleanupHistory; controller_utils.go: ComputeHash). Pure parts;
 * the writes live in revisions.ts.
 *
 * - A revision is named `<ds>-<hash>`; the hash is FNV-32a over the template
 *   (k8ts hashes canonical JSON, upstream a deep print of the Go struct) and
 *   the collision count, printed in decimal and mapped onto upstream's
 *   "safe" alphabet, so it has upstream's shape (e.g. `6d5bcd9f7b`).
 * - Its data is the strategic merge patch that restores the template:
 *   `{"spec":{"template":{..., "$patch":"replace"}}}`, which `kubectl rollout
 *   undo` sends verbatim. Keys are sorted, as Go marshals maps, and the
 *   template's metadata.creationTimestamp is null, as Go marshals a zero time.
 * - Labels: the template's plus controller-revision-hash; annotations: the
 *   DaemonSet's (so kubernetes.io/change-cause is carried).
 */
import { controllerRefTo, controllerRevisionHashLabel } from './util.js';
import { computeHash, safeEncodeString, sortKeys } from '../../api/history.js';
import type { ControllerRevision, DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

export { computeHash, safeEncodeString, sortKeys };

/** JSON with object keys sorted at every level (Go's encoding of maps). */
export function canonicalJSON(v: unknown): string {
  return JSON.stringify(sortKeys(v));
}

/**
 * getPatch: the data of a revision for the DaemonSet's current template, as
 * Go marshals the typed template (so `metadata.creationTimestamp: null`), which
 * lets kubectl's own byte comparison see an undo to the current template.
 */
export function revisionData(ds: DaemonSet): object {
  const template = ds.spec?.template ?? {};
  const metadata = { ...(template.metadata ?? {}), creationTimestamp: null };
  return sortKeys({ spec: { template: { ...template, metadata, $patch: 'replace' } } }) as object;
}

/** Match: the revision stores exactly the DaemonSet's current template. */
export function revisionMatches(ds: DaemonSet, revision: ControllerRevision): boolean {
  return comparable(revisionData(ds)) === comparable(revision?.data ?? null);
}

/** Revision data as compared: a missing template creationTimestamp counts as null. */
function comparable(data: unknown): string {
  const d = data as { spec?: { template?: { metadata?: object } } } | null;
  const t = d?.spec?.template;
  if (!t || typeof t !== 'object') return canonicalJSON(data);
  return canonicalJSON({ ...d, spec: { ...d.spec, template: { ...t, metadata: { ...(t.metadata ?? {}), creationTimestamp: null } } } });
}

export function maxRevision(revisions: readonly ControllerRevision[]): number {
  let max = 0;
  for (const r of revisions) if ((r.revision ?? 0) > max) max = r.revision;
  return max;
}

/** The ControllerRevision snapshot creates for the DaemonSet's template. */
export function newRevision(ds: DaemonSet, hash: string, revision: number): ControllerRevision {
  const metadata: ObjectMeta = {
    name: `${ds.metadata!.name}-${hash}`,
    namespace: ds.metadata!.namespace,
    labels: { ...(ds.spec?.template?.metadata?.labels ?? {}), [controllerRevisionHashLabel]: hash },
    ownerReferences: [controllerRefTo(ds)],
  };
  if (ds.metadata!.annotations) metadata.annotations = { ...ds.metadata!.annotations };
  return { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata, data: revisionData(ds), revision };
}

/**
 * cleanupHistory's choice: beyond revisionHistoryLimit, the old revisions to
 * delete, lowest revision first, sparing those whose hash a live pod carries.
 */
export function revisionsToDelete(old: readonly ControllerRevision[], livePodHashes: ReadonlySet<string>, limit: number): string[] {
  let toKill = old.length - limit;
  if (toKill <= 0) return [];
  const out: string[] = [];
  for (const r of [...old].sort((a, b) => (a.revision ?? 0) - (b.revision ?? 0))) {
    if (toKill <= 0) break;
    if (livePodHashes.has(r.metadata?.labels?.[controllerRevisionHashLabel] as string)) continue;
    out.push(r.metadata!.name!);
    toKill--;
  }
  return out;
}

/** dedupCurHistories' choice: among revisions matching the template, the one with the highest revision (the last of equals). */
export function pickCurrent(current: readonly ControllerRevision[]): ControllerRevision {
  let keep = current[0];
  let max = 0;
  for (const r of current) if ((r.revision ?? 0) >= max) { keep = r; max = r.revision ?? 0; }
  return keep;
}
