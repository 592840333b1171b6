/**
 * The everyday kubectl verbs: describe (pod, daemonset, statefulset, node),
 * label, annotate, delete (by name, -f, --all, missing), taint on a Node
 * created through the API, scale with the autoscaling/v1 Scale subresource,
 * and explain from the server's OpenAPI v3.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, Cluster } from './harness.js';
import { apiServerOnly, manifestDir } from './helpers.js';

let cluster: Cluster;
const files = manifestDir();

const objects = `apiVersion: v1
kind: Node
metadata:
  name: node1
  labels:
    kubernetes.io/hostname: node1
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
  conditions:
  - type: Ready
    status: "True"
    reason: KubeletReady
    message: kubelet is posting ready status
    lastHeartbeatTime: "2024-01-01T00:00:00Z"
    lastTransitionTime: "2024-01-01T00:00:00Z"
  addresses:
  - type: InternalIP
    address: 10.1.2.3
  nodeInfo:
    kubeletVersion: v1.32.0
    osImage: Debian GNU/Linux 12
    kernelVersion: 6.1.0
    containerRuntimeVersion: containerd://1.7.13
    machineID: m
    systemUUID: s
    bootID: b
    kubeProxyVersion: v1.32.0
    operatingSystem: linux
    architecture: amd64
---
apiVersion: v1
kind: Pod
metadata:
  name: nginx
  labels:
    env: test
spec:
  containers:
  - name: nginx
    image: nginx
    imagePullPolicy: IfNotPresent
  tolerations:
  - key: "example-key"
    operator: "Exists"
    effect: "NoSchedule"
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: monitoring-daemon
spec:
  selector:
    matchLabels:
      app: monitoring-agent
  template:
    metadata:
      labels:
        app: monitoring-agent
    spec:
      containers:
      - name: monitoring-agent
        image: monitoring-agent:latest
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: muzzi
spec:
  selector:
    matchLabels:
      app: nginx-statefulset
  serviceName: "nginx-statefulset-service"
  podManagementPolicy: Parallel
  replicas: 3
  template:
    metadata:
      labels:
        app: nginx-statefulset
    spec:
      terminationGracePeriodSeconds: 10
      containers:
      - name: nginx-statefulset
        image: nginx
        ports:
        - containerPort: 80
          name: web
`;

before(async () => {
  cluster = await startCluster(apiServerOnly);
  await cluster.kubectl(['create', '-f', files.write('objects.yaml', objects)]);
});
after(async () => { await cluster?.cleanup(); files.close(); });

/** Asserts that `text` has a line `<label>:<spaces><value>` (describe's layout). */
function assertLine(text: string, label: string, value: string) {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  assert.match(text, new RegExp(`^${esc(label)}:\\s+${esc(value)}$`, 'm'), `no line "${label}: ${value}" in:\n${text}`);
}

describe('kubectl describe', () => {
  test('pod', async () => {
    const out = (await cluster.kubectl(['describe', 'pod', 'nginx'])).stdout;
    assertLine(out, 'Name', 'nginx');
    assertLine(out, 'Namespace', 'default');
    assertLine(out, 'Priority', '0');
    assertLine(out, 'Service Account', 'default');
    assertLine(out, 'Node', '<none>');
    assertLine(out, 'Labels', 'env=test');
    assertLine(out, 'Status', 'Pending');
    assertLine(out, '    Image', 'nginx');
    assertLine(out, 'QoS Class', 'BestEffort');
    // The pod's own toleration, then the two that DefaultTolerationSeconds admission adds.
    assertLine(out, 'Tolerations', 'example-key:NoSchedule op=Exists');
    assert.match(out, /^\s+node\.kubernetes\.io\/not-ready:NoExecute op=Exists for 300s$/m);
    assert.match(out, /^\s+node\.kubernetes\.io\/unreachable:NoExecute op=Exists for 300s$/m);
    assertLine(out, 'Events', '<none>');
  });

  test('daemonset', async () => {
    const out = (await cluster.kubectl(['describe', 'daemonset', 'monitoring-daemon'])).stdout;
    assertLine(out, 'Name', 'monitoring-daemon');
    assertLine(out, 'Selector', 'app=monitoring-agent');
    assertLine(out, 'Node-Selector', '<none>');
    assertLine(out, 'Desired Number of Nodes Scheduled', '0');
    assertLine(out, 'Number of Nodes Misscheduled', '0');
    assertLine(out, 'Pods Status', '0 Running / 0 Waiting / 0 Succeeded / 0 Failed');
    assertLine(out, '  Labels', 'app=monitoring-agent');
    assertLine(out, '    Image', 'monitoring-agent:latest');
  });

  test('statefulset', async () => {
    const out = (await cluster.kubectl(['describe', 'statefulset', 'muzzi'])).stdout;
    assertLine(out, 'Name', 'muzzi');
    assertLine(out, 'Namespace', 'default');
    assertLine(out, 'Selector', 'app=nginx-statefulset');
    assertLine(out, 'Replicas', '3 desired | 0 total');
    assertLine(out, 'Update Strategy', 'RollingUpdate');
    assertLine(out, '  Partition', '0');
    assertLine(out, '    Port', '80/TCP');
    assertLine(out, 'Volume Claims', '<none>');
  });

  test('node', async () => {
    const out = (await cluster.kubectl(['describe', 'node', 'node1'])).stdout;
    assertLine(out, 'Name', 'node1');
    assertLine(out, 'Roles', '<none>');
    assertLine(out, 'Labels', 'kubernetes.io/hostname=node1');
    assertLine(out, 'Taints', '<none>');
    assertLine(out, 'Unschedulable', 'false');
    assert.match(out, /^ {2}Ready\s+True\s+Mon, 01 Jan 2024 00:00:00 \+0000\s+Mon, 01 Jan 2024 00:00:00 \+0000\s+KubeletReady\s+kubelet is posting ready status$/m);
    assertLine(out, '  InternalIP', '10.1.2.3');
    assertLine(out, '  Kubelet Version', 'v1.32.0');
    assertLine(out, '  OS Image', 'Debian GNU/Linux 12');
    assertLine(out, 'Non-terminated Pods', '(0 in total)');
  });

  test('describe of a missing object', async () => {
    const res = await cluster.kubectl(['describe', 'daemonset', 'nope'], { allowFail: true });
    assert.equal(res.code, 1);
    assert.equal(res.stderr, 'Error from server (NotFound): daemonsets.apps "nope" not found\n');
  });
});

const labelValueMsg = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('kubectl label and annotate', () => {
  const labels = async () => JSON.parse((await cluster.kubectl(['get', 'pod', 'nginx', '-o', 'jsonpath={.metadata.labels}'])).stdout);

  test('add, refuse to overwrite, overwrite, remove with key-', async () => {
    assert.equal((await cluster.kubectl(['label', 'pod', 'nginx', 'tier=web'])).stdout, 'pod/nginx labeled\n');
    assert.deepEqual(await labels(), { env: 'test', tier: 'web' });
    const refused = await cluster.kubectl(['label', 'pod', 'nginx', 'env=prod'], { allowFail: true });
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr, "error: 'env' already has a value (test), and --overwrite is false\n");
    await cluster.kubectl(['label', 'pod', 'nginx', 'env=prod', '--overwrite']);
    assert.deepEqual(await labels(), { env: 'prod', tier: 'web' });
    assert.equal((await cluster.kubectl(['label', 'pod', 'nginx', 'tier-'])).stdout, 'pod/nginx unlabeled\n');
    assert.deepEqual(await labels(), { env: 'prod' });
    assert.equal((await cluster.kubectl(['get', 'pods', '-l', 'env=prod', '-o', 'name'])).stdout, 'pod/nginx\n');
  });

  test('an invalid label value: kubectl refuses it, and so does the server', async () => {
    const client = await cluster.kubectl(['label', 'pod', 'nginx', 'bad=-x-'], { allowFail: true });
    assert.equal(client.code, 1);
    assert.match(client.stderr, /^error: invalid label value: "bad=-x-": a valid label must be an empty string or consist of alphanumeric characters/);
    const server = await cluster.kubectl(['patch', 'pod', 'nginx', '--type=merge', '-p', '{"metadata":{"labels":{"bad":"-x-"}}}'], { allowFail: true });
    assert.equal(server.code, 1);
    assert.equal(server.stderr, 'The Pod "nginx" is invalid: metadata.labels: Invalid value: "-x-": ' + labelValueMsg + '\n');
    assert.deepEqual(await labels(), { env: 'prod' });
  });

  test('annotate and remove an annotation', async () => {
    assert.equal((await cluster.kubectl(['annotate', 'statefulset', 'muzzi', 'owner=team-a', 'kubernetes.io/change-cause=first'])).stdout, 'statefulset.apps/muzzi annotated\n');
    const annotations = async () => JSON.parse((await cluster.kubectl(['get', 'sts', 'muzzi', '-o', 'jsonpath={.metadata.annotations}'])).stdout || '{}');
    assert.deepEqual(await annotations(), { owner: 'team-a', 'kubernetes.io/change-cause': 'first' });
    const gen = (await cluster.kubectl(['get', 'sts', 'muzzi', '-o', 'jsonpath={.metadata.generation}'])).stdout;
    assert.equal(gen, '1', 'metadata changes do not bump generation');
    await cluster.kubectl(['annotate', 'statefulset', 'muzzi', 'owner-']);
    assert.deepEqual(await annotations(), { 'kubernetes.io/change-cause': 'first' });
  });
});

describe('kubectl delete', () => {
  const configMaps = (names: string[], labels = '') => names.map((n) => `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${n}\n${labels}data:\n  k: v\n`).join('');

  test('by name, and a missing object', async () => {
    await cluster.kubectl(['create', '-f', '-'], { input: configMaps(['one']) });
    assert.equal((await cluster.kubectl(['delete', 'configmap', 'one'])).stdout, 'configmap "one" deleted\n');
    const gone = await cluster.kubectl(['get', 'configmap', 'one'], { allowFail: true });
    assert.equal(gone.stderr, 'Error from server (NotFound): configmaps "one" not found\n');
    const missing = await cluster.kubectl(['delete', 'pod', 'x'], { allowFail: true });
    assert.equal(missing.code, 1);
    assert.equal(missing.stdout, '');
    assert.equal(missing.stderr, 'Error from server (NotFound): pods "x" not found\n');
    const ignored = await cluster.kubectl(['delete', 'pod', 'x', '--ignore-not-found']);
    assert.equal(ignored.stdout + ignored.stderr, '');
  });

  test('with -f', async () => {
    const path = files.write('two.yaml', configMaps(['two-a', 'two-b']));
    await cluster.kubectl(['create', '-f', path]);
    assert.equal((await cluster.kubectl(['delete', '-f', path])).stdout, 'configmap "two-a" deleted\nconfigmap "two-b" deleted\n');
    assert.equal((await cluster.kubectl(['get', 'configmaps', '-o', 'name'])).stdout, '');
    const again = await cluster.kubectl(['delete', '-f', path], { allowFail: true });
    assert.equal(again.stderr, [
      `Error from server (NotFound): error when deleting "${path}": configmaps "two-a" not found`,
      `Error from server (NotFound): error when deleting "${path}": configmaps "two-b" not found`, '',
    ].join('\n'));
  });

  test('with -l and with --all', async () => {
    await cluster.kubectl(['create', '-f', '-'], {
      input: `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: scratch\n`,
    });
    await cluster.kubectl(['create', '-n', 'scratch', '-f', '-'], { input: configMaps(['c1', 'c2'], '  labels: {group: a}\n') + configMaps(['c3']) });
    assert.equal((await cluster.kubectl(['delete', 'configmaps', '-n', 'scratch', '-l', 'group=a'])).stdout, 'configmap "c1" deleted\nconfigmap "c2" deleted\n');
    assert.equal((await cluster.kubectl(['get', 'configmaps', '-n', 'scratch', '-o', 'name'])).stdout, 'configmap/c3\n');
    await cluster.kubectl(['create', '-n', 'scratch', '-f', '-'], { input: configMaps(['c4']) });
    assert.equal((await cluster.kubectl(['delete', 'configmaps', '-n', 'scratch', '--all'])).stdout, 'configmap "c3" deleted\nconfigmap "c4" deleted\n');
    const none = await cluster.kubectl(['get', 'configmaps', '-n', 'scratch']);
    assert.equal(none.stderr, 'No resources found in scratch namespace.\n');
  });
});

describe('kubectl taint', () => {
  const taints = async () => {
    const list = JSON.parse((await cluster.kubectl(['get', 'nodes', '-o', 'json'])).stdout);
    assert.equal(list.items.length, 1);
    return list.items[0].spec.taints;
  };

  test('NoSchedule taint on a Node created with kubectl create -f, then removal with a trailing -', async () => {
    assert.equal((await cluster.kubectl(['taint', 'nodes', 'node1', 'key1=value1:NoSchedule'])).stdout, 'node/node1 tainted\n');
    assert.deepEqual(await taints(), [{ key: 'key1', value: 'value1', effect: 'NoSchedule' }]);
    const table = (await cluster.kubectl(['describe', 'node', 'node1'])).stdout;
    assertLine(table, 'Taints', 'key1=value1:NoSchedule');
    const dup = await cluster.kubectl(['taint', 'nodes', 'node1', 'key1=value1:NoSchedule'], { allowFail: true });
    assert.equal(dup.stderr, 'error: node node1 already has key1 taint(s) with same effect(s) and --overwrite is false\n');
    assert.equal((await cluster.kubectl(['taint', 'nodes', 'node1', 'key1=value1:NoSchedule-'])).stdout, 'node/node1 untainted\n');
    assert.equal(await taints(), undefined);
  });

  test('NoExecute and PreferNoSchedule, --overwrite, removal by key', async () => {
    await cluster.kubectl(['taint', 'nodes', 'node1', 'dedicated=infra:NoExecute', 'spot:PreferNoSchedule']);
    assert.deepEqual(await taints(), [
      { key: 'dedicated', value: 'infra', effect: 'NoExecute' },
      { key: 'spot', effect: 'PreferNoSchedule' },
    ]);
    assert.equal((await cluster.kubectl(['taint', 'nodes', 'node1', 'dedicated=db:NoExecute', '--overwrite'])).stdout, 'node/node1 modified\n');
    assert.deepEqual((await taints()).map((t: any) => `${t.key}=${t.value ?? ''}:${t.effect}`), ['dedicated=db:NoExecute', 'spot=:PreferNoSchedule']);
    await cluster.kubectl(['taint', 'nodes', 'node1', 'dedicated-']);
    assert.deepEqual(await taints(), [{ key: 'spot', effect: 'PreferNoSchedule' }]);
    const notThere = await cluster.kubectl(['taint', 'nodes', 'node1', 'dedicated-'], { allowFail: true });
    assert.equal(notThere.stderr, 'error: taint "dedicated" not found\n');
    await cluster.kubectl(['taint', 'nodes', 'node1', 'spot-']);
    assert.equal(await taints(), undefined);
  });

  test('an invalid effect: kubectl refuses it, and so does the server', async () => {
    const client = await cluster.kubectl(['taint', 'nodes', 'node1', 'k4=v4:Bogus'], { allowFail: true });
    assert.equal(client.code, 1);
    assert.equal(client.stderr, "error: invalid taint effect: Bogus, unsupported taint effect\nSee 'kubectl taint -h' for help and examples\n");
    // Past kubectl's own check, the apiserver's validation speaks (upstream validates node taints under metadata.taints).
    const server = await cluster.kubectl(['patch', 'node', 'node1', '-p', '{"spec":{"taints":[{"key":"k4","value":"v4","effect":"Bogus"}]}}'], { allowFail: true });
    assert.equal(server.code, 1);
    assert.equal(server.stderr, 'The Node "node1" is invalid: metadata.taints[0].effect: Unsupported value: "Bogus": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"\n');
    assert.equal(await taints(), undefined);
  });

  test('a missing node', async () => {
    const res = await cluster.kubectl(['taint', 'nodes', 'ghost', 'a=b:NoSchedule'], { allowFail: true });
    assert.equal(res.stderr, 'Error from server (NotFound): nodes "ghost" not found\n');
  });
});

describe('kubectl scale', () => {
  test('statefulset --replicas=2 goes through the autoscaling/v1 Scale subresource', async () => {
    assert.equal((await cluster.kubectl(['scale', 'statefulset', 'muzzi', '--replicas=2'])).stdout, 'statefulset.apps/muzzi scaled\n');
    assert.equal((await cluster.kubectl(['get', 'sts', 'muzzi', '-o', 'jsonpath={.spec.replicas}'])).stdout, '2');
    const scale = JSON.parse((await cluster.kubectl(['get', '--raw', '/apis/apps/v1/namespaces/default/statefulsets/muzzi/scale'])).stdout);
    const sts = JSON.parse((await cluster.kubectl(['get', 'sts', 'muzzi', '-o', 'json'])).stdout);
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.apiVersion, 'autoscaling/v1');
    assert.equal(scale.metadata.name, 'muzzi');
    assert.equal(scale.metadata.namespace, 'default');
    assert.equal(scale.metadata.uid, sts.metadata.uid);
    assert.equal(scale.metadata.resourceVersion, sts.metadata.resourceVersion);
    assert.deepEqual(scale.spec, { replicas: 2 });
    assert.deepEqual(scale.status, { replicas: 0, selector: 'app=nginx-statefulset' });
    assert.equal(sts.metadata.generation, 2, 'a replicas change is a spec change');
  });

  test('--current-replicas is a precondition', async () => {
    const res = await cluster.kubectl(['scale', 'statefulset', 'muzzi', '--current-replicas=3', '--replicas=1'], { allowFail: true });
    assert.equal(res.code, 1);
    assert.equal(res.stderr, 'error: Expected replicas to be 3, was 2\n');
    assert.equal((await cluster.kubectl(['scale', 'sts', 'muzzi', '--current-replicas=2', '--replicas=5'])).stdout, 'statefulset.apps/muzzi scaled\n');
    assert.equal((await cluster.kubectl(['get', 'sts', 'muzzi', '-o', 'jsonpath={.spec.replicas}'])).stdout, '5');
  });

  test('a daemonset has no scale subresource', async () => {
    const res = await cluster.kubectl(['scale', 'daemonset', 'monitoring-daemon', '--replicas=2'], { allowFail: true });
    assert.equal(res.code, 1);
    assert.equal(res.stderr, 'Error from server (NotFound): the server could not find the requested resource\n');
  });
});

describe('kubectl explain', () => {
  test('daemonset.spec.updateStrategy', async () => {
    const out = (await cluster.kubectl(['explain', 'daemonset.spec.updateStrategy'])).stdout;
    assertLine(out, 'GROUP', 'apps');
    assertLine(out, 'KIND', 'DaemonSet');
    assertLine(out, 'VERSION', 'v1');
    assert.match(out, /^FIELD: updateStrategy <DaemonSetUpdateStrategy>$/m);
    assert.match(out, /An update strategy to replace existing DaemonSet pods with new pods\./);
    assert.match(out, /^ {2}rollingUpdate\t<RollingUpdateDaemonSet>$/m);
    assert.match(out, /Rolling update config params\. Present only if type = "RollingUpdate"\./);
    assert.match(out, /^ {2}type\t<string>$/m);
    assert.match(out, /Type of daemon set update\. Can be "RollingUpdate" or "OnDelete"\. Default is\s+RollingUpdate\./);
  });

  test('a field that does not exist', async () => {
    const res = await cluster.kubectl(['explain', 'daemonset.spec.nope'], { allowFail: true });
    assert.equal(res.code, 1);
    assert.equal(res.stderr, 'error: field "nope" does not exist\n');
  });
});
