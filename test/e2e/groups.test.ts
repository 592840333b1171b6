/**
 * The policy, networking, RBAC and autoscaling groups (issue #10) with the
 * real kubectl 1.32: discovery as kube-apiserver advertises it, `kubectl
 * explain`, the `kubectl create` generators, ResourceQuota and LimitRange
 * admission in kubectl's words, an autoscaling/v1 HPA read back as v2, and
 * the bootstrap and aggregated ClusterRoles. The server runs the
 * resourcequota and clusterrole-aggregation controllers.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, Cluster } from './harness.js';
import { apiRequest, apiStream, kubectlExpect } from './helpers.js';

let cluster: Cluster;

before(async () => { cluster = await startCluster({ controllers: 'resourcequota,clusterrole-aggregation' }); });
after(async () => { await cluster?.stop(); });

const { ok, fails } = kubectlExpect(() => cluster);

/** name, short names, apiVersion, namespaced, kind, as kube-apiserver 1.32 lists them. */
const expected: [string, string, string, string, string][] = [
  ['podtemplates', '', 'v1', 'true', 'PodTemplate'],
  ['limitranges', 'limits', 'v1', 'true', 'LimitRange'],
  ['resourcequotas', 'quota', 'v1', 'true', 'ResourceQuota'],
  ['ingresses', 'ing', 'networking.k8s.io/v1', 'true', 'Ingress'],
  ['ingressclasses', '', 'networking.k8s.io/v1', 'false', 'IngressClass'],
  ['networkpolicies', 'netpol', 'networking.k8s.io/v1', 'true', 'NetworkPolicy'],
  ['runtimeclasses', '', 'node.k8s.io/v1', 'false', 'RuntimeClass'],
  ['horizontalpodautoscalers', 'hpa', 'autoscaling/v2', 'true', 'HorizontalPodAutoscaler'],
  ['roles', '', 'rbac.authorization.k8s.io/v1', 'true', 'Role'],
  ['clusterroles', '', 'rbac.authorization.k8s.io/v1', 'false', 'ClusterRole'],
  ['rolebindings', '', 'rbac.authorization.k8s.io/v1', 'true', 'RoleBinding'],
  ['clusterrolebindings', '', 'rbac.authorization.k8s.io/v1', 'false', 'ClusterRoleBinding'],
];

describe('discovery and explain', () => {
  test('kubectl api-resources lists every resource with upstream short names', async () => {
    const out = await ok(['api-resources', '--no-headers']);
    const rows = out.trim().split('\n').map((l) => l.trim().split(/\s+/));
    for (const [name, short, apiVersion, namespaced, kind] of expected) {
      const want = short ? [name, short, apiVersion, namespaced, kind] : [name, apiVersion, namespaced, kind];
      assert.ok(rows.some((r) => JSON.stringify(r) === JSON.stringify(want)), `${name}: want ${want.join(' ')}`);
    }
    const v1 = await ok(['api-resources', '--api-group=autoscaling', '-o', 'name']);
    assert.match(v1, /^horizontalpodautoscalers\.autoscaling$/m);
  });

  test('kubectl explain knows each kind, and both HPA versions', async () => {
    for (const [name, , apiVersion, , kind] of expected) {
      const out = await ok(['explain', name]);
      assert.match(out, new RegExp(`KIND:\\s+${kind}\\b`), name);
      assert.match(out, new RegExp(`VERSION:\\s+${apiVersion.split('/').pop()}\\b`), name);
    }
    assert.match(await ok(['explain', 'hpa.spec.targetCPUUtilizationPercentage', '--api-version=autoscaling/v1']), /targetCPUUtilizationPercentage\s+<integer>/);
    assert.match(await ok(['explain', 'hpa.spec.metrics.resource.target']), /averageUtilization\s+<integer>/);
    assert.match(await ok(['explain', 'clusterrole.aggregationRule']), /clusterRoleSelectors/);
  });
});

describe('kubectl create generators', () => {
  test('quota, role, clusterrole, rolebinding, clusterrolebinding and ingress are created and read back', async () => {
    await ok(['create', 'namespace', 'gen']);
    assert.match(await ok(['create', 'quota', 'q', '-n', 'gen', '--hard=pods=5,services=2']), /resourcequota\/q created/);
    assert.match(await ok(['create', 'role', 'reader', '-n', 'gen', '--verb=get,list', '--resource=pods']), /role.rbac.authorization.k8s.io\/reader created/);
    assert.match(await ok(['create', 'clusterrole', 'node-reader', '--verb=get', '--resource=nodes']), /clusterrole.rbac.authorization.k8s.io\/node-reader created/);
    assert.match(await ok(['create', 'rolebinding', 'rb', '-n', 'gen', '--role=reader', '--user=alice', '--serviceaccount=gen:robot']),
      /rolebinding.rbac.authorization.k8s.io\/rb created/);
    assert.match(await ok(['create', 'clusterrolebinding', 'crb', '--clusterrole=node-reader', '--group=ops']), /clusterrolebinding.rbac.authorization.k8s.io\/crb created/);
    assert.match(await ok(['create', 'ingress', 'web', '-n', 'gen', '--class=nginx', '--rule=foo.example.com/api*=api:8080']), /ingress.networking.k8s.io\/web created/);

    const rb = (await ok(['get', 'rolebinding', 'rb', '-n', 'gen', '-o', 'wide', '--no-headers'])).trim().split(/\s{2,}/);
    assert.deepEqual([rb[0], rb[1], rb[3], rb[4]], ['rb', 'Role/reader', 'alice', 'gen:robot']);
    const ing = (await ok(['get', 'ing', 'web', '-n', 'gen', '--no-headers'])).trim().split(/\s+/);
    assert.deepEqual(ing.slice(0, 4), ['web', 'nginx', 'foo.example.com', '80']);
    assert.equal(await ok(['get', 'ingress', 'web', '-n', 'gen', '-o', 'jsonpath={.spec.rules[0].http.paths[0].pathType}']), 'Prefix');
    assert.equal(await ok(['get', 'clusterrole', 'node-reader', '-o', 'jsonpath={.rules[0].resources[0]}']), 'nodes');
    const invalid = await fails(['create', 'rolebinding', 'bad', '-n', 'gen', '--clusterrole=view', '--serviceaccount=robot']);
    assert.match(invalid, /serviceaccount must be <namespace>:<name>/);
  });
});

describe('ResourceQuota', () => {
  const podWithCPU = (name: string, cpu: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  containers:
  - name: c
    image: nginx
    resources: {requests: {cpu: "${cpu}"}, limits: {cpu: "${cpu}"}}
`;

  test('refuses the pod that would exceed it, and describe shows used/hard', async () => {
    await ok(['create', 'namespace', 'quota']);
    await ok(['create', 'quota', 'compute', '-n', 'quota', '--hard=cpu=2,pods=3']);
    // Admission waits for the controller's first count (upstream: "status unknown for quota").
    await eventually(async () => (await ok(['get', 'quota', 'compute', '-n', 'quota', '-o', 'jsonpath={.status.used.pods}'])) === '0', 30_000, 'quota counted');
    await ok(['apply', '-n', 'quota', '-f', '-'], podWithCPU('small', '1'));
    const refused = await fails(['apply', '-n', 'quota', '-f', '-'], podWithCPU('big', '2'));
    assert.match(refused, /pods "big" is forbidden: exceeded quota: compute, requested: cpu=2, used: cpu=1, limited: cpu=2$/);
    const missing = await fails(['run', 'bare', '-n', 'quota', '--image=nginx']);
    assert.equal(missing, 'Error from server (Forbidden): pods "bare" is forbidden: failed quota: compute: must specify cpu for: bare');
    const described = await ok(['describe', 'quota', 'compute', '-n', 'quota']);
    assert.match(described, /cpu\s+1\s+2/);
    assert.match(described, /pods\s+1\s+3/);
    const row = (await ok(['get', 'quota', 'compute', '-n', 'quota', '--no-headers'])).trim().split(/\s{2,}/);
    assert.equal(row[1], 'cpu: 1/2, pods: 1/3');
  });

  test('deleting a pod gives its share back', async () => {
    await ok(['delete', 'pod', 'small', '-n', 'quota', '--wait=false']);
    await ok(['delete', 'pod', 'small', '-n', 'quota', '--force', '--grace-period=0', '--ignore-not-found']);
    await eventually(async () => (await ok(['get', 'quota', 'compute', '-n', 'quota', '-o', 'jsonpath={.status.used.cpu}'])) === '0', 30_000, 'quota replenished');
    await ok(['apply', '-n', 'quota', '-f', '-'], podWithCPU('big', '2'));
  });

  test('concurrent creates cannot overshoot: exactly the quota\'s worth succeed', async () => {
    await ok(['create', 'namespace', 'race']);
    await ok(['create', 'quota', 'three', '-n', 'race', '--hard=configmaps=3']);
    await eventually(async () => (await ok(['get', 'quota', 'three', '-n', 'race', '-o', 'jsonpath={.status.used.configmaps}'])) === '0', 30_000, 'quota counted');
    const creates = Array.from({ length: 12 }, (_, i) => apiRequest(cluster, '/api/v1/namespaces/race/configmaps', {
      method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` } }),
    }));
    const statuses = (await Promise.all(creates)).map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 201).length, 3, `statuses ${statuses.join(',')}`);
    assert.ok(statuses.every((s) => s === 201 || s === 403), `statuses ${statuses.join(',')}`);
    assert.equal((await ok(['get', 'configmaps', '-n', 'race', '--no-headers'])).trim().split('\n').length, 3);
    assert.equal(await ok(['get', 'quota', 'three', '-n', 'race', '-o', 'jsonpath={.status.used.configmaps}']), '3');
  });

  test('object counts of any group', async () => {
    await ok(['create', 'quota', 'objects', '-n', 'gen', '--hard=count/deployments.apps=1,configmaps=1']);
    await eventually(async () => (await ok(['get', 'quota', 'objects', '-n', 'gen', '-o', 'jsonpath={.status.used.count/deployments\\.apps}'])) === '0', 30_000, 'quota counted');
    await ok(['create', 'deployment', 'one', '-n', 'gen', '--image=nginx']);
    const refused = await fails(['create', 'deployment', 'two', '-n', 'gen', '--image=nginx']);
    assert.match(refused, /deployments.apps "two" is forbidden: exceeded quota: objects, requested: count\/deployments.apps=1, used: count\/deployments.apps=1, limited: count\/deployments.apps=1/);
  });
});

describe('other kinds are stored and printed', () => {
  test('PodTemplate, NetworkPolicy, IngressClass, RuntimeClass and Ingress status', async () => {
    await ok(['apply', '-f', '-'], `apiVersion: v1
kind: PodTemplate
metadata: {name: tpl}
template:
  metadata: {labels: {app: x}}
  spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny}
spec:
  podSelector: {matchLabels: {app: x}}
  egress: [{ports: [{port: 53}]}]
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: nginx}
spec: {controller: k8s.io/ingress-nginx}
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: gvisor}
handler: runsc
`);
    assert.deepEqual((await ok(['get', 'podtemplate', 'tpl', '--no-headers'])).trim().split(/\s+/), ['tpl', 'c', 'nginx', 'app=x']);
    const np = JSON.parse(await ok(['get', 'netpol', 'deny', '-o', 'json']));
    assert.deepEqual(np.spec.policyTypes, ['Ingress', 'Egress']);
    assert.equal(np.spec.egress[0].ports[0].protocol, 'TCP');
    assert.deepEqual((await ok(['get', 'ingressclass', 'nginx', '--no-headers'])).trim().split(/\s+/).slice(0, 3), ['nginx', 'k8s.io/ingress-nginx', '<none>']);
    assert.deepEqual((await ok(['get', 'runtimeclass', 'gvisor', '--no-headers'])).trim().split(/\s+/).slice(0, 2), ['gvisor', 'runsc']);
    const bad = await fails(['create', '-f', '-'], 'apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: bad}\nhandler: Not_A_Label\n');
    assert.match(bad, /The RuntimeClass "bad" is invalid: handler: Invalid value: "Not_A_Label": a lowercase RFC 1123 label/);
    await ok(['create', 'ingress', 'lb', '--rule=a.example.com/=svc:80']);
    await ok(['patch', 'ingress', 'lb', '--subresource=status', '--type=merge', '-p', '{"status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.10"}]}}}']);
    assert.deepEqual((await ok(['get', 'ingress', 'lb', '--no-headers'])).trim().split(/\s+/).slice(0, 4), ['lb', '<none>', 'a.example.com', '192.0.2.10']);
  });
});

describe('LimitRange', () => {
  const range = `apiVersion: v1
kind: LimitRange
metadata: {name: limits}
spec:
  limits:
  - type: Container
    max: {cpu: "1"}
    default: {cpu: 500m, memory: 128Mi}
    defaultRequest: {cpu: 250m}
`;

  test('defaults a pod\'s requests and limits and refuses one over the maximum', async () => {
    await ok(['create', 'namespace', 'lr']);
    await ok(['apply', '-n', 'lr', '-f', '-'], range);
    assert.equal(await ok(['get', 'limits', 'limits', '-n', 'lr', '-o', 'jsonpath={.spec.limits[0].defaultRequest.memory}']), '128Mi');
    await ok(['run', 'web', '-n', 'lr', '--image=nginx']);
    const resources = JSON.parse(await ok(['get', 'pod', 'web', '-n', 'lr', '-o', 'jsonpath={.spec.containers[0].resources}']));
    assert.deepEqual(resources, { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m', memory: '128Mi' } });
    assert.equal(await ok(['get', 'pod', 'web', '-n', 'lr', '-o', 'jsonpath={.metadata.annotations.kubernetes\\.io/limit-ranger}']),
      'LimitRanger plugin set: cpu, memory request for container web; cpu, memory limit for container web');
    const refused = await fails(['run', 'greedy', '-n', 'lr', '--image=nginx', '--overrides={"spec":{"containers":[{"name":"greedy","image":"nginx","resources":{"limits":{"cpu":"2"}}}]}}']);
    assert.equal(refused, 'Error from server (Forbidden): pods "greedy" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
  });
});

describe('HorizontalPodAutoscaler', () => {
  test('kubectl autoscale writes autoscaling/v1; it reads back as v2 and as v1', async () => {
    await ok(['create', 'deployment', 'web', '--image=nginx']);
    await ok(['autoscale', 'deployment', 'web', '--min=2', '--max=5', '--cpu-percent=60']);
    const v2 = JSON.parse(await ok(['get', 'hpa', 'web', '-o', 'json']));
    assert.equal(v2.apiVersion, 'autoscaling/v2');
    assert.deepEqual(v2.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }]);
    const v1 = JSON.parse(await ok(['get', '--raw', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/web']));
    assert.deepEqual(v1.spec, { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 60 });
    const row = (await ok(['get', 'hpa', 'web', '--no-headers'])).trim().split(/\s{2,}/);
    assert.deepEqual(row.slice(0, 6), ['web', 'Deployment/web', 'cpu: <unknown>/60%', '2', '5', '0']);
  });

  test('a v2 metric that v1 cannot say survives in the v1 annotation', async () => {
    await ok(['apply', '-f', '-'], `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: qps}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 3
  metrics:
  - type: Pods
    pods:
      metric: {name: requests-per-second}
      target: {type: AverageValue, averageValue: "10"}
`);
    const v1 = JSON.parse(await ok(['get', '--raw', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/qps']));
    assert.deepEqual(JSON.parse(v1.metadata.annotations['autoscaling.alpha.kubernetes.io/metrics']),
      [{ type: 'Pods', pods: { metricName: 'requests-per-second', targetAverageValue: '10' } }]);
    assert.equal(v1.spec.targetCPUUtilizationPercentage, undefined);
  });

  test('watches of both versions see the same change, each in its own version', async () => {
    const v1 = await apiStream(cluster, '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers?watch=1&resourceVersion=0');
    const v2 = await apiStream(cluster, '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers?watch=1&resourceVersion=0');
    try {
      await ok(['patch', 'hpa', 'web', '--type=merge', '-p', '{"spec":{"maxReplicas":7}}']);
      await v1.waitFor((e) => e.type === 'MODIFIED' && e.object.apiVersion === 'autoscaling/v1' && e.object.spec.maxReplicas === 7 &&
        e.object.spec.targetCPUUtilizationPercentage === 60, 'v1 MODIFIED', 0, 30_000);
      await v2.waitFor((e) => e.type === 'MODIFIED' && e.object.apiVersion === 'autoscaling/v2' && e.object.spec.maxReplicas === 7 &&
        e.object.spec.metrics?.[0]?.resource?.target?.averageUtilization === 60, 'v2 MODIFIED', 0, 30_000);
    } finally {
      v1.close();
      v2.close();
    }
  });
});

describe('RBAC bootstrap and aggregation', () => {
  test('the default roles and bindings exist, and view/edit/admin are aggregated', async () => {
    const crb = (await ok(['get', 'clusterrolebinding', 'cluster-admin', '-o', 'wide', '--no-headers'])).trim().split(/\s{2,}/);
    assert.deepEqual([crb[0], crb[1], crb[3]], ['cluster-admin', 'ClusterRole/cluster-admin', 'system:masters']);
    for (const name of ['system:discovery', 'system:basic-user', 'system:public-info-viewer']) await ok(['get', 'clusterrole', name]);
    await eventually(async () => (await ok(['get', 'clusterrole', 'view', '-o', 'jsonpath={.rules[*].resources}'])).includes('pods'), 30_000, 'view aggregated');
    await eventually(async () => (await ok(['get', 'clusterrole', 'admin', '-o', 'jsonpath={.rules[*].resources}'])).includes('rolebindings'), 30_000, 'admin aggregated');
  });

  test('an aggregated ClusterRole gets the rules of the roles its selector matches', async () => {
    await ok(['create', 'clusterrole', 'monitoring', '--aggregation-rule=rbac.example.com/aggregate-to-monitoring=true']);
    await ok(['create', 'clusterrole', 'monitoring-endpoints', '--verb=get,list', '--resource=endpoints']);
    await ok(['label', 'clusterrole', 'monitoring-endpoints', 'rbac.example.com/aggregate-to-monitoring=true']);
    await eventually(async () => (await ok(['get', 'clusterrole', 'monitoring', '-o', 'jsonpath={.rules[0].resources[0]}'])) === 'endpoints', 30_000, 'monitoring aggregated');
    // Written by server-side apply with force, as upstream's controller writes them: the rules are its fields.
    const managers = JSON.parse(await ok(['get', 'clusterrole', 'monitoring', '-o', 'json', '--show-managed-fields'])).metadata.managedFields
      .map((m: { manager: string; operation: string; fieldsV1: Record<string, unknown> }) => [m.manager, m.operation, Object.keys(m.fieldsV1)]);
    assert.deepEqual(managers.find(([m]: string[]) => m === 'clusterrole-aggregation-controller'), ['clusterrole-aggregation-controller', 'Apply', ['f:rules']]);
    await ok(['label', 'clusterrole', 'monitoring-endpoints', 'rbac.example.com/aggregate-to-monitoring-']);
    await eventually(async () => !(await ok(['get', 'clusterrole', 'monitoring', '-o', 'json'])).includes('endpoints'), 30_000, 'rules removed');
    assert.equal(JSON.parse(await ok(['get', 'clusterrole', 'monitoring', '-o', 'json'])).rules, null);
  });
});
