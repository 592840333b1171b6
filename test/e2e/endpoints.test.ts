/**
 * The Endpoints controller against the real server, driven with the real
 * kubectl: the upstream nginx headless Service with StatefulSet-style pods
 * (hostname + subdomain) created directly on a node, their status set through
 * /status as a kubelet would; `kubectl get endpoints nginx` lists the ready
 * pods, with hostnames; readiness, deletion and service deletion follow.
 * The controller runs in the test process.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, Cluster } from './harness.js';
import { Clientset, InformerFactory, EventRecorder, loadKubeconfig } from '../../src/client/index.js';
import type { Controller, ControllerContext } from '../../src/controllers/types.js';
import { defaultControllerConfig } from '../../src/controllers/types.js';
import { silentLogger } from '../../src/util/log.js';
import { realClock } from '../../src/util/clock.js';
import { endpointsController } from '../../src/controllers/endpoints/index.js';

let cluster: Cluster;
let clients: Clientset;
let informers: InformerFactory;
let controller: Controller;

const manifests = `apiVersion: v1
kind: Node
metadata:
  name: worker-1
  labels:
    kubernetes.io/hostname: worker-1
---
apiVersion: v1
kind: Service
metadata:
  name: nginx
  labels:
    app: nginx
spec:
  ports:
  - port: 80
    name: web
  clusterIP: None
  selector:
    app: nginx
`;

const podYaml = (name: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  labels:
    app: nginx
spec:
  hostname: ${name}
  subdomain: nginx
  nodeName: worker-1
  containers:
  - name: nginx
    image: registry.k8s.io/nginx-slim:0.24
    ports:
    - containerPort: 80
      name: web
`;

/** What the kubelet reports for a running pod. */
async function setStatus(name: string, ip: string, ready: boolean): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const cond = (type: string, ok: boolean) => ({ type, status: ok ? 'True' : 'False', lastProbeTime: null, lastTransitionTime: now });
  const status = {
    phase: 'Running', podIP: ip, podIPs: [{ ip }], hostIP: '10.0.0.11', hostIPs: [{ ip: '10.0.0.11' }], startTime: now,
    conditions: [cond('Initialized', true), cond('Ready', ready), cond('ContainersReady', ready), cond('PodScheduled', true)],
  };
  await cluster.kubectl(['patch', 'pod', name, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })]);
}

async function endpointsRow(): Promise<string[] | undefined> {
  const r = await cluster.kubectl(['get', 'endpoints', 'nginx', '--no-headers'], { allowFail: true });
  return r.code === 0 ? r.stdout.trim().split(/\s{2,}/) : undefined;
}

async function endpointsJson(): Promise<any> {
  return JSON.parse((await cluster.kubectl(['get', 'endpoints', 'nginx', '-o', 'json'])).stdout);
}

before(async () => {
  cluster = await startCluster();
  clients = new Clientset(loadKubeconfig(cluster.kubeconfig));
  informers = new InformerFactory(clients);
  const ctx: ControllerContext = {
    clients, informers, logger: silentLogger, clock: realClock, config: { ...defaultControllerConfig },
    recorder: (component) => new EventRecorder(clients, component),
  };
  controller = endpointsController(ctx);
  informers.start();
  await informers.waitForSync();
  controller.run();
});

after(async () => {
  controller?.stop();
  informers?.stop();
  clients?.close();
  await cluster?.cleanup();
});

describe('Endpoints for the nginx headless Service', () => {
  test('an Endpoints object appears with the service, empty until pods are up', async () => {
    await cluster.kubectl(['apply', '-f', '-'], { input: manifests });
    const row = await eventually(endpointsRow, 10_000, 'endpoints nginx');
    assert.equal(row[0], 'nginx');
    assert.equal(row[1], '<none>');
    const ep = await endpointsJson();
    assert.deepEqual(ep.metadata.labels, { app: 'nginx', 'service.kubernetes.io/headless': '' });
  });

  test('ready pods are listed with their hostnames; a pod without an IP is not', async () => {
    await cluster.kubectl(['apply', '-f', '-'], { input: `${podYaml('web-0')}---\n${podYaml('web-1')}---\n${podYaml('web-2')}` });
    await setStatus('web-0', '10.244.1.5', true);
    await setStatus('web-1', '10.244.1.6', true);
    const row = await eventually(async () => {
      const r = await endpointsRow();
      return r?.[1] === '10.244.1.5:80,10.244.1.6:80' ? r : undefined;
    }, 10_000, 'two endpoints');
    assert.equal(row[1], '10.244.1.5:80,10.244.1.6:80');
    const ep = await endpointsJson();
    const pods = JSON.parse((await cluster.kubectl(['get', 'pods', '-o', 'json'])).stdout).items;
    const uid = (n: string) => pods.find((p: any) => p.metadata.name === n).metadata.uid;
    assert.deepEqual(ep.subsets, [{
      addresses: [
        { ip: '10.244.1.5', hostname: 'web-0', nodeName: 'worker-1', targetRef: { kind: 'Pod', namespace: 'default', name: 'web-0', uid: uid('web-0') } },
        { ip: '10.244.1.6', hostname: 'web-1', nodeName: 'worker-1', targetRef: { kind: 'Pod', namespace: 'default', name: 'web-1', uid: uid('web-1') } },
      ],
      ports: [{ name: 'web', port: 80, protocol: 'TCP' }],
    }]);
    assert.ok(ep.metadata.annotations['endpoints.kubernetes.io/last-change-trigger-time']);
  });

  test('a pod that is running but not ready is a notReadyAddress and not shown', async () => {
    await setStatus('web-2', '10.244.1.7', false);
    const ep = await eventually(async () => {
      const e = await endpointsJson();
      return e.subsets?.[0]?.notReadyAddresses ? e : undefined;
    }, 10_000, 'not-ready address');
    assert.deepEqual(ep.subsets[0].notReadyAddresses.map((a: any) => [a.ip, a.hostname]), [['10.244.1.7', 'web-2']]);
    assert.equal((await endpointsRow())![1], '10.244.1.5:80,10.244.1.6:80');

    await setStatus('web-2', '10.244.1.7', true);
    await eventually(async () => (await endpointsRow())?.[1] === '10.244.1.5:80,10.244.1.6:80,10.244.1.7:80', 10_000, 'three ready');
  });

  test('a deleted pod leaves; a deleted Endpoints comes back; a deleted service takes its Endpoints', async () => {
    await cluster.kubectl(['delete', 'pod', 'web-0', '--grace-period=0', '--force'], { allowFail: true });
    await eventually(async () => (await endpointsRow())?.[1] === '10.244.1.6:80,10.244.1.7:80', 10_000, 'web-0 gone');

    await cluster.kubectl(['delete', 'endpoints', 'nginx']);
    await eventually(async () => (await endpointsRow())?.[1] === '10.244.1.6:80,10.244.1.7:80', 10_000, 'endpoints recreated');

    await cluster.kubectl(['delete', 'service', 'nginx']);
    await eventually(async () => (await endpointsRow()) === undefined, 10_000, 'endpoints deleted');
  });
});
