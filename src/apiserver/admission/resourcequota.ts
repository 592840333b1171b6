/**
 * The ResourceQuota admission plugin: a create in a namespace with quotas is
 * refused when it would take a quota past its hard limits (quota-check.ts),
 * and otherwise charged to the quotas' status.used before the object is
 * written. Each charge is a write guarded by the quota's resourceVersion, so
 * two creates racing for the last unit cannot both pass: the loser re-reads
 * the quotas and decides again. A create that fails after its charge leaves
 * the quota over-counted until the resourcequota controller recounts, as
 * upstream.
 */
import type { ResourceInfo } from '../../api/resources.js';
import { evaluatorFor, resourceListJSON } from '../../api/quota/index.js';
import { conflict, forbiddenStatus, StatusError } from '../../api/status.js';
import type { Registry } from '../../registry/registry.js';
import type { Clock } from '../../util/clock.js';
import { checkQuotas } from './quota-check.js';

const maxAttempts = 10;

export function resourceQuotaAdmission(registry: () => Registry, clock: Clock) {
  return async (op: 'create' | 'update', info: ResourceInfo, obj: any, _old: any, opts: { dryRun: boolean }): Promise<void> => {
    if (op !== 'create' || !info.namespaced) return;
    const namespace: string = obj.metadata.namespace;
    const quotas = registry().store('', 'v1', 'resourcequotas')!;
    const ev = evaluatorFor(info.group, info.plural);
    const charged = new Set<string>();
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const { items } = await quotas.list(namespace);
      if (items.length === 0) return;
      const decision = checkQuotas(items.filter((q: any) => !charged.has(q.metadata.name)), ev, obj, clock.now());
      if (!decision.allowed) throw forbiddenStatus(decision.message, { group: info.group, resource: info.plural }, obj.metadata.name);
      if (opts.dryRun) return;
      let lost = false;
      for (const { quota, used } of decision.charges) {
        const next = { ...quota, status: { ...quota.status, used: resourceListJSON(used) } };
        try {
          // The body's resourceVersion is the guard: a quota charged meanwhile answers 409.
          await quotas.update(namespace, quota.metadata!.name!, next, { subresource: 'status' });
          charged.add(quota.metadata!.name!);
        } catch (e) {
          if (!(e instanceof StatusError) || e.status.code !== 409) throw e;
          lost = true;
        }
      }
      if (!lost) return;
    }
    throw conflict({ group: '', resource: 'resourcequotas' }, namespace, 'too many concurrent changes to the namespace\'s quotas; please try again');
  };
}
