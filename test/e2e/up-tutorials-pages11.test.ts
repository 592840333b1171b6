/**
 * More kubernetes.io pages, command by command with the real kubectl 1.32
 * (and curl, where the pages use it) on `npm start`'s simulated nodes, where
 * k8ts once answered unlike upstream:
 *  - Pod Scheduling Readiness: `kubectl get pod test-pod` said Pending, not
 *    SchedulingGated: the pod strategy did not add upstream's PodScheduled
 *    condition (reason SchedulingGated) to a pod created with gates;
 *  - Using Source IP: busybox's `ip addr` was `sh: ip: not found`;
 *    echoserver saw every client as 127.0.0.1, not the busybox pod's IP;
 *    busybox wget sent curl's User-Agent; and nothing answered on a
 *    LoadBalancer's healthCheckNodePort once externalTrafficPolicy was Local;
 *  - Jobs, suspending a Job: the Job controller cleared status.startTime of
 *    a Job suspended after it had run, where upstream's keeps it (the page's
 *    `kubectl get jobs/myjob -o yaml` shows it).
 * Walked and answering as upstream already, checked here so they stay so:
 * Labels and Selectors and Field Selectors (equality and set-based
 * selectors, -L columns, chained field selectors, several resource types),
 * Using RBAC Authorization (kubectl create role, clusterrole, rolebinding and
 * clusterrolebinding as the page gives them, aggregated ClusterRoles, auth
 * reconcile) and the rest of Jobs (ttlSecondsAfterFinished, resuming).
 * Every wait polls a condition with a generous deadline; nothing is timed.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from './harness.js';
import { underTerminal } from './helpers.js';
import { startUp, type UpCluster } from './up-cluster.js';
import * as m from './up-tutorials-pages11-manifests.js';

/** curl as the pages run it: the status line and headers with -i, else the body. */
function curl(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('curl', ['-s', '--max-time', '20', ...args], (err, stdout, stderr) => (err ? reject(new Error(`curl ${args.join(' ')}: ${stderr || err.message}`)) : resolve(stdout)));
  });
}

describe('k8ts up: the Pod Scheduling Readiness, Using Source IP, labels and field selectors, RBAC and Jobs pages on simulated nodes', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const out = async (args: string[], input?: string) => (await kubectl(args, input)).stdout;
  const file = (name: string, text: string) => { const path = join(up.dir, name); writeFileSync(path, text); return path; };
  const terminal = (command: string, input: string[]) => underTerminal(`kubectl --kubeconfig ${up.kubeconfig} ${command}`, input, 120_000);
  /** `kubectl get pod NAME` as `READY STATUS`. */
  const podStatus = async (name: string) => /\n\S+\s+(\S+\s+\S+)\s+\d+/.exec(await out(['get', 'pod', name]))?.[1].replace(/\s+/, ' ');

  before(async () => {
    up = await startUp('k8ts-e2e-tut-pages11-');
  });
  after(async () => { await up?.close(); });

  it('Pod Scheduling Readiness: SchedulingGated while the gates are there, scheduled and Running once the applied manifest drops them', async () => {
    assert.equal(await out(['apply', '-f', file('pod-with-scheduling-gates.yaml', m.podWithSchedulingGates)]), 'pod/test-pod created\n');
    assert.match(await out(['get', 'pod', 'test-pod']), /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\ntest-pod\s+0\/1\s+SchedulingGated\s+0\s+\S+\n$/);
    assert.equal(await out(['get', 'pod', 'test-pod', '-o', 'jsonpath={.spec.schedulingGates}']), '[{"name":"example.com/foo"},{"name":"example.com/bar"}]');
    // The condition the status comes from, as upstream's pod strategy adds it at creation.
    const condition = JSON.parse(await out(['get', 'pod', 'test-pod', '-o', 'jsonpath={.status.conditions[0]}'])) as Record<string, unknown>;
    assert.deepEqual(condition, { type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: null, reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' });
    // The scheduler leaves a gated pod alone: it stays so.
    assert.equal(await out(['get', 'pod', 'test-pod', '-o', 'jsonpath={.spec.nodeName}']), '');

    assert.equal(await out(['apply', '-f', file('pod-without-scheduling-gates.yaml', m.podWithoutSchedulingGates)]), 'pod/test-pod configured\n');
    assert.equal(await out(['get', 'pod', 'test-pod', '-o', 'jsonpath={.spec.schedulingGates}']), '');
    await eventually(async () => (await podStatus('test-pod')) === '1/1 Running', 120_000, 'test-pod Running');
    assert.match(await out(['get', 'pod', 'test-pod', '-o', 'wide']),
      /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES\ntest-pod\s+1\/1\s+Running\s+0\s+\S+\s+10\.244\.\d+\.\d+\s+(worker1|worker2|control-plane)\s+<none>\s+<none>\n$/);
    assert.equal(await out(['get', 'pod', 'test-pod', '-o', 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].status}']), 'True');
    await kubectl(['delete', 'pod', 'test-pod', '--wait=false']);
  });

  it('Using Source IP: ip addr in busybox, its address as echoserver\'s client_address through the ClusterIP; NodePort; the LoadBalancer\'s health check port', async () => {
    assert.equal(await out(['create', 'deployment', 'source-ip-app', '--image=registry.k8s.io/echoserver:1.10']), 'deployment.apps/source-ip-app created\n');
    assert.equal(await out(['expose', 'deployment', 'source-ip-app', '--name=clusterip', '--port=80', '--target-port=8080']), 'service/clusterip exposed\n');
    const svc = await out(['get', 'svc', 'clusterip']);
    const clusterIP = /^clusterip\s+ClusterIP\s+(10\.\d+\.\d+\.\d+)\s+<none>\s+80\/TCP\s+\S+$/m.exec(svc)?.[1];
    assert.ok(clusterIP, svc);
    await kubectl(['rollout', 'status', 'deployment/source-ip-app', '--timeout=120s']);

    const shell = await terminal('run busybox -it --image=busybox:1.28 --restart=Never --rm', ['ip addr\r', `wget -qO - ${clusterIP}\r`, 'exit\r']);
    assert.equal(shell.code, 0, shell.out);
    const text = shell.out.replace(/\r\n/g, '\n');
    assert.match(text, /^1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue qlen 1000\n {4}link\/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n {4}inet 127\.0\.0\.1\/8 scope host lo\n/m);
    const eth0 = /^3: eth0@if4: <BROADCAST,MULTICAST,UP,LOWER_UP,M-DOWN> mtu 1500 qdisc noqueue \n {4}link\/ether (0a:58:[0-9a-f:]{11}) brd ff:ff:ff:ff:ff:ff\n {4}inet (10\.244\.\d+\.\d+)\/24 brd 10\.244\.\d+\.255 scope global eth0\n/m.exec(text);
    assert.ok(eth0, text);
    const [, mac, podIP] = eth0;
    // The bridge plugin's MAC: 0a:58 and the address's bytes.
    assert.equal(mac, `0a:58:${podIP.split('.').map((b) => Number(b).toString(16).padStart(2, '0')).join(':')}`);
    // Without NAT between pods, echoserver sees the busybox pod's own address, and busybox wget's User-Agent.
    assert.match(text, new RegExp(`^Request Information:\\n\\tclient_address=${podIP.replace(/\./g, '\\.')}\\n\\tmethod=GET\\n\\treal path=/\\n`, 'm'));
    assert.match(text, /^\tuser-agent=Wget$/m);
    assert.match(text, new RegExp(`^\\thost=${clusterIP.replace(/\./g, '\\.')}$`, 'm'));

    // Source IP for Services with Type=NodePort: every node's InternalIP answers on the node port.
    assert.equal(await out(['expose', 'deployment', 'source-ip-app', '--name=nodeport', '--port=80', '--target-port=8080', '--type=NodePort']), 'service/nodeport exposed\n');
    const nodePort = await out(['get', '-o', 'jsonpath={.spec.ports[0].nodePort}', 'services', 'nodeport']);
    const nodes = (await out(['get', 'nodes', '-o', 'jsonpath={ $.items[*].status.addresses[?(@.type=="InternalIP")].address }'])).trim().split(' ');
    assert.equal(nodes.length, 3);
    for (const node of nodes) {
      await eventually(async () => /^\tclient_address=\S+$/m.test(await curl([`${node}:${nodePort}`]).catch(() => '')), 60_000, `${node}:${nodePort} answering`);
    }
    assert.equal(await out(['patch', 'svc', 'nodeport', '-p', '{"spec":{"externalTrafficPolicy":"Local"}}']), 'service/nodeport patched\n');

    // Source IP for Services with Type=LoadBalancer, then externalTrafficPolicy Local and its health check node port.
    assert.equal(await out(['expose', 'deployment', 'source-ip-app', '--name=loadbalancer', '--port=80', '--target-port=8080', '--type=LoadBalancer']), 'service/loadbalancer exposed\n');
    await eventually(async () => /^loadbalancer\s+LoadBalancer\s+10\.\S+\s+127\.0\.0\.1\s+80:\d+\/TCP\s+\S+$/m.test(await out(['get', 'svc', 'loadbalancer'])), 60_000, 'the EXTERNAL-IP');
    await eventually(async () => /^\tclient_address=\S+$/m.test(await curl(['127.0.0.1']).catch(() => '')), 60_000, 'the load balancer answering');
    assert.equal(await out(['patch', 'svc', 'loadbalancer', '-p', '{"spec":{"externalTrafficPolicy":"Local"}}']), 'service/loadbalancer patched\n');
    const yaml = await out(['get', 'svc', 'loadbalancer', '-o', 'yaml']);
    const healthCheckNodePort = /^ {2}healthCheckNodePort: (\d+)$/m.exec(yaml)?.[1];
    assert.ok(healthCheckNodePort, yaml);
    assert.match(await out(['get', 'pod', '-o', 'wide', '-l', 'app=source-ip-app']), /^source-ip-app-[a-z0-9]+-[a-z0-9]{5}\s+1\/1\s+Running\s+0\s+\S+\s+10\.244\.\d+\.\d+\s+\S+\s+<none>\s+<none>$/m);
    const health = (extra: string[] = []) => curl([...extra, `localhost:${healthCheckNodePort}/healthz`]).catch(() => '');
    const answer = (n: number) => `{\n\t"service": {\n\t\t"namespace": "default",\n\t\t"name": "loadbalancer"\n\t},\n\t"localEndpoints": ${n},\n\t"serviceProxyHealthy": true\n}`;
    await eventually(async () => (await health()) === answer(1), 60_000, 'the health check port answering', health);
    const headers = await health(['-i']);
    assert.match(headers, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(headers, /\r\nContent-Type: application\/json\r\n/i);
    assert.match(headers, /\r\nX-Content-Type-Options: nosniff\r\n/i);
    // Without an endpoint the load balancer is told to send nothing here: 503.
    await kubectl(['scale', 'deployment', 'source-ip-app', '--replicas=0']);
    await eventually(async () => (await health()) === answer(0), 60_000, 'no local endpoint', health);
    assert.match(await health(['-i']), /^HTTP\/1\.1 503 Service Unavailable\r\n/);

    assert.equal(await out(['delete', 'svc', 'nodeport', 'loadbalancer', 'clusterip']), 'service "nodeport" deleted\nservice "loadbalancer" deleted\nservice "clusterip" deleted\n');
    assert.equal(await out(['delete', 'deployment', 'source-ip-app']), 'deployment.apps "source-ip-app" deleted\n');
  });

  it('Labels and Selectors, Field Selectors: equality- and set-based selectors, -L columns, unknown and chained field selectors, several types at once', async () => {
    assert.equal(await out(['apply', '-f', file('label-demo.yaml', m.labelDemo)]), 'pod/label-demo created\n');
    await kubectl(['run', 'qa-backend', '--image=nginx', '-l', 'environment=qa,tier=backend']);
    await kubectl(['run', 'frontend', '--image=nginx', '-l', 'environment=production,tier=frontend']);
    await kubectl(['run', 'unlabelled', '--image=nginx', '-l', 'tier=frontend']);
    await kubectl(['wait', '--for=condition=Ready', 'pod/label-demo', 'pod/qa-backend', 'pod/frontend', 'pod/unlabelled', '--timeout=120s']);
    const names = async (args: string[]) => (await out(['get', 'pods', ...args, '-o', 'name'])).trim().split('\n').filter(Boolean).join(' ');
    assert.equal(await names(['-l', 'environment=production,tier=frontend']), 'pod/frontend');
    assert.equal(await names(['-l', 'environment in (production),tier in (frontend)']), 'pod/frontend');
    assert.equal(await names(['-l', 'environment in (production, qa)']), 'pod/frontend pod/label-demo pod/qa-backend');
    assert.equal(await names(['-l', 'environment,environment notin (frontend)']), 'pod/frontend pod/label-demo pod/qa-backend');
    assert.equal(await names(['-l', '!environment']), 'pod/unlabelled');
    assert.equal(await names(['-l', 'environment!=qa,tier']), 'pod/frontend pod/unlabelled');
    assert.match(await out(['get', 'pods', '-l', 'environment', '-L', 'environment,tier']),
      /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+ENVIRONMENT\s+TIER\nfrontend\s+1\/1\s+Running\s+0\s+\S+\s+production\s+frontend\nlabel-demo\s+1\/1\s+Running\s+0\s+\S+\s+production\s+\nqa-backend\s+1\/1\s+Running\s+0\s+\S+\s+qa\s+backend\n$/);
    const bad = await kubectl(['get', 'pods', '-l', 'environment in production'], undefined, true);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /unable to parse requirement/);

    // Field Selectors.
    assert.equal(await names(['--field-selector', 'status.phase=Running']), 'pod/frontend pod/label-demo pod/qa-backend pod/unlabelled');
    assert.equal(await names(['--field-selector', '']), 'pod/frontend pod/label-demo pod/qa-backend pod/unlabelled');
    const unknown = await kubectl(['get', 'ingress', '--field-selector', 'foo.bar=baz'], undefined, true);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^Error from server \(BadRequest\): Unable to find "[^"]*ingresses" that match label selector "", field selector "foo\.bar=baz": "foo\.bar" is not a known field selector: only "metadata\.name", "metadata\.namespace"\n$/);
    assert.match(await out(['get', 'services', '--all-namespaces', '--field-selector', 'metadata.namespace!=default']),
      /^NAMESPACE\s+NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\nkube-system\s+kube-dns\s+ClusterIP\s+10\.96\.0\.10\s+<none>\s+53\/UDP,53\/TCP,9153\/TCP\s+\S+\n$/);
    const chained = await kubectl(['get', 'pods', '--field-selector=status.phase!=Running,spec.restartPolicy=Always']);
    assert.deepEqual([chained.stdout, chained.stderr], ['', 'No resources found in default namespace.\n']);
    assert.match(await out(['get', 'statefulsets,services', '--all-namespaces', '--field-selector', 'metadata.namespace!=default']),
      /^NAMESPACE\s+NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\nkube-system\s+service\/kube-dns\s+ClusterIP\s+/);
    await kubectl(['delete', 'pod', 'label-demo', 'qa-backend', 'frontend', 'unlabelled', '--wait=false']);
  });

  it('Using RBAC Authorization: kubectl create role, clusterrole, rolebinding and clusterrolebinding as the page gives them; aggregated ClusterRoles; auth reconcile', async () => {
    for (const [args, printed] of [
      [['create', 'role', 'pod-reader', '--verb=get', '--verb=list', '--verb=watch', '--resource=pods'], 'role.rbac.authorization.k8s.io/pod-reader created'],
      [['create', 'role', 'pod-reader-names', '--verb=get', '--resource=pods', '--resource-name=readablepod', '--resource-name=anotherpod'], 'role.rbac.authorization.k8s.io/pod-reader-names created'],
      [['create', 'role', 'foo', '--verb=get,list,watch', '--resource=replicasets.apps'], 'role.rbac.authorization.k8s.io/foo created'],
      [['create', 'role', 'foo-status', '--verb=get,list,watch', '--resource=pods,pods/status'], 'role.rbac.authorization.k8s.io/foo-status created'],
      [['create', 'role', 'my-component-lease-holder', '--verb=get,list,watch,update', '--resource=lease', '--resource-name=my-component'], 'role.rbac.authorization.k8s.io/my-component-lease-holder created'],
      [['create', 'clusterrole', 'pod-reader', '--verb=get,list,watch', '--resource=pods'], 'clusterrole.rbac.authorization.k8s.io/pod-reader created'],
      [['create', 'clusterrole', 'foo', '--verb=get,list,watch', '--resource=rs.apps'], 'clusterrole.rbac.authorization.k8s.io/foo created'],
      [['create', 'clusterrole', 'foo-logs', '--verb=get', '--non-resource-url=/logs/*'], 'clusterrole.rbac.authorization.k8s.io/foo-logs created'],
      [['create', 'clusterrole', 'monitoring', '--aggregation-rule=rbac.example.com/aggregate-to-monitoring=true'], 'clusterrole.rbac.authorization.k8s.io/monitoring created'],
      [['create', 'namespace', 'acme'], 'namespace/acme created'],
      [['create', 'rolebinding', 'bob-admin-binding', '--clusterrole=admin', '--user=bob', '--namespace=acme'], 'rolebinding.rbac.authorization.k8s.io/bob-admin-binding created'],
      [['create', 'rolebinding', 'myapp-view-binding', '--clusterrole=view', '--serviceaccount=acme:myapp', '--namespace=acme'], 'rolebinding.rbac.authorization.k8s.io/myapp-view-binding created'],
      [['create', 'rolebinding', 'myappnamespace-myapp-view-binding', '--clusterrole=view', '--serviceaccount=myappnamespace:myapp', '--namespace=acme'], 'rolebinding.rbac.authorization.k8s.io/myappnamespace-myapp-view-binding created'],
      [['create', 'clusterrolebinding', 'root-cluster-admin-binding', '--clusterrole=cluster-admin', '--user=root'], 'clusterrolebinding.rbac.authorization.k8s.io/root-cluster-admin-binding created'],
      [['create', 'clusterrolebinding', 'myapp-view-binding', '--clusterrole=view', '--serviceaccount=acme:myapp'], 'clusterrolebinding.rbac.authorization.k8s.io/myapp-view-binding created'],
    ] as const) assert.equal(await out([...args]), `${printed}\n`, args.join(' '));

    assert.match(await out(['describe', 'role', 'pod-reader-names']),
      /^PolicyRule:\n {2}Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs\n {2}-+\s+-+\s+-+\s+-+\n {2}pods\s+\[\]\s+\[anotherpod\]\s+\[get\]\n {2}pods\s+\[\]\s+\[readablepod\]\s+\[get\]\n$/m);
    assert.match(await out(['describe', 'clusterrole', 'foo-logs']), /^\s+\[\/logs\/\*\]\s+\[\]\s+\[get\]$/m);
    assert.match(await out(['describe', 'role', 'foo-status']), /^ {2}pods\/status\s+\[\]\s+\[\]\s+\[get list watch\]$/m);

    // Aggregated ClusterRoles: the controller fills monitoring's rules from the labelled role, and admin's with crontabs.
    assert.equal(await out(['apply', '-f', file('aggregated.yaml', m.aggregatedClusterRoles)]),
      'clusterrole.rbac.authorization.k8s.io/monitoring-endpointslices created\nclusterrole.rbac.authorization.k8s.io/aggregate-cron-tabs-edit created\n');
    const rules = () => out(['get', 'clusterrole', 'monitoring', '-o', 'jsonpath={.rules}']);
    await eventually(async () => (await rules()) === '[{"apiGroups":[""],"resources":["services","endpointslices","pods"],"verbs":["get","list","watch"]}]', 60_000, 'monitoring\'s aggregated rules', rules);
    await eventually(async () => (await out(['get', 'clusterrole', 'admin', '-o', 'jsonpath={.rules[*].apiGroups}'])).includes('"stable.example.com"'), 60_000, 'admin with crontabs');
    assert.equal(await out(['auth', 'reconcile', '-f', file('aggregated.yaml', m.aggregatedClusterRoles)]),
      'clusterrole.rbac.authorization.k8s.io/monitoring-endpointslices reconciled\nclusterrole.rbac.authorization.k8s.io/aggregate-cron-tabs-edit reconciled\n');

    // What the bindings grant.
    const can = async (...args: string[]) => { const r = await kubectl(['auth', 'can-i', ...args], undefined, true); return `${r.code} ${r.stdout.trim()}`; };
    assert.equal(await can('create', 'deployments', '--as', 'bob', '-n', 'acme'), '0 yes');
    assert.equal(await can('create', 'deployments', '--as', 'bob', '-n', 'default'), '1 no');
    assert.equal(await can('list', 'pods', '--as', 'system:serviceaccount:acme:myapp', '-n', 'default'), '0 yes');
    assert.equal(await can('list', 'secrets', '--as', 'system:serviceaccount:acme:myapp', '-n', 'acme'), '1 no');
    assert.equal(await can('delete', 'nodes', '--as', 'root'), '0 yes');
  });

  it('Jobs: ttlSecondsAfterFinished on pi-with-ttl; a Job created suspended, resumed and suspended again with kubectl patch', async () => {
    assert.equal(await out(['apply', '-f', file('job-with-ttl.yaml', m.jobWithTTL)]), 'job.batch/pi-with-ttl created\n');
    assert.equal(await out(['wait', '--for=condition=complete', 'job/pi-with-ttl', '--timeout=120s']), 'job.batch/pi-with-ttl condition met\n');
    assert.equal(await out(['get', 'job', 'pi-with-ttl', '-o', 'jsonpath={.spec.ttlSecondsAfterFinished}']), '100');
    assert.match(await out(['get', 'jobs']), /^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE\npi-with-ttl\s+Complete\s+1\/1\s+\S+\s+\S+\n$/);

    assert.equal(await out(['apply', '-f', file('myjob.yaml', m.suspendedJob)]), 'job.batch/myjob created\n');
    const suspended = () => out(['get', 'jobs/myjob', '-o', 'jsonpath={.status.conditions[?(@.type=="Suspended")].status} {.status.conditions[?(@.type=="Suspended")].reason} {.status.active}']);
    await eventually(async () => (await suspended()) === 'True JobSuspended ', 60_000, 'myjob Suspended', suspended);
    assert.match(await out(['get', 'jobs', 'myjob']), /^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE\nmyjob\s+Suspended\s+0\/5\s+\S*\s+\S+\n$/);
    assert.equal(await out(['get', 'pods', '-l', 'batch.kubernetes.io/job-name=myjob', '-o', 'name']), '');

    assert.equal(await out(['patch', 'job/myjob', '--type=strategic', '--patch', '{"spec":{"suspend":false}}']), 'job.batch/myjob patched\n');
    await eventually(async () => (await suspended()).startsWith('False JobResumed'), 60_000, 'myjob resumed', suspended);
    assert.equal(await out(['patch', 'job/myjob', '--type=strategic', '--patch', '{"spec":{"suspend":true}}']), 'job.batch/myjob patched\n');
    await eventually(async () => (await suspended()) === 'True JobSuspended ', 60_000, 'myjob suspended again', suspended);
    // As the page's status shows: the Job suspended after it ran keeps its startTime.
    assert.match(await out(['get', 'jobs/myjob', '-o', 'jsonpath={.status.startTime}']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const events = await out(['describe', 'jobs/myjob']);
    assert.match(events, /^\s+Normal\s+Resumed\s+\S+\s+job-controller\s+Job resumed$/m);
    assert.match(events, /^\s+Normal\s+Suspended\s+.*job-controller\s+Job suspended$/m);
    await kubectl(['delete', 'job', 'myjob', 'pi-with-ttl']);
  });
});
