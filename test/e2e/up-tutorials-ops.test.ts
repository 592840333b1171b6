/**
 * The shell, debugging and operations task pages on `npm start`'s simulated
 * nodes, with the real kubectl 1.32, where k8ts once answered unlike
 * upstream:
 *  - Get a Shell to a Running Container: `ps aux` and `apt-get` were `sh:
 *    ps: not found`, /proc/mounts and /proc/1/maps did not exist; now
 *    apt-get update/install puts the simulated procps, lsof and tcpdump into
 *    the container, and ps prints procps's table;
 *  - Attach Handlers to Container Lifecycle Events: preStop was never run;
 *    now exec and httpGet handlers run before the container stops, and a
 *    failure is a FailedPreStopHook event;
 *  - Debug Running Pods: the pause pod under restartPolicy Never "completed"
 *    after a second, so `kubectl exec` and `kubectl debug --target` found it
 *    Succeeded; ps in a debug container did not show the target's processes
 *    and listed its own shell twice; `debug node/` showed the pod's name as
 *    the host's;
 *  - Determine the Reason for Pod Failure: a restartPolicy Always container
 *    whose command ended kept Running and no termination message was read;
 *    now it restarts and lastState.terminated.message is "Sleep expired".
 * Safely Drain a Node (PodDisruptionBudget), the DaemonSet rolling update
 * and rollback pages and the CronJob page answered as upstream and are
 * checked here so they stay so.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from './harness.js';
import { underTerminal } from './helpers.js';
import { startUp, type UpCluster } from './up-cluster.js';
import { helloCronJob, lifecycleDemo } from './task-page-manifests.js';

describe('k8ts up: the shell, debug, drain, DaemonSet, CronJob and lifecycle pages on simulated nodes', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const terminal = (command: string, input: string[]) => underTerminal(`kubectl --kubeconfig ${up.kubeconfig} ${command}`, input, 120_000);
  const waitReady = (...pods: string[]) => kubectl(['wait', '--for=condition=Ready', ...pods.map((p) => `pod/${p}`), '--timeout=120s']);
  const exec = async (pod: string, ...argv: string[]) => (await kubectl(['exec', pod, '--', ...argv])).stdout;

  before(async () => { up = await startUp('k8ts-e2e-tut-ops-'); });
  after(async () => { await up?.close(); });

  it('Get a Shell to a Running Container: ls, /proc, apt-get, ps aux, lsof, writing the page nginx serves', async () => {
    await kubectl(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata:
  name: shell-demo
spec:
  volumes:
  - name: shared-data
    emptyDir: {}
  containers:
  - name: nginx
    image: nginx
    volumeMounts:
    - name: shared-data
      mountPath: /usr/share/nginx/html
  hostNetwork: true
  dnsPolicy: Default
`);
    await waitReady('shell-demo');
    assert.match(await exec('shell-demo', 'ls', '/'), /^bin\nboot\ndev\netc\n/);
    const mounts = await exec('shell-demo', 'cat', '/proc/1/mounts');
    assert.match(mounts, /^overlay \/ overlay rw,relatime,lowerdir=/);
    assert.match(mounts, /\n\/dev\/sda1 \/usr\/share\/nginx\/html ext4 rw,relatime 0 0\n/);
    assert.equal(await exec('shell-demo', 'cat', '/proc/mounts'), mounts);
    assert.match(await exec('shell-demo', 'cat', '/proc/1/maps'), /^[0-9a-f]+-[0-9a-f]+ r--p 00000000 00:33 \d+ +\/usr\/sbin\/nginx\n/);
    // Debian's nginx image has no procps, and no package lists until apt-get update.
    const noPs = await kubectl(['exec', 'shell-demo', '--', 'bash', '-c', 'ps aux'], undefined, true);
    assert.equal(noPs.stderr, 'bash: line 1: ps: command not found\ncommand terminated with exit code 127\n');
    const early = await kubectl(['exec', 'shell-demo', '--', 'apt-get', 'install', '-y', 'procps'], undefined, true);
    assert.equal(early.stderr, 'E: Unable to locate package procps\ncommand terminated with exit code 100\n');
    assert.match(await exec('shell-demo', 'apt-get', 'update'), /^Get:1 http:\/\/deb\.debian\.org\/debian bookworm InRelease .*\nReading package lists\.\.\. Done\n$/s);
    const installed = await exec('shell-demo', 'apt-get', 'install', '-y', 'tcpdump', 'lsof', 'procps');
    assert.match(installed, /The following NEW packages will be installed:\n {2}tcpdump lsof procps\n0 upgraded, 3 newly installed, 0 to remove and 0 not upgraded\.\n/);
    assert.match(installed, /Setting up procps \(2:4\.0\.2-3\) \.\.\.\n$/);
    const ps = (await exec('shell-demo', 'ps', 'aux')).split('\n');
    assert.equal(ps[0], 'USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND');
    assert.match(ps[1]!, /^root {11}1 {2}0\.0 {2}0\.0 +\d+ +\d+ \? {8}Ss {3}\d\d:\d\d {3}0:00 nginx: master process nginx -g daemon off;$/);
    assert.match(ps[2]!, /^nginx {5,}\d+ .* S {4}\d\d:\d\d {3}0:00 nginx: worker process$/);
    assert.match(ps[3]!, /^root .* Rs {3}\d\d:\d\d {3}0:00 ps aux$/);
    // A pipe's stages run side by side: grep sees itself in ps's table, as on a real node.
    const grepped = (await exec('shell-demo', 'bash', '-c', 'ps aux | grep nginx')).trim().split('\n');
    assert.equal(grepped.length, 3, grepped.join('\n'));
    assert.match(grepped[2]!, /^root .* S {4}\d\d:\d\d {3}0:00 grep nginx$/);
    assert.match(await exec('shell-demo', 'lsof'), /^COMMAND PID USER +FD +TYPE DEVICE SIZE\/OFF NAME\nnginx +1 root +cwd +DIR /);
    assert.match(await exec('shell-demo', 'apt-get', 'install', 'curl'), /curl is already the newest version/);
    // The page's session: an interactive bash, ps aux with the shell on pts/0, the page written and fetched.
    const session = await terminal('exec --stdin --tty shell-demo -- /bin/bash', [
      'ps aux\r', "echo 'Hello shell demo' > /usr/share/nginx/html/index.html\r", 'curl http://localhost/\r', 'exit\r',
    ]);
    assert.match(session.out, /root@worker\d:\/# /, 'hostNetwork: the node\'s hostname in the prompt');
    assert.match(session.out, /\r\nroot +\d+ .* pts\/0 +Ss .* \/bin\/bash\r\nroot +\d+ .* pts\/0 +R\+ .* ps aux\r\n/);
    assert.match(session.out, /\r\nHello shell demo\r\n/);
    assert.equal(session.code, 0);
    // A restarted container would start without what apt-get installed; the one-command forms run in this one.
    assert.match(await exec('shell-demo', 'ps', 'aux'), /nginx: worker process/);
    await kubectl(['delete', 'pod', 'shell-demo']);
  });

  it('Attach Handlers to Container Lifecycle Events: postStart writes, preStop runs on deletion; failures are FailedPreStopHook', async () => {
    await kubectl(['apply', '-f', '-'], `${lifecycleDemo}---
apiVersion: v1
kind: Pod
metadata:
  name: prestop-demo
spec:
  nodeName: worker1
  volumes:
  - name: hooks
    hostPath:
      path: /tmp/prestop
      type: DirectoryOrCreate
  containers:
  - name: web
    image: nginx
    volumeMounts:
    - name: hooks
      mountPath: /hooks
    lifecycle:
      preStop:
        exec:
          command: ["/bin/sh", "-c", "echo bye from $HOSTNAME > /hooks/prestop; exit 3"]
  - name: side
    image: busybox
    command: ["sh", "-c", "sleep 3600"]
    lifecycle:
      preStop:
        httpGet:
          port: 8080
          path: /shutdown
`);
    await waitReady('lifecycle-demo', 'prestop-demo');
    assert.equal(await exec('lifecycle-demo', 'cat', '/usr/share/message'), 'Hello from the postStart handler\n');
    // nginx -s quit signals the master; killall is not in the image, so the loop ends at once (dash: not found).
    assert.equal((await kubectl(['exec', 'lifecycle-demo', '--', 'nginx', '-v'], undefined, true)).stderr, 'nginx version: nginx/1.27.3\n');
    await kubectl(['delete', 'pod', 'lifecycle-demo', 'prestop-demo']);
    const events = (await kubectl(['get', 'events', '--field-selector', 'reason=FailedPreStopHook', '-o', 'jsonpath={range .items[*]}{.involvedObject.name} {.involvedObject.fieldPath}: {.message}{"\\n"}{end}'])).stdout;
    assert.doesNotMatch(events, /lifecycle-demo/);
    assert.match(events, /prestop-demo spec\.containers\{web\}: Exec lifecycle hook \(\[\/bin\/sh -c echo bye from \$HOSTNAME > \/hooks\/prestop; exit 3\]\) for Container "web" in Pod "prestop-demo_default\([0-9a-f-]+\)" failed - error: command '\/bin\/sh -c echo bye from \$HOSTNAME > \/hooks\/prestop; exit 3' exited with 3: , message: ""/);
    assert.match(events, /prestop-demo spec\.containers\{side\}: HTTP lifecycle hook \(\/shutdown\) for Container "side" in Pod "prestop-demo_default\([0-9a-f-]+\)" failed - error: Get "http:\/\/10\.244\.\d+\.\d+:8080\/shutdown": dial tcp 10\.244\.\d+\.\d+:8080: connect: connection refused/);
    // The exec handler ran before the container stopped: its file is on the node.
    const created = await kubectl(['debug', 'node/worker1', '--image=busybox', '--profile=general', '--', 'cat', '/host/tmp/prestop/prestop']);
    const debugger_ = /Creating debugging pod (\S+) /.exec(created.stdout + created.stderr)![1]!;
    const logged = await eventually(async () => (await kubectl(['logs', debugger_], undefined, true)).stdout || undefined, 60_000, 'the node debugger\'s output');
    assert.equal(logged, 'bye from prestop-demo\n');
  });

  it('Debug Running Pods: the pause pod runs on, exec finds no shell, debug --target sees its processes, copies and node debugging', async () => {
    await kubectl(['run', 'ephemeral-demo', '--image=registry.k8s.io/pause:3.1', '--restart=Never']);
    await kubectl(['run', 'myapp', '--image=busybox:1.28', '--restart=Never', '--', 'sleep', '1d']);
    await waitReady('ephemeral-demo', 'myapp');
    const noShell = await kubectl(['exec', 'ephemeral-demo', '--', 'sh'], undefined, true);
    assert.match(noShell.stderr, /^error: Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "[0-9a-f]{64}": OCI runtime exec failed: exec failed: unable to start container process: exec: "sh": executable file not found in \$PATH: unknown\n$/);
    const debug = await terminal('debug -it ephemeral-demo --image=busybox:1.28 --target=ephemeral-demo', ['ps\r', 'exit\r']);
    assert.match(debug.out, /Targeting container "ephemeral-demo"/);
    assert.match(debug.out, /PID {3}USER {5}TIME {2}COMMAND\r\n {4}1 root {6}0:00 \/pause\r\n {4}7 root {6}0:00 sh\r\n {3}13 root {6}0:00 ps\r\n/);
    const described = (await kubectl(['describe', 'pod', 'ephemeral-demo'])).stdout;
    assert.match(described, /Ephemeral Containers:\n {2}debugger-\w+:\n {4}Container ID: {3}sim:\/\/[0-9a-f]+\n {4}Image: {10}busybox:1\.28\n/);
    assert.match((await kubectl(['get', 'pod', 'ephemeral-demo'])).stdout, /ephemeral-demo\s+1\/1\s+Running\s+0/);
    const copy = await terminal('debug myapp -it --image=ubuntu --share-processes --copy-to=myapp-debug', ['ps x\r', 'exit\r']);
    assert.match(copy.out, /root@myapp-debug:\/# ps x\r\n {4}PID TTY {6}STAT {3}TIME COMMAND\r\n {6}1 \? {8}Ss {5}0:00 \/pause\r\n {6}7 \? {8}Ss {5}0:00 sleep 1d\r\n {5}13 pts\/0 {4}Ss {5}0:00 bash\r\n {5}19 pts\/0 {4}R\+ {5}0:00 ps x\r\n/);
    const sh = await terminal('debug myapp -it --copy-to=myapp-debug2 --container=myapp -- sh', ['ps\r', 'exit\r']);
    assert.match(sh.out, /\/ # ps\r\nPID {3}USER {5}TIME {2}COMMAND\r\n {4}1 root {6}0:00 sh\r\n {4}7 root {6}0:00 ps\r\n/);
    const node = await terminal('debug node/worker2 -it --image=ubuntu', ['hostname\r', 'exit\r']);
    assert.match(node.out, /root@worker2:\/# hostname\r\nworker2\r\n/);
    await kubectl(['delete', 'pod', 'ephemeral-demo', 'myapp', 'myapp-debug', 'myapp-debug2']);
  });

  it('Determine the Reason for Pod Failure: the container restarts and its termination message is read', async () => {
    await kubectl(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata:
  name: termination-demo
spec:
  containers:
  - name: termination-demo-container
    image: debian
    command: ["/bin/sh"]
    args: ["-c", "sleep 10 && echo Sleep expired > /dev/termination-log"]
`);
    const message = await eventually(async () => (await kubectl(['get', 'pod', 'termination-demo', '-o', 'go-template={{range .status.containerStatuses}}{{.lastState.terminated.message}}{{end}}'])).stdout.replace('<no value>', '') || undefined, 90_000, 'the termination message');
    assert.equal(message, 'Sleep expired\n');
    const last = (await kubectl(['get', 'pod', 'termination-demo', '-o', 'jsonpath={.status.containerStatuses[0].lastState.terminated.exitCode} {.status.containerStatuses[0].lastState.terminated.reason} {.status.containerStatuses[0].restartCount}'])).stdout;
    assert.equal(last, '0 Completed 1');
    await kubectl(['delete', 'pod', 'termination-demo']);
  });

  it('Safely Drain a Node: evictions wait on the PodDisruptionBudget; uncordon', async () => {
    await kubectl(['apply', '-f', '-'], `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: zk-pdb
spec:
  minAvailable: 2
  selector:
    matchLabels:
      app: zookeeper
`);
    await kubectl(['apply', '-f', '-'], `apiVersion: apps/v1
kind: Deployment
metadata:
  name: zk
spec:
  replicas: 2
  selector:
    matchLabels:
      app: zookeeper
  template:
    metadata:
      labels:
        app: zookeeper
    spec:
      containers:
      - name: zk
        image: nginx
`);
    await eventually(async () => (await kubectl(['get', 'pdb', 'zk-pdb', '-o', 'jsonpath={.status.currentHealthy}'])).stdout === '2' || undefined, 90_000, 'two healthy pods');
    const node = (await kubectl(['get', 'pods', '-l', 'app=zookeeper', '-o', 'jsonpath={.items[0].spec.nodeName}'])).stdout;
    const drain = await kubectl(['drain', '--ignore-daemonsets', node, '--timeout=12s'], undefined, true);
    assert.notEqual(drain.code, 0);
    assert.match(drain.stdout + drain.stderr, /node\/worker\d cordoned/);
    assert.match(drain.stderr, /error when evicting pods\/"zk-[\w-]+" -n "default" \(will retry after 5s\): Cannot evict pod as it would violate the pod's disruption budget\./);
    assert.match((await kubectl(['get', 'node', node])).stdout, /Ready,SchedulingDisabled/);
    assert.match((await kubectl(['uncordon', node])).stdout, /node\/worker\d uncordoned/);
    await kubectl(['delete', 'deployment', 'zk']);
    await kubectl(['delete', 'pdb', 'zk-pdb']);
  });

  it('DaemonSet rolling update and rollback: rollout status, history, undo --to-revision, controllerrevisions', async () => {
    const ds = (tag: string) => `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: fluentd-elasticsearch
  namespace: kube-system
  labels:
    k8s-app: fluentd-logging
spec:
  selector:
    matchLabels:
      name: fluentd-elasticsearch
  updateStrategy:
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 1
  template:
    metadata:
      labels:
        name: fluentd-elasticsearch
    spec:
      tolerations:
      - key: node-role.kubernetes.io/control-plane
        operator: Exists
        effect: NoSchedule
      containers:
      - name: fluentd-elasticsearch
        image: quay.io/fluentd_elasticsearch/fluentd:${tag}
      terminationGracePeriodSeconds: 30
`;
    await kubectl(['apply', '-f', '-'], ds('v2.5.2'));
    assert.match((await kubectl(['rollout', 'status', 'ds/fluentd-elasticsearch', '-n', 'kube-system', '--timeout=120s'])).stdout, /daemon set "fluentd-elasticsearch" successfully rolled out/);
    await kubectl(['apply', '-f', '-'], ds('v2.6.0'));
    assert.match((await kubectl(['rollout', 'status', 'ds/fluentd-elasticsearch', '-n', 'kube-system', '--timeout=120s'])).stdout, /successfully rolled out\n$/);
    assert.match((await kubectl(['rollout', 'history', 'daemonset', 'fluentd-elasticsearch', '-n', 'kube-system'])).stdout, /REVISION {2}CHANGE-CAUSE\n1 {9}<none>\n2 {9}<none>\n/);
    assert.match((await kubectl(['rollout', 'history', 'daemonset', 'fluentd-elasticsearch', '-n', 'kube-system', '--revision=1'])).stdout, /Image:\tquay\.io\/fluentd_elasticsearch\/fluentd:v2\.5\.2/);
    assert.match((await kubectl(['rollout', 'undo', 'daemonset', 'fluentd-elasticsearch', '--to-revision=1', '-n', 'kube-system'])).stdout, /daemonset\.apps\/fluentd-elasticsearch rolled back/);
    await kubectl(['rollout', 'status', 'ds/fluentd-elasticsearch', '-n', 'kube-system', '--timeout=120s']);
    const revisions = (await kubectl(['get', 'controllerrevision', '-n', 'kube-system', '-l', 'name=fluentd-elasticsearch'])).stdout;
    assert.match(revisions, /NAME +CONTROLLER +REVISION +AGE\n/);
    assert.match(revisions, /fluentd-elasticsearch-\w+ +daemonset\.apps\/fluentd-elasticsearch +2 /);
    assert.match(revisions, /fluentd-elasticsearch-\w+ +daemonset\.apps\/fluentd-elasticsearch +3 /);
    await eventually(async () => {
      const images = (await kubectl(['get', 'pods', '-n', 'kube-system', '-l', 'name=fluentd-elasticsearch', '-o', 'jsonpath={.items[*].spec.containers[0].image}'])).stdout.split(' ');
      return images.length === 3 && images.every((i) => i.endsWith(':v2.5.2')) || undefined;
    }, 120_000, 'every pod back on v2.5.2');
    await kubectl(['delete', 'ds', 'fluentd-elasticsearch', '-n', 'kube-system']);
  });

  it('Running Automated Tasks with a CronJob: a job a minute, its pod logs the date and the greeting', async () => {
    await kubectl(['apply', '-f', '-'], helloCronJob);
    assert.match((await kubectl(['get', 'cronjob', 'hello'])).stdout, /NAME +SCHEDULE +TIMEZONE +SUSPEND +ACTIVE +LAST SCHEDULE +AGE\nhello +\* \* \* \* \* +<none> +False +0 +<none> +/);
    const job = await eventually(async () => (await kubectl(['get', 'jobs', '-o', 'jsonpath={.items[?(@.status.succeeded==1)].metadata.name}'])).stdout.split(' ')[0] || undefined, 150_000, 'a completed job');
    assert.match(job, /^hello-\d+$/);
    const pods = (await kubectl(['get', 'pods', `--selector=job-name=${job}`, '--output=jsonpath={.items[*].metadata.name}'])).stdout;
    assert.match((await kubectl(['logs', pods])).stdout, /^\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d UTC \d{4}\nHello from the Kubernetes cluster\n$/);
    await kubectl(['delete', 'cronjob', 'hello']);
  });
});
