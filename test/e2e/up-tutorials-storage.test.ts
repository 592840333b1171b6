/**
 * The storage, services and container-configuration task pages on `npm
 * start`'s simulated nodes, with the real kubectl 1.32, where k8ts once
 * answered unlike upstream:
 *  - Configure a Pod to Use a Volume for Storage: `kill 1` in the redis
 *    container was `sh: 1: kill: not found`; now redis exits, the container
 *    restarts (RESTARTS 1) and the emptyDir's test-file is still there;
 *  - Configure a Pod to Use a PersistentVolume for Storage: the PV binds
 *    (STATUS Bound, CLAIM default/task-pv-claim), nginx serves the volume's
 *    index.html (403 while it is empty, as nginx answers);
 *  - Connect a Frontend to a Backend Using Services: hello-go-gke and
 *    hello-frontend had no responder (curl's `(56) Recv failure`); now the
 *    frontend's nginx proxies to the hello Service and answers
 *    `{"message":"Hello"}`.
 * The projected-volume and environment-variable pages answer as upstream and
 * are checked here so they stay so (command and args and dependent variables
 * are up-tutorials-config's).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { eventually } from './harness.js';
import { startUp, type UpCluster } from './up-cluster.js';

describe('k8ts up: the storage, services and container-config pages on simulated nodes', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const waitReady = (pod: string) => kubectl(['wait', '--for=condition=Ready', `pod/${pod}`, '--timeout=120s']);

  before(async () => { up = await startUp('k8ts-e2e-tut-storage-'); });
  after(async () => { await up?.close(); });

  it('Volume for Storage: write into the emptyDir, kill redis, the container restarts and the file stays', async () => {
    await kubectl(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata:
  name: redis
spec:
  containers:
  - name: redis
    image: redis
    volumeMounts:
    - name: redis-storage
      mountPath: /data/redis
  volumes:
  - name: redis-storage
    emptyDir: {}
`);
    await waitReady('redis');
    // redis's WORKDIR: the page's prompt is root@redis:/data#.
    assert.equal((await kubectl(['exec', 'redis', '--', 'pwd'])).stdout, '/data\n');
    assert.equal((await kubectl(['exec', 'redis', '--', 'ls'])).stdout, 'redis\n');
    assert.equal((await kubectl(['exec', 'redis', '--', 'sh', '-c', 'cd /data/redis/; echo Hello > test-file; ls'])).stdout, 'test-file\n');
    // The page watches the pod while redis is killed: it goes 0/1 Completed, then 1/1 Running with one restart.
    const watch = spawn('kubectl', ['--kubeconfig', up.kubeconfig, 'get', 'pod', 'redis', '--watch'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let watched = '';
    watch.stdout.on('data', (d: Buffer) => { watched += d.toString(); });
    try {
      await eventually(async () => /redis\s+1\/1\s+Running\s+0/.test(watched) || undefined, 30_000, 'the watch listing redis');
      // PID 1 is redis-server, which exits 0 on SIGTERM; the exec's shell dies with the container.
      const killed = await kubectl(['exec', 'redis', '--', 'sh', '-c', 'kill 1'], undefined, true);
      assert.doesNotMatch(killed.stderr, /not found/);
      const restarts = await eventually(async () => {
        const r = (await kubectl(['get', 'pod', 'redis', '-o', 'jsonpath={.status.containerStatuses[0].restartCount} {.status.containerStatuses[0].lastState.terminated.reason} {.status.containerStatuses[0].lastState.terminated.exitCode} {.status.containerStatuses[0].ready}'])).stdout;
        return r.startsWith('1 ') && r.endsWith('true') ? r : undefined;
      }, 60_000, 'redis restarted and ready');
      assert.equal(restarts, '1 Completed 0 true');
      await eventually(async () => /redis\s+1\/1\s+Running\s+1 \(/.test(watched) || undefined, 30_000, 'the watch showing the restart');
      assert.match(watched, /\nredis\s+0\/1\s+Completed\s+0\s+\S+\nredis\s+1\/1\s+Running\s+1 \(/);
    } finally {
      watch.kill('SIGTERM');
    }
    assert.match((await kubectl(['get', 'pod', 'redis'])).stdout, /redis\s+1\/1\s+Running\s+1 \(/);
    assert.equal((await kubectl(['exec', 'redis', '--', 'sh', '-c', 'cd /data/redis/; ls'])).stdout, 'test-file\n');
    assert.equal((await kubectl(['exec', 'redis', '--', 'cat', '/data/redis/test-file'])).stdout, 'Hello\n');
    // SIGKILL from inside the PID namespace never reaches its init: nothing happens.
    await kubectl(['exec', 'redis', '--', 'sh', '-c', 'kill -9 1']);
    const noSuch = await kubectl(['exec', 'redis', '--', 'bash', '-c', 'kill 4242'], undefined, true);
    assert.equal(noSuch.stderr, 'bash: line 1: kill: (4242) - No such process\ncommand terminated with exit code 1\n');
    assert.equal((await kubectl(['get', 'pod', 'redis', '-o', 'jsonpath={.status.containerStatuses[0].restartCount}'])).stdout, '1');
    await kubectl(['delete', 'pod', 'redis']);
  });

  it('PersistentVolume for Storage: the hostPath PV binds to the claim and nginx serves the volume', async () => {
    await kubectl(['apply', '-f', '-'], `apiVersion: v1
kind: PersistentVolume
metadata:
  name: task-pv-volume
  labels:
    type: local
spec:
  storageClassName: manual
  capacity:
    storage: 10Gi
  accessModes:
    - ReadWriteOnce
  hostPath:
    path: "/mnt/data"
`);
    assert.match((await kubectl(['get', 'pv', 'task-pv-volume'])).stdout, /task-pv-volume\s+10Gi\s+RWO\s+Retain\s+Available\s+manual/);
    await kubectl(['apply', '-f', '-'], `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: task-pv-claim
spec:
  storageClassName: manual
  accessModes:
    - ReadWriteOnce
  resources:
    requests:
      storage: 3Gi
`);
    await eventually(async () => /Bound/.test((await kubectl(['get', 'pvc', 'task-pv-claim', '-o', 'jsonpath={.status.phase}'])).stdout) || undefined, 60_000, 'the claim bound');
    assert.match((await kubectl(['get', 'pv', 'task-pv-volume'])).stdout, /task-pv-volume\s+10Gi\s+RWO\s+Retain\s+Bound\s+default\/task-pv-claim\s+manual/);
    assert.match((await kubectl(['get', 'pvc', 'task-pv-claim'])).stdout, /task-pv-claim\s+Bound\s+task-pv-volume\s+10Gi\s+RWO\s+manual/);
    await kubectl(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata:
  name: task-pv-pod
spec:
  volumes:
    - name: task-pv-storage
      persistentVolumeClaim:
        claimName: task-pv-claim
  containers:
    - name: task-pv-container
      image: nginx
      ports:
        - containerPort: 80
          name: "http-server"
      volumeMounts:
        - mountPath: "/usr/share/nginx/html"
          name: task-pv-storage
`);
    await waitReady('task-pv-pod');
    // No file on the simulated node's /mnt/data: the volume hides the image's page and nginx refuses the directory.
    assert.match((await kubectl(['exec', 'task-pv-pod', '--', 'curl', '-s', 'http://localhost/'])).stdout, /403 Forbidden/);
    // The page writes /mnt/data/index.html on the node; a simulated node's files are reached by `kubectl debug node/NAME` (its / at /host).
    const node = (await kubectl(['get', 'pod', 'task-pv-pod', '-o', 'jsonpath={.spec.nodeName}'])).stdout;
    await kubectl(['debug', `node/${node}`, '--image=busybox', '--profile=general', '--', 'sh', '-c', "mkdir -p /host/mnt/data && echo 'Hello from Kubernetes storage' > /host/mnt/data/index.html"]);
    assert.equal(await eventually(async () => {
      const out = (await kubectl(['exec', 'task-pv-pod', '--', 'curl', '-s', 'http://localhost/'])).stdout;
      return out.includes('403') ? undefined : out;
    }, 60_000, 'index.html served'), 'Hello from Kubernetes storage\n');
    assert.equal((await kubectl(['exec', 'task-pv-pod', '--', 'cat', '/usr/share/nginx/html/index.html'])).stdout, 'Hello from Kubernetes storage\n');
    await kubectl(['delete', 'pod', 'task-pv-pod']);
    await kubectl(['delete', 'pvc', 'task-pv-claim']);
    await kubectl(['delete', 'pv', 'task-pv-volume']);
    assert.equal((await kubectl(['get', 'pv', '-o', 'name'])).stdout, '');
    // The node's file outlives the PV, as on a real node (the page removes it by hand).
    const pod = (await kubectl(['get', 'pods', '-o', 'name'])).stdout.split('\n').find((n) => n.includes(`node-debugger-${node}`))!;
    await kubectl(['delete', pod]);
  });

  it('Projected volume and environment variables (command and args, dependent variables: up-tutorials-config)', async () => {
    await kubectl(['create', 'secret', 'generic', 'user', '--from-literal=user=admin']);
    await kubectl(['create', 'secret', 'generic', 'pass', '--from-literal=pass=1f2d1e2e67df']);
    await kubectl(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata:
  name: test-projected-volume
spec:
  containers:
  - name: test-projected-volume
    image: busybox:1.28
    args:
    - sleep
    - "86400"
    volumeMounts:
    - name: all-in-one
      mountPath: "/projected-volume"
      readOnly: true
  volumes:
  - name: all-in-one
    projected:
      sources:
      - secret:
          name: user
      - secret:
          name: pass
---
apiVersion: v1
kind: Pod
metadata:
  name: envar-demo
spec:
  containers:
  - name: envar-demo-container
    image: gcr.io/google-samples/hello-app:2.0
    env:
    - name: DEMO_GREETING
      value: "Hello from the environment"
    - name: DEMO_FAREWELL
      value: "Such a sweet sorrow"
`);
    await waitReady('test-projected-volume');
    assert.equal((await kubectl(['exec', 'test-projected-volume', '--', 'ls', '/projected-volume/'])).stdout, 'pass\nuser\n');
    await waitReady('envar-demo');
    const env = (await kubectl(['exec', 'envar-demo', '--', 'printenv'])).stdout.split('\n');
    assert.ok(env.includes('DEMO_GREETING=Hello from the environment') && env.includes('DEMO_FAREWELL=Such a sweet sorrow') && env.includes('HOSTNAME=envar-demo'));
  });

  it('Connect a Frontend to a Backend: the LoadBalancer frontend proxies to the hello Service', async () => {
    await kubectl(['apply', '-f', '-'], `apiVersion: apps/v1
kind: Deployment
metadata:
  name: backend
spec:
  selector:
    matchLabels: {app: hello, tier: backend, track: stable}
  replicas: 3
  template:
    metadata:
      labels: {app: hello, tier: backend, track: stable}
    spec:
      containers:
        - name: hello
          image: "gcr.io/google-samples/hello-go-gke:1.0"
          ports:
            - name: http
              containerPort: 80
---
apiVersion: v1
kind: Service
metadata:
  name: hello
spec:
  selector: {app: hello, tier: backend}
  ports:
  - protocol: TCP
    port: 80
    targetPort: http
---
apiVersion: v1
kind: Service
metadata:
  name: frontend
spec:
  selector: {app: hello, tier: frontend}
  ports:
  - protocol: "TCP"
    port: 80
    targetPort: 80
  type: LoadBalancer
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: frontend
spec:
  selector:
    matchLabels: {app: hello, tier: frontend, track: stable}
  replicas: 1
  template:
    metadata:
      labels: {app: hello, tier: frontend, track: stable}
    spec:
      containers:
        - name: nginx
          image: "gcr.io/google-samples/hello-frontend:1.0"
          lifecycle:
            preStop:
              exec:
                command: ["/usr/sbin/nginx","-s","quit"]
`);
    await kubectl(['rollout', 'status', 'deployment/backend', '--timeout=120s']);
    await kubectl(['rollout', 'status', 'deployment/frontend', '--timeout=120s']);
    const external = await eventually(async () => (await kubectl(['get', 'service', 'frontend', '-o', 'jsonpath={.status.loadBalancer.ingress[0].ip}'])).stdout || undefined, 60_000, 'EXTERNAL-IP');
    assert.equal(external, '127.0.0.1');
    // Port 80 on 127.0.0.1 may be another program's on a shared machine: the Service's node port, which k8ts up opens on the same address, answers the same.
    const nodePort = (await kubectl(['get', 'service', 'frontend', '-o', 'jsonpath={.spec.ports[0].nodePort}'])).stdout;
    const body = await eventually(async () => {
      const res = await fetch(`http://${external}:${nodePort}/`).catch(() => undefined);
      return res?.status === 200 ? { text: await res.text(), server: res.headers.get('server') } : undefined;
    }, 60_000, 'the frontend answering');
    assert.deepEqual(body, { text: '{"message":"Hello"}', server: 'nginx/1.27.3' });
    // From inside the cluster too: the frontend by its Service name, from a backend pod.
    const backend = (await kubectl(['get', 'pods', '-l', 'tier=backend', '-o', 'jsonpath={.items[0].metadata.name}'])).stdout;
    assert.equal((await kubectl(['exec', backend, '--', 'wget', '-qO-', 'http://frontend'])).stdout, '{"message":"Hello"}');
    // Without the backend Service nginx answers 502.
    await kubectl(['delete', 'service', 'hello']);
    const gone = await eventually(async () => {
      const res = await fetch(`http://${external}:${nodePort}/`).catch(() => undefined);
      return res?.status === 502 ? res.text() : undefined;
    }, 60_000, 'the frontend answering 502');
    assert.match(gone, /502 Bad Gateway/);
  });
});
