/**
 * A new user's first ten minutes on `npm start`, continued: the Kubernetes
 * pages' containers print something (`echo Hello World`, `date; echo Hello
 * from the Kubernetes cluster`, `env`, `cat /etc/config/sport` in a loop),
 * and `kubectl logs` must show it on simulated nodes as on real ones
 * (runtime/simulated/shell.ts runs those commands). Also the cheat sheet's
 * `get --subresource=scale` and the Job page's `perl ... bpi(2000)`. One `k8ts up` for the file.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from './harness.js';
import { startUp, type UpCluster } from './up-cluster.js';
import { helloCronJob } from './task-page-manifests.js';
import { singleConfigMapEnv } from './up-tutorials-pages7-manifests.js';

const run = promisify(execFile);

describe('tutorial: what the pages\' containers print on npm start\'s simulated nodes', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  /** kubectl logs TARGET once it shows what `done` accepts (the command runs when the container starts). */
  const logsOf = (target: string, done: (out: string) => boolean) => eventually(async () => {
    const r = await kubectl(['logs', target], undefined, true);
    return done(r.stdout) && r.stdout;
  }, 60_000, `the logs of ${target}`);
  const dateLine = String.raw`\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d UTC \d{4}`;

  before(async () => { up = await startUp('k8ts-e2e-tutorial-logs-'); });
  after(async () => { await up?.close(); });

  it('cheat sheet: kubectl get deployment nginx --subresource=scale prints the Scale\'s DESIRED and AVAILABLE, as upstream\'s printScale', async () => {
    await kubectl(['create', 'deployment', 'nginx', '--image=nginx', '--replicas=2']);
    await kubectl(['rollout', 'status', 'deployment/nginx', '--timeout=120s']);
    const rows = (await kubectl(['get', 'deployment', 'nginx', '--subresource=scale'])).stdout.trim().split('\n').map((l) => l.split(/\s+/));
    assert.deepEqual(rows.map((r) => r.slice(0, 3)), [['NAME', 'DESIRED', 'AVAILABLE'], ['nginx', '2', '2']]);
    assert.equal(rows[0][3], 'AGE');
  });

  it('cheat sheet: kubectl create job hello --image=busybox:1.28 -- echo "Hello World"; kubectl logs job/hello prints Hello World', async () => {
    await kubectl(['create', 'job', 'hello', '--image=busybox:1.28', '--', 'echo', 'Hello World']);
    assert.equal(await logsOf('job/hello', (out) => out !== ''), 'Hello World\n');
  });

  it('"Running an example Job": kubectl logs jobs/pi prints pi to 2,000 digits and the Job completes', async () => {
    await kubectl(['apply', '-f', '-'], piJob);
    const out = await logsOf('jobs/pi', (o) => o !== '');
    assert.match(out, /^3\.14159265358979323846264338327950288419716939937510\d{1949}\n$/);
    await kubectl(['wait', '--for=condition=complete', 'job/pi', '--timeout=60s']);
  });

  it('CronJob tutorial: the hello job\'s pod prints the date and "Hello from the Kubernetes cluster"', async () => {
    await kubectl(['create', '-f', '-'], helloCronJob);
    await kubectl(['create', 'job', '--from=cronjob/hello', 'hello-now']);
    const out = await logsOf('job/hello-now', (o) => o.includes('Hello'));
    assert.match(out, new RegExp(`^${dateLine}\nHello from the Kubernetes cluster\n$`));
    await kubectl(['wait', '--for=condition=complete', 'job/hello-now', '--timeout=60s']);
  });

  it('"Expose Pod Information to Containers Through Environment Variables": the loop prints the node, the pod, its IP and stays Running under restartPolicy Never', async () => {
    await kubectl(['apply', '-f', '-'], dapiEnvarsFieldref);
    const out = await logsOf('dapi-envars-fieldref', (o) => o.split('\n').length > 5);
    const [node, ip] = (await kubectl(['get', 'pod', 'dapi-envars-fieldref', '-o', 'jsonpath={.spec.nodeName} {.status.podIP}'])).stdout.split(' ');
    assert.equal(out, `\n${node}\ndapi-envars-fieldref\ndefault\n${ip}\ndefault\n`);
    const row = (await kubectl(['get', 'pod', 'dapi-envars-fieldref', '--no-headers'])).stdout.trim().split(/\s+/);
    assert.deepEqual(row.slice(1, 3), ['1/1', 'Running']);
  });

  it('ConfigMap page: the env of dapi-test-pod has SPECIAL_LEVEL_KEY=very, and a mounted key read in a loop follows kubectl edit', async () => {
    await kubectl(['create', 'configmap', 'special-config', '--from-literal=special.how=very', '--from-literal=special.type=charm']);
    await kubectl(['create', '-f', '-'], dapiTestPod);
    const env = await logsOf('dapi-test-pod', (o) => o.includes('HOME='));
    assert.ok(env.split('\n').includes('SPECIAL_LEVEL_KEY=very'), env);
    assert.ok(env.split('\n').includes('KUBERNETES_SERVICE_HOST=10.96.0.1'), env);

    await kubectl(['create', 'configmap', 'sport', '--from-literal=sport=football']);
    await kubectl(['apply', '-f', '-'], configMapVolume);
    const first = await logsOf('deployments/configmap-volume', (o) => o !== '');
    assert.match(first, new RegExp(`^${dateLine} My preferred sport is football\n$`));
    // kubectl edit configmap sport, football -> cricket, with the editor a script.
    const editor = join(up.dir, 'editor.sh');
    writeFileSync(editor, '#!/bin/sh\nsed -i s/football/cricket/ "$1"\n', { mode: 0o755 });
    const edit = await run('kubectl', ['--kubeconfig', up.kubeconfig, 'edit', 'configmap', 'sport'], { env: { ...process.env, KUBE_EDITOR: editor } });
    assert.equal(edit.stdout, 'configmap/sport edited\n');
    const later = await logsOf('deployments/configmap-volume', (o) => o.includes('cricket'));
    assert.match(later.trim().split('\n').at(-1)!, new RegExp(`^${dateLine} My preferred sport is cricket$`));
  });
});

const dapiEnvarsFieldref = `apiVersion: v1
kind: Pod
metadata:
  name: dapi-envars-fieldref
spec:
  containers:
    - name: test-container
      image: registry.k8s.io/busybox:1.27.2
      command: [ "sh", "-c"]
      args:
      - while true; do
          echo -en '\\n';
          printenv MY_NODE_NAME MY_POD_NAME MY_POD_NAMESPACE;
          printenv MY_POD_IP MY_POD_SERVICE_ACCOUNT;
          sleep 10;
        done;
      env:
        - name: MY_NODE_NAME
          valueFrom:
            fieldRef:
              fieldPath: spec.nodeName
        - name: MY_POD_NAME
          valueFrom:
            fieldRef:
              fieldPath: metadata.name
        - name: MY_POD_NAMESPACE
          valueFrom:
            fieldRef:
              fieldPath: metadata.namespace
        - name: MY_POD_IP
          valueFrom:
            fieldRef:
              fieldPath: status.podIP
        - name: MY_POD_SERVICE_ACCOUNT
          valueFrom:
            fieldRef:
              fieldPath: spec.serviceAccountName
  restartPolicy: Never
`;

// The ConfigMap page's pod-single-configmap-env-variable.yaml (up-tutorials-pages7 walks the rest of the page).
const dapiTestPod = singleConfigMapEnv;

const configMapVolume = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: configmap-volume
  labels:
    app.kubernetes.io/name: configmap-volume
spec:
  replicas: 3
  selector:
    matchLabels:
      app.kubernetes.io/name: configmap-volume
  template:
    metadata:
      labels:
        app.kubernetes.io/name: configmap-volume
    spec:
      containers:
        - name: alpine
          image: alpine:3
          command:
            - /bin/sh
            - -c
            - while true; do echo "$(date) My preferred sport is $(cat /etc/config/sport)";
              sleep 10; done;
          ports:
            - containerPort: 80
          volumeMounts:
            - name: config-volume
              mountPath: /etc/config
      volumes:
        - name: config-volume
          configMap:
            name: sport
`;

/** kubernetes.io/examples/controllers/job.yaml, as the page applies it. */
const piJob = `apiVersion: batch/v1
kind: Job
metadata:
  name: pi
spec:
  template:
    spec:
      containers:
      - name: pi
        image: perl:5.34.0
        command: ["perl",  "-Mbignum=bpi", "-wle", "print bpi(2000)"]
      restartPolicy: Never
  backoffLimit: 4
`;
