/**
 * A new user's first ten minutes on `npm start` (k8ts up: three simulated
 * nodes), driven with the commands of the Kubernetes tutorials and the real
 * kubectl. Each test runs the exact command a user types where k8ts once
 * answered unlike upstream. exec, port-forward and pods/services proxy work
 * as KWOK simulates them (a simulated shell, in-process responders for the
 * tutorials' images); attach (`run --rm -it`, `debug -it`) reaches the
 * container's simulated shell; `kubectl top` prints the usage the
 * simulated runtime models (usage.ts).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from './harness.js';
import { killChild, kubectlPortForward, underTerminal } from './helpers.js';
import { startUp, type UpCluster } from './up-cluster.js';
import { livezVerbose, readyzVerbose } from './health-verbose.js';


describe('tutorial: a first deployment on npm start\'s simulated nodes', () => {
  let up: UpCluster;
  let pod: string;
  let node: string;
  const kubectl = (args: string[], allowFail = false) => up.kubectl(args, undefined, allowFail);
  const terminal = (command: string, input: string[] = []) => underTerminal(`kubectl --kubeconfig ${up.kubeconfig} ${command}`, input, 120_000);

  before(async () => {
    up = await startUp('k8ts-e2e-tutorial-');
    await kubectl(['create', 'deployment', 'nginx', '--image=nginx', '--replicas=3']);
    await kubectl(['rollout', 'status', 'deployment/nginx', '--timeout=120s']);
    pod = (await kubectl(['get', 'pod', '-l', 'app=nginx', '-o', 'jsonpath={.items[0].metadata.name}'])).stdout;
    node = (await kubectl(['get', 'pod', pod, '-o', 'jsonpath={.spec.nodeName}'])).stdout;
  });
  after(async () => { await up?.close(); });

  it('kubectl get --raw=\'/readyz?verbose\' lists the checks as the API health docs show', async () => {
    assert.equal((await kubectl(['get', '--raw=/readyz?verbose'])).stdout, readyzVerbose);
    assert.equal((await kubectl(['get', '--raw=/livez?verbose'])).stdout, livezVerbose);
    assert.equal((await kubectl(['get', '--raw=/readyz/ping'])).stdout, 'ok');
  });

  it('--show-managed-fields names the components as a kubeadm cluster does (the Server-Side Apply page)', async () => {
    const managers = async (args: string[]) => {
      const obj = JSON.parse((await kubectl(['get', ...args, '-o', 'json', '--show-managed-fields'])).stdout);
      return (obj.metadata.managedFields as { manager: string; operation: string; subresource?: string }[])
        .map((e) => `${e.manager} ${e.operation}${e.subresource ? ` ${e.subresource}` : ''}`).sort();
    };
    assert.deepEqual(await managers(['deployment', 'nginx']), ['kube-controller-manager Update status', 'kubectl-create Update']);
    assert.deepEqual(await managers(['pod', pod]), ['kube-controller-manager Update', 'kubelet Update status']);
    assert.ok((await managers(['node', node])).includes('kubelet Update'), 'the kubelet registered the node');
    assert.deepEqual(await managers(['deployment', 'coredns', '-n', 'kube-system']), ['kube-controller-manager Update status', 'kubeadm Update']);
  });

  it('kubectl describe pod lists the kubelet\'s events in the order they happened', async () => {
    const reasons = await eventually(async () => {
      const out = (await kubectl(['describe', 'pod', pod])).stdout;
      const events = out.slice(out.indexOf('\nEvents:')).split('\n').slice(4).map((l) => l.trim().split(/\s+/)[1]).filter(Boolean);
      return events.includes('Started') && events;
    }, 60_000, 'the Started event');
    // The scheduler's Scheduled event races the simulated kubelet (which starts a pod within
    // milliseconds of its binding); the kubelet's own events keep their order.
    // nginx has no tag: imagePullPolicy Always, so the kubelet pulls before each start, as upstream's image manager.
    assert.deepEqual(reasons.filter((r: string) => r !== 'Scheduled'), ['Pulling', 'Pulled', 'Created', 'Started']);
  });

  it('image pulls follow imagePullPolicy: IfNotPresent pulls on the node\'s first use only, Always at every start', async () => {
    const pulls = async (name: string) => eventually(async () => {
      const out = (await kubectl(['get', 'events', '--field-selector', `involvedObject.name=${name}`, '--sort-by=.metadata.creationTimestamp', '-o', 'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}'])).stdout;
      return out.includes('Started:') && out.split('\n').filter((l) => /^Pull(ing|ed):/.test(l));
    }, 60_000, `${name}'s Started event`);
    const overrides = JSON.stringify({ spec: { nodeName: node } });
    await kubectl(['run', 'pull-first', '--image=busybox:1.36', `--overrides=${overrides}`, '--', 'sleep', '1d']);
    const first = await pulls('pull-first');
    assert.equal(first.length, 2, first.join('\n'));
    assert.equal(first[0], 'Pulling: Pulling image "busybox:1.36"');
    assert.match(first[1]!, /^Pulled: Successfully pulled image "busybox:1\.36" in 0s \(0s including waiting\)\. Image size: \d+ bytes\.$/);
    await kubectl(['run', 'pull-again', '--image=busybox:1.36', `--overrides=${overrides}`, '--', 'sleep', '1d']);
    assert.deepEqual(await pulls('pull-again'), ['Pulled: Container image "busybox:1.36" already present on machine']);
    await kubectl(['run', 'pull-always', '--image=busybox:1.36', '--image-pull-policy=Always', `--overrides=${overrides}`, '--', 'sleep', '1d']);
    assert.equal((await pulls('pull-always'))[0], 'Pulling: Pulling image "busybox:1.36"');
    await kubectl(['delete', 'pod', 'pull-first', 'pull-again', 'pull-always', '--wait=false']);
  });

  it('kubectl get cs shows the scheduler, the controller manager and storage, with upstream\'s deprecation warning', async () => {
    const cs = await kubectl(['get', 'componentstatuses']);
    assert.equal(cs.stderr, 'Warning: v1 ComponentStatus is deprecated in v1.19+\n');
    assert.deepEqual(cs.stdout.trim().split('\n').map((l) => l.trim().split(/\s+/)), [
      ['NAME', 'STATUS', 'MESSAGE', 'ERROR'], ['scheduler', 'Healthy', 'ok'], ['controller-manager', 'Healthy', 'ok'], ['storage', 'Healthy', 'ok'],
    ]);
    assert.equal((await kubectl(['get', 'cs', 'scheduler', '-o', 'jsonpath={.conditions[0].type}={.conditions[0].status}'])).stdout, 'Healthy=True');
    assert.match((await kubectl(['explain', 'componentstatus'])).stdout, /^KIND: +ComponentStatus\nVERSION: +v1\n/);
    const del = await kubectl(['delete', 'cs', 'scheduler'], true);
    assert.match(del.stderr, /Error from server \(MethodNotAllowed\): the server does not allow this method on the requested resource\n$/);
  });

  it('kubectl get --raw /version is indented JSON, as kube-apiserver writes it', async () => {
    const raw = (await kubectl(['get', '--raw', '/version'])).stdout;
    assert.match(raw, /^\{\n {2}"major": "1",\n {2}"minor": "32",\n {2}"gitVersion": "v1\.32\.\d+/);
    assert.equal(raw, JSON.stringify(JSON.parse(raw), null, 2));
  });

  it('kubectl exec POD -- env shows the pod\'s environment; sh -c runs a script; an unknown command exits 127 in sh, and run directly fails as containerd\'s exec', async () => {
    const env = (await kubectl(['exec', pod, '--', 'env'])).stdout.trim().split('\n');
    assert.ok(env.includes(`HOSTNAME=${pod}`), env.join('\n'));
    assert.ok(env.includes('KUBERNETES_SERVICE_HOST=10.96.0.1'), env.join('\n'));
    assert.ok(env.includes('KUBERNETES_SERVICE_PORT=443'), env.join('\n'));
    assert.equal((await kubectl(['exec', pod, '--', 'sh', '-c', 'echo $HOSTNAME'])).stdout, `${pod}\n`);
    // Upstream: runc finds no such program in $PATH and the exec never starts (kubectl exits 1).
    const missing = await kubectl(['exec', pod, '--', 'nosuchcmd'], true);
    assert.equal(missing.code, 1);
    assert.equal(missing.stdout, '');
    assert.match(missing.stderr, /^error: Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "[0-9a-f]{64}": OCI runtime exec failed: exec failed: unable to start container process: exec: "nosuchcmd": executable file not found in \$PATH: unknown\n$/);
    // Inside a script it is the shell that does not find it (nginx's sh is Debian's dash).
    const inScript = await kubectl(['exec', pod, '--', 'sh', '-c', 'nosuchcmd'], true);
    assert.equal(inScript.code, 127);
    assert.equal(inScript.stderr, 'sh: 1: nosuchcmd: not found\ncommand terminated with exit code 127\n');
    // What the simulation knows of the filesystem: the standard directories and the mounts (the service account's, without its token).
    const root = (await kubectl(['exec', pod, '--', 'ls', '/'])).stdout.split('\n');
    for (const d of ['bin', 'etc', 'var']) assert.ok(root.includes(d), root.join(' '));
    assert.equal((await kubectl(['exec', pod, '--', 'cat', '/var/run/secrets/kubernetes.io/serviceaccount/namespace'])).stdout, 'default');
  });

  it('kubectl exec -it POD -- sh: a prompt, echo hi, exit', async () => {
    const it = await terminal(`exec -it ${pod} -- sh`, ['echo hi\n', 'exit\n']);
    assert.equal(it.code, 0, it.out);
    // nginx's image is Debian's: its sh is dash, whose prompt is `# `.
    assert.match(it.out, /^# echo hi\r\nhi\r\n# exit\r\n/m);
  });

  it('kubectl port-forward deploy/nginx :80, then GET on the local port: the nginx welcome page', async () => {
    const pf = await kubectlPortForward(up.kubeconfig, ['deploy/nginx', ':80']);
    try {
      assert.match(pf.out(), new RegExp(`Forwarding from 127\\.0\\.0\\.1:${pf.port} -> 80`));
      const res = await fetch(`http://127.0.0.1:${pf.port}/`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('server') ?? '', /^nginx\/\d+\.\d+\.\d+$/);
      assert.match(await res.text(), /<title>Welcome to nginx!<\/title>/);
      // kubectl says it carried the connection, as for a real pod.
      await eventually(async () => /Handling connection for \d+/.test(pf.out()), 30_000, 'kubectl\'s Handling connection line', () => pf.out());
    } finally {
      await killChild(pf.child);
    }
  });

  it('Kubernetes Basics: pods/POD:8080/proxy/ and services/NAME:8080/proxy/ reach kubernetes-bootcamp', async () => {
    await kubectl(['create', 'deployment', 'bootcamp', '--image=gcr.io/google-samples/kubernetes-bootcamp:v1']);
    await kubectl(['expose', 'deployment/bootcamp', '--type=NodePort', '--port', '8080']);
    await kubectl(['rollout', 'status', 'deployment/bootcamp', '--timeout=120s']);
    const name = (await kubectl(['get', 'pods', '-l', 'app=bootcamp', '-o', 'jsonpath={.items[0].metadata.name}'])).stdout;
    const viaPod = await kubectl(['get', '--raw', `/api/v1/namespaces/default/pods/${name}:8080/proxy/`]);
    assert.equal(viaPod.stdout, `Hello Kubernetes bootcamp! | Running on: ${name} | v=1\n`);
    const viaService = await eventually(async () => {
      const r = await kubectl(['get', '--raw', '/api/v1/namespaces/default/services/bootcamp:8080/proxy/'], true);
      return r.code === 0 ? r.stdout : undefined;
    }, 60_000, 'the service proxy answering');
    assert.equal(viaService, `Hello Kubernetes bootcamp! | Running on: ${name} | v=1\n`);
    // A port the image does not listen on is refused, as on a real pod.
    const closed = await kubectl(['get', '--raw', `/api/v1/namespaces/default/pods/${name}:8081/proxy/`], true);
    assert.equal(closed.code, 1);
    assert.match(closed.stderr, /^Error from server \(ServiceUnavailable\): error trying to reach service: dial tcp [\d.]+:8081: connect: connection refused$/m);
  });

  it('kubectl run tmp --image=busybox --rm -it --restart=Never -- sh attaches to the container\'s shell; exit ends it and deletes the pod', async () => {
    const run = await terminal('run tmp --image=busybox --rm -it --restart=Never -- sh', ['echo hello $HOSTNAME\r', 'exit\r']);
    assert.doesNotMatch(run.out, /couldn't attach/);
    assert.match(run.out, /\/ # echo hello \$HOSTNAME\r\nhello tmp\r\n\/ # exit\r\n/);
    assert.match(run.out, /pod "tmp" deleted/);
    assert.equal(run.code, 0, run.out);
    await eventually(async () => (await kubectl(['get', 'pod', 'tmp'], true)).stderr.includes('pods "tmp" not found'), 60_000, 'pod tmp gone');
  });

  it('kubectl top nodes and top pods print the usage the simulated nodes model (not "metrics not available")', async () => {
    const one = await eventually(async () => {
      const r = await kubectl(['top', 'pod', pod], true);
      return r.code === 0 && r.stdout;
    }, 120_000, `kubectl top pod ${pod}`);
    assert.match(one, new RegExp(`^NAME\\s+CPU\\(cores\\)\\s+MEMORY\\(bytes\\)\\s*\\n${pod}\\s+\\d+m\\s+\\d+Mi\\s*\\n$`));
    const nodes = (await kubectl(['top', 'nodes'])).stdout;
    for (const n of ['control-plane', 'worker1', 'worker2']) assert.match(nodes, new RegExp(`^${n}\\s+\\d+m\\s+\\d+%\\s+\\d+Mi\\s+\\d+%\\s*$`, 'm'));
    // kubectl top node NAME: the pod's own node.
    assert.match((await kubectl(['top', 'node', node])).stdout, new RegExp(`^${node}\\s+\\d+m\\s+\\d+%\\s+\\d+Mi\\s+\\d+%\\s*$`, 'm'));
    // An empty namespace is still an empty answer.
    await kubectl(['create', 'namespace', 'empty']);
    assert.equal((await kubectl(['top', 'pods', '-n', 'empty'], true)).stderr, 'No resources found in empty namespace.\n');
  });

  it('Kubernetes Basics "Update your app": set image to the tag that does not exist shows ImagePullBackOff, and rollout undo brings v2 back', async () => {
    const v10 = 'gcr.io/google-samples/kubernetes-bootcamp:v10';
    await kubectl(['create', 'deployment', 'kubernetes-bootcamp', '--image=gcr.io/google-samples/kubernetes-bootcamp:v1', '--replicas=4']);
    await kubectl(['set', 'image', 'deployments/kubernetes-bootcamp', 'kubernetes-bootcamp=docker.io/jocatalin/kubernetes-bootcamp:v2']);
    await kubectl(['rollout', 'status', 'deployments/kubernetes-bootcamp', '--timeout=120s']);
    await kubectl(['set', 'image', 'deployments/kubernetes-bootcamp', `kubernetes-bootcamp=${v10}`]);
    // kubectl get pods: the new ReplicaSet's pods wait for their image, the old ones keep serving.
    const rows = await eventually(async () => {
      const out = (await kubectl(['get', 'pods', '-l', 'app=kubernetes-bootcamp', '--no-headers'])).stdout.trim().split('\n').map((l) => l.split(/\s+/));
      return out.some((r) => r[1] === '0/1' && r[2] === 'ImagePullBackOff') && out;
    }, 60_000, 'a pod in ImagePullBackOff');
    assert.ok(rows.filter((r) => r[2] === 'Running').length >= 3, rows.join('\n'));
    const failing = rows.find((r) => r[2] === 'ImagePullBackOff')![0]!;
    // kubectl describe pods: the container waits, and the kubelet's events say why, as on containerd.
    const described = (await kubectl(['describe', 'pod', failing])).stdout;
    assert.match(described, new RegExp(`Image: +${escape(v10)}\n +Image ID: *\n`));
    assert.match(described, /State: +Waiting\n +Reason: +(ErrImagePull|ImagePullBackOff)\n/);
    // An event seen again reads "10s (x2 over 21s)" in the Age column.
    const event = (type: string, reason: string, message: string) => new RegExp(`${type} +${reason} +\\S+(?: \\(x\\d+ over \\S+\\))? +kubelet +${escape(message)}\n`);
    assert.match(described, event('Normal', 'Pulling', `Pulling image "${v10}"`));
    assert.match(described, event('Warning', 'Failed', `Failed to pull image "${v10}": rpc error: code = NotFound desc = ` +
      `failed to pull and unpack image "${v10}": failed to resolve reference "${v10}": ${v10}: not found`));
    assert.match(described, event('Warning', 'Failed', 'Error: ErrImagePull'));
    assert.match(described, event('Normal', 'BackOff', `Back-off pulling image "${v10}"`));
    assert.match(described, event('Warning', 'Failed', 'Error: ImagePullBackOff'));
    const logs = await kubectl(['logs', failing], true);
    assert.equal(logs.stderr, `Error from server (BadRequest): container "kubernetes-bootcamp" in pod "${failing}" is waiting to start: trying and failing to pull image\n`);
    // The rollout is stuck, as upstream's: rollout status times out, rollout undo goes back to v2.
    const stuck = await kubectl(['rollout', 'status', 'deployments/kubernetes-bootcamp', '--timeout=3s'], true);
    assert.equal(stuck.code, 1);
    assert.match(stuck.stderr, /^error: timed out waiting for the condition\n$/m);
    assert.equal((await kubectl(['rollout', 'undo', 'deployments/kubernetes-bootcamp'])).stdout, 'deployment.apps/kubernetes-bootcamp rolled back\n');
    await kubectl(['rollout', 'status', 'deployments/kubernetes-bootcamp', '--timeout=120s']);
    const images = await eventually(async () => {
      const out = (await kubectl(['get', 'pods', '-l', 'app=kubernetes-bootcamp', '-o', 'jsonpath={range .items[*]}{.spec.containers[0].image}{"\\n"}{end}'])).stdout.trim().split('\n');
      return out.length === 4 && out;
    }, 60_000, 'four pods after the undo');
    assert.deepEqual([...new Set(images)], ['docker.io/jocatalin/kubernetes-bootcamp:v2']);
  });

  it('kubectl debug POD -it --image=busybox adds an ephemeral container and attaches to its shell; exit ends it, never restarted', async () => {
    const dbg = await terminal(`debug ${pod} -it --image=busybox`, ['echo in the debugger\r', 'exit\r']);
    assert.doesNotMatch(dbg.out, /panic|ephemeral containers are disabled|couldn't attach/);
    const name = /Defaulting debug container name to (debugger-\w+)\./.exec(dbg.out)?.[1];
    assert.ok(name, dbg.out);
    assert.match(dbg.out, /\/ # echo in the debugger\r\nin the debugger\r\n\/ # exit\r\n/);
    assert.equal(dbg.code, 0, dbg.out);
    const status = await eventually(async () => {
      const s = JSON.parse((await kubectl(['get', 'pod', pod, '-o', 'jsonpath={.status.ephemeralContainerStatuses[0]}'])).stdout);
      return s.state?.terminated && s;
    }, 60_000, 'the debug container terminated');
    assert.equal(status.name, name);
    assert.deepEqual([status.state.terminated.exitCode, status.state.terminated.reason], [0, 'Completed']);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
