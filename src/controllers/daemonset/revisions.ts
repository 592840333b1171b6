/**
 * The writes behind a DaemonSet's history (upstream update.go constructHistory,
 * snapshot, dedupCurHistories, cleanupHistory):
 *  1. Claim the ControllerRevisions; give any without the hash label the
 *     label (its name).
 *  2. Split them into current (data matches the template) and old.
 *  3. No current one: create `<ds>-<hash>` with revision max(old)+1; a name
 *     taken by a different template bumps status.collisionCount and fails
 *     the sync, so the next one hashes differently.
 *  4. A current one with a lower revision than max(old)+1 (a rollback to an
 *     earlier template) gets revision max(old)+1: rollback rolls forward.
 *  5. Several current ones: keep the highest revision, relabel the pods,
 *     delete the others.
 *  6. After the sync's pod work, delete old revisions beyond
 *     revisionHistoryLimit, lowest first, sparing those live pods still use.
 */
import type { Clientset } from '../../client/index.js';
import { isAlreadyExists } from '../../client/index.js';
import { computeHash, maxRevision, newRevision, pickCurrent, revisionMatches, revisionsToDelete } from './history.js';
import { controllerRevisionHashLabel } from './util.js';
import type { ControllerRevision, DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';

export interface HistoryDeps {
  clients: Clientset;
  /** The revisions this DaemonSet controls, after adoption and release. */
  claimRevisions(ds: DaemonSet): Promise<ControllerRevision[]>;
  /** The DaemonSet's pods, after adoption and release. */
  claimPods(ds: DaemonSet): Promise<Pod[]>;
}

export async function constructHistory(deps: HistoryDeps, ds: DaemonSet): Promise<{ cur: ControllerRevision; old: ControllerRevision[] }> {
  const current: ControllerRevision[] = [];
  const old: ControllerRevision[] = [];
  for (let rev of await deps.claimRevisions(ds)) {
    if (!rev.metadata!.labels?.[controllerRevisionHashLabel]) { // 1
      rev = await deps.clients.controllerrevisions.update({ ...rev, metadata: { ...rev.metadata, labels: { ...rev.metadata!.labels, [controllerRevisionHashLabel]: rev.metadata!.name } } });
    }
    (revisionMatches(ds, rev) ? current : old).push(rev); // 2
  }
  const currRevision = maxRevision(old) + 1;
  if (current.length === 0) return { cur: await snapshot(deps, ds, currRevision), old }; // 3
  const cur = current.length === 1 ? current[0] : await dedupCurrent(deps, ds, current); // 5
  if ((cur.revision ?? 0) < currRevision) { // 4
    return { cur: await deps.clients.controllerrevisions.update({ ...cur, revision: currRevision }), old };
  }
  return { cur, old };
}

async function snapshot(deps: HistoryDeps, ds: DaemonSet, revision: number): Promise<ControllerRevision> {
  const collisionCount = ds.status?.collisionCount;
  const rev = newRevision(ds, computeHash(ds.spec?.template, collisionCount), revision);
  const client = deps.clients.controllerrevisions;
  try {
    return await client.create(ds.metadata!.namespace, rev);
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
    const existing = await client.get(ds.metadata!.namespace, rev.metadata!.name!);
    if (revisionMatches(ds, existing)) return existing;
    const fresh = await deps.clients.daemonsets.get(ds.metadata!.namespace, ds.metadata!.name!);
    if ((fresh.status?.collisionCount ?? null) !== (collisionCount ?? null)) {
      throw new Error(`found a stale collision count (${collisionCount}, expected ${fresh.status?.collisionCount}) of DaemonSet "${ds.metadata!.name}" while processing; will retry until it is updated`);
    }
    fresh.status = { ...(fresh.status ?? {}), collisionCount: (collisionCount ?? 0) + 1 };
    await deps.clients.daemonsets.updateStatus(fresh);
    throw e;
  }
}

async function dedupCurrent(deps: HistoryDeps, ds: DaemonSet, current: ControllerRevision[]): Promise<ControllerRevision> {
  const keep = pickCurrent(current);
  const hash = keep.metadata!.labels?.[controllerRevisionHashLabel];
  for (const pod of await deps.claimPods(ds)) {
    if (pod.metadata!.labels?.[controllerRevisionHashLabel] === hash) continue;
    await deps.clients.pods.patch(pod.metadata!.namespace, pod.metadata!.name!, { metadata: { labels: { [controllerRevisionHashLabel]: hash } } });
  }
  for (const rev of current) {
    if (rev.metadata!.name !== keep.metadata!.name) await deps.clients.controllerrevisions.delete(rev.metadata!.namespace, rev.metadata!.name!);
  }
  return keep;
}

/** Rule 6, given every pod of the DaemonSet (terminal ones included). */
export async function cleanupHistory(deps: HistoryDeps, ds: DaemonSet, old: ControllerRevision[], pods: readonly Pod[]): Promise<void> {
  const live = new Set<string>();
  for (const pod of pods) {
    const h = pod.metadata!.labels?.[controllerRevisionHashLabel];
    if (h) live.add(h);
  }
  for (const name of revisionsToDelete(old, live, ds.spec?.revisionHistoryLimit ?? 10)) {
    await deps.clients.controllerrevisions.delete(ds.metadata!.namespace, name);
  }
}
