/**
 * POST pods/x/eviction (policy/v1 Eviction), as upstream's EvictionREST:
 *  1. a pod that is terminal, pending or already terminating is deleted
 *     without looking at budgets;
 *  2. more than one covering PodDisruptionBudget is a 500; none, a plain
 *     delete;
 *  3. an unready pod is deleted without spending a disruption under
 *     AlwaysAllow, or under IfHealthyBudget while the budget is met;
 *  4. otherwise the budget must be observed (observedGeneration >= generation)
 *     and allow a disruption: disruptionsAllowed is decremented and the pod
 *     recorded in status.disruptedPods in one write guarded by the budget's
 *     resourceVersion (a conflict re-reads and checks again), else 429
 *     TooManyRequests, which `kubectl drain` waits on and retries;
 *  5. the pod gets the DisruptionTarget condition (EvictionByEvictionAPI) and
 *     is deleted with its resourceVersion as precondition, so a pod that
 *     became ready meanwhile is not evicted on stale numbers.
 */
import { badRequest, StatusError, type Status } from '../../api/status.js';
import {
  budgetsCoveringPod, disruptionTargetCondition, evictionCanIgnoreBudget, setDisruptionAllowedCondition, unhealthyPodMayBeEvicted,
} from '../../api/disruptionbudget.js';
import { rfc3339Now, updatePodCondition } from '../../api/pods.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Eviction, PodDisruptionBudget, PodDisruptionBudgetStatus } from 'kubernetes-types/policy/v1.js';
import type { Store } from '../../registry/store.js';
import type { DeleteOptions, Stored } from '../../registry/types.js';
import type { RequestContext } from '../request-context.js';

/** MaxDisruptedPodSize: evictions approved but not yet seen by the disruption controller. */
const maxDisruptedPodSize = 2000;
const evictionsRetry = 20;
const budgetMessage = "Cannot evict pod as it would violate the pod's disruption budget.";

function failure(code: number, reason: string, message: string, details?: Status['details']): StatusError {
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code, ...(details ? { details } : {}) });
}

const tooManyRequests = (cause: string, retryAfterSeconds: number) =>
  failure(429, 'TooManyRequests', budgetMessage, { causes: [{ reason: 'DisruptionBudget', message: cause }], retryAfterSeconds });

const pdbForbidden = (name: string, why: string) =>
  failure(403, 'Forbidden', `poddisruptionbudget.policy "${name}" is forbidden: ${why}`, { name, group: 'policy', kind: 'poddisruptionbudget' });

export interface EvictionRequest {
  namespace: string;
  name: string;
  deleteOptions: DeleteOptions;
  dryRun: boolean;
  now: Date;
  /** The eviction request's context: its writes (the budget's status, the pod's condition, the delete) are admitted as its. */
  context?: RequestContext;
}

export interface EvictionStores { pods: Store; pdbs: Store }

export async function evictPod(stores: EvictionStores, req: EvictionRequest): Promise<void> {
  const pod: Stored<Pod> = await stores.pods.get(req.namespace, req.name);
  if (evictionCanIgnoreBudget(pod)) return deletePod(stores.pods, pod, req, false); // 1
  const pdbs = budgetsCoveringPod((await stores.pdbs.list(req.namespace)).items as Stored<PodDisruptionBudget>[], pod);
  if (pdbs.length > 1) throw failure(500, '', 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.'); // 2
  if (pdbs.length === 0) return deletePod(stores.pods, pod, req, false);
  if (unhealthyPodMayBeEvicted(pdbs[0], pod)) return deletePod(stores.pods, pod, req, true, pdbs[0].metadata.name); // 3
  await checkAndDecrement(stores.pdbs, pdbs[0], req); // 4
  return deletePod(stores.pods, pod, req, true, pdbs[0].metadata.name); // 5
}

/** checkAndDecrement, retried on conflicts with a fresh read of the budget. */
async function checkAndDecrement(pdbs: Store, first: Stored<PodDisruptionBudget>, req: EvictionRequest): Promise<void> {
  let pdb = first;
  for (let attempt = 0; ; attempt++) {
    const s: PodDisruptionBudgetStatus = pdb.status ?? { currentHealthy: 0, desiredHealthy: 0, disruptionsAllowed: 0, expectedPods: 0 };
    if ((s.observedGeneration ?? 0) < (pdb.metadata.generation ?? 0)) {
      throw tooManyRequests(`The disruption budget ${pdb.metadata.name} is still being processed by the server.`, 10);
    }
    if ((s.disruptionsAllowed ?? 0) < 0) throw pdbForbidden(pdb.metadata.name, 'pdb disruptions allowed is negative');
    if (Object.keys(s.disruptedPods ?? {}).length > maxDisruptedPodSize) {
      throw pdbForbidden(pdb.metadata.name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
    }
    if ((s.disruptionsAllowed ?? 0) === 0) {
      throw tooManyRequests(`The disruption budget ${pdb.metadata.name} needs ${s.desiredHealthy ?? 0} healthy pods and has ${s.currentHealthy ?? 0} currently`, 0);
    }
    if (req.dryRun) return;
    try {
      await pdbs.guaranteedUpdate(req.namespace, pdb.metadata.name, () => decremented(pdb, req), { subresource: 'status', preconditionRV: pdb.metadata.resourceVersion, context: req.context });
      return;
    } catch (e) {
      if ((e as StatusError).code !== 409 || attempt >= evictionsRetry) throw e;
      pdb = await pdbs.get(req.namespace, pdb.metadata.name);
    }
  }
}

/** The budget with one disruption spent on the pod; its resourceVersion makes the write conditional. */
function decremented(pdb: Stored<PodDisruptionBudget>, req: EvictionRequest): PodDisruptionBudget {
  const next = structuredClone(pdb);
  // checkAndDecrement saw disruptionsAllowed > 0, so the status is there.
  const status = next.status!;
  status.disruptionsAllowed--;
  if (status.disruptionsAllowed === 0) setDisruptionAllowedCondition(status, status.observedGeneration ?? 0, rfc3339Now(req.now));
  status.disruptedPods = { ...(status.disruptedPods ?? {}), [req.name]: rfc3339Now(req.now) };
  return next;
}

/**
 * Marks the pod DisruptionTarget and deletes it. `guarded` deletes only the
 * version checked against the budget; losing that race is a 429 (the client
 * retries), unless the caller gave its own precondition.
 */
async function deletePod(pods: Store, pod: Stored<Pod>, req: EvictionRequest, guarded: boolean, pdbName?: string): Promise<void> {
  const opts = { ...(req.deleteOptions ?? {}) };
  const callerRV = opts.preconditions?.resourceVersion;
  let target: Stored<Pod> = pod;
  const terminal = pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
  if (!terminal && !pod.metadata.deletionTimestamp && !req.dryRun) {
    target = await pods.guaranteedUpdate(req.namespace, req.name, (cur: Stored<Pod>) => {
      if (guarded && !callerRV && cur.metadata.resourceVersion !== pod.metadata.resourceVersion) throw tooManyRequests(`The disruption budget ${pdbName} is still being processed by the server.`, 10);
      const status = cur.status ?? {};
      updatePodCondition(status, { type: disruptionTargetCondition, status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' }, req.now);
      return cur.status ? cur : { ...cur, status };
    }, { subresource: 'status', context: req.context });
    if (guarded && !callerRV) opts.preconditions = { ...(opts.preconditions ?? {}), resourceVersion: target.metadata.resourceVersion };
  }
  try {
    await pods.delete(req.namespace, req.name, opts, req.dryRun, undefined, req.context);
  } catch (e) {
    if ((e as StatusError).code === 409 && guarded && !callerRV) throw tooManyRequests(`The disruption budget ${pdbName} is still being processed by the server.`, 10);
    throw e;
  }
}

/** The Eviction body names the pod of the URL. */
export function checkEvictionName(eviction: Eviction | undefined, name: string): void {
  if (eviction?.metadata?.name && eviction.metadata.name !== name) throw badRequest('name in URL does not match name in Eviction object');
}
