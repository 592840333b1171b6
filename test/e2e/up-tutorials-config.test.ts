/**
 * The configuration and pod task pages on `k8ts up`'s simulated nodes, with
 * the real kubectl 1.32, command by command where the page shows output:
 *
 *  - Configure a Pod to Use a ConfigMap: valueFrom, `$(VAR)` in a command,
 *    a volume with items, `kubectl exec ... -- ls /etc/config`.
 *  - Distribute Credentials Securely Using Secrets: `kubectl exec -i -t
 *    secret-test-pod -- /bin/bash`, then `ls /etc/secret-volume` (columns on
 *    a terminal, as coreutils' ls lays them out) and `echo "$( cat
 *    /etc/secret-volume/username )"`.
 *  - Expose Pod Information through environment variables and files: the
 *    `printenv` loops and the volume page's `if [[ -e /etc/podinfo/labels ]]`.
 *  - Define a Command and Arguments, Dependent Environment Variables.
 *  - Shared volume (two-containers), postStart handler, init containers.
 *  - Configure a Security Context (`id`; `cd /data/demo`, `echo hello >
 *    testfile`, `ls -l` at the terminal: the fsGroup's setgid directory and
 *    the file of user 1000), Default Memory Requests and Limits.
 *
 * Every wait is on a condition, with a deadline.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from './harness.js';
import { underTerminal } from './helpers.js';
import { startUp, type UpCluster } from './up-cluster.js';
import { lifecycleDemo } from './task-page-manifests.js';
import { configMapEnvVarValueFrom, configMapMultikeys, configMapVolumeSpecificKey, dapiVolume } from './up-tutorials-pages7-manifests.js';

// The ConfigMap page's special-config with its $(VAR) pod and its key-at-a-path pod (renamed to run beside it).
const configMapPods = `${configMapMultikeys}---\n${configMapEnvVarValueFrom}---\n${configMapVolumeSpecificKey.replace('name: dapi-test-pod', 'name: dapi-test-pod-keys')}`;

const secretPod = `apiVersion: v1
kind: Secret
metadata:
  name: test-secret
data:
  username: bXktYXBw
  password: Mzk1MjgkdmRnN0pi
---
apiVersion: v1
kind: Pod
metadata:
  name: secret-test-pod
spec:
  containers:
    - name: test-container
      image: nginx
      volumeMounts:
        - name: secret-volume
          mountPath: /etc/secret-volume
          readOnly: true
  volumes:
    - name: secret-volume
      secret:
        secretName: test-secret
`;

// The environment-variable page's dapi-envars-fieldref is tutorial-logs.test.ts's.
// The Expose Pod Information through files page's pod (up-tutorials-pages7 walks the rest of that page).
const downwardPods = dapiVolume;

const commandPods = `apiVersion: v1
kind: Pod
metadata:
  name: command-demo
  labels:
    purpose: demonstrate-command
spec:
  containers:
  - name: command-demo-container
    image: debian
    command: ["printenv"]
    args: ["HOSTNAME", "KUBERNETES_PORT"]
  restartPolicy: OnFailure
---
apiVersion: v1
kind: Pod
metadata:
  name: dependent-envars-demo
spec:
  containers:
    - name: dependent-envars-demo
      args:
        - while true; do echo -en '\\n'; printf UNCHANGED_REFERENCE=$UNCHANGED_REFERENCE'\\n'; printf SERVICE_ADDRESS=$SERVICE_ADDRESS'\\n';printf ESCAPED_REFERENCE=$ESCAPED_REFERENCE'\\n'; sleep 30; done;
      command:
        - sh
        - -c
      image: busybox:1.28
      env:
        - name: SERVICE_PORT
          value: "80"
        - name: SERVICE_IP
          value: "172.17.0.1"
        - name: UNCHANGED_REFERENCE
          value: "$(PROTOCOL)://$(SERVICE_IP):$(SERVICE_PORT)"
        - name: PROTOCOL
          value: "https"
        - name: SERVICE_ADDRESS
          value: "$(PROTOCOL)://$(SERVICE_IP):$(SERVICE_PORT)"
        - name: ESCAPED_REFERENCE
          value: "$$(PROTOCOL)://$(SERVICE_IP):$(SERVICE_PORT)"
`;

const podPages = `apiVersion: v1
kind: Pod
metadata:
  name: two-containers
spec:
  restartPolicy: Never
  volumes:
  - name: shared-data
    emptyDir: {}
  containers:
  - name: nginx-container
    image: nginx
    volumeMounts:
    - name: shared-data
      mountPath: /usr/share/nginx/html
  - name: debian-container
    image: debian
    volumeMounts:
    - name: shared-data
      mountPath: /pod-data
    command: ["/bin/sh"]
    args: ["-c", "echo Hello from the debian container > /pod-data/index.html"]
---
${lifecycleDemo}---
apiVersion: v1
kind: Pod
metadata:
  name: init-demo
spec:
  containers:
  - name: nginx
    image: nginx
    ports:
    - containerPort: 80
    volumeMounts:
    - name: workdir
      mountPath: /usr/share/nginx/html
  initContainers:
  - name: install
    image: busybox:1.28
    command:
    - wget
    - "-O"
    - "/work-dir/index.html"
    - http://info.cern.ch
    volumeMounts:
    - name: workdir
      mountPath: "/work-dir"
  dnsPolicy: Default
  volumes:
  - name: workdir
    emptyDir: {}
---
apiVersion: v1
kind: Pod
metadata:
  name: init-local
spec:
  containers:
  - name: nginx
    image: nginx
    volumeMounts:
    - name: workdir
      mountPath: /usr/share/nginx/html
  initContainers:
  - name: install
    image: busybox:1.28
    command: ["sh", "-c", "sleep 3; echo written by the init container > /work-dir/index.html"]
    volumeMounts:
    - name: workdir
      mountPath: "/work-dir"
  volumes:
  - name: workdir
    emptyDir: {}
---
apiVersion: v1
kind: Pod
metadata:
  name: security-context-demo
spec:
  securityContext:
    runAsUser: 1000
    runAsGroup: 3000
    fsGroup: 2000
    supplementalGroups: [4000]
  volumes:
  - name: sec-ctx-vol
    emptyDir: {}
  containers:
  - name: sec-ctx-demo
    image: busybox:1.28
    command: [ "sh", "-c", "sleep 1h" ]
    volumeMounts:
    - name: sec-ctx-vol
      mountPath: /data/demo
    securityContext:
      allowPrivilegeEscalation: false
`;

const initNeverFail = `apiVersion: v1
kind: Pod
metadata:
  name: init-never-fail
spec:
  restartPolicy: Never
  initContainers:
  - name: install
    image: busybox:1.28
    command: ["wget", "-O", "/tmp/x", "http://info.cern.ch"]
  containers:
  - name: main
    image: busybox:1.28
    command: ["sh", "-c", "echo never"]
`;

const limitRange = `apiVersion: v1
kind: LimitRange
metadata:
  name: mem-limit-range
spec:
  limits:
  - default:
      memory: 512Mi
    defaultRequest:
      memory: 256Mi
    type: Container
---
apiVersion: v1
kind: Pod
metadata:
  name: default-mem-demo
spec:
  containers:
  - name: default-mem-demo-ctr
    image: nginx
`;

describe('k8ts up: the configuration and pod task pages on simulated nodes', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const phase = async (name: string, ns = 'default') => (await kubectl(['get', 'pod', name, '-n', ns, '-o', 'jsonpath={.status.phase}'])).stdout;
  const waitPhase = (name: string, want: string) => eventually(async () => (await phase(name)) === want, 60_000, `${name} ${want}`, () => phase(name));
  const logsWith = (name: string, want: string, args: string[] = []) =>
    eventually(async () => { const out = (await kubectl(['logs', name, ...args], undefined, true)).stdout; return out.includes(want) ? out : undefined; }, 60_000, `${name}'s log`, async () => (await kubectl(['logs', name, ...args], undefined, true)).stdout);

  before(async () => { up = await startUp('k8ts-e2e-tutorials-config-'); });
  after(async () => { await up?.close(); });

  it('ConfigMap: $(VAR) in the command prints "very charm"; a volume with items holds keys; ls /etc/config in a running pod', async () => {
    await kubectl(['apply', '-f', '-'], configMapPods);
    await waitPhase('dapi-test-pod', 'Succeeded');
    assert.equal((await kubectl(['logs', 'dapi-test-pod'])).stdout, 'very charm\n');
    await waitPhase('dapi-test-pod-keys', 'Succeeded');
    assert.equal((await kubectl(['logs', 'dapi-test-pod-keys'])).stdout, 'very');
  });

  it('Secrets: exec -i -t ... /bin/bash, ls /etc/secret-volume in columns, echo "$( cat .../username )"', async () => {
    await kubectl(['apply', '-f', '-'], secretPod);
    await waitPhase('secret-test-pod', 'Running');
    // Without a terminal, ls writes a name a line.
    assert.equal((await kubectl(['exec', 'secret-test-pod', '--', 'ls', '/etc/secret-volume'])).stdout, 'password\nusername\n');
    const t = await underTerminal(`kubectl --kubeconfig ${up.kubeconfig} exec -i -t secret-test-pod -- /bin/bash`,
      ['ls /etc/secret-volume\n', 'echo "$( cat /etc/secret-volume/username )"\n', 'echo "$(cat /etc/secret-volume/password )"\n', 'exit\n'], 120_000);
    assert.equal(t.code, 0, t.out);
    assert.match(t.out, /root@secret-test-pod:\/# ls \/etc\/secret-volume\r\npassword  username\r\n/);
    assert.match(t.out, /cat \/etc\/secret-volume\/username \)"\r\nmy-app\r\n/);
    assert.match(t.out, /cat \/etc\/secret-volume\/password \)"\r\n39528\$vdg7Jb\r\n/);
    // An interactive bash says `exit` as it leaves.
    assert.match(t.out, /root@secret-test-pod:\/# exit\r\nexit\r\n/);
  });

  it('Downward API: the volume page\'s [[ -e ]] loop prints labels and annotations', async () => {
    await kubectl(['apply', '-f', '-'], downwardPods);
    const log = await logsWith('kubernetes-downwardapi-volume-example', 'builder="john-doe"');
    assert.ok(log.startsWith('\n\ncluster="test-cluster1"\nrack="rack-22"\nzone="us-est-coast"\n\nbuild="two"\nbuilder="john-doe"\n'), JSON.stringify(log));
    assert.equal((await kubectl(['exec', 'kubernetes-downwardapi-volume-example', '--', 'cat', '/etc/podinfo/labels'])).stdout, 'cluster="test-cluster1"\nrack="rack-22"\nzone="us-est-coast"');
  });

  it('Command and arguments: printenv HOSTNAME KUBERNETES_PORT; dependent environment variables', async () => {
    await kubectl(['apply', '-f', '-'], commandPods);
    await waitPhase('command-demo', 'Succeeded');
    assert.equal((await kubectl(['logs', 'command-demo'])).stdout, 'command-demo\ntcp://10.96.0.1:443\n');
    const log = await logsWith('dependent-envars-demo', 'ESCAPED_REFERENCE');
    assert.equal(log, '\nUNCHANGED_REFERENCE=$(PROTOCOL)://172.17.0.1:80\nSERVICE_ADDRESS=https://172.17.0.1:80\nESCAPED_REFERENCE=$(PROTOCOL)://172.17.0.1:80\n');
  });

  it('two-containers: debian exits, nginx runs on and curl localhost serves what debian wrote; postStart writes /usr/share/message', async () => {
    await kubectl(['apply', '-f', '-'], podPages);
    const row = await eventually(async () => {
      const out = (await kubectl(['get', 'pod', 'two-containers', '--no-headers'])).stdout;
      return /^two-containers\s+1\/2\s+NotReady\s/.test(out) ? out : undefined;
    }, 60_000, 'two-containers 1/2 NotReady', async () => (await kubectl(['get', 'pod', 'two-containers'])).stdout);
    assert.ok(row);
    const states = (await kubectl(['get', 'pod', 'two-containers', '-o', 'jsonpath={range .status.containerStatuses[*]}{.name}={.state.terminated.reason}{.state.running.startedAt}{"\\n"}{end}'])).stdout;
    assert.match(states, /^debian-container=Completed$/m);
    assert.match(states, /^nginx-container=\d{4}-/m);
    assert.equal((await kubectl(['exec', 'two-containers', '-c', 'nginx-container', '--', 'curl', '-s', 'localhost'])).stdout, 'Hello from the debian container\n');
    // The page's shell: bash in the nginx container, curl localhost; a command the image lacks is bash's "command not found".
    const t = await underTerminal(`kubectl --kubeconfig ${up.kubeconfig} exec -it two-containers -c nginx-container -- /bin/bash`, ['curl localhost\n', 'nosuchcmd\n', 'exit\n'], 120_000);
    assert.match(t.out, /root@two-containers:\/# curl localhost\r\nHello from the debian container\r\n/);
    assert.match(t.out, /# nosuchcmd\r\n\/bin\/bash: nosuchcmd: command not found\r\n/);
    await waitPhase('lifecycle-demo', 'Running');
    const message = await eventually(async () => {
      const r = await kubectl(['exec', 'lifecycle-demo', '--', 'cat', '/usr/share/message'], undefined, true);
      return r.code === 0 ? r.stdout : undefined;
    }, 30_000, 'the postStart handler\'s file');
    assert.equal(message, 'Hello from the postStart handler\n');
  });

  it('init containers: Init:0/1 while one runs, then its file is served; a wget of an outside URL fails as without a network', async () => {
    // podPages (applied above) holds init-local and init-demo.
    await eventually(async () => /Init:0\/1/.test((await kubectl(['get', 'pod', 'init-local'])).stdout) || (await phase('init-local')) === 'Running', 60_000, 'init-local');
    await waitPhase('init-local', 'Running');
    assert.equal((await kubectl(['exec', 'init-local', '-c', 'nginx', '--', 'curl', '-s', 'localhost'])).stdout, 'written by the init container\n');
    const status = await eventually(async () => {
      const out = (await kubectl(['get', 'pod', 'init-demo', '--no-headers'])).stdout;
      return /Init:(Error|CrashLoopBackOff)/.test(out) ? out : undefined;
    }, 60_000, 'init-demo failing its init container', async () => (await kubectl(['get', 'pod', 'init-demo'])).stdout);
    assert.match(status, /^init-demo\s+0\/1\s+Init:/);
    assert.equal((await kubectl(['logs', 'init-demo', '-c', 'install'])).stdout, "wget: bad address 'info.cern.ch'\n");
    assert.equal(await phase('init-demo'), 'Pending');
    // Under restartPolicy Never a failed init container fails the pod, and its containers never start.
    await kubectl(['apply', '-f', '-'], initNeverFail);
    await waitPhase('init-never-fail', 'Failed');
    assert.match((await kubectl(['get', 'pod', 'init-never-fail', '--no-headers'])).stdout, /^init-never-fail\s+0\/1\s+Init:Error\s/);
  });

  it('Security Context: id prints runAsUser, runAsGroup, fsGroup and supplementalGroups; cd and ls -l as the page; LimitRange defaults appear in the pod', async () => {
    await waitPhase('security-context-demo', 'Running');
    assert.equal((await kubectl(['exec', 'security-context-demo', '--', 'id'])).stdout, 'uid=1000 gid=3000 groups=2000,3000,4000\n');
    assert.equal((await kubectl(['exec', 'security-context-demo', '--', 'sh', '-c', 'echo hello > /data/demo/testfile; cat /data/demo/testfile'])).stdout, 'hello\n');
    // ps in the shell the page opens: the container's sleep as PID 1, the shell and ps, all as user 1000.
    const t = await underTerminal(`kubectl --kubeconfig ${up.kubeconfig} exec -it security-context-demo -- sh`,
      ['ps\n', 'cd /data && ls -l\n', 'cd demo\n', 'echo hello > testfile\n', 'ls -l\n', 'pwd\n', 'exit\n'], 120_000);
    assert.match(t.out, /\/ \$ ps\r\nPID   USER     TIME  COMMAND\r\n    1 1000      0:00 sleep 1h\r\n +\d+ 1000      0:00 sh\r\n +\d+ 1000      0:00 ps\r\n/);
    // The page's `ls -l` in busybox's format: /data/demo is the fsGroup's with setgid; testfile is user 1000's, in group 2000.
    const date = '[A-Z][a-z]{2} [ \\d]\\d \\d\\d:\\d\\d';
    assert.match(t.out, new RegExp(`/ \\$ cd /data && ls -l\r\ntotal 4\r\ndrwxrwsrwx    2 root     2000          4096 ${date} demo\r\n/data \\$ cd demo\r\n/data/demo \\$ `));
    assert.match(t.out, new RegExp(`/data/demo \\$ ls -l\r\ntotal 4\r\n-rw-r--r--    1 1000     2000             6 ${date} testfile\r\n/data/demo \\$ pwd\r\n/data/demo\r\n`));
    await kubectl(['create', 'namespace', 'default-mem-example']);
    await kubectl(['apply', '-n', 'default-mem-example', '-f', '-'], limitRange);
    const resources = JSON.parse((await kubectl(['get', 'pod', 'default-mem-demo', '-n', 'default-mem-example', '-o', 'jsonpath={.spec.containers[0].resources}'])).stdout);
    assert.deepEqual(resources, { limits: { memory: '512Mi' }, requests: { memory: '256Mi' } });
  });
});
