/**
 * The warnings upstream's strategies send with a valid pod or pod template
 * (pkg/api/pod/warnings.go), as the real kubectl prints them: the object is
 * written and the client reads `Warning: <path>: <text>` on stderr. A pod is
 * warned on create and on update of its own; a workload's template on create
 * and when its spec changed (generation: a scale too), not when labelled;
 * a status write never.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster } from './harness.js';

const warningLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('Warning: ')).map((l) => l.slice('Warning: '.length));

const pod = `apiVersion: v1
kind: Pod
metadata:
  name: warned
  annotations:
    scheduler.alpha.kubernetes.io/critical-pod: ""
spec:
  nodeSelector:
    beta.kubernetes.io/os: linux
  terminationGracePeriodSeconds: -5
  imagePullSecrets:
  - name: regcred
  - name: regcred
  containers:
  - name: app
    image: busybox
    env:
    - name: A
      value: "1"
    - name: A
      value: "2"
    - name: A
      value: "$(A)-3"
    ports:
    - containerPort: 80
    - containerPort: 80
    resources:
      requests:
        memory: 100m
`;

const deployment = (env: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: warned
spec:
  replicas: 1
  selector:
    matchLabels: {app: warned}
  template:
    metadata:
      labels: {app: warned}
    spec:
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions:
              - {key: node-role.kubernetes.io/master, operator: DoesNotExist}
      containers:
      - name: web
        image: nginx
        env: ${env}
        ports:
        - containerPort: 8080
          hostIP: 10.0.0.1
`;

describe('pod spec warnings through the real kubectl', () => {
  let cluster: Cluster;
  before(async () => { cluster = await startCluster(); });
  after(async () => { await cluster?.stop(); });

  test('a pod: written, and each of its doubtful fields warned about in upstream\'s words and order', async () => {
    const created = await cluster.kubectl(['apply', '-f', '-'], { input: pod });
    assert.match(created.stdout, /pod\/warned created/);
    assert.deepEqual(warningLines(created.stderr), [
      'spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead',
      'metadata.annotations[scheduler.alpha.kubernetes.io/critical-pod]: non-functional in v1.16+; use the "priorityClassName" field instead',
      'spec.imagePullSecrets[1].name: duplicate name "regcred"',
      'spec.containers[0].resources.requests[memory]: fractional byte value "100m" is invalid, must be an integer',
      // env[2] builds on the A before it ($(A)): no warning for it.
      'spec.containers[0].env[1]: hides previous definition of "A", which may be dropped when using apply',
      'spec.containers[0].ports[1]: duplicate port definition with spec.containers[0].ports[0]',
      'spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1',
    ]);
    assert.equal((await cluster.kubectl(['get', 'pod', 'warned', '-o', 'name'])).stdout.trim(), 'pod/warned');
    // An update of the pod itself is warned again; a dry run is warned as the write would be.
    const labelled = await cluster.kubectl(['label', 'pod', 'warned', 'x=y', '--dry-run=server']);
    assert.ok(warningLines(labelled.stderr).includes('spec.containers[0].env[1]: hides previous definition of "A", which may be dropped when using apply'), labelled.stderr);
  });

  test('a clean pod has no warnings, and a status write none either', async () => {
    const clean = await cluster.kubectl(['run', 'clean', '--image=busybox']);
    assert.deepEqual(warningLines(clean.stderr), []);
    const status = await cluster.kubectl(['patch', 'pod', 'warned', '--subresource=status', '--type=merge', '-p', '{"status":{"message":"x"}}']);
    assert.deepEqual(warningLines(status.stderr), []);
  });

  test('a Deployment: its template warned at spec.template on create and when the spec changes (a scale too), not when labelled', async () => {
    const created = await cluster.kubectl(['apply', '-f', '-'], { input: deployment('[{name: A, value: "1"}]') });
    assert.deepEqual(warningLines(created.stderr), [
      'spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key: node-role.kubernetes.io/master is use "node-role.kubernetes.io/control-plane" instead',
      'spec.template.spec.containers[0].ports[0]: hostIP set without hostPort: {Name: HostPort:0 ContainerPort:8080 Protocol:TCP HostIP:10.0.0.1}',
    ]);
    // The scale subresource writes through the Deployment's own store: spec.replicas moves the
    // generation, so upstream's WarningsOnUpdate warns again.
    const scaled = await cluster.kubectl(['scale', 'deployment', 'warned', '--replicas=2']);
    assert.equal(warningLines(scaled.stderr).length, 2, scaled.stderr);
    const labelled = await cluster.kubectl(['label', 'deployment', 'warned', 'tier=web']);
    assert.deepEqual(warningLines(labelled.stderr), [], 'a label is no spec change');
    // A replace, not an apply: apply's strategic merge by name would fold the two As into one, the
    // very loss the warning speaks of.
    const changed = await cluster.kubectl(['replace', '-f', '-'], { input: deployment('[{name: A, value: "1"}, {name: A, value: "2"}]') });
    assert.ok(warningLines(changed.stderr).includes('spec.template.spec.containers[0].env[1]: hides previous definition of "A", which may be dropped when using apply'), changed.stderr);
  });

  test('a CronJob\'s template is warned at spec.jobTemplate.spec.template', async () => {
    const created = await cluster.kubectl(['create', 'cronjob', 'warned', '--image=busybox', '--schedule=*/5 * * * *', '--dry-run=client', '-o', 'json']);
    const cronJob = JSON.parse(created.stdout);
    cronJob.spec.jobTemplate.spec.template.spec.nodeSelector = { 'failure-domain.beta.kubernetes.io/zone': 'a' };
    const applied = await cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify(cronJob) });
    assert.deepEqual(warningLines(applied.stderr), [
      'spec.jobTemplate.spec.template.spec.nodeSelector[failure-domain.beta.kubernetes.io/zone]: deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
    ]);
  });
});
