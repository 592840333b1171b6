/**
 * configMap, secret, downwardAPI and projected volumes, and environment from
 * ConfigMaps and Secrets, on a real containerd node (issue #7): a real
 * `k8ts server`, a real `k8ts agent --runtime cri` on a private containerd
 * (containerd.ts), the real kubectl. Each container prints what it sees and
 * the test reads it back with `kubectl logs`.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { startCluster, eventually, type Cluster } from './harness.js';
import { startCRIAgent, nodeReady, type CRIAgent } from './real-node.js';
import { startContainerd, busyboxImage, type PrivateContainerd } from './containerd.js';

const work = mkdtempSync(join(tmpdir(), 'k8ts-e2e-cri-volumes-'));
const nodeName = 'cfg-node';
let cluster: Cluster;
let ctrd: PrivateContainerd;
let agent: CRIAgent;

const apply = (obj: unknown) => cluster.kubectl(['apply', '-f', '-'], { input: stringify(obj) });
const getPod = async (name: string): Promise<Pod> => JSON.parse((await cluster.kubectl(['get', 'pod', name, '-o', 'json'])).stdout);

before(async () => {
  ctrd = await startContainerd();
  cluster = await startCluster({ controllers: 'root-ca-cert-publisher' }); // pods mount kube-root-ca.crt (kube-api-access)
  agent = startCRIAgent({ cluster, ctrd, nodeName, work });
  await nodeReady(cluster, nodeName);
  await apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'game' }, data: { 'game.properties': 'lives=3\n', 'ui.mode': 'dark', '1st.key': 'x' }, binaryData: { 'blob.bin': Buffer.from([0, 1, 2, 255]).toString('base64') } });
  await apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds' }, data: { password: Buffer.from('s3cr3t').toString('base64'), user: Buffer.from('admin').toString('base64') } });
});

after(async () => {
  await agent?.stop();
  await cluster?.cleanup().catch(() => {});
  await ctrd?.stop();
  rmSync(work, { recursive: true, force: true });
});

const script = `
echo "cfg: $(cat /etc/cfg/game.properties | tr -d '\\n') $(cat /etc/cfg/ui.mode)"
echo "blob: $(od -An -tx1 /etc/cfg/blob.bin | tr -s ' ')"
echo "items: $(ls /etc/items) $(stat -c %a /etc/items/props/game)"
echo "subpath: $(cat /etc/mode-only)"
echo "secret: $(cat /etc/secret/password) $(stat -c %a /etc/secret/..data/password)"
echo "labels: $(cat /etc/podinfo/labels | tr '\\n' ' ')"
echo "mem-mi: $(cat /etc/podinfo/mem)"
echo "projected: $(ls /etc/all | tr '\\n' ' ')"
echo "env: $GAME_MODE $DB_PASSWORD $CPU_MILLI [$MISSING]"
environ=$(tr '\\0' '\\n' < /proc/1/environ)
echo "$environ" | grep -q '^CFG_ui.mode=dark$' && echo "envFrom: prefixed" || echo "envFrom: missing"
echo "$environ" | grep -q '^CFG_1st.key=x$' && echo "env: relaxed name passed" || echo "env: relaxed name missing"
touch /etc/cfg/new 2>/dev/null && echo "ro: no" || echo "ro: yes"
echo done
trap 'exit 0' TERM; while true; do sleep 1 & wait $!; done`;

describe('configMap, secret, downwardAPI and projected volumes on containerd', () => {
  test('a container sees every key, mode, item, subPath and env value, read-only', async () => {
    await apply({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'reader', labels: { app: 'reader', tier: 'web' } },
      spec: {
        nodeName, terminationGracePeriodSeconds: 1,
        containers: [{
          name: 'c', image: busyboxImage, command: ['sh', '-c', script],
          resources: { limits: { memory: '64Mi', cpu: '250m' } },
          env: [
            { name: 'GAME_MODE', valueFrom: { configMapKeyRef: { name: 'game', key: 'ui.mode' } } },
            { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } } },
            { name: 'CPU_MILLI', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1m' } } },
            { name: 'MISSING', valueFrom: { configMapKeyRef: { name: 'absent', key: 'k', optional: true } } },
          ],
          envFrom: [{ configMapRef: { name: 'game' }, prefix: 'CFG_' }],
          volumeMounts: [
            { name: 'cfg', mountPath: '/etc/cfg' },
            { name: 'items', mountPath: '/etc/items' },
            { name: 'cfg', mountPath: '/etc/mode-only', subPath: 'ui.mode' },
            { name: 'secret', mountPath: '/etc/secret' },
            { name: 'podinfo', mountPath: '/etc/podinfo' },
            { name: 'all', mountPath: '/etc/all' },
          ],
        }],
        volumes: [
          { name: 'cfg', configMap: { name: 'game' } },
          { name: 'items', configMap: { name: 'game', items: [{ key: 'game.properties', path: 'props/game', mode: 0o600 }] } },
          { name: 'secret', secret: { secretName: 'creds', defaultMode: 0o400 } },
          {
            name: 'podinfo', downwardAPI: {
              items: [
                { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
                { path: 'mem', resourceFieldRef: { containerName: 'c', resource: 'limits.memory', divisor: '1Mi' } },
              ],
            },
          },
          {
            name: 'all', projected: {
              sources: [
                { configMap: { name: 'game', items: [{ key: 'ui.mode', path: 'mode' }] } },
                { secret: { name: 'creds', items: [{ key: 'user', path: 'user' }] } },
                { downwardAPI: { items: [{ path: 'name', fieldRef: { fieldPath: 'metadata.name' } }] } },
              ],
            },
          },
        ],
      },
    });
    const logs = await eventually(async () => {
      const r = await cluster.kubectl(['logs', 'reader'], { allowFail: true });
      return r.code === 0 && r.stdout.includes('done') ? r.stdout : undefined;
    }, 60_000, 'the reader to print everything');
    const lines = logs.trim().split('\n');
    assert.deepEqual(lines, [
      'cfg: lives=3 dark',
      'blob:  00 01 02 ff',
      'items: props 600',
      'subpath: dark',
      'secret: s3cr3t 400',
      'labels: app="reader" tier="web"',
      'mem-mi: 64',
      'projected: mode name user ',
      'env: dark s3cr3t 250 []',
      'envFrom: prefixed',
      'env: relaxed name passed',
      'ro: yes',
      'done',
    ], `${logs}\n${agent.log().split('\n').filter((l) => /warn|error/.test(l)).slice(-10).join('\n')}`);
  });

  test('a missing ConfigMap keeps the pod ContainerCreating with upstream\'s FailedMount words, until it exists', async () => {
    await apply({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'waits-for-cm' },
      spec: {
        nodeName, terminationGracePeriodSeconds: 1,
        containers: [{ name: 'c', image: busyboxImage, command: ['sh', '-c', 'cat /etc/late/k; echo; trap "exit 0" TERM; while true; do sleep 1 & wait $!; done'], volumeMounts: [{ name: 'late', mountPath: '/etc/late' }] }],
        volumes: [{ name: 'late', configMap: { name: 'late-config' } }],
      },
    });
    const waiting = await eventually(async () => {
      const w = (await getPod('waits-for-cm')).status?.containerStatuses?.[0]?.state?.waiting;
      return w?.message ? w : undefined;
    }, 30_000, 'the waiting reason');
    assert.equal(waiting.reason, 'ContainerCreating');
    assert.equal(waiting.message, 'MountVolume.SetUp failed for volume "late" : configmap "late-config" not found');
    await apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late-config' }, data: { k: 'arrived' } });
    await eventually(async () => (await cluster.kubectl(['logs', 'waits-for-cm'], { allowFail: true })).stdout.includes('arrived'), 60_000, 'the pod to start once the ConfigMap exists')
      .catch(async (e) => { throw new Error(`${e.message}\n${JSON.stringify((await getPod('waits-for-cm')).status)}\n${agent.log().split('\n').filter((l) => l.includes('waits-for-cm')).slice(-10).join('\n')}`); });
  });

  test('env naming a missing Secret or key is CreateContainerConfigError with upstream\'s message', async () => {
    const pod = (name: string, env: unknown[]) => ({
      apiVersion: 'v1', kind: 'Pod', metadata: { name },
      spec: { nodeName, terminationGracePeriodSeconds: 1, containers: [{ name: 'c', image: busyboxImage, command: ['sleep', '600'], env }] },
    });
    await apply(pod('no-secret', [{ name: 'P', valueFrom: { secretKeyRef: { name: 'nope', key: 'password' } } }]));
    await apply(pod('no-key', [{ name: 'P', valueFrom: { configMapKeyRef: { name: 'game', key: 'nokey' } } }]));
    for (const [name, message] of [['no-secret', 'secret "nope" not found'], ['no-key', "couldn't find key nokey in ConfigMap default/game"]]) {
      const w = await eventually(async () => (await getPod(name)).status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerConfigError'
        && (await getPod(name)).status!.containerStatuses![0].state!.waiting, 30_000, `${name} CreateContainerConfigError`);
      assert.equal(w.message, message);
    }
  });
});
