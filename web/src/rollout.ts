/**
 * The workload actions as kubectl performs them, planned from what the API
 * returned (pure functions; workload-actions.tsx sends them):
 *  - scale: a merge patch of spec.replicas on the scale subresource
 *    (`kubectl scale`), so RBAC on deployments/scale decides;
 *  - rollout restart: the pod template's annotation
 *    kubectl.kubernetes.io/restartedAt set to now (RFC 3339), which changes
 *    the template and so rolls every pod;
 *  - rollout pause|resume (Deployments): a merge patch of spec.paused;
 *    kubectl refuses to pause a paused one (`deployments.apps "web" is
 *    already paused`) and the same for resume;
 *  - rollout history: the revisions newest first with their
 *    kubernetes.io/change-cause, as `kubectl rollout history` lists them;
 *  - rollout undo: the revision before the current one (or the one chosen,
 *    `--to-revision=N`) becomes the template again. A Deployment's revisions are its
 *    ReplicaSets (annotation deployment.kubernetes.io/revision; the template
 *    without the pod-template-hash label); a StatefulSet's are its
 *    ControllerRevisions (.revision, the template in .data.spec.template).
 *    The write is a JSON patch replacing spec.template, as kubectl's
 *    rollbacker sends it, without a resourceVersion test: the controller
 *    writes status all through a rollout, and that must not refuse an undo.
 */
import type { PodTemplateSpec } from 'kubernetes-types/core/v1';
import type { ControllerRevision, ReplicaSet } from 'kubernetes-types/apps/v1';

export type WorkloadKind = 'Deployment' | 'StatefulSet';
export const resourceOf = (k: WorkloadKind) => (k === 'Deployment' ? 'deployments' : 'statefulsets');
export const workloadPath = (k: WorkloadKind, ns: string, name: string) => `/apis/apps/v1/namespaces/${encodeURIComponent(ns)}/${resourceOf(k)}/${encodeURIComponent(name)}`;
const cmdName = (k: WorkloadKind, name: string) => `${k.toLowerCase()}/${name}`;

export const scaleCommand = (k: WorkloadKind, ns: string, name: string, replicas: number) => `kubectl scale ${cmdName(k, name)} --replicas=${replicas} -n ${ns}`;
export const restartCommand = (k: WorkloadKind, ns: string, name: string) => `kubectl rollout restart ${cmdName(k, name)} -n ${ns}`;
export const undoCommand = (k: WorkloadKind, ns: string, name: string, toRevision = 0) =>
  `kubectl rollout undo ${cmdName(k, name)}${toRevision ? ` --to-revision=${toRevision}` : ''} -n ${ns}`;
export const pauseCommand = (pause: boolean, ns: string, name: string) => `kubectl rollout ${pause ? 'pause' : 'resume'} deployment/${name} -n ${ns}`;

export type PausePlan = { ok: true; patch: object; done: string } | { ok: false; message: string };

/** `kubectl rollout pause|resume`: spec.paused set, or kubectl's refusal when it already is. */
export function planPause(pause: boolean, name: string, paused: boolean): PausePlan {
  if (pause === paused) return { ok: false, message: `deployments.apps "${name}" is already ${pause ? 'paused' : 'resumed'}` };
  return { ok: true, patch: { spec: { paused: pause } }, done: `deployment.apps/${name} ${pause ? 'paused' : 'resumed'}` };
}

export const scalePatch = (replicas: number) => ({ spec: { replicas } });

/** RFC 3339 to the second, as kubectl writes restartedAt. */
export const restartPatch = (now: Date) => ({
  spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': now.toISOString().replace(/\.\d{3}Z$/, 'Z') } } } },
});

export interface Revision { revision: number; template: PodTemplateSpec; changeCause?: string }

const deploymentRevision = (rs: ReplicaSet): Revision | undefined => {
  const n = Number(rs.metadata?.annotations?.['deployment.kubernetes.io/revision']);
  if (!Number.isFinite(n) || !rs.spec?.template) return undefined;
  const labels = { ...rs.spec.template.metadata?.labels };
  delete labels['pod-template-hash'];
  return { revision: n, changeCause: rs.metadata?.annotations?.['kubernetes.io/change-cause'],
    template: { ...rs.spec.template, metadata: { ...rs.spec.template.metadata, labels } } };
};

const statefulSetRevision = (cr: ControllerRevision): Revision | undefined => {
  const t = (cr.data as { spec?: { template?: PodTemplateSpec & { $patch?: string } } } | undefined)?.spec?.template;
  if (!t) return undefined;
  const { $patch: _directive, ...template } = t;
  return { revision: cr.revision, changeCause: cr.metadata?.annotations?.['kubernetes.io/change-cause'], template };
};

/** The workload's revisions, owned by `uid`, newest first. */
export function revisionsOf(k: WorkloadKind, uid: string, items: (ReplicaSet | ControllerRevision)[]): Revision[] {
  const owned = items.filter((o) => o.metadata?.ownerReferences?.some((r) => r.controller && r.uid === uid));
  const revs = k === 'Deployment' ? owned.map((o) => deploymentRevision(o as ReplicaSet)) : owned.map((o) => statefulSetRevision(o as ControllerRevision));
  return revs.filter((r): r is Revision => !!r).sort((a, b) => b.revision - a.revision);
}

export type UndoPlan = { ok: true; to: number; patch: object[] } | { ok: false; message: string } | { ok: 'skipped'; message: string };

/**
 * The chosen revision's template (0: the previous one), written over the
 * current one; kubectl's words when there is none, when the chosen one is
 * not in the history, and for a paused Deployment (its rollbacker refuses).
 * Choosing the current revision changes nothing: kubectl says it skipped.
 */
export function planUndo(k: WorkloadKind, name: string, revs: Revision[], toRevision = 0, paused = false): UndoPlan {
  if (k === 'Deployment' && paused) return { ok: false, message: "you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again" };
  if (toRevision === 0 && revs.length < 2) return { ok: false, message: `no rollout history found for ${k.toLowerCase()} "${name}"` };
  const target = toRevision === 0 ? revs[1] : revs.find((r) => r.revision === toRevision);
  if (!target) return { ok: false, message: `unable to find specified revision ${toRevision} in history` };
  if (target === revs[0]) return { ok: 'skipped', message: `${k.toLowerCase()}.apps/${name} skipped rollback (current template already matches revision ${target.revision})` };
  return { ok: true, to: target.revision, patch: [{ op: 'replace', path: '/spec/template', value: target.template }] };
}
