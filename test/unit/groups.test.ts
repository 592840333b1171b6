/** HPA v1 <-> v2 conversion, clusterrole aggregation, printers and validation of the groups served for issue #10. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hpaV1ToV2, hpaV2ToV1, otherMetricsAnnotation, currentMetricsAnnotation } from '../../src/api/hpa-conversion.js';
import { aggregatedRules, rulesEqual } from '../../src/controllers/clusterroleaggregation/aggregate.js';
import { printTable } from '../../src/registry/printers/index.js';
import { validateCreate, validateUpdate } from '../../src/api/validation/index.js';
import { fieldErrorMessage } from '../../src/api/field-errors.js';

const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };

describe('HorizontalPodAutoscaler conversion', () => {
  it('v1 targetCPUUtilizationPercentage is a v2 Resource metric, and back', () => {
    const v1: any = { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' }, spec: { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 50 } };
    const v2 = hpaV1ToV2(v1);
    assert.deepEqual(v2.spec?.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }]);
    assert.deepEqual(hpaV2ToV1(v2), v1);
  });
  it('metrics v1 cannot say travel in annotations and come back', () => {
    const v2: any = {
      apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' },
      spec: {
        scaleTargetRef: ref, minReplicas: 2, maxReplicas: 5,
        metrics: [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
          { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } } },
        ],
      },
      status: { currentReplicas: 2, desiredReplicas: 2, currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 30 } } }] },
    };
    const v1: any = hpaV2ToV1(v2);
    assert.equal(v1.spec.targetCPUUtilizationPercentage, 60);
    assert.equal(v1.status.currentCPUUtilizationPercentage, 30);
    assert.deepEqual(JSON.parse(v1.metadata.annotations[otherMetricsAnnotation]), [{ type: 'Pods', pods: { metricName: 'qps', targetAverageValue: '10' } }]);
    assert.ok(v1.metadata.annotations[currentMetricsAnnotation]);
    assert.deepEqual(hpaV1ToV2(v1), v2);
  });
});

describe('aggregatedRules', () => {
  const role = (name: string, labels: Record<string, string>, rules: any[] = []) => ({ metadata: { name, labels }, rules });
  const agg = { metadata: { name: 'view' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'x/agg': 'true' } }] } };
  const r1 = { apiGroups: [''], resources: ['pods'], verbs: ['get'] };
  const r2 = { apiGroups: ['apps'], resources: ['deployments'], verbs: ['list'] };
  it('collects the rules of matching roles by name, once each', () => {
    const all = [agg, role('b', { 'x/agg': 'true' }, [r2, r1]), role('a', { 'x/agg': 'true' }, [r1]), role('c', {}, [{ ...r1, verbs: ['*'] }])];
    assert.deepEqual(aggregatedRules(agg as any, all as any), [r1, r2]);
  });
  it('a role without aggregationRule is left alone', () => assert.equal(aggregatedRules(role('x', {}) as any, []), undefined));
  it('rulesEqual treats absent as empty', () => assert.ok(rulesEqual(undefined, [])));
});

describe('printers', () => {
  const now = new Date('2026-01-01T00:00:10Z');
  const created = { creationTimestamp: '2026-01-01T00:00:00Z' };
  it('Ingress: class, hosts, address, ports', () => {
    const ing = { metadata: { name: 'i', ...created }, spec: { ingressClassName: 'nginx', rules: [{ host: 'a.com' }, { host: 'b.com' }], tls: [{}] }, status: { loadBalancer: { ingress: [{ ip: '10.0.0.2' }, { hostname: 'lb' }] } } };
    assert.deepEqual(printTable('networking.k8s.io/v1/Ingress', [ing], { now }).rows[0].cells, ['i', 'nginx', 'a.com,b.com', '10.0.0.2,lb', '80, 443', '10s']);
  });
  it('ResourceQuota: requests and limits columns', () => {
    const rq = { metadata: { name: 'q', ...created }, status: { hard: { pods: '2', 'limits.cpu': '4', cpu: '2' }, used: { pods: '1', cpu: '500m' } } };
    assert.deepEqual(printTable('v1/ResourceQuota', [rq], { now }).rows[0].cells, ['q', 'cpu: 500m/2, pods: 1/2', 'limits.cpu: 0/4', '10s']);
  });
  it('HPA v1 prints from its v2 form', () => {
    const v1 = { metadata: { name: 'h', ...created }, spec: { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 80 }, status: { currentReplicas: 1 } };
    assert.deepEqual(printTable('autoscaling/v1/HorizontalPodAutoscaler', [v1], { now }).rows[0].cells, ['h', 'Deployment/web', 'cpu: <unknown>/80%', '1', 3, 1, '10s']);
  });
  it('RoleBinding: role and subjects', () => {
    const rb = { metadata: { name: 'rb', ...created }, roleRef: { kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'u' }, { kind: 'ServiceAccount', name: 'sa', namespace: 'ns' }] };
    assert.deepEqual(printTable('rbac.authorization.k8s.io/v1/RoleBinding', [rb], { now }).rows[0].cells, ['rb', 'ClusterRole/view', '10s', 'u', '', 'ns:sa']);
  });
});

describe('validation', () => {
  const msgs = (errs: any[]) => errs.map(fieldErrorMessage);
  it('RBAC rules and bindings', () => {
    assert.deepEqual(msgs(validateCreate('rbac.authorization.k8s.io/v1/Role', { metadata: { name: 'r', namespace: 'd' }, rules: [{ verbs: [] }] })), [
      'rules[0].verbs: Required value: verbs must contain at least one value',
      'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
      'rules[0].resources: Required value: resource rules must supply at least one resource',
    ]);
    assert.deepEqual(msgs(validateCreate('rbac.authorization.k8s.io/v1/ClusterRoleBinding', {
      metadata: { name: 'b' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'x' }, subjects: [{ kind: 'ServiceAccount', name: 'sa' }],
    })), ['roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"', 'subjects[0].namespace: Required value']);
    const rb = { metadata: { name: 'b', namespace: 'd', resourceVersion: '1' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'x' } };
    assert.match(msgs(validateUpdate('rbac.authorization.k8s.io/v1/RoleBinding', { ...rb, roleRef: { ...rb.roleRef, name: 'y' } }, rb)).join('\n'), /roleRef: Invalid value: .*: cannot change roleRef/);
  });
  it('ResourceQuota names and scopes', () => {
    assert.deepEqual(msgs(validateCreate('v1/ResourceQuota', { metadata: { name: 'q', namespace: 'd' }, spec: { hard: { cpu: '1' }, scopes: ['BestEffort', 'NotBestEffort'] } })), [
      'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort"}: unsupported scope applied to resource',
      'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort"}: conflicting scopes',
    ]);
  });
  it('LimitRange ordering', () => {
    assert.deepEqual(msgs(validateCreate('v1/LimitRange', { metadata: { name: 'l', namespace: 'd' }, spec: { limits: [{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } }] } })),
      ['spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1']);
  });
  it('HPA replicas', () => {
    assert.deepEqual(msgs(validateCreate('autoscaling/v2/HorizontalPodAutoscaler', { metadata: { name: 'h', namespace: 'd' }, spec: { scaleTargetRef: ref, minReplicas: 3, maxReplicas: 2 } })),
      ['spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`']);
  });
  it('Ingress paths need a pathType', () => {
    const ing = { metadata: { name: 'i', namespace: 'd' }, spec: { rules: [{ http: { paths: [{ path: '/', backend: { service: { name: 's', port: { number: 80 } } } }] } }] } };
    assert.deepEqual(msgs(validateCreate('networking.k8s.io/v1/Ingress', ing)), ['spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified']);
  });
});
