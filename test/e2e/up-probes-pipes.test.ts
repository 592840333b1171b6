/**
 * Two tutorials on `k8ts up`'s simulated nodes with the real kubectl 1.32:
 *
 *  - "Configure Liveness, Readiness and Startup Probes": the liveness-exec
 *    pod's script creates /tmp/healthy and removes it later, and its exec
 *    probe `cat /tmp/healthy` runs against the container's files: Unhealthy
 *    with cat's message, Killing, RESTARTS 1. The fixture sleeps 8 s instead
 *    of the page's 30 s, to keep the test short.
 *  - "Configure a Pod to Use a ConfigMap": `env | grep SPECIAL` (a pipe) and
 *    `ls /etc/config/` print what the page shows, and the pods complete.
 *
 * Every wait is on a condition, with a deadline.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from './harness.js';
import { startUp, type UpCluster } from './up-cluster.js';

const livenessYAML = `apiVersion: v1
kind: Pod
metadata:
  labels:
    test: liveness
  name: liveness-exec
spec:
  containers:
  - name: liveness
    image: registry.k8s.io/busybox
    args:
    - /bin/sh
    - -c
    - touch /tmp/healthy; sleep 8; rm -f /tmp/healthy; sleep 600
    livenessProbe:
      exec:
        command:
        - cat
        - /tmp/healthy
      initialDelaySeconds: 5
      periodSeconds: 5
`;

const configMapYAML = `apiVersion: v1
kind: ConfigMap
metadata:
  name: special-config
  namespace: default
data:
  SPECIAL_LEVEL: very
  SPECIAL_TYPE: charm
---
apiVersion: v1
kind: Pod
metadata:
  name: dapi-test-pod
spec:
  containers:
    - name: test-container
      image: registry.k8s.io/busybox
      command: [ "/bin/sh", "-c", "env | grep SPECIAL" ]
      envFrom:
      - configMapRef:
          name: special-config
  restartPolicy: Never
---
apiVersion: v1
kind: Pod
metadata:
  name: dapi-test-pod-volume
spec:
  containers:
    - name: test-container
      image: registry.k8s.io/busybox
      command: [ "/bin/sh", "-c", "ls /etc/config/" ]
      volumeMounts:
      - name: config-volume
        mountPath: /etc/config
  volumes:
    - name: config-volume
      configMap:
        name: special-config
  restartPolicy: Never
`;

describe('k8ts up: exec probes and pipes of the tutorials on simulated nodes', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);

  before(async () => { up = await startUp('k8ts-e2e-probes-pipes-'); });
  after(async () => { await up?.close(); });

  it('liveness-exec: Liveness probe failed with cat\'s message, Killing, then RESTARTS 1', async () => {
    await kubectl(['apply', '-f', '-'], livenessYAML);
    await eventually(async () => (await kubectl(['get', 'pod', 'liveness-exec', '-o', 'jsonpath={.status.phase}'])).stdout === 'Running', 60_000, 'liveness-exec Running');
    // The script's files are the container's: an exec sees what it wrote, through a pipe.
    const exec = await kubectl(['exec', 'liveness-exec', '--', 'sh', '-c', 'ls /tmp | grep -c healthy; touch /tmp/x; [ -f /tmp/x ] && echo present'], undefined, true);
    assert.match(exec.stdout, /present\n$/, exec.stderr);
    const describe = await eventually(async () => {
      const out = (await kubectl(['describe', 'pod', 'liveness-exec'])).stdout;
      return out.includes('Container liveness failed liveness probe, will be restarted') ? out : undefined;
    }, 90_000, 'the Killing event', async () => (await kubectl(['describe', 'pod', 'liveness-exec'])).stdout);
    assert.match(describe, /Warning\s+Unhealthy\s+.*Liveness probe failed: cat: can't open '\/tmp\/healthy': No such file or directory/);
    assert.match(describe, /Normal\s+Killing\s+.*Container liveness failed liveness probe, will be restarted/);
    const restarts = await eventually(async () => {
      const n = Number((await kubectl(['get', 'pod', 'liveness-exec', '-o', 'jsonpath={.status.containerStatuses[0].restartCount}'])).stdout);
      return n >= 1 ? n : undefined;
    }, 60_000, 'restartCount >= 1');
    assert.ok(restarts >= 1);
    const table = (await kubectl(['get', 'pod', 'liveness-exec'])).stdout;
    assert.match(table, /^liveness-exec\s+\d\/1\s+\S+\s+[1-9]/m, table);
  });

  it('ConfigMap: env | grep SPECIAL and ls /etc/config/ print the page\'s lines, and the pods complete', async () => {
    await kubectl(['apply', '-f', '-'], configMapYAML);
    for (const name of ['dapi-test-pod', 'dapi-test-pod-volume']) {
      await eventually(async () => (await kubectl(['get', 'pod', name, '-o', 'jsonpath={.status.phase}'])).stdout === 'Succeeded', 60_000, `${name} Succeeded`);
    }
    const env = (await kubectl(['logs', 'dapi-test-pod'])).stdout;
    assert.deepEqual(env.split('\n').filter(Boolean).sort(), ['SPECIAL_LEVEL=very', 'SPECIAL_TYPE=charm']);
    assert.equal((await kubectl(['logs', 'dapi-test-pod-volume'])).stdout, 'SPECIAL_LEVEL\nSPECIAL_TYPE\n');
  });
});
