/**
 * More kubernetes.io pages, command by command with the real kubectl 1.32 on
 * `npm start`'s simulated nodes, where k8ts once answered unlike upstream:
 *  - Leases: `kubectl -n kube-system get lease -l
 *    apiserver.kubernetes.io/identity=kube-apiserver` listed nothing; the API
 *    server kept no identity Lease (APIServerIdentity, on by default since 1.26);
 *  - Building a Basic DaemonSet: a simulated node had no /etc/machine-id, so
 *    the init container's `cat` of its hostPath failed and the pods crash-looped
 *    in Init instead of running;
 *  - Logging Architecture: the streaming sidecars' `tail -n+1 -F /var/log/1.log`
 *    (the count attached to -n) was not run, so `kubectl logs counter
 *    count-log-1` showed the simulated lifecycle instead of the counter's lines.
 * Walked and answering as upstream already, checked here so they stay so:
 * Managing Workloads (bulk apply and delete, chaining, --recursive, edit,
 * annotate, scale, autoscale, the immutable selector, replace --force), Limit
 * Storage Consumption (the LimitRange's min and max, the quota's count and
 * sum) and Resource metrics pipeline (NodeMetrics and PodMetrics by --raw).
 * Every wait polls a condition with a generous deadline; nothing is timed.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { eventually } from './harness.js';
import { startUp, type UpCluster } from './up-cluster.js';
import * as m from './up-tutorials-pages14-manifests.js';

describe('k8ts up: the Managing Workloads, Limit Storage Consumption, Leases, Basic DaemonSet, Logging Architecture and Resource metrics pipeline pages on simulated nodes', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const out = async (args: string[], input?: string) => (await kubectl(args, input)).stdout;
  const file = (name: string, text: string) => { const path = join(up.dir, name); mkdirSync(dirname(path), { recursive: true }); writeFileSync(path, text); return path; };
  const rolledOut = async (name: string, ns = 'default') => assert.match(await out(['rollout', 'status', `deployment/${name}`, '-n', ns, '--timeout', '10m']), new RegExp(`deployment "${name}" successfully rolled out\\n$`));

  before(async () => {
    up = await startUp('k8ts-e2e-tut-pages14-');
  });
  after(async () => { await up?.close(); });

  it('Managing Workloads: apply and delete of several objects, resource/name and -l, create -o name chained into get, --recursive', async () => {
    const app = file('nginx-app.yaml', m.nginxApp);
    assert.equal(await out(['apply', '-f', app]), 'service/my-nginx-svc created\ndeployment.apps/my-nginx created\n');
    // kubectl deletes in the file's order (the page prints the Deployment first).
    assert.equal(await out(['delete', '-f', app]), 'service "my-nginx-svc" deleted\ndeployment.apps "my-nginx" deleted\n');
    await kubectl(['apply', '-f', app]);
    assert.equal(await out(['delete', 'deployments/my-nginx', 'services/my-nginx-svc']), 'deployment.apps "my-nginx" deleted\nservice "my-nginx-svc" deleted\n');
    await kubectl(['apply', '-f', app]);
    assert.equal(await out(['delete', 'deployment,services', '-l', 'app=nginx']), 'deployment.apps "my-nginx" deleted\nservice "my-nginx-svc" deleted\n');
    // kubectl get $(kubectl create -f docs/concepts/cluster-administration/nginx/ -o name | grep service/ )
    file('nginx/nginx-app.yaml', m.nginxApp);
    const names = await out(['create', '-f', join(up.dir, 'nginx'), '-o', 'name']);
    assert.equal(names, 'service/my-nginx-svc\ndeployment.apps/my-nginx\n');
    const svc = names.split('\n').find((n) => n.startsWith('service/'))!;
    assert.match(await out(['get', svc]), /^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\nmy-nginx-svc\s+LoadBalancer\s+10\.\d+\.\d+\.\d+\s+\S+\s+80:3\d{4}\/TCP\s+\S+\n$/);
    await kubectl(['delete', '-f', join(up.dir, 'nginx')]);
    for (const [path, text] of Object.entries(m.developmentTree)) file(join('project/k8s', path), text);
    const development = join(up.dir, 'project/k8s/development');
    // Without --recursive kubectl finds no manifest at the first level (its message, not the page's older one).
    const flat = await kubectl(['apply', '-f', development], undefined, true);
    assert.equal(flat.code, 1);
    assert.match(flat.stderr, /recognized file extensions are \[\.json \.yaml \.yml\]/);
    assert.equal(await out(['apply', '-f', join(up.dir, 'project/k8s/namespaces'), '-f', development, '--recursive']),
      'namespace/development created\nnamespace/staging created\nconfigmap/my-config created\ndeployment.apps/my-deployment created\npersistentvolumeclaim/my-pvc created\n');
    await rolledOut('my-deployment');
    assert.equal(await out(['rollout', 'status', 'deployment/my-deployment', '--watch=false']), 'deployment "my-deployment" successfully rolled out\n');
    assert.equal(await out(['delete', '-f', development, '-R']),
      'configmap "my-config" deleted\ndeployment.apps "my-deployment" deleted\npersistentvolumeclaim "my-pvc" deleted\n');
  });

  it('Managing Workloads: a 100% surge patched in, the image edited, annotate, scale to 1, autoscale; the selector immutable to apply; replace --force', async () => {
    assert.equal(await out(['create', 'deployment', 'my-nginx', '--image=nginx:1.14.2']), 'deployment.apps/my-nginx created\n');
    assert.equal(await out(['patch', 'deployment/my-nginx', '--type=merge', '-p', '{"spec":{"strategy":{"rollingUpdate":{"maxSurge": "100%" }}}}']), 'deployment.apps/my-nginx patched\n');
    await rolledOut('my-nginx');
    // kubectl edit deployment/my-nginx, changing the image to nginx:1.16.1 (an editor that does it for us).
    const editor = file('edit-image.sh', 'sed -i "s/image: nginx:1.14.2/image: nginx:1.16.1/" "$1"\n');
    const edited = await new Promise<string>((resolve, reject) => {
      execFile('kubectl', ['--kubeconfig', up.kubeconfig, 'edit', 'deployment/my-nginx'], { env: { ...process.env, KUBE_EDITOR: `sh ${editor}` }, timeout: 60_000 },
        (err, stdout, stderr) => (err ? reject(new Error(`${err.message}: ${stderr}`)) : resolve(stdout)));
    });
    assert.equal(edited, 'deployment.apps/my-nginx edited\n');
    await rolledOut('my-nginx');
    assert.equal(await out(['get', 'deployment', 'my-nginx', '-o', 'jsonpath={.spec.template.spec.containers[0].image} {.spec.strategy.rollingUpdate.maxSurge}']), 'nginx:1.16.1 100%');
    const pod = await eventually(async () => {
      const pods = (await out(['get', 'pods', '-l', 'app=my-nginx', '--field-selector=status.phase=Running', '-o', 'name'])).trim().split('\n').filter(Boolean);
      return pods.length === 1 ? pods[0]!.replace('pod/', '') : undefined;
    }, 120_000, 'one my-nginx pod');
    assert.equal(await out(['annotate', 'pods', pod, 'description=my frontend running nginx']), `pod/${pod} annotated\n`);
    assert.match(await out(['get', 'pods', pod, '-o', 'yaml']), /^apiVersion: v1\nkind: Pod\nmetadata:\n {2}annotations:\n {4}description: my frontend running nginx\n/);
    await kubectl(['scale', 'deployment/my-nginx', '--replicas=3']);
    assert.equal(await out(['scale', 'deployment/my-nginx', '--replicas=1']), 'deployment.apps/my-nginx scaled\n');
    await eventually(async () => /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\nmy-nginx-[a-z0-9]+-[a-z0-9]{5}\s+1\/1\s+Running\s+0\s+\S+\n$/.test(await out(['get', 'pods', '-l', 'app=my-nginx'])),
      120_000, 'one pod managed by the deployment', () => out(['get', 'pods', '-l', 'app=my-nginx']));
    assert.equal(await out(['autoscale', 'deployment/my-nginx', '--min=1', '--max=3']), 'horizontalpodautoscaler.autoscaling/my-nginx autoscaled\n');
    assert.match(await out(['get', 'hpa', 'my-nginx']), /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE\nmy-nginx\s+Deployment\/my-nginx\s+cpu: \S+\/80%\s+1\s+3\s+\d+\s+\S+\n$/);
    await kubectl(['delete', 'hpa', 'my-nginx']);
    // The page's nginx-deployment.yaml selects app.kubernetes.io/name=nginx: apply merges it into the
    // created Deployment's selector, which upstream's validation keeps immutable.
    const deployment = file('nginx-deployment.yaml', m.nginxDeployment);
    const refused = await kubectl(['apply', '-f', deployment], undefined, true);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /The Deployment "my-nginx" is invalid: spec\.selector: Invalid value: v1\.LabelSelector\{MatchLabels:map\[string\]string\{"app":"my-nginx", "app\.kubernetes\.io\/name":"nginx"\}, MatchExpressions:\[\]v1\.LabelSelectorRequirement\(nil\)\}: field is immutable\n$/);
    assert.equal(await out(['replace', '-f', deployment, '--force']), 'deployment.apps "my-nginx" deleted\ndeployment.apps/my-nginx replaced\n');
    assert.equal(await out(['apply', '-f', deployment]), 'deployment.apps/my-nginx configured\n');
    await rolledOut('my-nginx');
    assert.match(await out(['get', 'deployment', 'my-nginx', '-o', 'wide']), /\nmy-nginx\s+3\/3\s+3\s+3\s+\S+\s+nginx\s+nginx:1\.14\.2\s+app\.kubernetes\.io\/name=nginx\n$/);
    await kubectl(['delete', 'deployment', 'my-nginx']);
  });

  it('Limit Storage Consumption: the LimitRange refuses claims above 2Gi and below 1Gi; the quota refuses the claim past 5Gi', async () => {
    await kubectl(['create', 'namespace', 'storage-limits']);
    const ns = ['-n', 'storage-limits'];
    assert.equal(await out(['apply', ...ns, '-f', file('storagelimits.yaml', m.storageLimits)]), 'limitrange/storagelimits created\n');
    assert.equal(await out(['apply', ...ns, '-f', file('storagequota.yaml', m.storageQuota)]), 'resourcequota/storagequota created\n');
    const create = (name: string, size: string) => kubectl(['create', ...ns, '-f', '-'], m.claim(name, size), true);
    const big = await create('big', '10Gi');
    assert.equal(big.code, 1);
    assert.equal(big.stderr, 'Error from server (Forbidden): error when creating "STDIN": persistentvolumeclaims "big" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 10Gi\n');
    const small = await create('small', '500Mi');
    assert.equal(small.stderr, 'Error from server (Forbidden): error when creating "STDIN": persistentvolumeclaims "small" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi\n');
    // The quota controller fills in its status; until then the quota admission refuses (upstream: "status unknown").
    await eventually(async () => /requests\.storage: 0\/5Gi/.test(await out(['get', 'quota', ...ns])), 60_000, 'the quota\'s status');
    for (const name of ['claim-1', 'claim-2']) assert.equal((await create(name, '2Gi')).stdout, `persistentvolumeclaim/${name} created\n`);
    const third = await create('claim-3', '2Gi');
    assert.equal(third.stderr, 'Error from server (Forbidden): error when creating "STDIN": persistentvolumeclaims "claim-3" is forbidden: exceeded quota: storagequota, requested: requests.storage=2Gi, used: requests.storage=4Gi, limited: requests.storage=5Gi\n');
    assert.equal((await create('claim-3', '1Gi')).stdout, 'persistentvolumeclaim/claim-3 created\n');
    await eventually(async () => /requests\.storage\s+5Gi\s+5Gi\n/.test(await out(['describe', 'quota', ...ns])), 60_000, 'the quota used');
    assert.equal(await out(['describe', 'quota', ...ns]),
      'Name:                   storagequota\nNamespace:              storage-limits\nResource                Used  Hard\n--------                ----  ----\npersistentvolumeclaims  3     5\nrequests.storage        5Gi   5Gi\n');
    assert.equal(await out(['describe', 'limits', ...ns]),
      'Name:                  storagelimits\nNamespace:             storage-limits\nType                   Resource  Min  Max  Default Request  Default Limit  Max Limit/Request Ratio\n----                   --------  ---  ---  ---------------  -------------  -----------------------\nPersistentVolumeClaim  storage   1Gi  2Gi  -                -              -\n');
    await kubectl(['delete', 'namespace', 'storage-limits', '--wait=false']);
  });

  it('Leases: a node Lease per node, the leader Leases, and the API server\'s identity Lease by its label, renewed every 10 s', async () => {
    const nodes = (await out(['get', 'nodes', '-o', 'jsonpath={.items[*].metadata.name}'])).split(' ').sort();
    const nodeLeases = await out(['-n', 'kube-node-lease', 'get', 'lease']);
    assert.match(nodeLeases, /^NAME\s+HOLDER\s+AGE\n/);
    for (const node of nodes) assert.match(nodeLeases, new RegExp(`\\n${node}\\s+${node}\\s+\\S+\\n`));
    const identity = await eventually(async () => {
      const text = await out(['-n', 'kube-system', 'get', 'lease', '-l', 'apiserver.kubernetes.io/identity=kube-apiserver']);
      return /\napiserver-/.test(text) ? text : undefined;
    }, 60_000, 'the identity Lease');
    const row = /^NAME\s+HOLDER\s+AGE\n(apiserver-[a-z2-7]{26})\s+(\S+)\s+\S+\n$/.exec(identity);
    assert.ok(row, identity);
    const [, name, holder] = row;
    assert.match(holder!, new RegExp(`^${name}_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`));
    assert.match(await out(['-n', 'kube-system', 'get', 'lease']),
      new RegExp(`^NAME\\s+HOLDER\\s+AGE\\n${name}\\s+${holder}\\s+\\S+\\nkube-controller-manager\\s+\\S+\\s+\\S+\\nkube-scheduler\\s+\\S+\\s+\\S+\\n$`));
    const yaml = await out(['-n', 'kube-system', 'get', 'lease', name!, '-o', 'yaml']);
    assert.match(yaml, new RegExp(`^apiVersion: coordination\\.k8s\\.io/v1\\nkind: Lease\\nmetadata:\\n  creationTimestamp: "\\S+"\\n  labels:\\n    apiserver\\.kubernetes\\.io/identity: kube-apiserver\\n    kubernetes\\.io/hostname: ${hostname().replace(/\./g, '\\.')}\\n  name: ${name}\\n  namespace: kube-system\\n  resourceVersion: "\\d+"\\n  uid: \\S+\\nspec:\\n  holderIdentity: ${holder}\\n  leaseDurationSeconds: 3600\\n  renewTime: "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z"\\n$`));
    const renewTime = async () => (JSON.parse(await out(['-n', 'kube-system', 'get', 'lease', name!, '-o', 'json'])) as Lease).spec?.renewTime;
    const first = await renewTime();
    await eventually(async () => (await renewTime()) !== first, 60_000, 'a renewal');
    // Its post-start hooks, in upstream's place among the others.
    assert.match(await out(['get', '--raw=/readyz?verbose']),
      /\[\+\]poststarthook\/start-cluster-authentication-info-controller ok\n\[\+\]poststarthook\/start-kube-apiserver-identity-lease-controller ok\n\[\+\]poststarthook\/start-kube-apiserver-identity-lease-garbage-collector ok\n\[\+\]poststarthook\/rbac\/bootstrap-roles ok\n/);
  });

  it('Logging Architecture, streaming sidecar containers: kubectl logs counter count-log-1 and count-log-2 print the two files from their first line', async () => {
    assert.equal(await out(['apply', '-f', file('two-files-counter-pod-streaming-sidecar.yaml', m.countersStreamingSidecar)]), 'pod/counter created\n');
    const date = String.raw`\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d UTC \d{4}`;
    const counted = (text: string, line: (i: number) => string) => {
      const lines = text.split('\n').slice(0, -1);
      return lines.length >= 3 && lines.every((l, i) => new RegExp(`^${line(i)}$`).test(l));
    };
    await eventually(async () => counted(await out(['logs', 'counter', 'count-log-1']), (i) => `${i}: ${date}`), 120_000,
      'count-log-1 streams 1.log', () => out(['logs', 'counter', 'count-log-1']));
    await eventually(async () => counted(await out(['logs', 'counter', 'count-log-2']), (i) => `${date} INFO ${i}`), 120_000,
      'count-log-2 streams 2.log', () => out(['logs', 'counter', 'count-log-2']));
    assert.match(await out(['get', 'pod', 'counter']), /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\ncounter\s+3\/3\s+Running\s+0\s+\S+\n$/);
  });

  it('Building a Basic DaemonSet: a pod per schedulable node, Running once its init container logged the node\'s machine-id to the node\'s /var/log', async () => {
    const file_ = file('basic-daemonset.yaml', m.basicDaemonSet);
    assert.equal(await out(['apply', '-f', file_]), 'daemonset.apps/example-daemonset created\n');
    // The control plane's NoSchedule taint keeps it off that node, as on kubeadm.
    const tainted = (await out(['get', 'nodes', '-o', 'jsonpath={range .items[?(@.spec.taints)]}{.metadata.name} {end}'])).trim().split(' ');
    const schedulable = (await out(['get', 'nodes', '-o', 'jsonpath={.items[*].metadata.name}'])).split(' ').filter((n) => !tainted.includes(n)).sort();
    const listing = await eventually(async () => {
      const text = await out(['get', 'pods', '-o', 'wide', '-l', 'app.kubernetes.io/name=example']);
      const rows = text.split('\n').slice(1, -1);
      return rows.length === schedulable.length && rows.every((r) => /^example-daemonset-[a-z0-9]{5}\s+1\/1\s+Running\s+0\s/.test(r)) ? text : undefined;
    }, 120_000, 'a pod Running per node', () => out(['get', 'pods', '-o', 'wide', '-l', 'app.kubernetes.io/name=example']));
    assert.match(listing, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES\n/);
    assert.deepEqual(listing.split('\n').slice(1, -1).map((r) => r.split(/\s+/)[6]).sort(), schedulable);
    // The page's `kubectl exec <pod-name> -- cat /var/log/machine-id.log` goes to the pause container, which has no cat (upstream too).
    const pod = listing.split('\n')[1]!.split(/\s+/)[0]!;
    const node = listing.split('\n')[1]!.split(/\s+/)[6]!;
    const noCat = await kubectl(['exec', pod, '--', 'cat', '/var/log/machine-id.log'], undefined, true);
    assert.match(noCat.stderr, /error: Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "[0-9a-f]{64}": OCI runtime exec failed: exec failed: unable to start container process: exec: "cat": executable file not found in \$PATH: unknown\n$/);
    // The log is on the node: a node debugger reads it beside the machine-id it copied.
    const created = await kubectl(['debug', `node/${node}`, '--image=busybox', '--profile=general', '--', 'sh', '-c', 'cat /host/var/log/machine-id.log /host/etc/machine-id']);
    const debugger_ = /Creating debugging pod (\S+) /.exec(created.stdout + created.stderr)![1]!;
    const logged = await eventually(async () => (await kubectl(['logs', debugger_], undefined, true)).stdout || undefined, 60_000, 'the node debugger\'s output');
    const [copied, machineId] = logged.split('\n');
    assert.match(copied!, /^[0-9a-f]{32}$/);
    assert.equal(copied, machineId, logged);
    assert.equal(await out(['delete', '-f', file_]), 'daemonset.apps "example-daemonset" deleted\n');
    await kubectl(['delete', 'pod', debugger_, '--wait=false']);
  });

  it('Resource metrics pipeline: NodeMetrics and PodMetrics through kubectl get --raw, in the Metrics API\'s shape', async () => {
    const node = (await out(['get', 'nodes', '-o', 'jsonpath={.items[0].metadata.name}']));
    const quantity = /^\d+(n|u|m|Ki|Mi)?$/;
    const nm = await eventually(async () => {
      const got = await kubectl(['get', '--raw', `/apis/metrics.k8s.io/v1beta1/nodes/${node}`], undefined, true);
      return got.code === 0 ? JSON.parse(got.stdout) : undefined;
    }, 60_000, 'the node\'s metrics');
    assert.equal(nm.kind, 'NodeMetrics');
    assert.equal(nm.apiVersion, 'metrics.k8s.io/v1beta1');
    assert.equal(nm.metadata.name, node);
    assert.match(nm.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.match(nm.window, /^\d+(\.\d+)?s$/);
    assert.match(nm.usage.cpu, quantity);
    assert.match(nm.usage.memory, quantity);
    const pm = await eventually(async () => {
      const got = await kubectl(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/counter'], undefined, true);
      return got.code === 0 ? JSON.parse(got.stdout) : undefined;
    }, 60_000, 'the pod\'s metrics');
    assert.equal(pm.kind, 'PodMetrics');
    assert.deepEqual([pm.metadata.name, pm.metadata.namespace], ['counter', 'default']);
    assert.deepEqual(pm.containers.map((c: { name: string }) => c.name).sort(), ['count', 'count-log-1', 'count-log-2']);
    for (const c of pm.containers) { assert.match(c.usage.cpu, quantity); assert.match(c.usage.memory, quantity); }
  });
});
