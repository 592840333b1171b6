/**
 * MutatingAdmissionWebhook and ValidatingAdmissionWebhook, the admission plugins
 * that call the webhooks of admissionregistration.k8s.io/v1 configurations:
 *  - admit (after the built-in mutating plugins): mutating webhooks;
 *  - validate (after validation, before ResourceQuota): validating webhooks;
 *  - admitDelete: both kinds for DELETE (no object; patches have nothing to change).
 * Webhooks come from watch-fed caches (configurations, Services, EndpointSlices,
 * Endpoints, Namespaces): with none installed a request costs one empty-array check.
 * Only requests served over HTTP are sent to webhooks: the server's own writes
 * (bootstrap, in-process loops) carry no request scope and are not.
 */
import type { MutatingWebhook, MutatingWebhookConfiguration, ValidatingWebhook, ValidatingWebhookConfiguration } from 'kubernetes-types/admissionregistration/v1.js';
import type { Namespace } from 'kubernetes-types/core/v1.js';
import type { ResourceInfo } from '../../../api/resources.js';
import { Lister } from '../../../registry/lister.js';
import type { Registry } from '../../../registry/registry.js';
import type { Logger } from '../../../util/log.js';
import type { ServiceResolver } from '../../service-resolver.js';
import type { RequestContext } from '../../request-context.js';
import { isExemptResource, type AdmissionAttributes, type AdmissionOperation } from './attributes.js';
import { closeWebhookConnections } from './client.js';
import { WebhookSource, type Accessor } from './configurations.js';
import type { WebhookMetrics } from './metrics.js';
import { dispatchMutating } from './mutating.js';
import { dispatchValidating } from './validating.js';

export { createWebhookMetrics } from './metrics.js';

export interface WebhookAdmission {
  /** Undefined (no promise) when no webhook is configured: the common case costs no async hop. */
  admit(op: 'create' | 'update', info: ResourceInfo, obj: any, old?: any, ctx?: RequestContext): Promise<void> | undefined;
  validate(op: 'create' | 'update', info: ResourceInfo, obj: any, old: any | undefined, opts: { dryRun: boolean }, ctx?: RequestContext): Promise<void> | undefined;
  admitDelete(info: ResourceInfo, obj: any, ctx?: RequestContext): Promise<void>;
  /** The Service resolution webhook calls go through (CRD conversion webhooks use it too). */
  readonly resolver: ServiceResolver;
  start(): Promise<void>;
  close(): void;
}

export interface WebhookAdmissionOptions {
  metrics?: WebhookMetrics;
  logger?: Logger;
  namespaces: Pick<Lister<Namespace>, 'get'>;
  /** The server's Service resolution (shared with conversion webhooks and aggregation). */
  resolver: ServiceResolver;
}

export function webhookAdmission(registry: Registry, opts: WebhookAdmissionOptions): WebhookAdmission {
  const lister = <T>(group: string, plural: string) => new Lister<T & { metadata?: { name?: string; namespace?: string } }>(registry.store(group, 'v1', plural)!, { logger: opts.logger });
  const mutatingConfigs = lister<MutatingWebhookConfiguration>('admissionregistration.k8s.io', 'mutatingwebhookconfigurations');
  const validatingConfigs = lister<ValidatingWebhookConfiguration>('admissionregistration.k8s.io', 'validatingwebhookconfigurations');
  const mutating = new WebhookSource<MutatingWebhook>(mutatingConfigs);
  const validating = new WebhookSource<ValidatingWebhook>(validatingConfigs);
  const resolver = opts.resolver;
  const deps = { resolver, metrics: opts.metrics, logger: opts.logger, getNamespace: (name: string) => opts.namespaces.get(undefined, name) };
  const all = [mutatingConfigs, validatingConfigs];

  const run = async (op: AdmissionOperation, info: ResourceInfo, obj: any, old: any, ctx: RequestContext | undefined, phases: { m?: readonly Accessor<MutatingWebhook>[]; v?: readonly Accessor<ValidatingWebhook>[] }, dryRun?: boolean) => {
    if (!phases.m?.length && !phases.v?.length) return;
    const a = attributes(op, info, obj, old, ctx, dryRun);
    if (!a) return;
    if (phases.m?.length) await dispatchMutating(phases.m, a, deps);
    if (phases.v?.length) await dispatchValidating(phases.v, a, deps);
  };
  return {
    admit: (op, info, obj, old, ctx) => {
      const m = mutating.webhooks();
      return m.length ? run(op === 'create' ? 'CREATE' : 'UPDATE', info, obj, old, ctx, { m }) : undefined;
    },
    validate: (op, info, obj, old, o, ctx) => {
      const v = validating.webhooks();
      return v.length ? run(op === 'create' ? 'CREATE' : 'UPDATE', info, obj, old, ctx, { v }, o.dryRun) : undefined;
    },
    admitDelete: (info, obj, ctx) => run('DELETE', info, undefined, obj, ctx, { m: mutating.webhooks(), v: validating.webhooks() }),
    resolver,
    start: async () => { await Promise.all(all.map((l) => l.start())); },
    close: () => { for (const l of all) l.close(); closeWebhookConnections(); },
  };
}

/** The attributes of this write, or undefined when webhooks do not apply (exempt, or not a served request). */
function attributes(operation: AdmissionOperation, info: ResourceInfo, object: any, oldObject: any, ctx: RequestContext | undefined, dryRun?: boolean): AdmissionAttributes | undefined {
  if (isExemptResource(info)) return undefined;
  const scope = ctx?.webhook;
  if (!scope) return undefined;
  const req = ctx.info;
  const sameResource = req?.resource === info.plural && req.group === info.group;
  const meta = (object ?? oldObject)?.metadata ?? {};
  const q = scope.url.searchParams;
  const isDry = dryRun ?? q.getAll('dryRun').includes('All');
  const optionsKind = operation === 'CREATE' ? 'CreateOptions' : operation === 'UPDATE' ? 'UpdateOptions' : 'DeleteOptions';
  const options: Record<string, unknown> = { kind: optionsKind, apiVersion: 'meta.k8s.io/v1' };
  if (isDry) options.dryRun = ['All'];
  if (q.get('fieldManager') && operation !== 'DELETE') options.fieldManager = q.get('fieldManager');
  if (q.get('propagationPolicy') && operation === 'DELETE') options.propagationPolicy = q.get('propagationPolicy');
  return {
    operation, info, subresource: sameResource ? req?.subresource ?? '' : '', namespace: info.namespaced ? meta.namespace ?? '' : '',
    name: meta.name ?? '', object, oldObject, dryRun: isDry, options, user: ctx.user, warnTo: scope.res,
  };
}
