/**
 * The StatefulSet's ControllerRevisions (upstream stateful_set_control.go:
 * getStatefulSetRevisions, truncateHistory; stateful_set_utils.go:
 * newRevision, ApplyRevision). Pure decisions; the writes are in the controller.
 *
 * 1. The update revision is the set's current template: if the newest
 *    revision already holds it, that one; if an older one does, that one with
 *    its number raised to the next (a rollback re-uses its revision); else a
 *    new revision numbered next, named `<set>-<hash>`.
 * 2. The current revision is the one named by status.currentRevision, or the
 *    update revision when there is none.
 * 3. Beyond revisionHistoryLimit, revisions that are neither current, update
 *    nor carried by a pod are deleted, lowest number first.
 */
import {
  findEqualRevisions, equalRevision, newControllerRevision, nextRevision, revisionTemplate, templateRevisionData,
} from '../../api/history.js';
import { getPodRevision, statefulSetKind } from './identity.js';
import type { ControllerRevision, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';

/** newRevision: the revision for the set's template, its annotations copied. */
export function newRevision(set: StatefulSet, revision: number, collisionCount: number): ControllerRevision {
  const cr = newControllerRevision({
    parent: set, parentKind: statefulSetKind, templateLabels: set.spec?.template?.metadata?.labels,
    data: templateRevisionData(set.spec?.template), revision, collisionCount,
  });
  if (set.metadata!.annotations) cr.metadata.annotations = { ...set.metadata!.annotations };
  return cr;
}

/** ApplyRevision: the set with the revision's template. */
export function applyRevision(set: StatefulSet, revision: ControllerRevision): StatefulSet {
  return { ...set, spec: { ...set.spec!, template: (revisionTemplate(revision.data) ?? set.spec?.template)! } };
}

export type UpdateRevisionChoice =
  | { action: 'reuse'; revision: ControllerRevision }
  /** A rollback: raise this revision's number to `to`. */
  | { action: 'bump'; revision: ControllerRevision; to: number }
  /** Create `revision` (named for the collision count; a name clash with other data bumps the count). */
  | { action: 'create'; revision: ControllerRevision };

/** Rule 1; `sorted` is the set's revisions in SortControllerRevisions order. */
export function chooseUpdateRevision(set: StatefulSet, sorted: readonly ControllerRevision[], collisionCount: number): UpdateRevisionChoice {
  const candidate = newRevision(set, nextRevision(sorted), collisionCount);
  const equal = findEqualRevisions(sorted, candidate);
  if (equal.length && equalRevision(sorted[sorted.length - 1], equal[equal.length - 1])) {
    return { action: 'reuse', revision: sorted[sorted.length - 1] };
  }
  if (equal.length) return { action: 'bump', revision: equal[equal.length - 1], to: candidate.revision };
  return { action: 'create', revision: candidate };
}

/** Rule 2. */
export function findCurrentRevision(set: StatefulSet, sorted: readonly ControllerRevision[], update: ControllerRevision): ControllerRevision {
  return sorted.find((r) => r.metadata!.name === set.status?.currentRevision) ?? update;
}

/** Rule 3: the revisions truncateHistory deletes (sorted input, lowest first). */
export function revisionsToTruncate(set: StatefulSet, pods: readonly Pod[], sorted: readonly ControllerRevision[], current?: ControllerRevision, update?: ControllerRevision): ControllerRevision[] {
  const live = new Set<string>();
  if (current) live.add(current.metadata!.name!);
  if (update) live.add(update.metadata!.name!);
  for (const p of pods) live.add(getPodRevision(p));
  const history = sorted.filter((r) => !live.has(r.metadata!.name!));
  const limit = set.spec?.revisionHistoryLimit ?? 10;
  if (limit < 0 || history.length <= limit) return [];
  return history.slice(0, history.length - limit);
}
