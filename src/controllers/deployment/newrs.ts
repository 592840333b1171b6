/**
 * getNewReplicaSet (upstream sync.go): find, refresh or create the
 * Deployment's new ReplicaSet.
 *  - Existing: copy the Deployment's annotations and raise its revision to
 *    max(old revisions) + 1 (rolled back to: the old number joins
 *    revision-history); sync minReadySeconds; the Deployment's revision
 *    annotation follows it; a missing Progressing condition becomes
 *    FoundNewReplicaSet.
 *  - Missing (and asked to create): `<deployment>-<hash>` where hash =
 *    ComputeHash(template, collisionCount), added as the pod-template-hash
 *    label to its labels, selector and template; its size is what the
 *    strategy allows now. AlreadyExists with another template is a hash
 *    collision: collisionCount goes up and the sync retries. Other errors
 *    set Progressing False ReplicaSetCreateError. Success sets Progressing
 *    True NewReplicaSetCreated.
 */
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Clientset } from '../../client/index.js';
import { isAlreadyExists } from '../../client/index.js';
import { controllerRef } from '../../api/pods.js';
import type { Clock } from '../../util/clock.js';
import { newControllerRef } from '../controller-ref.js';
import { newRSNewReplicas } from './rolling.js';
import {
  computeHash, equalIgnoreHash, getCondition, hasProgressDeadline, maxRevision, newCondition, podTemplateHashLabel, progressing, reasons,
  revisionAnnotation, setCondition, setNewReplicaSetAnnotations,
} from './util.js';

export interface NewReplicaSetDeps {
  clients: Clientset;
  rsCache(key: string): ReplicaSet | undefined;
  clock: Clock;
  event(d: Deployment, type: 'Normal' | 'Warning', reason: string, message: string): void;
  updateStatus(d: Deployment): Promise<void>;
}

/** SetDeploymentRevision: whether the annotation changed. */
function setDeploymentRevision(d: Deployment, revision: string): boolean {
  const a = (d.metadata!.annotations ??= {});
  if (a[revisionAnnotation] === revision) return false;
  a[revisionAnnotation] = revision;
  return true;
}

export class NewReplicaSetCreator {
  constructor(private readonly deps: NewReplicaSetDeps) {}

  async getNewReplicaSet(d: Deployment, existing: ReplicaSet | undefined, oldRSs: ReplicaSet[], create: boolean): Promise<ReplicaSet | undefined> {
    const newRevision = maxRevision(oldRSs) + 1;
    if (existing) return this.refresh(d, existing, newRevision);
    if (!create) return undefined;
    return this.create(d, oldRSs, newRevision);
  }

  private async refresh(d: Deployment, existing: ReplicaSet, newRevision: number): Promise<ReplicaSet> {
    const copy: ReplicaSet = structuredClone(existing);
    const annotationsChanged = setNewReplicaSetAnnotations(d, copy, newRevision, true);
    const minReady = d.spec?.minReadySeconds ?? 0;
    if (annotationsChanged || (copy.spec?.minReadySeconds ?? 0) !== minReady) {
      copy.spec = { ...copy.spec!, minReadySeconds: minReady };
      return this.deps.clients.resource('replicasets').update({ ...copy, apiVersion: 'apps/v1', kind: 'ReplicaSet' });
    }
    let needsUpdate = setDeploymentRevision(d, copy.metadata?.annotations?.[revisionAnnotation] ?? '');
    if (hasProgressDeadline(d) && !getCondition(d.status, progressing)) {
      d.status ??= {};
      setCondition(d.status, newCondition(progressing, 'True', reasons.foundNewRS, `Found new replica set "${copy.metadata!.name}"`, this.deps.clock.now()));
      needsUpdate = true;
    }
    if (needsUpdate) await this.deps.updateStatus(d);
    return copy;
  }

  private async create(d: Deployment, oldRSs: ReplicaSet[], newRevision: number): Promise<ReplicaSet> {
    const hash = computeHash(d.spec!.template, d.status?.collisionCount);
    const labels = { ...(d.spec!.template.metadata?.labels ?? {}), [podTemplateHashLabel]: hash };
    const template = { ...structuredClone(d.spec!.template), metadata: { ...structuredClone(d.spec!.template.metadata ?? {}), labels } };
    const selector = { ...structuredClone(d.spec!.selector), matchLabels: { ...(d.spec!.selector.matchLabels ?? {}), [podTemplateHashLabel]: hash } };
    const rs: ReplicaSet = {
      apiVersion: 'apps/v1', kind: 'ReplicaSet',
      metadata: { name: `${d.metadata!.name}-${hash}`, namespace: d.metadata!.namespace, ownerReferences: [newControllerRef(d, { apiVersion: 'apps/v1', kind: 'Deployment' })], labels },
      spec: { replicas: 0, minReadySeconds: d.spec?.minReadySeconds ?? 0, selector, template },
    };
    rs.spec!.replicas = newRSNewReplicas(d, [...oldRSs, rs], rs);
    setNewReplicaSetAnnotations(d, rs, newRevision, false);
    let created: ReplicaSet;
    let alreadyExisted = false;
    try {
      created = await this.deps.clients.resource('replicasets').create(d.metadata!.namespace, rs);
    } catch (e) {
      if (isAlreadyExists(e)) {
        const found = this.deps.rsCache(`${d.metadata!.namespace}/${rs.metadata!.name}`);
        if (!found || controllerRef(found)?.uid !== d.metadata!.uid || !equalIgnoreHash(d.spec!.template, found.spec?.template)) {
          // A hash collision: bump collisionCount and let the retry pick another name.
          d.status = { ...(d.status ?? {}), collisionCount: (d.status?.collisionCount ?? 0) + 1 };
          await this.deps.updateStatus(d).catch(() => undefined);
          throw e;
        }
        created = found;
        alreadyExisted = true;
      } else {
        const msg = `Failed to create new replica set "${rs.metadata!.name}": ${(e as Error).message}`;
        if (hasProgressDeadline(d) && !/because it is being terminated/.test((e as Error).message)) {
          d.status ??= {};
          setCondition(d.status, newCondition(progressing, 'False', reasons.failedRSCreate, msg, this.deps.clock.now()));
          await this.deps.updateStatus(d).catch(() => undefined);
        }
        this.deps.event(d, 'Warning', reasons.failedRSCreate, msg);
        throw e;
      }
    }
    if (!alreadyExisted && (rs.spec!.replicas ?? 0) > 0) {
      this.deps.event(d, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${created.metadata!.name} from 0 to ${rs.spec!.replicas}`);
    }
    let needsUpdate = setDeploymentRevision(d, String(newRevision));
    if (!alreadyExisted && hasProgressDeadline(d)) {
      d.status ??= {};
      setCondition(d.status, newCondition(progressing, 'True', reasons.newRSCreated, `Created new replica set "${created.metadata!.name}"`, this.deps.clock.now()));
      needsUpdate = true;
    }
    if (needsUpdate) await this.deps.updateStatus(d);
    return created;
  }
}
