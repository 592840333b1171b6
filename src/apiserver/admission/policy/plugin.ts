/**
 * The ValidatingAdmissionPolicy admission plugin (upstream's
 * plugin/policy/validating): after mutating admission and object
 * validation, every policy whose matchConstraints select the request is
 * evaluated for each of its bindings whose matchResources do, once per
 * param, and the binding's validationActions apply to each failed
 * validation: Deny refuses the request with upstream's Status (the first
 * denial; its reason picks the code, 422 for Invalid), Warn adds a Warning
 * header, Audit logs the `validation.policy.admission.k8s.io/validation_failure`
 * annotation (k8ts has no audit log). Configuration errors (a missing
 * param, an unknown paramKind) follow the policy's failurePolicy.
 *
 * Policies, bindings and params are read from watch-fed caches; with no
 * binding the plugin costs one empty-cache check per write.
 */
import type { Namespace } from 'kubernetes-types/core/v1.js';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from 'kubernetes-types/admissionregistration/v1.js';
import type { ResourceInfo } from '../../../api/resources.js';
import { kindKey } from '../../../api/resources.js';
import { StatusError, type Status } from '../../../api/status.js';
import { typeCheckPolicy, type TypeCheckEnv } from '../../../api/admissionregistration/typecheck.js';
import { definitionFor, openapiDefinitions, refName } from '../../../api/schema/definitions.js';
import { runtimeCELCostBudget } from '../../../api/apiextensions/cel-runtime-cost.js';
import { Lister } from '../../../registry/lister.js';
import type { Registry } from '../../../registry/registry.js';
import type { Logger } from '../../../util/log.js';
import type { RequestContext } from '../../request-context.js';
import { addWarning } from '../../request-warnings.js';
import { evaluatePolicy, type Meter } from './evaluate.js';
import { matchResources } from './matching.js';
import { ParamError, Params } from './params.js';
import { requestVariable, type Operation, type PolicyRequest } from './request.js';
import { toCelValue } from './cel-value.js';

/** All policy evaluations of one request stop after this much evaluation time (k8ts' bound beside the cost budget; docs/threads.md). */
export const requestTimeLimitMs = 500;

const group = 'admissionregistration.k8s.io';

/** StatusReason -> code, as upstream's reasonToCode. */
function reasonToCode(reason: string): number {
  switch (reason) {
    case 'Forbidden': return 403;
    case 'Unauthorized': return 401;
    case 'RequestEntityTooLarge': return 413;
    default: return 422;
  }
}

interface Denial { policy: string; binding?: string; message: string; reason?: string }

/** admission.NewForbidden's Status, with the denial's reason and code and the message as a cause (dispatcher.go). */
function denialStatus(d: Denial, req: PolicyRequest): StatusError {
  const message = d.binding !== undefined
    ? `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.message}`
    : `ValidatingAdmissionPolicy '${d.policy}' denied request: ${d.message}`;
  const qualified = req.group ? `${req.resource}.${req.group}` : req.resource;
  const reason = d.reason || 'Invalid';
  const status: Status = {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: `${qualified}${req.name ? ` "${req.name}"` : ''} is forbidden: ${message}`,
    reason, code: reasonToCode(reason),
    details: { name: req.name || undefined, group: req.group, kind: req.resource, causes: [{ message }] },
  };
  if (!req.name) delete status.details!.name;
  return new StatusError(status);
}

export interface PolicyPluginDeps {
  registry: () => Registry;
  namespaces: Lister<Namespace>;
  logger?: Logger;
}

export class ValidatingAdmissionPolicyPlugin {
  private readonly policies: Lister<ValidatingAdmissionPolicy>;
  private readonly bindings: Lister<ValidatingAdmissionPolicyBinding>;
  private readonly params: Params;

  constructor(private readonly deps: PolicyPluginDeps) {
    const registry = deps.registry();
    this.policies = new Lister(registry.store(group, 'v1', 'validatingadmissionpolicies')!, { logger: deps.logger });
    this.bindings = new Lister(registry.store(group, 'v1', 'validatingadmissionpolicybindings')!, { logger: deps.logger });
    this.params = new Params(deps.registry);
  }

  async start(): Promise<void> { await Promise.all([this.policies.start(), this.bindings.start()]); }

  close(): void { this.policies.close(); this.bindings.close(); this.params.close(); }

  /** The validating hook of creates and updates (registry's validateAdmission). */
  validate(op: 'create' | 'update', info: ResourceInfo, obj: any, old: any, opts: { dryRun: boolean }, ctx?: RequestContext): Promise<void> | undefined {
    if (info.group === group && info.plural === 'validatingadmissionpolicies') this.recordTypeChecking(obj, ctx);
    const first = this.bindings.inNamespace('')[Symbol.iterator]().next();
    // No binding: no promise either (steps.ts).
    if (first.done) return undefined;
    return this.dispatch(this.attributes(op === 'create' ? 'CREATE' : 'UPDATE', info, obj, old ?? null, opts.dryRun, ctx), ctx);
  }

  /** The hook of deletes (registry's admitDelete): object is null, oldObject the stored object. */
  async validateDelete(info: ResourceInfo, obj: any, ctx?: RequestContext): Promise<void> {
    const first = this.bindings.inNamespace('')[Symbol.iterator]().next();
    if (first.done) return;
    await this.dispatch(this.attributes('DELETE', info, null, obj, false, ctx), ctx);
  }

  private attributes(operation: Operation, info: ResourceInfo, object: any, oldObject: any, dryRun: boolean, ctx: RequestContext | undefined): PolicyRequest {
    const meta = (object ?? oldObject)?.metadata ?? {};
    const ri = ctx?.info;
    return {
      operation, group: info.group, version: info.version, kind: info.kind, resource: info.plural,
      subresource: ri?.resource === info.plural ? ri.subresource ?? '' : '',
      namespaced: info.namespaced, name: meta.name ?? '', namespace: info.namespaced ? meta.namespace ?? '' : '',
      object, oldObject, user: ctx?.user, dryRun,
    };
  }

  private async dispatch(req: PolicyRequest, ctx: RequestContext | undefined): Promise<void> {
    const byPolicy = new Map<string, ValidatingAdmissionPolicyBinding[]>();
    for (const b of this.bindings.inNamespace('')) {
      const name = b.spec?.policyName;
      if (!name) continue;
      const list = byPolicy.get(name);
      if (list) list.push(b); else byPolicy.set(name, [b]);
    }
    const namespace = req.namespace ? this.deps.namespaces.get('', req.namespace) : undefined;
    const nsLabels = () => namespace ? namespace.metadata?.labels ?? {} : undefined;
    let base: Record<string, unknown> | undefined;
    let timeLeftMs = requestTimeLimitMs;
    const denials: Denial[] = [];
    for (const policyName of [...byPolicy.keys()].sort()) {
      const policy = this.policies.get('', policyName);
      if (!policy || !matchResources(policy.spec?.matchConstraints, req, nsLabels)) continue;
      const failurePolicy = policy.spec?.failurePolicy ?? 'Fail';
      const bindings = byPolicy.get(policyName)!.sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
      for (const binding of bindings) {
        if (!matchResources(binding.spec?.matchResources, req, nsLabels)) continue;
        const bindingName = binding.metadata?.name ?? '';
        let params: unknown[];
        try {
          params = await this.params.collect(policy.spec?.paramKind, binding.spec?.paramRef, req.namespace);
        } catch (e) {
          if (!(e instanceof ParamError)) throw e;
          if (failurePolicy !== 'Ignore') denials.push({ policy: policyName, binding: bindingName, message: `failed to configure binding: ${e.message}` });
          continue;
        }
        base ??= {
          object: toCelValue(req.object), oldObject: toCelValue(req.oldObject), request: toCelValue(requestVariable(req)),
          namespaceObject: toCelValue(namespace ?? null),
        };
        for (const param of params) {
          const meter: Meter = { remaining: runtimeCELCostBudget, timeLeftMs };
          const result = await evaluatePolicy(policy, { ...base, params: toCelValue(param) }, meter);
          timeLeftMs = meter.timeLeftMs;
          for (const d of result.decisions) {
            if (d.action !== 'deny') continue;
            for (const action of binding.spec?.validationActions ?? []) {
              if (action === 'Deny') denials.push({ policy: policyName, binding: bindingName, message: d.message, reason: d.error ? undefined : d.reason });
              else if (action === 'Warn') addWarning(ctx, `Validation failed for ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}': ${d.message}`);
              else if (action === 'Audit') {
                this.deps.logger?.info('audit annotation', { key: 'validation.policy.admission.k8s.io/validation_failure',
                  value: JSON.stringify([{ message: d.message, policy: policyName, binding: bindingName, expressionIndex: d.index, validationActions: binding.spec?.validationActions }]) });
              }
            }
          }
          for (const a of result.auditAnnotations) this.deps.logger?.info('audit annotation', { key: `${policyName}/${a.key}`, value: a.value });
        }
      }
    }
    if (denials.length) throw denialStatus(denials[0], req);
  }

  /**
   * status.typeChecking and observedGeneration, written with the policy
   * itself (upstream's status controller writes them a moment later).
   */
  private recordTypeChecking(policy: ValidatingAdmissionPolicy, ctx: RequestContext | undefined): void {
    if (ctx?.info?.subresource === 'status') return;
    const registry = this.deps.registry();
    const env: TypeCheckEnv = {
      kindsFor: (g, v, r) => {
        const info = registry.store(g, v, r)?.info;
        return info ? [{ group: info.group, version: info.version, kind: info.kind }] : [];
      },
      schemaOf: (k) => definitionFor(kindKey(k)),
      resolve: (ref) => openapiDefinitions()[refName(ref)],
    };
    let warnings: ReturnType<typeof typeCheckPolicy> = [];
    try { warnings = typeCheckPolicy(policy, env); } catch (e) {
      // Type checking must never change what the policy does (upstream's words).
      this.deps.logger?.warn('type checking failed', { policy: policy.metadata?.name, err: (e as Error).message });
    }
    (policy as { status?: ValidatingAdmissionPolicy['status'] }).status = { observedGeneration: policy.metadata?.generation, typeChecking: warnings.length ? { expressionWarnings: warnings } : {} };
  }
}
