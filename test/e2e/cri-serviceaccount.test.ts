/**
 * Service-account tokens in real containers (containerd): the
 * ServiceAccount admission plugin mounts kube-api-access-xxxxx, the kubelet
 * fills it with a pod-bound token, the cluster CA and the namespace, the
 * container has KUBERNETES_SERVICE_HOST/PORT, the token authenticates as the
 * pod's service account, and @kubernetes/client-node's in-cluster config
 * (loadFromCluster) works from those files. Service links: a container gets
 * the variables of every Service of its namespace (the "Connecting
 * Applications with Services" tutorial's `printenv | grep SERVICE`), and only
 * the master service's with enableServiceLinks: false.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { CoreV1Api, KubeConfig } from './client-node-package.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { startCluster, eventually, type Cluster } from './harness.js';
import { adminCredentials } from './helpers.js';
import { startCRIAgent, nodeReady, type CRIAgent } from './real-node.js';
import { startContainerd, busyboxImage, type PrivateContainerd } from './containerd.js';

const work = mkdtempSync(join(tmpdir(), 'k8ts-e2e-cri-sa-'));
const nodeName = 'sa-node';
const saDir = '/var/run/secrets/kubernetes.io/serviceaccount';
let cluster: Cluster;
let ctrd: PrivateContainerd;
let agent: CRIAgent;

before(async () => {
  ctrd = await startContainerd({ streaming: true, podSubnet: '10.244.11.0/24' });
  cluster = await startCluster({ controllers: 'root-ca-cert-publisher' });
  agent = startCRIAgent({ cluster, ctrd, nodeName, work });
  await nodeReady(cluster, nodeName);
  await cluster.kubectl(['create', 'serviceaccount', 'app']);
});

after(async () => {
  await agent?.stop();
  await cluster?.cleanup().catch(() => {});
  await ctrd?.stop();
  rmSync(work, { recursive: true, force: true });
});

const getPod = async (name: string): Promise<Pod> => JSON.parse((await cluster.kubectl(['get', 'pod', name, '-o', 'json'])).stdout);
const exec = async (pod: string, cmd: string[]) => (await cluster.kubectl(['exec', pod, '--', ...cmd])).stdout;

function bearerStatus(token: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, cluster.url), { headers: { Authorization: `Bearer ${token}` }, ca: adminCredentials(cluster.kubeconfig).ca, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('service account token volume on containerd', () => {
  test('a pod sees token, ca.crt and namespace; the token authenticates as its service account', async () => {
    await cluster.kubectl(['apply', '-f', '-'], {
      input: stringify({
        apiVersion: 'v1', kind: 'Pod', metadata: { name: 'client' },
        spec: { nodeName, serviceAccountName: 'app', terminationGracePeriodSeconds: 1, containers: [{ name: 'c', image: busyboxImage, command: ['sh', '-c', 'trap "exit 0" TERM; while true; do sleep 1 & wait $!; done'] }] },
      }),
    });
    const pod = await getPod('client');
    const vol = pod.spec!.volumes!.find((v) => v.name.startsWith('kube-api-access-'))!;
    assert.ok(vol, 'admission added the kube-api-access volume');
    assert.deepEqual(pod.spec!.containers[0].volumeMounts, [{ name: vol.name, readOnly: true, mountPath: saDir }]);
    await eventually(async () => (await getPod('client')).status?.phase === 'Running', 120_000, 'pod Running');

    assert.equal((await exec('client', ['ls', saDir])).trim().split('\n').join(' '), 'ca.crt namespace token');
    assert.equal(await exec('client', ['cat', `${saDir}/namespace`]), 'default');
    assert.equal(await exec('client', ['cat', `${saDir}/ca.crt`]), adminCredentials(cluster.kubeconfig).ca);
    const token = await exec('client', ['cat', `${saDir}/token`]);
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
    assert.deepEqual(claims['kubernetes.io'].pod, { name: 'client', uid: pod.metadata!.uid });
    assert.equal(claims['kubernetes.io'].serviceaccount.name, 'app');
    assert.equal(claims['kubernetes.io'].node.name, nodeName);
    assert.equal(claims['kubernetes.io'].warnafter - claims.iat, 3607, 'the kubelet\'s token is extended with warnafter');
    // Authenticated, but RBAC grants a service account nothing until it is bound (upstream's 403)...
    assert.equal(await bearerStatus(token, '/api/v1/namespaces/default/pods'), 403);
    // (A role of its own: this cluster runs no clusterrole-aggregation controller to fill in `view`.)
    await cluster.kubectl(['create', 'clusterrole', 'pod-reader', '--verb=get,list,watch', '--resource=pods']);
    await cluster.kubectl(['create', 'rolebinding', 'app-pod-reader', '--clusterrole=pod-reader', '--serviceaccount=default:app', '-n', 'default']);
    // ...and the binding reaches the authorizer's watch-fed cache.
    await eventually(async () => (await bearerStatus(token, '/api/v1/namespaces/default/pods')) === 200, 30_000, 'the bound service account to list pods');
    const svcIP = (await cluster.kubectl(['get', 'service', 'kubernetes', '-n', 'default', '-o', 'jsonpath={.spec.clusterIP}'])).stdout;
    const env = await exec('client', ['sh', '-c', 'echo "$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT $KUBERNETES_PORT"']);
    assert.equal(env.trim(), `${svcIP}:443 tcp://${svcIP}:443`);
  });

  test('client-node\'s in-cluster config works from the volume\'s files', async () => {
    const pod = await getPod('client');
    const vol = pod.spec!.volumes!.find((v) => v.name.startsWith('kube-api-access-'))!;
    const hostDir = join(work, 'kubelet', 'pods', pod.metadata!.uid!, 'volumes', 'kubernetes.io~projected', vol.name);
    assert.deepEqual(readdirSync(hostDir).filter((f) => !f.startsWith('..')).sort(), ['ca.crt', 'namespace', 'token']);
    // The test process stands in for the container: the files at the in-cluster paths, the service at the API server's address.
    const prefix = join(work, 'root');
    mkdirSync(join(prefix, '/var/run/secrets/kubernetes.io'), { recursive: true });
    symlinkSync(hostDir, join(prefix, saDir));
    const url = new URL(cluster.url);
    Object.assign(process.env, { KUBERNETES_SERVICE_HOST: url.hostname, KUBERNETES_SERVICE_PORT: url.port });
    const kc = new KubeConfig();
    kc.loadFromCluster(prefix);
    assert.equal(kc.getContextObject(kc.getCurrentContext())?.namespace, 'default');
    const pods = await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: 'default' });
    assert.ok(pods.items.some((p) => p.metadata?.name === 'client'));
  });

  test('a pod that opts out gets no token, and deleting the pod revokes its token', async () => {
    const token = await exec('client', ['cat', `${saDir}/token`]);
    await cluster.kubectl(['apply', '-f', '-'], {
      input: stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'opted-out' }, spec: { nodeName, automountServiceAccountToken: false, containers: [{ name: 'c', image: busyboxImage, command: ['sleep', '1'] }] } }),
    });
    const optedOut = await getPod('opted-out');
    assert.equal(optedOut.spec!.volumes, undefined);
    assert.equal(optedOut.spec!.containers[0].volumeMounts, undefined);
    await cluster.kubectl(['delete', 'pod', 'client', '--wait=true']);
    await eventually(async () => (await bearerStatus(token, '/api/v1/namespaces/default/pods')) === 401, 60_000, 'the deleted pod\'s token to be refused');
  });

  test('service links: `kubectl exec POD -- env` shows the namespace\'s Services, as the tutorial does', async () => {
    await cluster.kubectl(['create', 'namespace', 'links']);
    await cluster.kubectl(['create', 'service', 'clusterip', 'my-nginx', '--tcp=80:80', '-n', 'links']);
    await cluster.kubectl(['create', 'service', 'clusterip', 'headless', '--clusterip=None', '--tcp=80:80', '-n', 'links']);
    const ip = (await cluster.kubectl(['get', 'service', 'my-nginx', '-n', 'links', '-o', 'jsonpath={.spec.clusterIP}'])).stdout;
    const master = (await cluster.kubectl(['get', 'service', 'kubernetes', '-n', 'default', '-o', 'jsonpath={.spec.clusterIP}'])).stdout;
    const sleeper = (name: string, links?: boolean) => stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'links' },
      spec: { nodeName, terminationGracePeriodSeconds: 1, ...(links === undefined ? {} : { enableServiceLinks: links }), containers: [{ name: 'c', image: busyboxImage, command: ['sleep', '3600'] }] },
    });
    await cluster.kubectl(['apply', '-f', '-'], { input: sleeper('linked') });
    await cluster.kubectl(['apply', '-f', '-'], { input: sleeper('unlinked', false) });
    for (const name of ['linked', 'unlinked']) {
      await eventually(async () => JSON.parse((await cluster.kubectl(['get', 'pod', name, '-n', 'links', '-o', 'json'])).stdout).status?.phase === 'Running', 120_000, `${name} Running`);
    }
    const serviceVars = async (pod: string) => (await cluster.kubectl(['exec', pod, '-n', 'links', '--', 'env'])).stdout
      .split('\n').filter((l) => l.includes('_SERVICE_')).sort();
    assert.deepEqual(await serviceVars('linked'), [
      `KUBERNETES_SERVICE_HOST=${master}`, 'KUBERNETES_SERVICE_PORT=443', 'KUBERNETES_SERVICE_PORT_HTTPS=443',
      `MY_NGINX_SERVICE_HOST=${ip}`, 'MY_NGINX_SERVICE_PORT=80', 'MY_NGINX_SERVICE_PORT_80_80=80',
    ]);
    assert.deepEqual(await serviceVars('unlinked'), [`KUBERNETES_SERVICE_HOST=${master}`, 'KUBERNETES_SERVICE_PORT=443', 'KUBERNETES_SERVICE_PORT_HTTPS=443']);
  });
});
