/**
 * `kubectl get` against server-side Tables: exact headers and cells, -o wide,
 * json, yaml, jsonpath, --show-labels, -A, label and field selectors, and
 * `get -w` printing rows as the watch delivers them.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { startCluster, Cluster } from './harness.js';
import { apiServerOnly, cells, killChild, lineReader } from './helpers.js';

let cluster: Cluster;

const node = `apiVersion: v1
kind: Node
metadata:
  name: worker-1
  labels:
    node-role.kubernetes.io/control-plane: ""
    disktype: ssd
status:
  conditions:
  - type: Ready
    status: "True"
    reason: KubeletReady
    message: kubelet is posting ready status
    lastHeartbeatTime: "2024-01-01T00:00:00Z"
    lastTransitionTime: "2024-01-01T00:00:00Z"
  addresses:
  - type: InternalIP
    address: 10.0.0.11
  nodeInfo:
    kubeletVersion: v1.32.0
    osImage: Ubuntu 22.04.4 LTS
    kernelVersion: 6.5.0
    containerRuntimeVersion: containerd://1.7.13
    machineID: m
    systemUUID: s
    bootID: b
    kubeProxyVersion: v1.32.0
    operatingSystem: linux
    architecture: amd64
`;

const pod = (name: string, ns: string, labels: Record<string, string>, nodeName?: string) => `---
apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: ${ns}
  labels: ${JSON.stringify(labels)}
spec:
${nodeName ? `  nodeName: ${nodeName}\n` : ''}  containers:
  - name: web
    image: nginx:1.25
`;

const workloads = `---
apiVersion: v1
kind: Namespace
metadata:
  name: other
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      nodeSelector: {disktype: ssd}
      containers:
      - name: agent
        image: monitoring-agent:latest
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: muzzi
spec:
  serviceName: nginx-statefulset-service
  replicas: 3
  selector:
    matchLabels: {app: nginx-statefulset}
  template:
    metadata:
      labels: {app: nginx-statefulset}
    spec:
      containers:
      - name: nginx-statefulset
        image: nginx
`;

before(async () => {
  cluster = await startCluster(apiServerOnly);
  await cluster.kubectl(['create', '-f', '-'], {
    input: node + workloads
      + pod('web-1', 'default', { app: 'web', env: 'test' }, 'worker-1')
      + pod('web-2', 'default', { app: 'web', env: 'prod' })
      + pod('db-1', 'default', { app: 'db' })
      + pod('other-1', 'other', { app: 'web', env: 'test' }),
  });
});
after(async () => { await cluster?.cleanup(); });

/** The output's lines as cells, header first. */
async function table(args: string[]): Promise<string[][]> {
  const { stdout } = await cluster.kubectl(['get', ...args]);
  return stdout.trimEnd().split('\n').map(cells);
}

const age = /^\d+s$/;

describe('kubectl get: tables', () => {
  test('pods: upstream columns and cells', async () => {
    const [header, ...rows] = await table(['pods']);
    assert.deepEqual(header, ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    assert.deepEqual(rows.map((r) => r.slice(0, 4)), [
      ['db-1', '0/1', 'Pending', '0'], ['web-1', '0/1', 'Pending', '0'], ['web-2', '0/1', 'Pending', '0'],
    ]);
    for (const r of rows) assert.match(r[4], age);
  });

  test('pods -o wide: IP, NODE, NOMINATED NODE, READINESS GATES', async () => {
    const [header, ...rows] = await table(['pods', '-o', 'wide']);
    assert.deepEqual(header, ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES']);
    const web1 = rows.find((r) => r[0] === 'web-1')!;
    assert.deepEqual([...web1.slice(0, 4), ...web1.slice(5)], ['web-1', '0/1', 'Pending', '0', '<none>', 'worker-1', '<none>', '<none>']);
    assert.deepEqual(rows.find((r) => r[0] === 'web-2')!.slice(5), ['<none>', '<none>', '<none>', '<none>']);
  });

  test('daemonsets: upstream columns, the node selector, and -o wide', async () => {
    const [header, row] = await table(['daemonsets']);
    assert.deepEqual(header, ['NAME', 'DESIRED', 'CURRENT', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'NODE SELECTOR', 'AGE']);
    assert.deepEqual(row.slice(0, 7), ['agent', '0', '0', '0', '0', '0', 'disktype=ssd']);
    assert.match(row[7], age);
    const [wideHeader, wideRow] = await table(['daemonsets', '-o', 'wide']);
    assert.deepEqual(wideHeader, [...header, 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    assert.deepEqual(wideRow.slice(8), ['agent', 'monitoring-agent:latest', 'app=agent']);
  });

  test('statefulsets: NAME READY AGE, and -o wide', async () => {
    const [header, row] = await table(['statefulsets']);
    assert.deepEqual(header, ['NAME', 'READY', 'AGE']);
    assert.deepEqual(row.slice(0, 2), ['muzzi', '0/3']);
    assert.match(row[2], age);
    const [wideHeader, wideRow] = await table(['sts', '-o', 'wide']);
    assert.deepEqual(wideHeader, ['NAME', 'READY', 'AGE', 'CONTAINERS', 'IMAGES']);
    assert.deepEqual(wideRow.slice(3), ['nginx-statefulset', 'nginx']);
  });

  test('nodes: status, roles and version from a Node created through the API', async () => {
    const [header, row] = await table(['nodes']);
    assert.deepEqual(header, ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    assert.deepEqual([...row.slice(0, 3), row[4]], ['worker-1', 'Ready', 'control-plane', 'v1.32.0']);
    const [wideHeader, wideRow] = await table(['nodes', '-o', 'wide']);
    assert.deepEqual(wideHeader, [...header, 'INTERNAL-IP', 'EXTERNAL-IP', 'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME']);
    assert.deepEqual(wideRow.slice(5), ['10.0.0.11', '<none>', 'Ubuntu 22.04.4 LTS', '6.5.0', 'containerd://1.7.13']);
  });

  test('--show-labels adds LABELS, sorted by key', async () => {
    const [header, ...rows] = await table(['pods', '--show-labels']);
    assert.deepEqual(header, ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'LABELS']);
    assert.deepEqual(rows.map((r) => [r[0], r[5]]), [['db-1', 'app=db'], ['web-1', 'app=web,env=test'], ['web-2', 'app=web,env=prod']]);
  });

  test('-A adds NAMESPACE from each row\'s object', async () => {
    const [header, ...rows] = await table(['pods', '-A']);
    assert.deepEqual(header, ['NAMESPACE', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    assert.deepEqual(rows.map((r) => [r[0], r[1]]), [['default', 'db-1'], ['default', 'web-1'], ['default', 'web-2'], ['other', 'other-1']]);
  });

  test('label selectors: equality and set-based', async () => {
    const names = async (selector: string, all = false) => {
      const { stdout } = await cluster.kubectl(['get', 'pods', ...(all ? ['-A'] : []), '-l', selector, '-o', 'jsonpath={.items[*].metadata.name}']);
      return stdout;
    };
    assert.equal(await names('env=test'), 'web-1');
    assert.equal(await names('env=test', true), 'web-1 other-1');
    assert.equal(await names('app!=web'), 'db-1');
    assert.equal(await names('env in (test)'), 'web-1');
    assert.equal(await names('env in (test,prod)'), 'web-1 web-2');
    assert.equal(await names('env notin (test)'), 'db-1 web-2');
    assert.equal(await names('!env'), 'db-1');
    assert.equal(await names('app=web,env'), 'web-1 web-2');
    const [header, ...rows] = await table(['pods', '-A', '-l', 'env in (test)']);
    assert.deepEqual(header, ['NAMESPACE', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    assert.deepEqual(rows.map((r) => r[1]), ['web-1', 'other-1']);
  });

  test('an empty selection prints kubectl\'s own "No resources found"', async () => {
    const res = await cluster.kubectl(['get', 'pods', '-l', 'env=staging']);
    assert.equal(res.stdout, '');
    assert.equal(res.stderr, 'No resources found in default namespace.\n');
  });

  test('field selectors: metadata.name, spec.nodeName, status.phase', async () => {
    const [header, ...rows] = await table(['pods', '--field-selector', 'metadata.name=web-2']);
    assert.deepEqual(header, ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    assert.deepEqual(rows.map((r) => r[0]), ['web-2']);
    const onNode = await cluster.kubectl(['get', 'pods', '-A', '--field-selector', 'spec.nodeName=worker-1', '-o', 'name']);
    assert.equal(onNode.stdout, 'pod/web-1\n');
    const pending = await cluster.kubectl(['get', 'pods', '--field-selector', 'status.phase=Pending,metadata.name!=db-1', '-o', 'name']);
    assert.equal(pending.stdout, 'pod/web-1\npod/web-2\n');
    const bad = await cluster.kubectl(['get', 'pods', '--field-selector', 'spec.image=nginx'], { allowFail: true });
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr, 'Error from server (BadRequest): Unable to find "/v1, Resource=pods" that match label selector "", field selector "spec.image=nginx": field label not supported: spec.image\n');
  });
});

describe('kubectl get: structured output', () => {
  test('-o json of a list and of one object', async () => {
    const list = JSON.parse((await cluster.kubectl(['get', 'pods', '-o', 'json'])).stdout);
    assert.equal(list.kind, 'List');
    assert.equal(list.apiVersion, 'v1');
    assert.deepEqual(list.items.map((p: any) => [p.kind, p.apiVersion, p.metadata.name]), [['Pod', 'v1', 'db-1'], ['Pod', 'v1', 'web-1'], ['Pod', 'v1', 'web-2']]);
    const one = JSON.parse((await cluster.kubectl(['get', 'pod', 'web-1', '-o', 'json'])).stdout);
    assert.equal(one.kind, 'Pod');
    assert.equal(one.spec.nodeName, 'worker-1');
    assert.equal(one.status.phase, 'Pending');
    assert.match(one.metadata.uid, /^[0-9a-f-]{36}$/);
    assert.match(one.metadata.resourceVersion, /^\d+$/);
    assert.match(one.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  test('-o yaml', async () => {
    const obj = parse((await cluster.kubectl(['get', 'statefulset', 'muzzi', '-o', 'yaml'])).stdout);
    assert.equal(obj.apiVersion, 'apps/v1');
    assert.equal(obj.kind, 'StatefulSet');
    assert.equal(obj.spec.replicas, 3);
    assert.equal(obj.spec.podManagementPolicy, 'OrderedReady');
    assert.deepEqual(obj.spec.selector, { matchLabels: { app: 'nginx-statefulset' } });
  });

  test('-o jsonpath on one object and over a list', async () => {
    assert.equal((await cluster.kubectl(['get', 'sts', 'muzzi', '-o', 'jsonpath={.spec.replicas}'])).stdout, '3');
    assert.equal((await cluster.kubectl(['get', 'ds', 'agent', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'])).stdout, 'monitoring-agent:latest');
    const rows = (await cluster.kubectl(['get', 'pods', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.metadata.labels.app}{"\\n"}{end}'])).stdout;
    assert.equal(rows, 'db-1=db\nweb-1=web\nweb-2=web\n');
    assert.equal((await cluster.kubectl(['get', 'nodes', '-o', 'jsonpath={.items[0].status.nodeInfo.kubeletVersion}'])).stdout, 'v1.32.0');
  });

  test('-o name and custom-columns', async () => {
    assert.equal((await cluster.kubectl(['get', 'ds,sts', '-o', 'name'])).stdout, 'daemonset.apps/agent\nstatefulset.apps/muzzi\n');
    const out = (await cluster.kubectl(['get', 'pods', '-o', 'custom-columns=NAME:.metadata.name,APP:.metadata.labels.app'])).stdout;
    assert.equal(out.split('\n').map((l) => cells(l).join(' ')).join('\n'), 'NAME APP\ndb-1 db\nweb-1 web\nweb-2 web\n');
  });
});

describe('kubectl get -w', () => {
  test('prints the table, then a row for each created and changed pod', async () => {
    const watcher = cluster.spawnKubectl(['get', 'pods', '-w', '-l', 'app=web']);
    try {
      const out = lineReader(watcher);
      await out.waitFor((l) => cells(l)[0] === 'web-2', 'the initial rows');
      assert.deepEqual(cells(out.lines[0]), ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
      assert.deepEqual(out.lines.slice(1).map((l) => cells(l)[0]), ['web-1', 'web-2']);
      const initial = out.lines.length;

      await cluster.kubectl(['create', '-f', '-'], { input: pod('web-3', 'default', { app: 'web' }) });
      const added = await out.waitFor((l) => cells(l)[0] === 'web-3', 'the new pod\'s row', initial);
      assert.deepEqual(cells(out.lines[added]).slice(0, 4), ['web-3', '0/1', 'Pending', '0']);

      await cluster.kubectl(['label', 'pod', 'web-1', 'tier=front']);
      await out.waitFor((l) => cells(l)[0] === 'web-1', 'the changed pod\'s row', added + 1);
      // A pod outside the selector never shows up.
      await cluster.kubectl(['label', 'pod', 'db-1', 'tier=back']);
      await cluster.kubectl(['label', 'pod', 'web-2', 'tier=front']);
      await out.waitFor((l) => cells(l)[0] === 'web-2', 'the last change', added + 1);
      assert.ok(!out.lines.some((l) => cells(l)[0] === 'db-1'), out.lines.join('\n'));
    } finally {
      await killChild(watcher);
    }
  });

  test('--output-watch-events names ADDED, MODIFIED and DELETED', async () => {
    const watcher = cluster.spawnKubectl(['get', 'pods', '-n', 'other', '-w', '--output-watch-events']);
    try {
      const out = lineReader(watcher);
      await out.waitFor((l) => cells(l)[1] === 'other-1', 'the initial row');
      assert.deepEqual(cells(out.lines[0]), ['EVENT', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
      assert.equal(cells(out.lines[1])[0], 'ADDED');
      await cluster.kubectl(['create', '-f', '-'], { input: pod('other-2', 'other', { app: 'batch' }) });
      await cluster.kubectl(['annotate', 'pod', '-n', 'other', 'other-2', 'note=hi']);
      await cluster.kubectl(['delete', 'pod', '-n', 'other', 'other-2']);
      await out.waitFor((l) => cells(l)[0] === 'DELETED', 'the deletion', 2);
      assert.deepEqual(out.lines.slice(2).map((l) => cells(l).slice(0, 2)), [['ADDED', 'other-2'], ['MODIFIED', 'other-2'], ['DELETED', 'other-2']]);
    } finally {
      await killChild(watcher);
    }
  });
});
