/**
 * More kubernetes.io pages, command by command with the real kubectl 1.32 on
 * `npm start`'s simulated nodes, where k8ts once answered unlike upstream:
 *  - Runtime Class and Pod Overhead: a pod naming a RuntimeClass that did
 *    not exist was created (upstream's RuntimeClass admission refuses it),
 *    and the class's overhead never reached spec.overhead, so `kubectl
 *    describe node` showed test-pod's 2 CPUs, not the page's 2250m;
 *  - Ingress: an Ingress created without a class did not get the default
 *    IngressClass (upstream's DefaultIngressClass admission);
 *  - readOnlyRootFilesystem: writes to a read-only root succeeded.
 * Walked and answering as upstream already, checked here so they stay so:
 * the Resource Quotas page's quota per PriorityClass, the Limit Ranges
 * page's conflicting default limit, and a sweep of the
 * kubectl cheat sheet (sort-by, custom columns, set image and rollout
 * history and undo, label --overwrite, events --for, auth can-i --list,
 * api-resources -o wide, top).
 * Every wait polls a condition with a generous deadline; nothing is timed.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from './harness.js';
import { startUp, type UpCluster } from './up-cluster.js';
import * as m from './up-tutorials-pages12-manifests.js';

describe('k8ts up: the Runtime Class, Pod Overhead, Ingress, security context, Resource Quotas, Limit Ranges and kubectl cheat sheet pages on simulated nodes', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const out = async (args: string[], input?: string) => (await kubectl(args, input)).stdout;
  const file = (name: string, text: string) => { const path = join(up.dir, name); writeFileSync(path, text); return path; };
  const running = (name: string, ready = '1/1') => eventually(async () => new RegExp(`^${name}\\s+${ready}\\s+Running\\s`, 'm').test(await out(['get', 'pod', name])), 120_000, `${name} Running`);

  before(async () => {
    up = await startUp('k8ts-e2e-tut-pages12-');
  });
  after(async () => { await up?.close(); });

  it('Runtime Class: a pod naming a class that does not exist is refused; the class\'s table; its scheduling merged into the pod', async () => {
    const pod = `apiVersion: v1\nkind: Pod\nmetadata:\n  name: mypod\nspec:\n  runtimeClassName: myclass\n  containers:\n  - name: c\n    image: nginx\n`;
    const refused = await kubectl(['apply', '-f', '-'], pod, true);
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr, 'Error from server (Forbidden): error when creating "STDIN": pods "mypod" is forbidden: pod rejected: RuntimeClass "myclass" not found\n');
    assert.equal(await out(['apply', '-f', file('runtimeclass.yaml', m.runtimeClassMyclass)]), 'runtimeclass.node.k8s.io/myclass created\n');
    assert.match(await out(['get', 'runtimeclass']), /^NAME\s+HANDLER\s+AGE\nmyclass\s+myconfiguration\s+\S+\n$/);
    assert.equal(await out(['apply', '-f', '-'], pod), 'pod/mypod created\n');
    await running('mypod');
    assert.equal(await out(['get', 'pod', 'mypod', '-o', 'jsonpath={.spec.runtimeClassName}/{.spec.overhead}']), 'myclass/');

    // Scheduling: the class's nodeSelector and tolerations join the pod's; a selector value of its own conflicts.
    await kubectl(['label', 'node', 'worker2', 'runtime=sandboxed']);
    await kubectl(['apply', '-f', '-'], 'apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: sandboxed\nhandler: runc\nscheduling:\n'
      + '  nodeSelector:\n    runtime: sandboxed\n  tolerations:\n  - key: sandbox\n    operator: Exists\n    effect: NoSchedule\n');
    const sandboxed = (name: string, selector = '') => `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  runtimeClassName: sandboxed\n${selector}  containers:\n  - name: c\n    image: nginx\n`;
    await kubectl(['apply', '-f', '-'], sandboxed('sandboxed-pod'));
    assert.equal(await out(['get', 'pod', 'sandboxed-pod', '-o', 'jsonpath={.spec.nodeSelector}']), '{"runtime":"sandboxed"}');
    // After DefaultTolerationSeconds' two, as upstream's plugin order and MergeTolerations (the pod's first) give them.
    assert.equal(await out(['get', 'pod', 'sandboxed-pod', '-o', 'jsonpath={.spec.tolerations[*].key}']), 'node.kubernetes.io/not-ready node.kubernetes.io/unreachable sandbox');
    await eventually(async () => (await out(['get', 'pod', 'sandboxed-pod', '-o', 'jsonpath={.spec.nodeName}'])) === 'worker2', 120_000, 'sandboxed-pod on worker2');
    const conflict = await kubectl(['apply', '-f', '-'], sandboxed('other-pod', '  nodeSelector:\n    runtime: plain\n'), true);
    assert.equal(conflict.stderr, 'Error from server (Forbidden): error when creating "STDIN": pods "other-pod" is forbidden: '
      + 'conflict: runtimeClass.scheduling.nodeSelector[runtime] = sandboxed; pod.spec.nodeSelector[runtime] = plain\n');
    await kubectl(['delete', 'pod', 'mypod', 'sandboxed-pod', '--wait=false']);
  });

  it('Pod Overhead: test-pod gets kata-fc\'s overhead, and kubectl describe node adds it to the containers\' requests and limits (2250m, 320Mi)', async () => {
    assert.equal(await out(['apply', '-f', file('runtimeclass-kata.yaml', m.runtimeClassKataFc)]), 'runtimeclass.node.k8s.io/kata-fc created\n');
    assert.equal(await out(['apply', '-f', file('pod-overhead.yaml', m.overheadTestPod)]), 'pod/test-pod created\n');
    assert.equal(await out(['get', 'pod', 'test-pod', '-o', 'jsonpath={.spec.overhead}']), '{"cpu":"250m","memory":"120Mi"}');
    assert.equal(await out(['get', 'pod', 'test-pod', '-o', 'jsonpath={.spec.containers[*].resources.limits}']),
      '{"cpu":"500m","memory":"100Mi"} {"cpu":"1500m","memory":"100Mi"}');
    await running('test-pod', '2/2');
    const node = await out(['get', 'pod', 'test-pod', '-o', 'jsonpath={.spec.nodeName}']);
    const described = await out(['describe', 'node', node]);
    // The page: kubectl describe node | grep test-pod -B2.
    assert.match(described, /^ {2}Namespace\s+Name\s+CPU Requests\s+CPU Limits\s+Memory Requests\s+Memory Limits\s+Age\n {2}-+\s+-+\s+-+\s+-+\s+-+\s+-+\s+-+\n(?: {2}.*\n)*? {2}default\s+test-pod\s+2250m \(\d+%\)\s+2250m \(\d+%\)\s+320Mi \(\d+%\)\s+320Mi \(\d+%\)\s+\S+\n/m);
    // A pod may not bring an overhead of its own that differs from its class's.
    const own = m.overheadTestPod.replace('name: test-pod', 'name: test-pod-2').replace('  runtimeClassName: kata-fc\n', '  runtimeClassName: kata-fc\n  overhead:\n    cpu: 100m\n');
    const refused = await kubectl(['apply', '-f', '-'], own, true);
    assert.equal(refused.stderr, 'Error from server (Forbidden): error when creating "STDIN": pods "test-pod-2" is forbidden: pod rejected: Pod\'s Overhead doesn\'t match RuntimeClass\'s defined Overhead\n');
    await kubectl(['delete', 'pod', 'test-pod', '--wait=false']);
  });

  it('Ingress: the default IngressClass fills in a class left out; describe shows the resource backends and the fan-out\'s endpoints', async () => {
    assert.equal(await out(['apply', '-f', file('minimal-ingress.yaml', m.minimalIngress)]), 'ingress.networking.k8s.io/minimal-ingress created\n');
    assert.equal(await out(['apply', '-f', file('external-lb.yaml', m.externalLb)]), 'ingressclass.networking.k8s.io/external-lb created\n');
    // No default class yet: the Ingress stays without one.
    assert.equal(await out(['apply', '-f', file('ingress-resource-backend.yaml', m.ingressResourceBackend)]), 'ingress.networking.k8s.io/ingress-resource-backend created\n');
    assert.equal(await out(['describe', 'ingress', 'ingress-resource-backend']), [
      'Name:             ingress-resource-backend', 'Labels:           <none>', 'Namespace:        default', 'Address:          ', 'Ingress Class:    <none>',
      'Default backend:  APIGroup: k8s.example.com, Kind: StorageBucket, Name: static-assets', 'Rules:', '  Host        Path  Backends', '  ----        ----  --------',
      '  *           ', '              /icons   APIGroup: k8s.example.com, Kind: StorageBucket, Name: icon-assets', 'Annotations:  <none>', 'Events:       <none>', '',
    ].join('\n'));

    assert.equal(await out(['apply', '-f', file('default-ingressclass.yaml', m.defaultIngressClass)]), 'ingressclass.networking.k8s.io/nginx-example created\n');
    assert.match(await out(['get', 'ingressclass']),
      /^NAME\s+CONTROLLER\s+PARAMETERS\s+AGE\nexternal-lb\s+example\.com\/ingress-controller\s+IngressParameters\.k8s\.example\.com\/external-lb\s+\S+\nnginx-example\s+k8s\.io\/ingress-nginx\s+<none>\s+\S+\n$/);
    assert.equal(await out(['apply', '-f', file('test-ingress.yaml', m.testIngress)]), 'ingress.networking.k8s.io/test-ingress created\n');
    assert.match(await out(['get', 'ingress', 'test-ingress']), /^NAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE\ntest-ingress\s+nginx-example\s+\*\s+80\s+\S+\n$/);
    // kubectl create ingress gets it too; the class stays what was set on creation.
    assert.equal(await out(['create', 'ingress', 'simple', '--rule=foo.com/bar=svc1:8080,tls=my-cert']), 'ingress.networking.k8s.io/simple created\n');
    assert.match(await out(['get', 'ingress', 'simple']), /^simple\s+nginx-example\s+foo\.com\s+80, 443\s+\S+$/m);
    assert.equal(await out(['get', 'ingress', 'ingress-resource-backend', '-o', 'jsonpath={.spec.ingressClassName}']), '');

    await kubectl(['create', 'deployment', 'service1', '--image=nginx', '--port=4200']);
    await kubectl(['expose', 'deployment', 'service1', '--port=4200']);
    assert.equal(await out(['apply', '-f', file('simple-fanout-example.yaml', m.simpleFanout)]), 'ingress.networking.k8s.io/simple-fanout-example created\n');
    await eventually(async () => /^ {15}\/foo {3}service1:4200 \(10\.244\.\d+\.\d+:4200\)$/m.test(await out(['describe', 'ingress', 'simple-fanout-example'])), 120_000, 'service1\'s endpoint');
    const fanout = await out(['describe', 'ingress', 'simple-fanout-example']);
    assert.match(fanout, /^Ingress Class: {4}nginx-example\nDefault backend: {2}<default>\nRules:\n {2}Host {9}Path {2}Backends\n {2}-{4} {9}-{4} {2}-{8}\n {2}foo\.bar\.com {2}\n/m);
    assert.match(fanout, /^ {15}\/bar {3}service2:8080 \(<error: services "service2" not found>\)$/m);

    // Two classes marked default: upstream refuses an Ingress that would need one.
    await kubectl(['annotate', 'ingressclass', 'external-lb', 'ingressclass.kubernetes.io/is-default-class=true']);
    const two = await kubectl(['create', 'ingress', 'third', '--rule=/=svc1:80'], undefined, true);
    assert.equal(two.stderr, 'error: failed to create ingress: ingresses.networking.k8s.io "third" is forbidden: Internal error occurred: 2 default IngressClasses were found, only 1 allowed\n');
    assert.equal(await out(['create', 'ingress', 'third', '--class=external-lb', '--rule=/=svc1:80']), 'ingress.networking.k8s.io/third created\n');
  });

  it('Security context: seccompProfile RuntimeDefault and readOnlyRootFilesystem: writes to the root fail, the emptyDir takes them', async () => {
    assert.equal(await out(['apply', '-f', file('ro-demo.yaml', m.readOnlyRootPod)]), 'pod/ro-demo created\n');
    await running('ro-demo');
    const touch = await kubectl(['exec', 'ro-demo', '--', 'touch', '/foo'], undefined, true);
    assert.equal(touch.code, 1);
    assert.equal(touch.stderr, 'touch: /foo: Read-only file system\ncommand terminated with exit code 1\n');
    const shell = await kubectl(['exec', 'ro-demo', '--', 'sh', '-c', 'echo hi > /etc/hosts; mkdir /data; echo hi > /tmp/x && cat /tmp/x'], undefined, true);
    assert.equal(shell.stdout, 'hi\n');
    assert.equal(shell.stderr, "sh: can't create /etc/hosts: Read-only file system\nmkdir: can't create directory '/data': Read-only file system\n");
    assert.match(await out(['exec', 'ro-demo', '--', 'cat', '/proc/mounts']), /^overlay \/ overlay ro,relatime,/);
    assert.equal(await out(['exec', 'ro-demo', '--', 'grep', '-E', 'Seccomp:|NoNewPrivs', '/proc/1/status']), 'NoNewPrivs:\t1\nSeccomp:\t2\n');
    await kubectl(['delete', 'pod', 'ro-demo', '--wait=false']);
  });

  it('Resource Quotas: a quota per PriorityClass; the high-priority pod is counted by pods-high only', async () => {
    assert.equal(await out(['create', '-f', file('quota.yml', m.quotaByPriority)]), 'resourcequota/pods-high created\nresourcequota/pods-medium created\nresourcequota/pods-low created\n');
    const table = (name: string, cpu: string, memory: string, pods: string, hard: [string, string]) =>
      `Name:       ${name}\nNamespace:  default\nResource    Used  Hard\n--------    ----  ----\ncpu         ${cpu.padEnd(6)}${hard[0]}\nmemory      ${memory.padEnd(6)}${hard[1]}\npods        ${pods.padEnd(6)}10\n`;
    assert.equal(await out(['create', 'priorityclass', 'high', '--value=1000']), 'priorityclass.scheduling.k8s.io/high created\n');
    assert.equal(await out(['create', '-f', file('high-priority-pod.yml', m.highPriorityPod)]), 'pod/high-priority created\n');
    const expected = [table('pods-high', '500m', '10Gi', '1', ['1k', '200Gi']), table('pods-low', '0', '0', '0', ['5', '10Gi']), table('pods-medium', '0', '0', '0', ['10', '20Gi'])].join('\n\n');
    await eventually(async () => (await out(['describe', 'quota'])) === expected, 120_000, 'the quotas\' usage', () => out(['describe', 'quota']));
    await kubectl(['delete', 'pod', 'high-priority', '--wait=false']);
  });

  it('Limit Ranges: the default limit below a pod\'s request refuses it; with a limit of its own it is created and within min and max', async () => {
    await kubectl(['create', 'namespace', 'limits']);
    assert.equal(await out(['apply', '-n', 'limits', '-f', file('problematic-limit-range.yaml', m.problematicLimitRange)]), 'limitrange/cpu-resource-constraint created\n');
    const refused = await kubectl(['apply', '-n', 'limits', '-f', file('example-conflict-with-limitrange-cpu.yaml', m.conflictWithLimitRangeCpu)], undefined, true);
    assert.equal(refused.stderr, 'The Pod "example-conflict-with-limitrange-cpu" is invalid: spec.containers[0].resources.requests: Invalid value: "700m": must be less than or equal to cpu limit of 500m\n');
    assert.equal(await out(['apply', '-n', 'limits', '-f', file('example-no-conflict-with-limitrange-cpu.yaml', m.noConflictWithLimitRangeCpu)]), 'pod/example-no-conflict-with-limitrange-cpu created\n');
    assert.equal(await out(['describe', 'limitrange', '-n', 'limits']), [
      'Name:       cpu-resource-constraint', 'Namespace:  limits',
      'Type        Resource  Min   Max  Default Request  Default Limit  Max Limit/Request Ratio',
      '----        --------  ---   ---  ---------------  -------------  -----------------------',
      'Container   cpu       100m  1    500m             500m           -', '',
    ].join('\n'));
  });

  it('kubectl cheat sheet: sort-by, custom columns, set image and rollout history/undo, label --overwrite, events --for, auth can-i --list, api-resources -o wide, top', async () => {
    assert.equal(await out(['create', 'deployment', 'frontend', '--image=nginx:1.16.1', '--replicas=2']), 'deployment.apps/frontend created\n');
    await kubectl(['rollout', 'status', 'deployment/frontend', '--timeout=120s']);
    assert.equal(await out(['set', 'image', 'deployment/frontend', 'nginx=nginx:1.17']), 'deployment.apps/frontend image updated\n');
    await kubectl(['rollout', 'status', 'deployment/frontend', '--timeout=120s']);
    assert.equal(await out(['rollout', 'history', 'deployment/frontend']), 'deployment.apps/frontend \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n');
    assert.equal(await out(['rollout', 'undo', 'deployment/frontend']), 'deployment.apps/frontend rolled back\n');
    await kubectl(['rollout', 'status', 'deployment/frontend', '--timeout=120s']);
    assert.equal(await out(['get', 'deployment', 'frontend', '-o', 'jsonpath={.spec.template.spec.containers[0].image}']), 'nginx:1.16.1');
    assert.equal(await out(['rollout', 'history', 'deployment/frontend', '--revision=3', '-o', 'jsonpath={.spec.template.spec.containers[0].image}']), 'nginx:1.16.1');

    const pods = await out(['get', 'pods', '-l', 'app=frontend', '--sort-by=.metadata.name', '-o', 'custom-columns=NAME:.metadata.name,IMAGE:.spec.containers[*].image']);
    const rows = pods.trim().split('\n');
    assert.match(rows[0], /^NAME\s+IMAGE$/);
    assert.deepEqual(rows.slice(1).map((r) => r.split(/\s+/)[0]), rows.slice(1).map((r) => r.split(/\s+/)[0]).sort());
    const pod = rows[1].split(/\s+/)[0];

    assert.equal(await out(['label', 'pods', pod, 'new-label=awesome']), `pod/${pod} labeled\n`);
    const again = await kubectl(['label', 'pods', pod, 'new-label=v2'], undefined, true);
    assert.equal(again.stderr, "error: 'new-label' already has a value (awesome), and --overwrite is false\n");
    assert.equal(await out(['label', 'pods', pod, 'new-label=v2', '--overwrite']), `pod/${pod} labeled\n`);
    assert.equal(await out(['annotate', 'pods', pod, 'icon-url=http://goo.gl/XXBTWq']), `pod/${pod} annotated\n`);
    assert.equal(await out(['get', 'pod', pod, '-o', 'jsonpath={.metadata.labels.new-label} {.metadata.annotations.icon-url}']), 'v2 http://goo.gl/XXBTWq');

    assert.match(await out(['events', '--for', 'deployment/frontend']), /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n(?:.*\n)*\S+\s+Normal\s+ScalingReplicaSet\s+Deployment\/frontend\s+Scaled up replica set frontend-[a-z0-9]+ from 0 to 2\n/);
    const canI = await out(['auth', 'can-i', '--list']);
    assert.match(canI, /^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs\n\*\.\*\s+\[\]\s+\[\]\s+\[\*\]\n\s+\[\*\]\s+\[\]\s+\[\*\]\n/);
    assert.match(canI, /^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
    assert.match(await out(['api-resources', '-o', 'wide']), /^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND\s+VERBS\s+CATEGORIES\n(?:.*\n)*pods\s+po\s+v1\s+true\s+Pod\s+create,delete,deletecollection,get,list,patch,update,watch\s+all\n/);
    await eventually(async () => /^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\s*\nfrontend-/.test((await kubectl(['top', 'pod', '-l', 'app=frontend', '--sort-by=cpu'], undefined, true)).stdout), 120_000, 'kubectl top pod');
  });
});
