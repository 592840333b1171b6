/**
 * ValidatingAdmissionPolicy and its bindings (issue #23), through the real
 * kubectl against a real server: a policy with a ConfigMap param refusing a
 * Deployment of too many replicas in Deny and in Warn mode, variables and
 * messageExpression, a namespaceSelector binding, paramRef not found with
 * Deny and Allow, validation of the objects themselves, and type checking
 * into status.typeChecking. Texts are upstream's (dispatcher.go,
 * validator.go, generic/policy_dispatcher.go, validation.go).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, Cluster } from './harness.js';
import { apiRequest, apiServerOnly } from './helpers.js';
import { duringAttack } from './bystander.js';

let cluster: Cluster;

before(async () => { cluster = await startCluster(apiServerOnly); });
after(async () => { await cluster?.cleanup(); });

const apply = async (yaml: string) => {
  const r = await cluster.kubectl(['apply', '-f', '-'], { input: yaml, allowFail: true });
  assert.equal(r.code, 0, r.stderr);
  return r;
};

const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit
spec:
  failurePolicy: Fail
  paramKind:
    apiVersion: v1
    kind: ConfigMap
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  variables:
  - name: maxReplicas
    expression: "int(params.data.maxReplicas)"
  validations:
  - expression: "object.spec.replicas <= variables.maxReplicas"
    messageExpression: "'replicas ' + string(object.spec.replicas) + ' is more than ' + string(variables.maxReplicas)"
    reason: Invalid
`;

const binding = (name: string, actions: string[], env: string, paramName = 'limits', notFound = 'Deny') => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: ${name}
spec:
  policyName: replica-limit
  validationActions: [${actions.join(', ')}]
  paramRef:
    name: ${paramName}
    parameterNotFoundAction: ${notFound}
  matchResources:
    namespaceSelector:
      matchLabels:
        env: ${env}
`;

const namespace = (name: string, env?: string) => `apiVersion: v1
kind: Namespace
metadata:
  name: ${name}
${env ? `  labels:\n    env: ${env}\n` : ''}---
apiVersion: v1
kind: ConfigMap
metadata:
  name: limits
  namespace: ${name}
data:
  maxReplicas: "3"
`;

const deploy = (ns: string, name: string, replicas: number) =>
  cluster.kubectl(['create', 'deployment', name, '-n', ns, '--image=k8ts.local/pause:1', `--replicas=${replicas}`], { allowFail: true });

describe('ValidatingAdmissionPolicy', () => {
  before(async () => {
    await apply(namespace('vap-deny', 'deny') + '---\n' + namespace('vap-warn', 'warn') + '---\n' + namespace('vap-other'));
    await apply(`${policy}---\n${binding('replica-limit-deny', ['Deny'], 'deny')}---\n${binding('replica-limit-warn', ['Warn', 'Audit'], 'warn')}`);
  });

  test('Deny: too many replicas is refused with the messageExpression, 422 Invalid', async () => {
    const r = await deploy('vap-deny', 'big', 5);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim(), 'error: failed to create deployment: deployments.apps "big" is forbidden: '
      + "ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-deny' denied request: replicas 5 is more than 3");
    const raw = await apiRequest(cluster, '/apis/apps/v1/namespaces/vap-deny/deployments', {
      method: 'POST', body: JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'big' },
        spec: { replicas: 4, selector: { matchLabels: { app: 'big' } }, template: { metadata: { labels: { app: 'big' } }, spec: { containers: [{ name: 'c', image: 'k8ts.local/pause:1' }] } } } }),
    });
    assert.equal(raw.status, 422);
    const status = JSON.parse(raw.body);
    const message = "ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-deny' denied request: replicas 4 is more than 3";
    assert.deepEqual({ reason: status.reason, message: status.message, details: status.details }, {
      reason: 'Invalid', message: `deployments.apps "big" is forbidden: ${message}`,
      details: { name: 'big', group: 'apps', kind: 'deployments', causes: [{ message }] },
    });
  });

  test('Deny: within the param\'s limit is admitted, and so is a namespace the binding does not select', async () => {
    assert.equal((await deploy('vap-deny', 'small', 2)).code, 0);
    const other = await deploy('vap-other', 'big', 5);
    assert.equal(other.code, 0, other.stderr);
    assert.equal(other.stderr, '');
  });

  test('Deny: an update past the limit is refused too; the scale subresource is not matched by "deployments"', async () => {
    const r = await cluster.kubectl(['patch', 'deployment', 'small', '-n', 'vap-deny', '-p', '{"spec":{"replicas":7}}'], { allowFail: true });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-deny' denied request: replicas 7 is more than 3/);
    // Upstream matches deployments/scale only with a rule naming it (or "deployments/*").
    const scaled = await cluster.kubectl(['scale', 'deployment', 'small', '-n', 'vap-deny', '--replicas=6'], { allowFail: true });
    assert.equal(scaled.code, 0, scaled.stderr);
  });

  test('Warn: admitted, and kubectl prints the Warning header', async () => {
    const r = await deploy('vap-warn', 'big', 5);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'deployment.apps/big created\n');
    assert.equal(r.stderr, "Warning: Validation failed for ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-warn': replicas 5 is more than 3\n");
  });

  test('message and the default message when there is no messageExpression', async () => {
    await apply(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: name-rules
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["configmaps"]
  validations:
  - expression: "!object.metadata.name.startsWith('bad-')"
    message: "no bad names"
    reason: Forbidden
  - expression: "object.metadata.name.size() < 20"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: name-rules
spec:
  policyName: name-rules
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels:
        env: deny
`);
    const bad = await cluster.kubectl(['create', 'configmap', 'bad-one', '-n', 'vap-deny'], { allowFail: true });
    assert.equal(bad.stderr.trim(), `error: failed to create configmap: configmaps "bad-one" is forbidden: ValidatingAdmissionPolicy 'name-rules' with binding 'name-rules' denied request: no bad names`);
    const raw = await apiRequest(cluster, '/api/v1/namespaces/vap-deny/configmaps', { method: 'POST', body: JSON.stringify({ metadata: { name: 'bad-two' } }) });
    assert.equal(raw.status, 403);
    const long = await cluster.kubectl(['create', 'configmap', 'a-name-of-more-than-twenty', '-n', 'vap-deny'], { allowFail: true });
    assert.match(long.stderr, /denied request: failed expression: object\.metadata\.name\.size\(\) < 20\n$/);
  });

  test('paramRef not found: Deny refuses with the configuration error, Allow admits', async () => {
    await apply(`${namespace('vap-noparam-deny', 'noparam-deny')}---\n${namespace('vap-noparam-allow', 'noparam-allow')}---\n`
      + `${binding('missing-deny', ['Deny'], 'noparam-deny', 'absent', 'Deny')}---\n${binding('missing-allow', ['Deny'], 'noparam-allow', 'absent', 'Allow')}`);
    const denied = await deploy('vap-noparam-deny', 'any', 1);
    assert.equal(denied.code, 1);
    assert.match(denied.stderr, /ValidatingAdmissionPolicy 'replica-limit' with binding 'missing-deny' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction/);
    const allowed = await deploy('vap-noparam-allow', 'any', 9);
    assert.equal(allowed.code, 0, allowed.stderr);
  });

  test('a param created later is used at once (the cache, or storage on a miss)', async () => {
    await apply(`apiVersion: v1
kind: ConfigMap
metadata:
  name: absent
  namespace: vap-noparam-allow
data:
  maxReplicas: "1"
`);
    const r = await deploy('vap-noparam-allow', 'two', 2);
    assert.match(r.stderr, /with binding 'missing-allow' denied request: replicas 2 is more than 1/);
  });

  test('the policies themselves are validated as upstream does', async () => {
    const badBinding = await cluster.kubectl(['apply', '-f', '-'], { allowFail: true, input: binding('both', ['Deny', 'Warn'], 'x').replace('    parameterNotFoundAction: Deny\n', '') });
    assert.equal(badBinding.code, 1);
    assert.match(badBinding.stderr, /spec.paramRef.parameterNotFoundAction: Required value/);
    assert.match(badBinding.stderr, /spec.validationActions: Invalid value: \[\]admissionregistration.ValidationAction\{"Deny", "Warn"\}: must not contain both Deny and Warn/);
    const badPolicy = await cluster.kubectl(['apply', '-f', '-'], { allowFail: true, input: policy.replace('name: replica-limit', 'name: broken')
      .replace('object.spec.replicas <= variables.maxReplicas', 'object.spec.replicas <= maxReplicas') });
    assert.equal(badPolicy.code, 1);
    assert.match(badPolicy.stderr, /spec.validations\[0\].expression: Invalid value: "object.spec.replicas <= maxReplicas": compilation failed: ERROR: <input>:1:25: undeclared reference to 'maxReplicas' \(in container ''\)/);
  });

  test('type checking: a field the matched kind does not have is a warning in status.typeChecking', async () => {
    await apply(policy.replace('name: replica-limit', 'name: typo').replace('object.spec.replicas <= variables.maxReplicas', 'object.spec.replicass <= variables.maxReplicas'));
    const status = JSON.parse((await cluster.kubectl(['get', 'validatingadmissionpolicy', 'typo', '-o', 'jsonpath={.status}'])).stdout);
    assert.deepEqual(status, {
      observedGeneration: 1,
      typeChecking: { expressionWarnings: [{ fieldRef: 'spec.validations[0].expression',
        warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicass'\n | object.spec.replicass <= variables.maxReplicas\n | ...........^\n" }] },
    });
    const clean = JSON.parse((await cluster.kubectl(['get', 'validatingadmissionpolicy', 'replica-limit', '-o', 'jsonpath={.status}'])).stdout);
    assert.deepEqual(clean, { observedGeneration: 1, typeChecking: {} });
  });

  test('kubectl get lists both kinds; discovery has them in api-extensions', async () => {
    const r = await cluster.kubectl(['get', 'validatingadmissionpolicies,validatingadmissionpolicybindings', '-o', 'name']);
    assert.match(r.stdout, /validatingadmissionpolicy.admissionregistration.k8s.io\/replica-limit\n/);
    assert.match(r.stdout, /validatingadmissionpolicybinding.admissionregistration.k8s.io\/replica-limit-deny\n/);
    const ext = await cluster.kubectl(['get', 'api-extensions', '-o', 'name']);
    assert.match(ext.stdout, /validatingadmissionpolicy/);
  });
});

describe('a costly policy does not stall other clients', () => {
  // Four nested comprehensions of 30: 810,000 iterations per call, past PerCallLimit; ten such validations.
  const range = `[${Array.from({ length: 30 }, (_, i) => i).join(',')}]`;
  const costly = `${range}.all(a, ${range}.all(b, ${range}.all(c, ${range}.all(d, object.metadata.name.size() > 0))))`;

  before(async () => {
    await apply(`apiVersion: v1
kind: Namespace
metadata:
  name: vap-cost
  labels:
    env: cost
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: costly
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["configmaps"]
  validations:
${Array.from({ length: 10 }, () => `  - expression: "${costly}"\n`).join('')}---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: costly
spec:
  policyName: costly
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels:
        env: cost
`);
  });

  test('creates under the costly policy are refused with the cost error while /readyz and GETs answer within 1 s', async () => {
    const answers = await duringAttack(cluster, () => Promise.all(Array.from({ length: 6 }, (_, i) =>
      apiRequest(cluster, '/api/v1/namespaces/vap-cost/configmaps', { method: 'POST', body: JSON.stringify({ metadata: { name: `c${i}` } }) }))));
    for (const a of answers) {
      assert.equal(a.status, 422, a.body);
      assert.match(JSON.parse(a.body).message, /^configmaps "c\d" is forbidden: ValidatingAdmissionPolicy 'costly' with binding 'costly' denied request: expression '.*' resulted in error: operation cancelled: actual cost limit exceeded$/);
    }
  });
});
