/**
 * The ResourceQuota admission plugin: a create in a namespace with quotas is
 * refused when it would take a quota past its hard limits (quota-check.ts),
 * and otherwise charged to the quotas' status.used before the object is
 * written. Each charge is a write guarded by the quota's resourceVersion, so
 * two creates racing for the last unit cannot both pass: the loser re-reads
 * the quotas and decides again. A create that fails after its charge leaves
 * the quota over-counted until the resourcequota controller recounts, as
 * upstream.
 *
 * The quotas come from the watch-fed cache (upstream's quotaAccessor reads
 * its lister), so a create in a namespace without quotas reads nothing. A
 * quota this plugin has just charged is preferred over an older cached copy
 * (upstream's updatedQuotas), and after a lost race the quotas are read from
 * storage, where the winner's charge already is.
 */
import type { ResourceQuota } from 'kubernetes-types/core/v1.js';
import type { ResourceInfo } from '../../api/resources.js';
import { evaluatorFor, resourceListJSON } from '../../api/quota/index.js';
import { conflict, forbiddenStatus, StatusError } from '../../api/status.js';
import type { Lister } from '../../registry/lister.js';
import type { Registry } from '../../registry/registry.js';
import type { Clock } from '../../util/clock.js';
import { checkQuotas } from './quota-check.js';
import { ChargedQuotas } from './charged-quotas.js';
import type { RequestContext } from '../request-context.js';

const maxAttempts = 10;

export function resourceQuotaAdmission(registry: () => Registry, resourceQuotas: Lister<ResourceQuota>, clock: Clock) {
  const charged = new ChargedQuotas();
  // A namespace without quotas (the cached list is empty) is answered without a promise (steps.ts).
  return (op: 'create' | 'update', info: ResourceInfo, obj: any, _old: any, opts: { dryRun: boolean }, ctx?: RequestContext): Promise<void> | undefined => {
    if (op !== 'create' || !info.namespaced) return undefined;
    if (resourceQuotas.list(obj.metadata.namespace).length === 0) return undefined;
    return charge(info, obj, opts, ctx);
  };
  // The charge is written for the request (its context: its user and webhooks see the quota's status write).
  async function charge(info: ResourceInfo, obj: any, opts: { dryRun: boolean }, ctx: RequestContext | undefined): Promise<void> {
    const namespace: string = obj.metadata.namespace;
    const quotas = registry().store('', 'v1', 'resourcequotas')!;
    const ev = evaluatorFor(info.group, info.plural);
    const done = new Set<string>();
    let live = false;
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const items: ResourceQuota[] = live ? (await quotas.list(namespace)).items : charged.newest(resourceQuotas.list(namespace));
      if (items.length === 0) return;
      const decision = checkQuotas(items.filter((q) => !done.has(q.metadata!.name!)), ev, obj, clock.now());
      if (!decision.allowed) throw forbiddenStatus(decision.message, { group: info.group, resource: info.plural }, obj.metadata.name);
      if (opts.dryRun) return;
      let lost = false;
      for (const { quota, used } of decision.charges) {
        const next = { ...quota, status: { ...quota.status, used: resourceListJSON(used) } };
        try {
          // The body's resourceVersion is the guard: a quota charged meanwhile answers 409.
          charged.observe(await quotas.update(namespace, quota.metadata!.name!, next, { subresource: 'status', current: quota, context: ctx }));
          done.add(quota.metadata!.name!);
        } catch (e) {
          if (!(e instanceof StatusError) || e.status.code !== 409) throw e;
          lost = true;
        }
      }
      if (!lost) return;
      live = true;
    }
    throw conflict({ group: '', resource: 'resourcequotas' }, namespace, 'too many concurrent changes to the namespace\'s quotas; please try again');
  }
}
