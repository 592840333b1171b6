/**
 * v1 defaults of the policy, networking, RBAC and autoscaling kinds
 * (upstream pkg/apis/{core,networking,rbac,autoscaling}/v*\/defaults.go).
 */
import { defaultPodTemplate } from './pod.js';
import { Obj, defaultResourceList, ensure, isObj, objects, setDefault } from './util.js';

/** SetDefaults_LimitRangeItem: for Container items, default ← max, defaultRequest ← default, then ← min. */
export function defaultLimitRange(lr: Obj): void {
  for (const item of objects(ensure(lr, 'spec').limits)) {
    for (const f of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio']) defaultResourceList(item[f]);
    if (item.type !== 'Container') continue;
    const def = ensure(item, 'default');
    const defReq = ensure(item, 'defaultRequest');
    for (const [k, v] of Object.entries(isObj(item.max) ? item.max : {})) if (!(k in def)) def[k] = v;
    for (const [k, v] of Object.entries(def)) if (!(k in defReq)) defReq[k] = v;
    for (const [k, v] of Object.entries(isObj(item.min) ? item.min : {})) if (!(k in defReq)) defReq[k] = v;
  }
}

export function defaultResourceQuota(rq: Obj): void {
  if (isObj(rq.spec)) defaultResourceList(rq.spec.hard);
  if (isObj(rq.status)) { defaultResourceList(rq.status.hard); defaultResourceList(rq.status.used); }
}

export const defaultPodTemplateObject = (pt: Obj): void => defaultPodTemplate(pt.template);

/** NetworkPolicy: port protocol TCP; policyTypes [Ingress] plus Egress when egress rules exist. */
export function defaultNetworkPolicy(np: Obj): void {
  const spec = ensure(np, 'spec');
  for (const rule of [...objects(spec.ingress), ...objects(spec.egress)]) {
    for (const port of objects(rule.ports)) setDefault(port, 'protocol', 'TCP');
  }
  if (!Array.isArray(spec.policyTypes) || spec.policyTypes.length === 0) {
    spec.policyTypes = Array.isArray(spec.egress) && spec.egress.length ? ['Ingress', 'Egress'] : ['Ingress'];
  }
}

/** RBAC subjects: apiGroup rbac.authorization.k8s.io for User and Group, "" for ServiceAccount. */
export function defaultRoleBinding(b: Obj): void {
  for (const s of objects(b.subjects)) {
    if (s.kind === 'User' || s.kind === 'Group') setDefault(s, 'apiGroup', 'rbac.authorization.k8s.io');
  }
}

/** autoscaling/v1: minReplicas 1. */
export function defaultHPAv1(hpa: Obj): void {
  if (isObj(hpa.spec) && hpa.spec.minReplicas == null) hpa.spec.minReplicas = 1;
}

const scaleUpRules = () => ({ stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] });
const scaleDownRules = () => ({ selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] });

/** copyHPAScalingRules: the given fields over the defaults. */
function scalingRules(given: unknown, defaults: Obj): Obj {
  if (!isObj(given)) return defaults;
  for (const k of ['selectPolicy', 'stabilizationWindowSeconds', 'policies', 'tolerance']) if (given[k] != null) defaults[k] = given[k];
  return defaults;
}

/** autoscaling/v2: minReplicas 1, a CPU utilization target of 80% without metrics, behavior rules filled in when present. */
export function defaultHPAv2(hpa: Obj): void {
  if (!isObj(hpa.spec)) return;
  const spec = hpa.spec;
  if (spec.minReplicas == null) spec.minReplicas = 1;
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
    spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
  }
  if (isObj(spec.behavior)) {
    spec.behavior.scaleUp = scalingRules(spec.behavior.scaleUp, scaleUpRules());
    spec.behavior.scaleDown = scalingRules(spec.behavior.scaleDown, scaleDownRules());
  }
}
